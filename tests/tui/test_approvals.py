"""Approving, editing, rejecting, always-approve and auto mode, against the real engine and the
in-memory scripted model: what the model is sent is what counts (issue 28: no HTTP server needed)."""

from __future__ import annotations

from textual.widgets import Input, Static, TextArea

from tests.helpers import call
from tests.tui.conftest import scripted_app, sent_user_contents, wait_ended, wait_pending, wait_until

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"


async def test_approve_runs_the_call_and_shows_the_answer(tmp_path):
    app, tool, model = scripted_app(tmp_path, ["<think>I should look it up.</think>" + call("lookup", topic="life"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        assert app.status_label() == "awaiting approval"
        assert app.main.header.state == "awaiting approval"
        assert tool.runs == []
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "life"}]
        assert app.status_label() == "ended: answer"
        assert app.last_result["answer"] == "It is 42 [1]."
        assert "the answer is 42" in sent_user_contents(model.calls[1].messages)[-1]
        assert app.session.calls["c1"].label == "approved"
        await wait_until(pilot, lambda: "It is 42 [1]." in app.main.query_one("#answer").text)
        assert "https://notes.example/life" in app.main.query_one("#answer").text


async def test_enter_also_approves(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="enter"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("enter")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "enter"}]


async def test_edit_invalid_json_is_refused_inline_then_valid_edit_is_what_runs(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="original"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("e")
        area = app.main.query_one("#args-text", TextArea)
        assert area.has_focus and '"original"' in area.text
        error = app.main.query_one("#args-error", Static)

        area.load_text('{"topic": "broken"')  # not JSON
        await pilot.pause()
        auto = app.main.header.auto
        await pilot.press("a", "y", "s")  # typing, not approving, auto mode or Submit now
        assert "ays" in area.text and app.main.header.auto == auto and app.pending is not None
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)
        assert "Not valid JSON" in str(error.render())
        assert app.pending is not None and tool.runs == [] and len(model.calls) == 1

        area.load_text('{"topic": 3}')  # JSON, but not what the schema allows
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)
        assert "topic" in str(error.render()) and "string" in str(error.render())
        assert app.pending is not None and tool.runs == []

        area.load_text('{"topic": "edited"}')
        await pilot.pause()
        assert str(error.render()) == ""
        await pilot.press("ctrl+s")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "edited"}]
        assert app.session.calls["c1"].label == "edited"
        assert "Notes on edited" in sent_user_contents(model.calls[1].messages)[-1]


async def test_escape_leaves_the_editor_and_the_call_still_waits(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="x"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("e")
        await pilot.press("escape")
        assert not app.main.query_one("#arg-editor").display
        assert app.pending is not None
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "x"}]


async def test_reject_with_a_reason_reaches_the_model(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="too broad"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("r")
        box = app.main.query_one("#reject-reason", Input)
        assert box.has_focus
        auto, breakpoint = app.main.header.auto, app.breakpoint
        # Keys typed into the reason, not actions (y, b, s and p are keys that act at once elsewhere).
        await pilot.press(*"narrowerbysp")
        assert box.value == "narrowerbysp" and app.pending is not None
        assert (app.main.header.auto, app.breakpoint) == (auto, breakpoint) and app.handle.auto_on() == auto
        box.value = "search something narrower"
        await pilot.press("enter")
        await wait_ended(pilot, app)
        assert tool.runs == []
        assert "The user rejected this call. Reason: search something narrower" in \
            sent_user_contents(model.calls[1].messages)[-1]
        assert app.session.calls["c1"].label == "rejected"


async def test_always_approve_stops_asking_for_that_tool(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), call("lookup", topic="c"), ANSWER])
    asked: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        notify = app.handle.approver.notify
        app.handle.approver.notify = lambda req: (asked.append(req.call_id), notify(req))
        await pilot.press("A")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "a"}, {"topic": "b"}, {"topic": "c"}]
        assert [app.session.calls[c].label for c in ("c1", "c2", "c3")] == ["approved", "auto", "auto"]
        assert asked == []  # nothing asked after c1


async def test_auto_mode_asks_nothing_for_that_run_only(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main.ready.is_set(), what="the main screen")
        await pilot.press("y")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "a"}, {"topic": "b"}]
        assert [c.label for c in app.session.calls.values()] == ["auto", "auto"]
        assert app.session.approval.auto  # the run's own policy, as folded from its events
        # The run is over: auto mode does not carry over to the next run.
        assert not app.handle.auto_on() and not app.main.header.auto


async def test_auto_mode_switched_on_while_a_request_is_on_its_way_approves_it(tmp_path):
    """y pressed after the engine asked but before the question reached the screen, with the engine's
    loop yet to take the key: the request is approved when it arrives, never left waiting (a press
    right after the screen appeared once hung the run this way on a loaded machine)."""
    import threading

    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), ANSWER])
    held: list = []
    deliver = app.decisions.ask
    app.decisions.ask = held.append  # the question is still on its way to the screen
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: bool(held), what="the engine's request for c1")
        release, blocked = threading.Event(), threading.Event()

        def hold() -> None:  # the engine's loop is busy: it has not taken the key yet
            blocked.set()
            release.wait(30)

        app.handle._engine_loop.call_soon_threadsafe(hold)
        await wait_until(pilot, blocked.is_set, what="the engine's loop held")
        await pilot.press("y")
        assert app.pending is None and app.main.header.auto
        app.decisions.ask = deliver
        deliver(held[0])
        release.set()
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "a"}, {"topic": "b"}]
        assert [c.label for c in app.session.calls.values()] == ["auto", "auto"]


async def test_auto_mode_switched_on_at_a_prompt_approves_it(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("y")
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "a"}, {"topic": "b"}]
