"""The app's live runs: one ``RunHandle`` each, wired to the app by a bridge of its own.

Opening a run's handle is all the wiring a live run needs: its bridge follows the run's events and
is its sink, and every message the bridge posts names the handle it came from (``origin``), so the
app routes it to the views of that run. A second live run (a tab, a team's agent) is one more
``open``, not a second copy of the wiring."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from textual.message import Message

from tui_agent.agent.handle import RunHandle
from tui_agent.app.bridge import EventBridge

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState


class Runs:
    def __init__(self, post: Callable[[Message], object]) -> None:
        self.post = post
        self.handles: list[RunHandle] = []
        self._bridges: list[EventBridge] = []

    def open(self, state: SessionState, *, breakpoint_on: Callable[[], bool], cli_auto: bool,
             prepare: Callable[[Settings | None], None] | None) -> RunHandle:
        """A handle for a run showing ``state``, wired to the app through a bridge of its own."""
        bridge = EventBridge(self.post)
        handle = RunHandle(bridge, state, breakpoint_on=breakpoint_on, cli_auto=cli_auto, prepare=prepare)
        bridge.origin = handle
        handle.follow(bridge)
        self.handles.append(handle)
        self._bridges.append(bridge)
        return handle

    def close(self, handle: RunHandle) -> None:
        """Forget a closed tab's run (stopped first): its bridge is flushed no more."""
        if handle in self.handles:
            i = self.handles.index(handle)
            del self.handles[i], self._bridges[i]

    def flush(self) -> None:
        """Hand every run's buffered stream text to the UI (the app's timer)."""
        for bridge in self._bridges:
            bridge.flush()

    async def stop(self) -> None:
        """Stop every run (the app closes): each records its cancellation first."""
        for handle in self.handles:
            await handle.stop()
