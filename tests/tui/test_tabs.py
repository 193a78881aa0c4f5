"""Tabs: a second research opens while the first waits for an approval; the waiting tab is marked
and the bell names it; switching back and approving; both answer into their own sessions; closing
a live tab and quitting with live tabs ask first; a stored session already open is switched to.

One scripted chat server serves both runs, in the order they ask: the first tab asks for its tool
call, then the second tab's run (which answers at once), then the first tab's after the approval."""

from __future__ import annotations

from tests.helpers import call
from tests.tui.conftest import QUESTION, make_app, wait_pending, wait_until
from tui_agent.app.tabs import TabMark
from tui_agent.screens.confirm import ConfirmScreen
from tui_agent.screens.question import QuestionScreen
from tui_agent.session.resume import load

ANSWER_1 = "<think>Found it.</think><answer>It is 42 [1].</answer>"
ANSWER_2 = "<think>Noted.</think><answer>Blue, mostly [1].</answer>"
SECOND = "Why is the sky blue?"


async def open_second_tab(pilot, app, question: str = SECOND) -> None:
    await pilot.press("ctrl+t")
    await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the new tab's question box")
    app.screen.query_one("Input").value = question
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.session.question == question, what="the second run")


async def answer_second(pilot, app, second) -> None:
    """The second tab (shown) approves its one call and answers."""
    await wait_until(pilot, lambda: app.pending is not None, what="the second tab's call")
    await pilot.press("a")
    await wait_until(pilot, lambda: second.handle.state.answer is not None, what="the second tab's answer")


def strip(app) -> str:
    return app.main.query_one("#tabs").shown_text


