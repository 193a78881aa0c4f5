"""The context view (x): what the next model call holds, and drop / pin / summarise / restore on
its rows, against the real engine and the scripted chat server. What counts is what the user sees
in the view and what the server receives in the next prompt; then resume and fork after an edit."""

from __future__ import annotations

from textual.widgets import DataTable, TextArea

from tests.helpers import NoteTool, call
from tests.tui.conftest import (
    SESSION_ID, inspector_open, scripted_app, sent_user_contents, wait_ended, wait_pending, wait_until,
)
from tui_agent.app.application import ResearchApp
from tui_agent.screens.context_view import ContextViewScreen
from tui_agent.screens.inspector import InspectorScreen
from tui_agent.screens.question import QuestionScreen
from tui_agent.screens.sessions import SessionsScreen, SessionViewScreen
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry
from tui_agent.widgets.context_bar import ContextBar

ANSWER = "<think>Enough.</think><answer>It is 42 [1].</answer>"
FILLER = "filler words here"
STUB = "[dropped: observation of lookup"


def big_tool() -> NoteTool:
    return NoteTool(size=300)  # about 900 tokens per observation


def view_open(app) -> bool:
    return isinstance(app.screen, ContextViewScreen) and app.screen.loaded


def table_rows(app) -> dict[str, tuple[str, ...]]:
    table = app.screen.query_one("#context-rows", DataTable)
    return {str(key.value): tuple(str(c) for c in table.get_row(key)) for key in table.rows}


def notes(app) -> str:
    return "\n".join(n.message for n in app._notifications)


async def open_view(pilot, app) -> None:
    await pilot.press("x")
    await wait_until(pilot, lambda: view_open(app), what="the context view")
    await pilot.pause()


async def view_at_second_call(pilot, app) -> None:
    """The first call approved, the second one waiting, and the context view open."""
    await wait_pending(pilot, app)
    await pilot.press("a")
    await wait_pending(pilot, app, call_n=2)
    await open_view(pilot, app)


async def select(pilot, app, target: str) -> None:
    """Move the row cursor to ``target`` with the arrow keys, as a user does."""
    table = app.screen.query_one("#context-rows", DataTable)
    want = table.get_row_index(target)
    while table.cursor_row != want:
        await pilot.press("down" if table.cursor_row < want else "up")
    await wait_until(pilot, lambda: app.screen.selected == target, what=f"row {target}")


async def test_x_opens_the_context_view_with_totals_the_gate_and_a_row_per_item_and_it_follows_the_run(
        tmp_path):
    app, tool, model = scripted_app(tmp_path, ["<think>Look up a.</think>" + call("lookup", topic="a"),
                       "<think>Now b.</think>" + call("lookup", topic="b"), ANSWER], tool=big_tool())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await open_view(pilot, app)
        rows = table_rows(app)
        assert list(rows) == ["system", "question", "thought:1", "call:c1"]
        assert rows["question"][0] == "question" or "question" in rows["question"][0]
        bar = str(app.screen.query_one(ContextBar).render())
        assert "system prompt" in bar and "thoughts" in bar  # the totals per category come first
        assert "gate ┃ 28,000" in bar and "window 32,000" in bar  # 32,000 window − 4,000 answer reserve
        assert "┃" in bar.splitlines()[1]  # the gate's mark on the bar
        assert "live" in str(app.screen.query_one("#context-title").render())

        app.handle.approve()  # the run goes on while the view stays open
        await wait_until(pilot, lambda: "obs:c1" in table_rows(app) and "call:c2" in table_rows(app),
                         what="the view to follow the run")
        obs = table_rows(app)["obs:c1"]
        assert obs[0].startswith("observation of lookup") and obs[0].endswith("[1]")  # its source
        tokens = int(obs[1].replace(",", ""))
        assert tokens > 800 and obs[2] == f"{tokens / 32000:.1%}"  # its share of the window
        assert "observations" in str(app.screen.query_one(ContextBar).render()).splitlines()[0]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main


def palette_lists(app, name: str) -> bool:
    """Whether the open command palette lists ``name`` first."""
    from textual.command import CommandList

    found = app.screen.query(CommandList)
    return bool(found) and found.first().option_count > 0 and \
        name in str(found.first().get_option_at_index(0).prompt)


