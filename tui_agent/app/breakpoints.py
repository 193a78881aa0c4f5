"""Breakpoints: the engine's hook pauses before a model call until the prompt inspector answers.
Mixed into ``ResearchApp``."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from tui_agent.app.bridge import BreakpointHit, BreakpointReleased, resolve


class Breakpoints:
    """Pausing before model calls (see application.py for the state it uses)."""

    async def _before_call(self, messages: list[dict[str, str]], started: Any) -> list[dict[str, str]] | None:
        """The engine's breakpoint hook: pause when asked, until the inspector answers."""
        if not (self.breakpoint or self._pause_next):
            return None
        self._pause_next = False
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.post_message(BreakpointHit(messages, started, future))
        try:
            return await future
        except asyncio.CancelledError:
            self.post_message(BreakpointReleased())
            raise

    def on_breakpoint_hit(self, message: BreakpointHit) -> None:
        from tui_agent.screens.inspector import InspectorScreen

        self.paused = message
        self.main.update_header()
        if isinstance(self.screen, InspectorScreen):
            self.pop_screen()
        s = message.started
        screen = InspectorScreen(message.messages, s.message_tokens, total=s.prompt_tokens, threshold=s.threshold,
                                 window=s.context_window, step=s.step or (self.session.step + 1), paused=True)
        self.push_screen(screen, partial(self._inspector_done, message))
        self.refresh_bindings()

    def _inspector_done(self, hit: BreakpointHit, result: Any) -> None:
        if result is None or self.paused is not hit:
            return
        if result.mode == "step":
            self._pause_next = True
        self.paused = None
        resolve(hit.future, result.messages)
        self.main.update_header()
        self.refresh_bindings()

    def on_breakpoint_released(self, message: BreakpointReleased) -> None:
        self._close_paused_inspector()

    def _close_paused_inspector(self) -> None:
        from tui_agent.screens.inspector import InspectorScreen

        self.paused = None
        for screen in list(self.screen_stack):
            if isinstance(screen, InspectorScreen) and screen.paused and screen is self.screen:
                self.pop_screen()
        self.main.update_header()
        self.refresh_bindings()
