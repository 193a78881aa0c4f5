"""A decision that waits calls the user: the header counts how long it has waited, and after
notify_after_s the app writes the bell and the desktop notification, once per decision. The app's
clock is injected, so nothing here races two timers."""

from __future__ import annotations

from tests.helpers import call
from tests.tui.conftest import scripted_app, wait_ended, wait_pending, wait_until

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"


async def test_a_waiting_call_shows_its_wait_and_rings_once_after_notify_after_s(tmp_path):
    now = [1000.0]
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="life"), call("lookup", topic="again"), ANSWER], clock=lambda: now[0], notify_after_s=10)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        assert app.main.header.waited == "0s"
        now[0] += 9  # not yet
        await wait_until(pilot, lambda: app.main.header.waited == "9s", what="the header's wait")
        assert app.decisions.written == []
        now[0] += 3
        await wait_until(pilot, lambda: app.main.header.waited == "12s", what="the header's wait")
        assert len(app.decisions.written) == 1
        rung = app.decisions.written[0]
        assert rung.startswith("\a") and "tool call waiting: lookup" in rung and "life" in rung
        now[0] += 30
        await wait_until(pilot, lambda: app.main.header.waited == "42s", what="the header's wait")
        assert len(app.decisions.written) == 1  # once per decision, not once per tick
        await pilot.press("a")
        await wait_pending(pilot, app, 2)  # the next call is a new decision: its own wait
        assert app.main.header.waited == "0s"
        now[0] += 11
        await wait_until(pilot, lambda: len(app.decisions.written) == 2, what="the second ring")
        assert "again" in app.decisions.written[1]
        await pilot.press("a")
        await wait_ended(pilot, app)
        await wait_until(pilot, lambda: app.main.header.waited == "", what="the wait to clear")


async def test_notify_off_never_rings_and_bell_only_rings(tmp_path):
    for mode, expected in (("off", []), ("bell", ["\a"])):
        now = [1000.0]
        app, _, model = scripted_app(tmp_path / mode, [call("lookup", topic="life"), ANSWER], clock=lambda: now[0], notify=mode, notify_after_s=5)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_pending(pilot, app)
            now[0] += 20
            await wait_until(pilot, lambda: app.main.header.waited == "20s", what="the header's wait")
            assert app.decisions.written == expected, mode
            await pilot.press("a")
            await wait_ended(pilot, app)


async def test_a_plan_waiting_for_its_decision_rings_like_a_call(tmp_path):
    import json

    from tui_agent.screens.plan import PlanScreen

    plan = {"sub_questions": [{"question": "What does the note say?", "acceptance": "the number",
                               "queries": ["note number"]}]}
    now = [1000.0]
    app, _, model = scripted_app(tmp_path, [json.dumps(plan), "<answer>skipped</answer>"], clock=lambda: now[0], notify_after_s=10, plan="ask",
                      require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen), what="the plan dialog")
        now[0] += 15
        await wait_until(pilot, lambda: app.decisions.written, what="the ring")
        assert "plan waiting: 1 sub-questions to approve" in app.decisions.written[0]
        assert app.main.header.waited == "15s"