async def test_a_second_research_runs_while_the_first_waits_and_each_answers_into_its_own_session(
        chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"), ANSWER_2, ANSWER_1)
    now = [1000.0]
    app, _ = make_app(chat_server, tmp_path, clock=lambda: now[0], notify_after_s=10)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        first = app.tabs.shown
        await open_second_tab(pilot, app)
        second = app.tabs.shown
        assert second is not first and len(app.tabs) == 2
        # The first tab's call still waits, hidden: its tab says so.
        assert first.handle.pending is not None and first.mark() is TabMark.WAITING
        await answer_second(pilot, app, second)
        assert app.pending is None  # the shown tab's run has nothing waiting
        now[0] += 12  # the hidden tab's call has waited past notify_after_s: the bell names it
        await wait_until(pilot, lambda: first.decisions.written, what="the first tab's bell")
        assert "tab 1" in first.decisions.written[0] and "tool call waiting: lookup" in first.decisions.written[0]
        assert second.decisions.written == []
        await wait_until(pilot, lambda: "⏸ 12s" in strip(app), what="the waiting mark with its wait")
        assert f" 1 {TabMark.WAITING.value} 12s What is the answer" in strip(app)
        assert f" 2 {TabMark.ANSWERED.value} Why is the sky blue?" in strip(app)
        assert first.handle.state.answer is None  # nothing in tab 2 decided tab 1's call
        # Back to the first tab (the palette's "Tab that waits longest"), and approve there.
        await pilot.press("w")
        await wait_until(pilot, lambda: app.tabs.shown is first and app.pending is not None, what="the first tab")
        assert app.main.session is first.handle.state and app.main.handle is first.handle
        assert app.main.action.mode() == "pending"  # the call that waited while hidden is on screen
        await pilot.press("a")
        await wait_until(pilot, lambda: first.handle.state.answer is not None, what="the first tab's answer")
        await wait_until(pilot, lambda: first.mark() is TabMark.ANSWERED, what="the first tab's mark")
    # Each research answered into its own session.
    one, two = load(app.store, first.session_id), load(app.store, second.session_id)
    assert one.session_id != two.session_id
    assert "42" in one.answer.text and one.question == QUESTION
    assert "Blue" in two.answer.text and two.question == SECOND


async def test_switching_tabs_by_number_and_in_turn_shows_each_tabs_run(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"), ANSWER_2, ANSWER_1)
    app, _ = make_app(chat_server, tmp_path, max_tabs=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        first = app.tabs.shown
        await open_second_tab(pilot, app)
        second = app.tabs.shown
        await answer_second(pilot, app, second)
        plan = first.settings.plan
        await pilot.press("p")  # plan mode for this tab's next question only
        assert second.settings.plan != plan and first.settings.plan == plan
        await pilot.press("ctrl+t")  # max_tabs = 2: no third tab
        await pilot.pause()
        assert len(app.tabs) == 2 and not isinstance(app.screen, QuestionScreen)
        await pilot.press("1")
        await wait_until(pilot, lambda: app.tabs.shown is first, what="tab 1")
        assert app.main.session.question == QUESTION and app.pending is not None
        await pilot.press("right_square_bracket")
        assert app.tabs.shown is second and app.main.session.answer is not None
        await pilot.press("left_square_bracket")
        assert app.tabs.shown is first and app.pending is not None
        await pilot.press("a")
        await wait_until(pilot, lambda: first.handle.state.answer is not None, what="the first tab's answer")


async def two_waiting_tabs(pilot, app):
    """The first tab's call waits; a second research opens in a new tab and its call waits too."""
    await wait_pending(pilot, app)
    first = app.tabs.shown
    await open_second_tab(pilot, app)
    second = app.tabs.shown
    await wait_until(pilot, lambda: app.pending is not None, what="the second tab's call")
    return first, second


async def test_closing_a_live_tab_asks_then_marks_its_session_interrupted(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"))
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        first, second = await two_waiting_tabs(pilot, app)
        await pilot.press("ctrl+w")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question before closing")
        await pilot.press("escape")  # stay: nothing closes
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="the dialog to close")
        assert len(app.tabs) == 2 and second.handle.active
        await pilot.press("ctrl+w")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question before closing")
        app.screen.dismiss(True)
        await wait_until(pilot, lambda: len(app.tabs) == 1, what="the tab to close")
        assert app.tabs.shown is first and app.main.handle is first.handle and app.pending is not None
        await wait_until(pilot, lambda: list(app.main.query("StepList")) == [app.main.steps],
                         what="the closed tab's list of calls to go with it")
        await wait_until(pilot, lambda: not second.handle.active, what="the closed tab's run to stop")
        row = app.store.get_session(second.session_id)
        assert row.status == "interrupted" or row.termination == "cancelled", row
        assert first.handle.active  # the other tab's run goes on
        # The browser's resume of the closed tab's session opens it in a new tab.
        app.resume_session(second.session_id)
        await wait_until(pilot, lambda: len(app.tabs) == 2, what="the resumed session's tab")
        assert app.tabs.shown is not first and app.tabs.shown.session_id == second.session_id
        await wait_until(pilot, lambda: app.pending is not None, what="the resumed run asking its call again")


async def test_quitting_with_live_tabs_asks_once_for_all_of_them(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"))
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        first, second = await two_waiting_tabs(pilot, app)
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question before quitting")
        assert "2 runs are active" in str(app.screen.query_one(".dialog-title").render())
        app.screen.dismiss(True)
        await wait_until(pilot, lambda: not (first.handle.active or second.handle.active), what="both runs to stop")
    for tab in (first, second):
        row = app.store.get_session(tab.session_id)
        assert row.status != "running", row


async def test_opening_a_stored_session_that_is_already_open_switches_to_its_tab(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), call("lookup", topic="sky"), ANSWER_2)
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        first = app.tabs.shown
        await open_second_tab(pilot, app)
        second = app.tabs.shown
        await answer_second(pilot, app, second)
        app.resume_session(first.session_id)  # the browser's resume of the session tab 1 holds
        await pilot.pause()
        assert app.tabs.shown is first and len(app.tabs) == 2
        assert app.pending is not None  # still the same run, not a second copy of it
