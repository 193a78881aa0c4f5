"""Team research in the TUI (Pilot, the in-memory scripted model of tests/unit/team_kit.py): the
team pane with three agents, opening one agent, an approval that names its agent, Submit now for
one agent and for all."""

from __future__ import annotations

import asyncio
import json
import threading

from tests.tui.conftest import SESSION_ID, wait_until
from tests.unit.plan_kit import FakeSearch
from tests.unit.team_kit import KEYS, PLAN, QUESTION, PageVisit, agent_key, standard, url
from tui_agent.app.application import ResearchApp
from tui_agent.config import Settings
from tui_agent.kinds import AgentStatus
from tui_agent.model.scripted import ScriptedModel
from tui_agent.screens.agent_screen import AgentScreen
from tui_agent.screens.context_view import ContextViewScreen
from tui_agent.screens.plan import PlanScreen
from tui_agent.screens.team_choice import TeamChoiceScreen
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry
from tui_agent.widgets.team_pane import TeamPane, line_text


def team_app(tmp_path, script=standard, **overrides) -> ResearchApp:
    base = dict(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000, team=True, plan="ask",
                auto_approve=True, data_dir=str(tmp_path / "data"), notify_after_s=0.0)
    base.update(overrides)
    settings = Settings(**base)
    results = {f"{k} facts": [url(k)] for k in KEYS}
    registry = lambda: ToolRegistry([FakeSearch(results), PageVisit()])  # noqa: E731
    app = ResearchApp(settings, QUESTION, tools=registry(), session_id=SESSION_ID, store=Store(tmp_path / "data"))
    app.llm = ScriptedModel(script)
    app.team.tools = registry
    return app


def held(hold: set[str], release: threading.Event):
    """Agents whose sub-question key is in ``hold`` wait in their first research call until
    ``release`` (set on the app's thread: the run has a loop of its own) or Submit now; a forced
    answer says what it has."""

    async def waiting(messages, purpose):
        while not release.is_set():
            await asyncio.sleep(0.01)
        return standard(messages, purpose)

    def script(messages, purpose):
        if purpose == "forced":
            return "<answer>What I have so far [1].</answer>"
        if purpose == "research" and agent_key(messages) in hold:
            return waiting
        return standard(messages, purpose)

    return script


def asking(messages, purpose):
    """A plan that approves nothing unasked (no queries, no domains): every agent's call is asked."""
    if purpose == "plan":
        plan = {"sub_questions": [dict(q, queries=[]) for q in PLAN["sub_questions"]], "domains": []}
        return "```json\n" + json.dumps(plan) + "\n```"
    return standard(messages, purpose)


def pane_lines(app) -> list[str]:
    pane = app.main.query_one_optional("#team", TeamPane)
    return [line_text(a) for a in pane.lines] if pane is not None else []


def statuses(app) -> list[AgentStatus]:
    return [a.status for a in app.team.team.agents] if app.team.team is not None else []


async def test_the_team_pane_lists_three_agents_with_status_and_tokens_and_the_report_is_the_answer(tmp_path):
    app = team_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")
        await pilot.pause(0.1)
        lines = pane_lines(app)
        assert len(lines) == 3
        assert "1. How tall is the Alpha tower?" in lines[0] and "2. When did the Beta bridge op…" in lines[1]
        assert all("· done ·" in line and " 0 tok" not in line for line in lines), lines
        assert "## 1. How tall is the Alpha tower?" in app.session.answer.text
        assert "3/3 ended" in app.main.query_one(TeamPane).border_title


async def test_enter_on_a_line_opens_that_agents_panes_and_g_returns_to_the_team(tmp_path):
    release = threading.Event()
    app = team_app(tmp_path, held({"beta"}, release))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: statuses(app)[:1] == [AgentStatus.DONE] and len(pane_lines(app)) == 3,
                         what="agent 1 done, the pane shown")
        await pilot.press("g")  # focus the team pane
        assert app.focused is app.main.query_one(TeamPane)
        await pilot.press("enter")  # the first line: agent 1
        await wait_until(pilot, lambda: isinstance(app.screen, AgentScreen) and app.screen.ready.is_set())
        screen = app.screen
        assert screen.number == 1 and screen.session.answer is not None
        await pilot.pause(0.1)
        assert "alpha figure is 42" in screen.session.answer.text
        assert screen.query_one("#gauge").figures.calls >= 1  # its own gauge
        await pilot.press("x")  # its context view
        await wait_until(pilot, lambda: isinstance(app.screen, ContextViewScreen))
        assert app.screen.handle is screen.handle and app.screen.handle is not app.handle
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("g")
        await wait_until(pilot, lambda: app.screen is app.main, what="back to the team view")
        release.set()
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")


