"""A hidden tab catches up when shown: tab 1's run goes on (more calls, then a long answer with its
sources) while tab 2 is shown; shown again, its list of calls, its panes and its answer are what a
view opened anew on the same folded state shows, and nothing of tab 2 is in them (nor of tab 1 in
tab 2's). Each run keeps its own list of calls and the answer pane keeps long answers rendered
(``widgets/step_list.py``, ``widgets/trace_panes.py``): this is what keeps them honest.

The footer updates its keys in place (``widgets/footer.py``): at every stop its keys are the
screen's active bindings, as Textual's footer would show them."""

from __future__ import annotations

from textual.widgets import Markdown

from tests.helpers import call
from tests.tui.conftest import make_app, wait_pending, wait_until
from tests.tui.test_tabs import open_second_tab
from tui_agent.screens.trace_text import final_answer
from tui_agent.widgets.footer import KeysFooter, keys_shown
from tui_agent.widgets.step_list import StepList

LONG_ANSWER = "<answer>" + "The answer is 42, as the notes say [1][2][3]. " * 60 + "</answer>"


def rows(table: StepList) -> list[tuple[str, ...]]:
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


def fresh_rows(state) -> list[tuple[str, ...]]:
    """The list of calls a view opened anew on ``state`` shows."""
    table = StepList()
    table.sync(state.calls.values())
    return rows(table)


def expected_keys(screen) -> list[tuple[str, str, bool]]:
    """The footer's keys as Textual's footer composes them from the screen's active bindings."""
    firsts: dict[str, tuple] = {}
    for _ns, b, enabled, _tip in screen.active_bindings.values():
        if b.show:
            firsts.setdefault(b.action, (b, enabled))
    groups = [b.group for b, _ in firsts.values()]
    out = []
    for i, (b, enabled) in enumerate(firsts.values()):
        grouped = b.group is not None and ((i > 0 and groups[i - 1] == b.group) or
                                           (i + 1 < len(groups) and groups[i + 1] == b.group))
        out.append((screen.app.get_key_display(b), "" if grouped else b.description, enabled))
    palette = screen.active_bindings.get(screen.app.COMMAND_PALETTE_BINDING)
    if palette is not None:
        out.append((screen.app.get_key_display(palette.binding), palette.binding.description, palette.enabled))
    return out


async def footer_is_the_screens(pilot, app) -> None:
    footer = app.main.query_one(KeysFooter)
    await wait_until(pilot, lambda: list(keys_shown(footer)) == expected_keys(app.main),
                     what=lambda: f"the footer's keys {list(keys_shown(footer))} != {expected_keys(app.main)}")


async def test_a_hidden_tab_shown_again_shows_its_run_as_a_new_view_would(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"),  # tab 1 asks, then tab 2
                       call("lookup", topic="moon"), call("lookup", topic="stars"), LONG_ANSWER)  # tab 1, hidden
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        first = app.tabs.shown
        first_list = app.main.steps
        assert rows(first_list) == fresh_rows(first.handle.state) and len(rows(first_list)) == 1
        await footer_is_the_screens(pilot, app)
        await open_second_tab(pilot, app)
        second = app.tabs.shown
        await wait_until(pilot, lambda: app.pending is not None, what="the second tab's call")
        await footer_is_the_screens(pilot, app)
        assert app.main.steps is not first_list
        # Tab 1's run goes on while hidden: its call approved (auto mode from here), two more, an answer.
        assert first.handle.set_auto(True)
        await wait_until(pilot, lambda: first.handle.state.answer is not None, what="the hidden tab's answer")
        await pilot.pause()
        assert first.stale and app.main.session is second.handle.state
        assert len(rows(first_list)) == 1  # hidden: not drawn, not even updated
        assert [r[1] for r in rows(app.main.steps)] == ["lookup"] and "sky" in rows(app.main.steps)[0][-1]

        app.tabs_ui.show(first)
        await pilot.pause()
        assert app.main.steps is first_list
        state = first.handle.state
        assert rows(first_list) == fresh_rows(state) and len(state.calls) == 3
        assert not any("sky" in r[-1] for r in rows(first_list))  # nothing of tab 2
        assert first_list.cursor_row == first_list.row_count - 1  # on the latest call, as a new view is
        answer = app.main.query_one("#answer")
        markdown, title = final_answer(state)
        assert answer.text == markdown and answer.border_title == title
        await wait_until(pilot, lambda: answer.document.source == markdown, what="the answer rendered")
        await footer_is_the_screens(pilot, app)

        # Tab 2 and back: each shows its own run; tab 1's long answer comes back as it was rendered.
        app.tabs_ui.show(second)
        await pilot.pause()
        assert rows(app.main.steps) == fresh_rows(second.handle.state) and app.main.steps is not first_list
        assert app.main.action.mode() == "pending"  # tab 2's call still waits on screen
        await footer_is_the_screens(pilot, app)
        app.tabs_ui.show(first)
        await pilot.pause()
        assert answer.document.source == markdown  # at once: no render to wait for
        assert [d for d in answer.children if isinstance(d, Markdown) and d.display] == [answer.document]
        assert rows(app.main.steps) == fresh_rows(first.handle.state)
        await footer_is_the_screens(pilot, app)


async def test_a_list_synced_from_one_state_then_another_shows_what_a_new_list_of_the_other_shows():
    from textual.app import App

    from tui_agent.core.state import CallState

    def calls(*specs):
        return [CallState(f"c{i}", step, tool, {"topic": topic}, duration_s=dur)
                for i, (step, tool, topic, dur) in enumerate(specs, 1)]

    async with App().run_test():  # a table's cells are made in an app
        table = StepList()
        table.sync(calls((1, "lookup", "life", 1.0), (2, "lookup", "sky", None)))
        # The same run further on (a call finished, one more), then another session reusing call ids.
        for later in (calls((1, "lookup", "life", 1.0), (2, "lookup", "sky", 2.5), (3, "visit", "moon", None)),
                      calls((2, "visit", "mars", None), (4, "lookup", "venus", 0.5), (4, "lookup", "pluto", None),
                            (6, "visit", "io", None)), []):
            table.sync(later)
            fresh = StepList()
            fresh.sync(later)
            assert rows(table) == rows(fresh) and table._steps == fresh._steps
