"""Plan mode in the TUI (Pilot, real local chat server): propose → edit → approve, replan with
feedback, skip, clarify; the plan pane shows each sub-question's status."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

from textual.widgets import Input

from tests.helpers import call
from tests.tui.conftest import scripted_app, wait_ended, wait_pending, wait_until
from tui_agent.screens.plan import ClarifyScreen, PlanScreen
from tui_agent.widgets.plan_pane import PlanPane

PLAN = {"sub_questions": [{"question": "What does the note say?", "acceptance": "the number",
                           "queries": ["note number"]}], "domains": ["notes.example"], "budget": {"max_calls": 5}}
ANSWER = ("<answer>## 1. What does the note say?\nThe note says the answer is 42 [1], as the local notes on the "
          "topic state plainly, and nothing in them contradicts it anywhere in the text that we read today.</answer>")


def plan_open(app) -> bool:
    """The plan dialog is up and composed (pushed is not enough: its widgets come a frame later)."""
    return isinstance(app.screen, PlanScreen) and bool(app.screen.query("#plan-view"))


async def test_propose_edit_the_fields_then_approve_runs_the_edited_plan(tmp_path):
    app, tool, model = scripted_app(tmp_path, [json.dumps(PLAN), call("lookup", topic="a"), ANSWER], plan="ask")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: plan_open(app), what="the plan dialog")
        assert "note number" in str(app.screen.query_one("#plan-view").render())
        await pilot.press("e")
        await wait_until(pilot, lambda: app.screen.query("#sq-1-question"), what="the fields")
        box = app.screen.query_one("#sq-1-question", Input)
        box.value = "What number does the note give?"
        app.screen.query_one("#sq-1-queries", Input).value = "note number | the number in the note"
        await pilot.press("ctrl+s")
        await wait_pending(pilot, app, 1)  # lookup is outside any plan: asked, and marked
        await pilot.pause()
        drawn = app.export_screenshot().replace("&#160;", " ")
        assert "outside\u00a0the\u00a0plan" in app.export_screenshot() or "outside the plan" in drawn  # drawn, not only set
        await pilot.press("a")
        await wait_ended(pilot, app)
        plan = app.session.plan.approved
        assert plan.sub_questions[0].question == "What number does the note give?"
        assert plan.sub_questions[0].queries == ["note number", "the number in the note"]
        assert [d.kind for d in app.session.plan.decisions] == ["edited"]
        research = model.calls[1].messages[1]["content"]
        assert "What number does the note give?" in research and "the number in the note" in research
        pane = app.main.query_one(PlanPane)
        assert pane.display and "1/1 answered" in pane.border_title
        assert app._figures().max_calls == 5  # the plan's budget is the gauge's call limit


@asynccontextmanager
async def plan_editor(tmp_path, key: str):
    """A plan proposed and its dialog open in the editor ``key`` opens (j: JSON, e: fields)."""
    app, _, model = scripted_app(tmp_path, [json.dumps(PLAN), ANSWER], plan="ask", require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: plan_open(app), what="the plan dialog")
        await pilot.press(key)
        yield app, pilot


async def saved_with_error(pilot, app) -> str:
    """Save the plan editor's text; the dialog stays open with an error, which is returned."""
    await pilot.press("ctrl+s")
    await pilot.pause()
    error = str(app.screen.query_one("#plan-error").render())
    assert plan_open(app), error
    return error


async def test_edit_the_json_is_checked_against_the_schema_before_it_approves(tmp_path):
    async with plan_editor(tmp_path, "j") as (app, pilot):
        area = app.screen.query_one("#plan-json")
        area.text = json.dumps({"sub_questions": []})
        assert "sub_questions" in await saved_with_error(pilot, app)
        area.text = json.dumps(dict(PLAN, domains=["edited.example"]))
        await pilot.press("ctrl+s")
        await wait_ended(pilot, app)
        assert app.session.plan.approved.domains == ["edited.example"]