async def test_an_approval_names_its_agent_in_the_pane_the_action_pane_and_the_bell(tmp_path):
    app = team_app(tmp_path, asking, auto_approve=False, notify="all", team_concurrency=1)
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen.query("#plan-view"),
                         what="the plan dialog")
        await pilot.press("a")  # approve the plan
        await wait_until(pilot, lambda: app.pending is not None and getattr(app.pending, "agent", ""),
                         what="an agent's tool call")
        await pilot.pause(0.1)
        assert app.pending.agent == "agent 1: How tall is the Alpha tower?"
        assert statuses(app)[0] == AgentStatus.WAITING
        await wait_until(pilot, lambda: any("▶ 1." in line and "waiting for you" in line for line in pane_lines(app)),
                         what="the pane marks the waiting agent")
        shown = str(app.main.action.query_one("#call-view").render())  # the action pane, drawn
        assert "agent 1: How tall is the Alpha tower? asks" in shown
        await wait_until(pilot, lambda: app.decisions.written, what="the bell")
        assert "agent 1: How tall is the Alpha tower? asks: search" in app.decisions.written[-1]
        app.settings.auto_approve = True
        await pilot.press("y")  # auto mode approves the rest
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")


async def test_the_agents_view_shows_its_own_approval_and_a_approves_it(tmp_path):
    app = team_app(tmp_path, asking, auto_approve=False, team_concurrency=1)
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen.query("#plan-view"))
        await pilot.press("a")
        await wait_until(pilot, lambda: app.pending is not None and getattr(app.pending, "agent", ""))
        await wait_until(pilot, lambda: len(pane_lines(app)) == 3)
        await pilot.press("g", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentScreen) and app.screen.ready.is_set())
        await pilot.pause(0.1)
        assert app.screen._mode() == "pending"
        first = app.pending
        await pilot.press("a")
        await wait_until(pilot, lambda: app.pending is not first, what="the decision")
        assert isinstance(app.screen, AgentScreen)  # decided from the agent's view
        app.handle.set_auto(True)  # the rest approved
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")


async def test_submit_now_for_the_focused_agent_makes_it_alone_answer(tmp_path):
    release = threading.Event()
    app = team_app(tmp_path, held({"alpha", "beta"}, release))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: len(pane_lines(app)) == 3 and statuses(app)[2] == AgentStatus.DONE,
                         what="agent 3 done, 1 and 2 held")
        await pilot.press("g", "down")  # agent 2 highlighted
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, TeamChoiceScreen))
        await pilot.press("f")  # this agent
        await wait_until(pilot, lambda: statuses(app)[1] in (AgentStatus.DONE, AgentStatus.NEEDS_REVIEW),
                         what="agent 2 answered")
        assert statuses(app)[0] == AgentStatus.RUNNING  # the others go on
        release.set()
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")
        agents = {a["agent"]: a for a in app.last_result["agents"]}
        assert agents[2]["termination"] == "user_submit" and agents[1]["termination"] == "answer"


async def test_submit_now_for_all_agents_makes_every_running_one_answer(tmp_path):
    app = team_app(tmp_path, held({"alpha", "beta", "gamma"}, threading.Event()))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: len(pane_lines(app)) == 3 and all(
            a.state is not None and a.state.in_flight for a in app.team.team.agents), what="three agents held")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, TeamChoiceScreen))
        await pilot.press("a")  # all agents
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")
        terms = {a["agent"]: a["termination"] for a in app.last_result["agents"]}
        assert terms == {1: "user_submit", 2: "user_submit", 3: "user_submit"}
        assert app.session.answer is not None


async def test_k_stops_the_focused_agent_alone_and_its_line_says_failed(tmp_path):
    release = threading.Event()
    app = team_app(tmp_path, held({"beta"}, release))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: len(pane_lines(app)) == 3 and statuses(app)[0] == AgentStatus.DONE
                         and statuses(app)[2] == AgentStatus.DONE, what="agents 1 and 3 done, 2 held")
        await pilot.press("g", "down", "k")
        await wait_until(pilot, lambda: isinstance(app.screen, TeamChoiceScreen))
        await pilot.press("f")
        await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the team run")
        await pilot.pause(0.1)
        assert "failed: stopped by you" in pane_lines(app)[1]
        assert [s["status"] for s in app.last_result["sections"]] == ["answered", "incomplete", "answered"]


async def test_a_team_session_resumed_with_team_mode_off_goes_on_as_a_team(tmp_path):
    release = threading.Event()
    app = team_app(tmp_path, held({"beta"}, release))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: len(pane_lines(app)) == 3 and statuses(app)[0] == AgentStatus.DONE
                         and statuses(app)[2] == AgentStatus.DONE, what="agents 1 and 3 done, 2 held")
        await app.runs.stop()  # closing the app cancels the run: the session stays resumable
    again = team_app(tmp_path, team=False)
    again.resume, again.question = SESSION_ID, None
    async with again.run_test(size=(140, 44)) as pilot:
        await wait_until(pilot, lambda: again.session.ended is not None and again.last_result is not None,
                         what="the end of the resumed team run")
        agents = {a["agent"]: a for a in again.last_result["agents"]}
        assert agents[2]["termination"] == "answer" and agents[2]["status"] == "done"
        assert "## 2. When did the Beta bridge open?" in again.session.answer.text
