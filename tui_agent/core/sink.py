"""The seam between a run and where its events are kept: what ``agent.runner.Run`` needs of a
store, declared here so the engine's side imports nothing of ``session/``.

``session.store.Store`` (SQLite) implements :class:`SessionLog`; a test can hold a session in a list.
"""

from __future__ import annotations

import secrets
import time
from typing import Protocol

from tui_agent.core.events import Event

SettingsSummary = dict[str, object]
SHORT_ID_CHARS = 6
"""The random part of a session id: what lists show and what is easiest to type."""


def new_session_id() -> str:
    """A new session's id: its start time and a random part (``20260102-101500-d37a5d``)."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(SHORT_ID_CHARS // 2)


class NotSaved(Exception):
    """A ``durable`` event (a tool call's start) could not be kept: what it announces must not
    happen unrecorded. The message says why saving stopped."""


class LogError(Exception):
    """A session log could not do what was asked (``session.store.StoreError`` is one)."""


class SessionLog(Protocol):
    """An append-only log of sessions' events."""

    def create_session(self, session_id: str, question: str, model: str,
                       settings: SettingsSummary | None = None, *, eval_label: str | None = None,
                       case_id: str | None = None) -> None:
        """Open a new session (owned by this process while it runs)."""
        ...

    def claim(self, session_id: str, *, seen_events: int | None = None) -> None:
        """Take an existing session for this run (refused when another live process holds it)."""
        ...

    def append(self, event: Event) -> None:
        """Keep one event (stream deltas excepted); raises when it cannot be kept."""
        ...

    def mark_interrupted(self, session_id: str) -> None:
        """The session's run stopped without ending (a signal): it stays resumable; raises
        :class:`LogError` when it cannot say so."""
        ...
