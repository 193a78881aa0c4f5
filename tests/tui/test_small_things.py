"""Small things a new user met (issue 16, item 14, and the fork header of item 11)."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from tests.helpers import NoteTool, call, settings_for
from tests.tui.conftest import make_app, scripted_app, wait_ended, wait_pending, wait_until
from tests.tui.test_sessions_browser import Host
from tui_agent.app.application import ResearchApp
from tui_agent.screens.question import QuestionScreen
from tui_agent.screens.sessions import SessionsScreen, SessionViewScreen
from tui_agent.session.store import SessionStatus, Store
from tui_agent.tools.base import ToolRegistry

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"
LONG_QUESTION = "Which of the three candidate theories best explains the observed drift in the measurements?"


async def test_the_reject_reason_has_a_box_and_its_label_stays_while_typing(tmp_path):
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("r")
        await pilot.press(*"too broad")
        await pilot.pause()
        box = app.main.query_one("#reject-reason", Input)
        assert box.value == "too broad"
        assert box.styles.border_top[0] not in ("", "none") and box.region.height >= 3  # a visible box
        label = app.main.query_one("#reject-label")
        assert "Reason for rejecting" in str(label.render()) and label.region.height >= 1


async def test_ctrl_a_selects_all_in_the_json_editor(tmp_path):
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("e")
        area = app.main.query_one("#args-text")
        assert area.has_focus
        await pilot.press("ctrl+a")
        assert area.selected_text == area.text and '"x"' in area.selected_text


def two_sessions(tmp_path) -> Store:
    store = Store(tmp_path / "data")
    store.create_session("20250101-120000-aaaaaa", LONG_QUESTION, "openrouter/openai/gpt-4.1-mini",
                         status=SessionStatus.INTERRUPTED)
    store.create_session("20250101-130000-bbbbbb", "A fork of it", "openai/gpt-4.1-mini",
                         parent_id="20250101-120000-aaaaaa", fork_step=3, status=SessionStatus.NEW)
    return store


def question_cells(app) -> dict[str, str]:
    table = app.screen.query_one(DataTable)
    last = len(table.columns) - 1
    return {table.coordinate_to_cell_key((i, 0))[0].value: str(table.get_cell_at((i, last)))
            for i in range(table.row_count)}


async def test_after_esc_clears_the_browser_filter_the_arrows_move_in_the_list(tmp_path):
    app = Host(two_sessions(tmp_path), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"o")
        await pilot.pause()
        await pilot.press("escape")  # clears the filter
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert app.screen.query_one("#filter", Input).value == "" and table.row_count == 2
        await pilot.press("down")
        assert table.cursor_row == 1


async def test_the_browser_question_takes_the_free_width_and_forks_are_marked(tmp_path):
    app = Host(two_sessions(tmp_path), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        question = list(table.columns.values())[-1]
        used = sum(c.get_render_width(table) for c in table.columns.values())
        assert question.get_render_width(table) >= 30 and 112 <= used <= 120  # the width left, no sideways scrolling
        cells = question_cells(app)
        assert cells["20250101-120000-aaaaaa"].startswith(LONG_QUESTION[:25])
        assert cells["20250101-120000-aaaaaa"].endswith("…")
        assert cells["20250101-130000-bbbbbb"].startswith("↳aaaaaa@3 A fork of it")
        await pilot.resize_terminal(180, 40)
        await wait_until(pilot, lambda: cells_now(app)["20250101-120000-aaaaaa"] == LONG_QUESTION,
                         what="all of the question in the wider table")  # refilled after the resize's refresh


def cells_now(app) -> dict[str, str]:
    return question_cells(app)


async def test_the_header_shows_a_found_model_before_any_question(chat_server, tmp_path):
    app, _ = make_app(chat_server, tmp_path, question=None, model=None)
    app.detect = lambda: ("openai/found-model", chat_server.base_url)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question screen")
        assert app.main.header.model == "openai/found-model"


async def test_a_forks_header_never_shows_auto_before_it_asks(tmp_path, chat_server):
    tool = NoteTool()
    chat_server.script(call("lookup", topic="a"), call("lookup", topic="b"), ANSWER)
    store = Store(tmp_path / "data")
    parent = ResearchApp(settings_for(chat_server, data_dir=str(tmp_path / "data"), auto_approve=True),
                         "What is the answer?", tools=ToolRegistry([tool]), store=store, session_id="s-parent")
    async with parent.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, parent)
    chat_server.script(call("lookup", topic="z"), ANSWER)
    app = ResearchApp(settings_for(chat_server, data_dir=str(tmp_path / "data")), None,
                      tools=ToolRegistry([tool]), store=store, session_id="s-unused")
    shown: list[bool] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question")
        app.main.watch(app.main.header, "auto", lambda on: shown.append(on), init=True)
        await pilot.press("escape", "o")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionViewScreen), what="the session")
        await pilot.press("right", "f")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_pending(pilot, app, call_n=2)
        assert True not in shown and not app.main.header.auto
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_at_80x24_nothing_trails_the_footer(tmp_path):
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_pending(pilot, app)
        # the palette key reaches the edge: no key peeks out after it (once the footer has recomposed)
        await wait_until(pilot, lambda: app.screen.get_widget_at(79, 23)[0].has_class("-command-palette"),
                         what="the palette key at the footer's right edge")


async def test_the_clock_tick_that_comes_while_the_app_closes_does_not_crash_it(tmp_path):
    # CI met this: the run's clock ticked after the app had begun removing the main screen's
    # widgets, and the gauge it wanted to update was gone. The tick is kept, nothing is raised.
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await app.main.query_one("#meters").remove()  # as teardown leaves the screen
        app._tick()
        app.refresh_gauge()
        await pilot.pause()
        assert app.main._gauge is not None and app.main._gauge.calls >= 1  # kept for a gauge composed later


async def test_the_header_takes_a_second_line_when_its_pills_no_longer_fit_and_gives_it_back(tmp_path):
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_pending(pilot, app)
        header = app.main.header
        await pilot.pause()
        assert header.region.height == 1
        real_waited = app.decisions.waited  # the app's clock sets the header's wait each tick: it says so too
        app.decisions.waited = lambda: "1h 12m 30s"
        header.breakpoint, header.auto, header.waited = True, True, "1h 12m 30s"  # pills no longer fit in 100
        await wait_until(pilot, lambda: header.region.height == 2, what="the header's second line")
        text = "".join(str(header.render_line(y).text) for y in range(2))
        assert "breakpoint" in text and "auto" in text and "1h 12m 30s" in text  # nothing cut off
        body = app.main.query_one("#body").region.y
        app.decisions.waited = real_waited
        header.breakpoint, header.waited = False, real_waited()
        await wait_until(pilot, lambda: header.region.height == 1, what="the header back on one line")
        assert app.main.query_one("#body").region.y == body - 1  # the panes below move up again