async def test_the_palette_and_the_prompt_inspector_open_the_context_view(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Context view")
        # the palette gathers its matches in a worker: Enter before they are listed does nothing
        await wait_until(pilot, lambda: palette_lists(app, "Context view"), what="the palette's match")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: view_open(app), what="the context view from the palette")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("i")  # the prompt inspector: its Context button (and its x key)
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), what="the inspector")
        await pilot.click("#context_view")
        await wait_until(pilot, lambda: view_open(app), what="the context view from the inspector")
        await pilot.press("x")  # closes it again: back in the inspector
        await pilot.pause()
        assert isinstance(app.screen, InspectorScreen)


async def test_drop_then_restore_change_what_the_next_prompt_holds_and_wrong_actions_say_why(
        tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), call("lookup", topic="c"), ANSWER], tool=big_tool())
    async with app.run_test(size=(120, 40)) as pilot:
        await view_at_second_call(pilot, app)
        await select(pilot, app, "system")
        await pilot.press("d")
        await pilot.pause()
        assert "system prompt cannot be dropped" in notes(app)
        await select(pilot, app, "obs:c1")
        await pilot.press("r")
        await pilot.pause()
        assert "Nothing to restore" in notes(app)
        before = int(table_rows(app)["obs:c1"][1].replace(",", ""))
        await pilot.press("d")
        await wait_until(pilot, lambda: "dropped" in table_rows(app)["obs:c1"][3], what="the drop")
        row = table_rows(app)["obs:c1"]
        assert int(row[1].replace(",", "")) < 40
        assert f"(was {before:,})" in str(app.screen.query_one("#context-item-title").render())
        assert STUB in app.screen.query_one("#context-text", TextArea).text  # what is sent now
        await pilot.press("d")
        await pilot.pause()
        assert "already dropped" in notes(app)
        await pilot.press("escape", "a")  # back to the main screen, approve c2
        await wait_pending(pilot, app, call_n=3)
        sent = "\n".join(sent_user_contents(model.calls[2].messages))
        assert STUB in sent and f"{before:,} tokens]" in sent and "Notes on a" not in sent
        assert "Notes on b" in sent and FILLER in sent  # only the dropped one left

        await open_view(pilot, app)
        await select(pilot, app, "obs:c1")
        await pilot.press("r")
        await wait_until(pilot, lambda: "dropped" not in table_rows(app)["obs:c1"][3], what="the restore")
        await pilot.press("escape", "a")
        await wait_ended(pilot, app)
        sent = "\n".join(sent_user_contents(model.calls[3].messages))
        assert STUB not in sent and "Notes on a: the answer is 42." in sent
    kinds = [(e.kind, e.target) for e in Store(tmp_path / "data").events(SESSION_ID) if e.type == "context_edited"]
    assert kinds == [("drop", "obs:c1"), ("restore", "obs:c1")]


async def test_a_pinned_observation_survives_truncate_and_cannot_be_dropped_until_unpinned(tmp_path):
    # A gate low enough that truncate (keep the last round) cuts the older observations.
    app, tool, model = scripted_app(tmp_path, [*[call("lookup", topic=t) for t in "abcd"], ANSWER], tool=big_tool(), context_policy="truncate",
                         context_keep_rounds=1, compact_at=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await view_at_second_call(pilot, app)
        await select(pilot, app, "obs:c1")
        await pilot.press("p")
        await wait_until(pilot, lambda: "pinned" in table_rows(app)["obs:c1"][3], what="the pin")
        await pilot.press("d")
        await pilot.pause()
        assert "pinned: unpin it (p)" in notes(app) and "dropped" not in table_rows(app)["obs:c1"][3]
        await pilot.press("escape")
        for n in (2, 3, 4):
            await wait_pending(pilot, app, call_n=n)
            await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.session.context.compactions >= 1
        last = "\n".join(sent_user_contents(model.calls[-1].messages))
        assert "Notes on a: the answer is 42." in last  # pinned: whole
        assert "[cut: observation of lookup" in last and "Notes on b" not in last  # not pinned: a stub
        await open_view(pilot, app)
        rows = table_rows(app)
        assert "pinned" in rows["obs:c1"][3] and "cut by truncate" in rows["obs:c2"][3]
        assert "read-only" in str(app.screen.query_one("#context-title").render())  # the run has ended
        await select(pilot, app, "obs:c2")
        await pilot.press("r")
        await pilot.pause()
        assert "no run is live" in notes(app)


async def test_summarise_shows_the_proposal_and_the_edited_summary_is_what_the_next_prompt_holds(
        tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"),
                       "Proposal one: a says 42 [1].", "Proposal two: a says 42 [1].", ANSWER], tool=big_tool())
    async with app.run_test(size=(120, 40)) as pilot:
        await view_at_second_call(pilot, app)
        await select(pilot, app, "obs:c1")
        await pilot.press("s")
        area = app.screen.query_one("#context-text", TextArea)
        await wait_until(pilot, lambda: area.text == "Proposal one: a says 42 [1].", what="the proposal")
        assert not area.read_only and area.has_focus
        assert "Notes on a" in model.calls[2].messages[-1]["content"]  # the summary call read it
        await pilot.press("escape")  # cancel: nothing changes
        await pilot.pause()
        assert "Summary discarded" in notes(app) and "summarised" not in table_rows(app)["obs:c1"][3]
        assert area.read_only and FILLER in area.text

        await pilot.press("s")
        await wait_until(pilot, lambda: area.text == "Proposal two: a says 42 [1].", what="the second proposal")
        area.load_text("")
        await pilot.press(*"Edited: a gives 42 [1]")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "summarised" in table_rows(app)["obs:c1"][3], what="the summary")
        assert "Edited: a gives 42 [1]" in area.text and area.read_only
        await pilot.press("escape", "a")
        await wait_ended(pilot, app)
    sent = "\n".join(sent_user_contents(model.calls[4].messages))
    assert "[summary of observation of lookup" in sent and "Edited: a gives 42 [1]" in sent
    assert "Proposal" not in sent and "Notes on a" not in sent