async def test_the_json_editor_rejects_a_sub_question_without_acceptance_or_queries(tmp_path):
    async with plan_editor(tmp_path, "j") as (app, pilot):
        area = app.screen.query_one("#plan-json")
        bare = {"question": "Which year?", "acceptance": "", "queries": []}
        area.text = json.dumps({"sub_questions": [PLAN["sub_questions"][0], bare]})
        error = await saved_with_error(pilot, app)
        assert "Which year?" in error and "acceptance" in error and "query" in error, error
        area.text = json.dumps({"sub_questions": [dict(bare, acceptance="a year", queries=["note year"])]})
        await pilot.press("ctrl+s")
        await wait_ended(pilot, app)
        assert app.session.plan.approved.sub_questions[0].queries == ["note year"]


async def test_the_fields_editor_rejects_an_emptied_acceptance(tmp_path):
    async with plan_editor(tmp_path, "e") as (app, pilot):
        await wait_until(pilot, lambda: app.screen.query("#sq-1-acceptance"), what="the fields")
        app.screen.query_one("#sq-1-acceptance", Input).value = ""
        error = await saved_with_error(pilot, app)
        assert "acceptance" in error and "query" not in error, error
        app.screen.query_one("#sq-1-acceptance", Input).value = "the number"
        await pilot.press("ctrl+s")
        await wait_ended(pilot, app)


async def test_the_plan_editor_refuses_an_ip_address_or_a_bare_suffix_as_a_domain_and_says_why(tmp_path):
    async with plan_editor(tmp_path, "e") as (app, pilot):
        await wait_until(pilot, lambda: app.screen.query("#plan-domains"), what="the fields")
        domains = app.screen.query_one("#plan-domains", Input)
        for value, reason in (("notes.example, 0.0.1", "IP address"), ("com", "public suffix alone")):
            domains.value = value
            assert reason in await saved_with_error(pilot, app)
        domains.value = "notes.example"
        await pilot.press("ctrl+s")
        await wait_ended(pilot, app)
        assert app.session.plan.approved.domains == ["notes.example"]


async def test_replan_with_feedback_sends_it_to_the_next_proposal(tmp_path):
    second = dict(PLAN, sub_questions=[dict(PLAN["sub_questions"][0], question="A narrower question?")])
    app, _, model = scripted_app(tmp_path, [json.dumps(PLAN), json.dumps(second), ANSWER], plan="ask", require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: plan_open(app), what="the plan dialog")
        await pilot.press("r")
        await pilot.pause()
        app.screen.query_one("#plan-feedback", Input).value = "narrower, please"
        await pilot.press("enter")
        await wait_until(pilot, lambda: plan_open(app) and app.screen.request.attempt == 2, what="proposal 2")
        assert "A narrower question?" in str(app.screen.query_one("#plan-view").render())
        assert "narrower, please" in model.calls[1].messages[-1]["content"]
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert [d.kind for d in app.session.plan.decisions] == ["replan", "approved"]


async def test_skip_researches_without_a_plan(tmp_path):
    app, tool, model = scripted_app(tmp_path, [json.dumps(PLAN), call("lookup", topic="a"), ANSWER], plan="ask")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: plan_open(app), what="the plan dialog")
        await pilot.press("k")
        await wait_pending(pilot, app, 1)
        assert "outside the plan" not in app.main.action.border_title  # no plan: nothing is outside it
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.session.plan.skipped and "Research plan" not in model.calls[1].messages[1]["content"]
        assert "skipped" in str(app.main.query_one(PlanPane).render())


async def test_clarify_questions_are_answered_in_the_tui_and_join_the_question(tmp_path):
    app, _, model = scripted_app(tmp_path, [json.dumps({"questions": ["Which notes?", "Which year?"]}), json.dumps(PLAN), ANSWER], plan="clarify", require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ClarifyScreen) and app.screen.query(Input),
                         what="the questions")
        await pilot.press(*"the local ones")
        await pilot.press("enter")  # to the next question
        await pilot.press("enter")  # left open: sends
        await wait_until(pilot, lambda: plan_open(app), what="the plan dialog")
        assert "Which notes? — the local ones" in model.calls[1].messages[1]["content"]
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.session.plan.answers == ["the local ones", ""]
        assert "the local ones" in model.calls[2].messages[1]["content"]


async def test_p_cycles_plan_mode_for_the_next_question(tmp_path):
    app, _, model = scripted_app(tmp_path, [ANSWER], require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        modes = []
        for _ in range(3):
            await pilot.press("p")
            modes.append(app.settings.plan)
        assert modes == ["ask", "clarify", "off"]
