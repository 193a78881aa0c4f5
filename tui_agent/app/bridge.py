"""From a run to the UI: what the run's handle hands its sink becomes Textual messages posted to the app.

The run (on its own thread) follows its events to ``EventBridge`` and hands it what it asks
(``RunSink``); the bridge never touches a widget. Streamed deltas are not posted one by one: they
are collected and posted as one ``StreamText`` message per ``STREAM_FLUSH_S`` (the app's timer calls
``flush``) or just before the next non-delta event, so the order of what the UI sees is the order
the run emitted. Thread-safe: ``post_message`` is, and the buffer is guarded by a lock.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from textual.message import Message

from tui_agent.agent.handle import Pause, Request, RunHandle, resolve  # noqa: F401 - resolve: kept importable here
from tui_agent.core.events import Event, ModelDelta

if TYPE_CHECKING:
    from tui_agent.config import Settings

# How often buffered stream text is handed to the UI (seconds).
STREAM_FLUSH_S = 0.05


class RunMessage(Message):
    """A message from one run: ``origin`` is its handle (set by the bridge that posts it)."""

    origin: RunHandle | None = None


class EngineEvent(RunMessage):
    """One event of the run (anything but a stream delta)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class StreamText(RunMessage):
    """Streamed text of one model call, batched."""

    def __init__(self, step: int, text: str, reasoning: bool) -> None:
        super().__init__()
        self.step = step
        self.text = text
        self.reasoning = reasoning


class ApprovalAsked(RunMessage):
    """The run waits for a decision on ``request`` (``RunHandle.decide``)."""

    def __init__(self, request: Request) -> None:
        super().__init__()
        self.request = request


class BreakpointHit(RunMessage):
    """Paused before a model call: ``RunHandle.release`` the ``pause`` with edited messages or None."""

    def __init__(self, pause: Pause) -> None:
        super().__init__()
        self.pause = pause


class BreakpointReleased(RunMessage):
    """The pause ended without the UI releasing it (Submit now, cancellation)."""


class RunFinished(RunMessage):
    """The run's thread is done: ``result``, or ``error`` text if it crashed."""

    def __init__(self, result: dict[str, object] | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class StartingNote(RunMessage):
    """What the header says while the run starts (None: nothing)."""

    def __init__(self, text: str | None) -> None:
        super().__init__()
        self.text = text


class SettingsResumed(RunMessage):
    """A resumed session's own settings."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings


class EventBridge:
    """A run's follower and sink (``agent.handle.RunSink``): posts messages via ``post``, each
    naming the run's handle (``origin``)."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self.origin: RunHandle | None = None
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

    def post(self, message: RunMessage) -> None:
        message.origin = self.origin
        self._post(message)

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._buf and self._key is not None:
            text = "".join(self._buf)
            self._buf.clear()
            self.post(StreamText(self._key[0], text, self._key[1]))

    # -- RunSink ------------------------------------------------------------------------------------
    def asked(self, request: Request) -> None:
        self.post(ApprovalAsked(request))

    def paused(self, pause: Pause) -> None:
        self.post(BreakpointHit(pause))

    def released(self) -> None:
        self.post(BreakpointReleased())

    def finished(self, result: dict[str, object] | None, error: str | None) -> None:
        self.post(RunFinished(result, error))

    def note(self, text: str | None) -> None:
        self.post(StartingNote(text))

    def settings_changed(self, settings: Settings) -> None:
        self.post(SettingsResumed(settings))
