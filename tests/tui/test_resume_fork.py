"""Resumed and forked sessions look in the TUI exactly as if the process had never stopped.

The interrupted sessions come from real processes: a headless ``tui-agent run`` asking for an
approval on a pseudo-terminal, killed with SIGKILL while it waits.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

from tests.helpers import NoteTool, call, settings_for
from tests.integration.test_cli import ARTICLE, cli, isolated_env
from tests.tui.conftest import scripted_settings, wait_ended, wait_pending, wait_until
from tests.unit.engine_kit import KitModel
from tui_agent.app.application import ResearchApp
from tui_agent.app.leaving import leaving_note
from tui_agent.model.scripted import Partial
from tui_agent.screens.inspector import InspectorScreen
from tui_agent.screens.question import QuestionScreen
from tui_agent.screens.sessions import SessionsScreen, SessionViewScreen
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

ANSWER = "<think>Enough.</think><answer>It is 42 [1].</answer>"


def run_until_asked(tmp_path, chat, *args: str, question: str = "What is the answer?") -> str:
    """A headless run on a pseudo-terminal, killed with SIGKILL while it waits for an approval;
    returns its session id."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "run", question, "--model", "openai/test-model",
                             "--api-base", chat.base_url, "--allow-private-urls", "--no-extract", *args],
                            stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while b"[a]pprove" not in seen:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError(f"never asked: {seen.decode(errors='replace')[-2000:]}")
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                seen += os.read(master, 65536)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        os.close(master)
    store = Store(tmp_path / "data")
    try:
        (row,) = store.list_sessions()
        assert row.status == "interrupted"  # found dead when the store was opened
        return row.id
    finally:
        store.close()


def pane_text(app: ResearchApp, selector: str) -> str:
    return str(app.main.query_one(selector).query_one("Static").render()) if selector == "#action" else \
        app.main.query_one(selector).text


def call_rows(app: ResearchApp) -> list[tuple[str, ...]]:
    table = app.main.steps  # the shown run's list of calls
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_kill_9_while_a_visit_awaits_approval_then_resume_in_the_tui(tmp_path, chat_server, page_server):
    url = page_server.add("/answer", ARTICLE)
    chat_server.script("<think>Read the article.</think>" + call("visit", url=[url], goal="the answer"))
    sid = run_until_asked(tmp_path, chat_server)
    chat_server.script(ANSWER)
    settings = settings_for(chat_server, data_dir=str(tmp_path / "data"))
    app = ResearchApp(settings, None, resume=sid[:-3], store=Store(tmp_path / "data"))  # a prefix is enough
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)  # the interrupted call is asked again, not run
        assert app.status_label() == "awaiting approval" and app.main.header.session_id == sid
        action = pane_text(app, "#action")
        assert "visit" in action and url in action  # the pending call with its arguments
        rows = call_rows(app)
        assert len(rows) == 1 and rows[0][1] == "visit" and rows[0][2] == "pending"
        assert app.main.query_one("#gauge").figures.calls == 1  # counting on from the stored run
        assert "Read the article." in app.main.thought.text
        await pilot.press("left")  # step 1 is reachable
        assert app.main.view_step == 1 and "step 1 of 1" in app.main.thought.border_title
        await pilot.press("right")
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, InspectorScreen) and app.screen.messages[1]["content"] == "What is the answer?"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "answer" and app.session.session_id == sid
        assert app.session.model_calls == 2 and app.session.tool_calls == 1
        assert [s.number for s in app.session.source_list()] == [1]
    events = [e.type for e in Store(tmp_path / "data").events(sid)]
    assert events.count("action_proposed") == 1 and events.count("run_started") == 2
    assert page_server.hits == ["/answer"]
    note = leaving_note(app)
    assert sid in note and "ended: answer" in note


