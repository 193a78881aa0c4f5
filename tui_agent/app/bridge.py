"""From the engine to the UI: engine events become Textual messages posted to the app.

The engine (in a worker) calls ``EventBridge`` as a listener; the bridge never touches a
widget. Streamed deltas are not posted one by one: they are collected and posted as one
``StreamText`` message per ``STREAM_FLUSH_S`` (the app's timer calls ``flush``) or just before
the next non-delta event, so the order of what the UI sees is the order the engine emitted.
Thread-safe: ``post_message`` is, and the buffer is guarded by a lock.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable

from textual.message import Message

from tui_agent.core.events import Event, ModelDelta

# How often buffered stream text is handed to the UI (seconds).
STREAM_FLUSH_S = 0.05


class EngineEvent(Message):
    """One engine event (anything but a stream delta)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class StreamText(Message):
    """Streamed text of one model call, batched."""

    def __init__(self, step: int, text: str, reasoning: bool) -> None:
        super().__init__()
        self.step = step
        self.text = text
        self.reasoning = reasoning


class ApprovalAsked(Message):
    """The engine waits for a decision on ``request`` (resolve ``request.future``)."""

    def __init__(self, request: Any) -> None:
        super().__init__()
        self.request = request


class BreakpointHit(Message):
    """Paused before a model call: resolve ``future`` with edited messages or None."""

    def __init__(self, messages: list[dict[str, str]], started: Any, future: asyncio.Future) -> None:
        super().__init__()
        self.messages = messages
        self.started = started
        self.future = future


class BreakpointReleased(Message):
    """The pause ended without the UI resolving it (Submit now, cancellation)."""


class RunFinished(Message):
    """The run's worker is done: ``result`` dict, or ``error`` text if it crashed."""

    def __init__(self, result: dict[str, Any] | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


def resolve(future: asyncio.Future | None, value: Any) -> bool:
    """Set a future's result from any thread; False if there was nothing to resolve."""
    if future is None or future.done():
        return False
    loop = future.get_loop()

    def _set() -> None:
        if not future.done():
            future.set_result(value)

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        _set()
    else:
        loop.call_soon_threadsafe(_set)
    return True


class EventBridge:
    """The engine's listener: posts ``EngineEvent``/``StreamText`` via ``post``."""

    def __init__(self, post: Callable[[Message], Any]) -> None:
        self.post = post
        self._lock = threading.Lock()
        self._buf: list[str] = []
        self._key: tuple[int, bool] | None = None

    def __call__(self, event: Event) -> None:
        match event:
            case ModelDelta():
                key = (event.step, event.reasoning)
                with self._lock:
                    if self._key is not None and key != self._key:
                        self._flush_locked()
                    self._key = key
                    self._buf.append(event.text)
            case _:
                with self._lock:
                    self._flush_locked()
                self.post(EngineEvent(event))

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._buf and self._key is not None:
            text = "".join(self._buf)
            self._buf.clear()
            self.post(StreamText(self._key[0], text, self._key[1]))
