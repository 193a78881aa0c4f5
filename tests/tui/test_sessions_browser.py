"""The session browser: list, filter, step through, export, delete, fork and resume hooks."""

from __future__ import annotations

from textual.app import App
from textual.widgets import DataTable, Input, Static, TextArea

from tests.helpers import NoteTool, call, make_engine
from tui_agent.config import Settings
from tui_agent.core.events import Notice, RunStarted
from tui_agent.screens.sessions import SessionsScreen, SessionViewScreen
from tui_agent.session.store import Store


class Host(App):
    """A bare app around the browser: it records the resume and fork hooks the browser calls."""

    def __init__(self, store: Store, export_dir) -> None:
        super().__init__()
        self.store = store
        self.settings = Settings(export_dir=str(export_dir))
        self.forks: list[tuple] = []
        self.resumes: list[str] = []

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(self.store))

    def fork_session(self, sid: str, step: int, prompt: str | None) -> None:
        self.forks.append((sid, step, prompt))

    def resume_session(self, sid: str) -> None:
        self.resumes.append(sid)


async def recorded_session(tmp_path, chat_server) -> Store:
    store = Store(tmp_path / "data")
    chat_server.script("<think>Look up life.</think>" + call("lookup", topic="life"),
                       "<think>Now death.</think>" + call("lookup", topic="death"),
                       "<think>Done.</think><answer>42 [1]</answer>")
    store.create_session("s-recorded", "What is the answer to life?", "openai/test-model")
    engine, _ = make_engine(chat_server, NoteTool())
    engine._emit, engine.session_id = store.append, "s-recorded"
    await engine.run()
    store.create_session("s-unfinished", "An unfinished question about tea", "openai/other")
    store.append(RunStarted(session_id="s-unfinished", question="An unfinished question about tea", model="m",
                            system_prompt="sys"))
    store.append(Notice(session_id="s-unfinished", text="killed"))
    store.mark_interrupted("s-unfinished")  # its process died
    return store


def table_ids(app: App) -> list[str]:
    table = app.screen.query_one(DataTable)
    return [table.coordinate_to_cell_key((i, 0))[0].value for i in range(table.row_count)]