async def test_an_edit_holds_on_resume_and_a_fork_from_before_it_has_the_original(tmp_path):
    tool = big_tool()
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b")], tool=tool)
    async with app.run_test(size=(120, 40)) as pilot:
        await view_at_second_call(pilot, app)
        await select(pilot, app, "obs:c1")
        await pilot.press("d")
        await wait_until(pilot, lambda: "dropped" in table_rows(app)["obs:c1"][3], what="the drop")
        await pilot.press("escape", "q", "y")  # quit while c2 waits: the session stays resumable
        await wait_until(pilot, lambda: not app.is_running, what="the app to exit")

    model.script.append(ANSWER)
    settings = app.settings
    store = Store(tmp_path / "data")
    resumed = ResearchApp(settings, None, resume=SESSION_ID, tools=ToolRegistry([tool]), store=store,
                          llm=model)
    async with resumed.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, resumed, call_n=2)
        await open_view(pilot, resumed)
        assert "dropped" in table_rows(resumed)["obs:c1"][3]  # the view shows the stored edit
        await pilot.press("escape", "a")
        await wait_ended(pilot, resumed)
    sent = "\n".join(sent_user_contents(model.calls[-1].messages))
    assert STUB in sent and "Notes on a" not in sent and "Notes on b" in sent

    model.script.append(ANSWER)
    browser = ResearchApp(settings, None, tools=ToolRegistry([tool]), store=store, session_id="s-unused",
                          llm=model)
    async with browser.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(browser.screen, QuestionScreen), what="the question")
        await pilot.press("escape", "o")
        await wait_until(pilot, lambda: isinstance(browser.screen, SessionsScreen), what="the browser")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(browser.screen, SessionViewScreen), what="the session")
        await pilot.press("right", "f")  # fork at step 2: the drop was made while step 2 waited
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: browser.session.session_id != "s-unused" and
                         len(model.calls) >= 4, what="the fork's call")
        fork_sent = "\n".join(sent_user_contents(model.calls[-1].messages))
        assert "Notes on a: the answer is 42." in fork_sent and STUB not in fork_sent
        await wait_until(pilot, lambda: "obs:c1" in browser.session.context.items, what="the fork's state")
        await pilot.press("x")
        await wait_until(pilot, lambda: view_open(browser), what="the fork's context view")
        assert "dropped" not in table_rows(browser)["obs:c1"][3]


async def test_a_drop_made_at_a_breakpoint_reaches_the_call_that_waits(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], tool=big_tool(), breakpoint=True, auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app), what="the first pause")
        await pilot.press("c")
        await wait_until(pilot, lambda: inspector_open(app) and "obs:c1" in app.session.context.items,
                         what="the pause before step 2")
        await pilot.press("x")  # the inspector's context key
        await wait_until(pilot, lambda: view_open(app), what="the context view over the inspector")
        await select(pilot, app, "obs:c1")
        await pilot.press("d")
        await wait_until(pilot, lambda: "dropped" in table_rows(app)["obs:c1"][3], what="the drop")
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen), what="back in the inspector")
        await pilot.pause()
        assert STUB in app.screen.messages[-1]["content"]  # the inspector shows what the call will send
        await pilot.press("c")
        await wait_ended(pilot, app)
    sent = sent_user_contents(model.calls[1].messages)[-1]
    assert STUB in sent and "Notes on a" not in sent
