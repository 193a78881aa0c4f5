"""The seam between a run and where its events are kept: what ``runner.Run`` needs of a store.

``session.store.Store`` (SQLite) implements it; a test can hold a session in a list.
"""

from __future__ import annotations

from typing import Protocol

from tui_agent.core.events import Event

SettingsSummary = dict[str, object]


class NotSaved(Exception):
    """A ``durable`` event (a tool call's start) could not be kept: what it announces must not
    happen unrecorded. The message says why saving stopped."""


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
        """The session's run stopped without ending (a signal): it stays resumable."""
        ...