async def test_browser_lists_filters_and_steps_through_a_session(tmp_path, chat_server):
    store = await recorded_session(tmp_path, chat_server)
    app = Host(store, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert sorted(table_ids(app)) == ["s-recorded", "s-unfinished"]
        app.screen.query_one("#filter", Input).value = "life"
        await pilot.pause()
        assert table_ids(app) == ["s-recorded"]
        app.screen.query_one(DataTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionViewScreen)
        text = lambda wid: str(app.screen.query_one(wid, Static).render())  # noqa: E731
        assert "Look up life." in text("#view-thought") and "Step 1 (1 of 3)" in text("#view-step")
        await pilot.press("right")
        assert "Now death." in text("#view-thought") and '"topic": "death"' in text("#view-actions")
        await pilot.press("right", "right")
        assert "Step 3 (3 of 3)" in text("#view-step")
        await pilot.press("left")
        assert "Step 2" in text("#view-step")


async def test_fork_from_the_viewer_passes_the_edited_prompt(tmp_path, chat_server):
    store = await recorded_session(tmp_path, chat_server)
    app = Host(store, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(SessionViewScreen(store, "s-recorded"))
        await pilot.pause()
        await pilot.press("right", "f")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert "lookup" in area.text  # the recorded system prompt, with the tool schemas
        area.text = "A NEW SYSTEM PROMPT"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.forks == [("s-recorded", 2, "A NEW SYSTEM PROMPT")]


async def test_export_asks_where_then_writes_the_report_and_delete_asks_first(tmp_path, chat_server, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = await recorded_session(tmp_path, chat_server)
    app = Host(store, tmp_path / "exports")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#filter", Input).value = "life"
        await pilot.pause()
        app.screen.query_one(DataTable).focus()
        await pilot.press("x")
        await pilot.pause()
        box = app.screen.query_one("#path-input", Input)
        assert box.value == str(tmp_path / "exports" / "tui-agent-session-s-recorded.md")
        assert not list(tmp_path.rglob("tui-agent-session-*.md"))  # nothing written before the path is confirmed
        await pilot.press("enter")
        await pilot.pause()
        report = (tmp_path / "exports" / "tui-agent-session-s-recorded.md").read_text()
        assert "## Sources" in report and "42 [1]" in report
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("n")  # no: nothing deleted
        await pilot.pause()
        assert [r.id for r in store.list_sessions()].count("s-recorded") == 1
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert "s-recorded" not in [r.id for r in store.list_sessions()]


async def test_resume_is_offered_only_for_unfinished_sessions(tmp_path, chat_server):
    store = await recorded_session(tmp_path, chat_server)
    app = Host(store, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#filter", Input).value = "tea"
        await pilot.pause()
        app.screen.query_one(DataTable).focus()
        await pilot.press("R")
        assert app.resumes == ["s-unfinished"]
        app.screen.query_one("#filter", Input).value = "life"
        await pilot.pause()
        app.screen.query_one(DataTable).focus()
        await pilot.press("R")
        await pilot.pause()
        assert app.resumes == ["s-unfinished"]  # finished: refused with a notification


async def test_browser_keys_act_on_the_viewed_session_and_escape_clears_the_filter_first(tmp_path, chat_server):
    store = await recorded_session(tmp_path, chat_server)
    app = Host(store, tmp_path / "exports")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#filter", Input)
        await pilot.press("slash")
        await pilot.press(*"s-rec")  # an id prefix filters too
        await pilot.pause()
        assert table_ids(app) == ["s-recorded"]
        await pilot.press("escape")  # clears the filter; the browser stays
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and box.value == "" and len(table_ids(app)) == 2
        assert app.screen.query_one(DataTable).has_focus  # back in the list
        box.value = "life"
        await pilot.pause()
        app.screen.query_one(DataTable).focus()
        await pilot.press("C")  # the selected session's answer, not a live run's
        assert app.clipboard.startswith("42 [1]") and "notes.example/life" in app.clipboard
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionViewScreen)
        await pilot.press("W")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        saved = tmp_path / "exports" / "answer-s-recorded.md"
        assert "42 [1]" in saved.read_text() and "# What is the answer?" in saved.read_text()
        await pilot.press("escape", "escape")  # back to the list; then the filter "life" is cleared
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and box.value == ""
        await pilot.press("escape")  # and only now the browser closes
        await pilot.pause()
        assert not isinstance(app.screen, (SessionsScreen, SessionViewScreen))


async def test_an_opened_session_shows_its_plan_and_its_context_read_only(tmp_path, chat_server):
    from tui_agent.screens.context_view import ContextViewScreen
    from tui_agent.core.events_plan import PlanDecided, PlanProposed

    store = await recorded_session(tmp_path, chat_server)
    plan = {"sub_questions": [{"question": "What does the note on life say?", "acceptance": "the number",
                               "queries": ["life"]}], "domains": [], "budget": {}}
    store.create_session("s-planned", "A planned question", "openai/test-model")
    store.append(RunStarted(session_id="s-planned", question="A planned question", model="m", system_prompt="sys"))
    store.append(PlanProposed(session_id="s-planned", plan=plan, raw="{}"))
    store.append(PlanDecided(session_id="s-planned", kind="approved", plan=plan))
    app = Host(store, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(SessionViewScreen(store, "s-planned"))
        await pilot.pause()
        pane = app.screen.query_one("#view-plan")
        assert pane.display and "What does the note on life say?" in str(pane.render())
        assert "0/1 answered" in str(pane.border_title)
        app.pop_screen()
        app.push_screen(SessionViewScreen(store, "s-recorded"))
        await pilot.pause()
        assert not app.screen.query_one("#view-plan").display  # no plan mode: no pane
        await pilot.press("c")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, ContextViewScreen)
        title = str(view.query_one("#context-title", Static).render())
        assert "read-only: a stored session" in title
        rows = view.query_one("#context-rows", DataTable)
        assert rows.row_count >= 4  # system prompt, question, two observations, …
        before = [r.text for r in view.rows.values()]
        await pilot.press("d")  # nothing to edit in a stored session: said, nothing changes
        await pilot.pause()
        assert [r.text for r in view.rows.values()] == before
        assert any("Cannot drop" in (n.title or "") for n in app._notifications)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionViewScreen)
