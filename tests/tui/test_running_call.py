"""A call that was let run says so in the Observation pane, with its elapsed time, until its
result arrives (issue 16, item 1: a slow visit showed "Waiting for your decision." throughout)."""

from __future__ import annotations

import asyncio
import threading

from tests.helpers import NoteTool, call
from tests.tui.conftest import scripted_app, wait_ended, wait_pending, wait_until

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"


class GatedNoteTool(NoteTool):
    """NoteTool that runs until the test opens its gate (a slow fetch, with no sleeping). The tool
    runs on the engine's thread and the test on the app's: the gate is a thread-safe event."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.started = False

    async def run(self, arguments, ctx):
        self.started = True
        await asyncio.to_thread(self.gate.wait, 60)
        return await super().run(arguments, ctx)


async def test_an_approved_slow_call_shows_running_with_elapsed_time_then_its_result(tmp_path):
    now = [1000.0]
    tool = GatedNoteTool()
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="slow"), ANSWER], tool=tool, clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        pane = app.main.query_one("#observation")
        await wait_until(pilot, lambda: "Waiting for your decision" in pane.text, what="the pending call")
        await pilot.press("a")
        await wait_until(pilot, lambda: tool.started, what="the tool to start")
        await wait_until(pilot, lambda: "Running… 0:00" in pane.text, what="the running call")
        assert "Waiting for your decision" not in pane.text
        now[0] += 67  # the screen's clock, moved by hand: its 1 s timer shows the new time
        await wait_until(pilot, lambda: "Running… 1:07" in pane.text, what="the elapsed time to advance")
        tool.gate.set()
        await wait_until(pilot, lambda: "Notes on slow: the answer is 42." in pane.text, what="the result")
        assert "Running" not in pane.text
        await wait_ended(pilot, app)