async def test_a_resumed_session_shows_every_step_and_asks_again_even_after_auto_mode(tmp_path):
    tool = NoteTool()
    model = KitModel(["<think>First a.</think>" + call("lookup", topic="a"),
                      "<think>Then b.</think>" + call("lookup", topic="b"), Partial()])  # the third call hangs
    settings = scripted_settings(tmp_path)
    store = Store(tmp_path / "data")
    first = ResearchApp(settings, "What is the answer?", tools=ToolRegistry([tool]), store=store,
                        session_id="s-first", llm=model)
    async with first.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, first)
        await pilot.press("y")  # auto mode for this run: c1 and c2 run without asking
        await wait_until(pilot, lambda: "c2" in first.session.calls and first.session.calls["c2"].observation,
                         what="the second call")
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")  # yes, quit
        await pilot.pause()
    assert store.get_session("s-first").status == "cancelled"
    model.script.extend(["<think>And c.</think>" + call("lookup", topic="c"), ANSWER])
    # No --model now: a resumed session brings its own (no setup screen).
    app = ResearchApp(scripted_settings(tmp_path, model=None), None, resume="s-first",
                      tools=ToolRegistry([tool]), store=store, llm=model)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app, call_n=3)  # asked again: auto mode stayed with the first run
        assert not app.handle.auto_on() and not app.main.header.auto
        assert app.session.step_numbers == [1, 2, 3]
        assert [r[0] for r in call_rows(app)] == ["1", "2", "3"]
        for _ in range(3):
            await pilot.press("left")
        assert app.main.view_step == 1 and "First a." in app.main.thought.text
        assert "step 1 of 3" in app.main.thought.border_title
        await pilot.press("right", "right", "right")
        assert app.main.view_step is None
        await pilot.press("a")
        await wait_ended(pilot, app)
    assert tool.runs == [{"topic": "a"}, {"topic": "b"}, {"topic": "c"}]


async def test_a_fork_in_the_tui_shows_its_own_steps_and_asks_again(tmp_path):
    tool = NoteTool()
    model = KitModel([*[call("lookup", topic=t) for t in "abcdefghij"], ANSWER])
    settings = scripted_settings(tmp_path, auto_approve=True)
    store = Store(tmp_path / "data")
    parent = ResearchApp(settings, "What is the answer?", tools=ToolRegistry([tool]), store=store,
                         session_id="s-parent", llm=model)
    async with parent.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, parent)
        assert parent.session.step == 11
    model.script.extend(["<think>Fresh look.</think>" + call("lookup", topic="z"), ANSWER])
    app = ResearchApp(scripted_settings(tmp_path), None,
                      tools=ToolRegistry([tool]), store=store, session_id="s-unused", llm=model)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question")
        await pilot.press("escape", "o")  # no question: open the browser instead
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionViewScreen), what="the session")
        await pilot.press("right", "right", "f")  # fork at step 3
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_pending(pilot, app, call_n=3)  # the fork's own call, asked (no --yes on this command line)
        fork_id = app.session.session_id
        assert fork_id not in ("s-parent", "s-unused") and app.main.header.session_id == fork_id
        assert app.session.step_numbers == [1, 2, 3]
        assert "step 3" in app.main.query_one("#observation").border_title  # the fork's step, not the parent's 11
        assert [r[1] for r in call_rows(app)] == ["lookup"] * 3 and call_rows(app)[2][2] == "pending"
        await pilot.press("left", "left")
        assert app.main.view_step == 1 and "step 1 of 3" in app.main.thought.border_title
        await pilot.press("right", "right")
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "answer"
    assert store.get_session(fork_id).parent_id == "s-parent"


async def test_a_new_question_after_auto_mode_asks_again(tmp_path):
    tool = NoteTool()
    model = KitModel([call("lookup", topic="a"), ANSWER, call("lookup", topic="b"), ANSWER])
    app = ResearchApp(scripted_settings(tmp_path), "First question?", tools=ToolRegistry([tool]),
                      store=Store(tmp_path / "data"), llm=model)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("A")  # always this tool, for this run
        await wait_ended(pilot, app)
        await pilot.press("N")
        await pilot.pause()
        await pilot.press(*"Second question?")
        await pilot.press("enter")
        await wait_pending(pilot, app, call_n=1)  # a new session asks again
        assert app.session.question == "Second question?" and not app.handle.auto_on()
        await pilot.press("a")
        await wait_ended(pilot, app)


def test_an_ambiguous_id_prefix_lists_the_candidates_and_exits_2(tmp_path, chat_server):
    store = Store(tmp_path / "data")
    for sid in ("20260101-aaaa-1", "20260101-aaaa-2", "20260102-bbbb-1"):
        store.create_session(sid, f"question {sid}", "m")
        store.mark_interrupted(sid)
    store.close()
    env = isolated_env(tmp_path)
    proc = cli("sessions", "show", "20260101", env=env)
    assert proc.returncode == 2 and "20260101-aaaa-1" in proc.stderr and "20260101-aaaa-2" in proc.stderr
    proc = cli("--resume", "20260101-aaaa", env=env)  # the TUI takes a prefix too, and refuses before it opens
    assert proc.returncode == 2 and "matches 2 sessions" in proc.stderr
    proc = cli("sessions", "export", "20260102", "--format", "json", env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["result"]["termination"] is None
