"""A session as lists show it (:class:`SessionRow`), its id and how ids are taken."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tui_agent.core.sink import SHORT_ID_CHARS, new_session_id  # noqa: F401 - re-exported: ids are the store's
from tui_agent.session.store_open import StoreError

# Ambiguous ids list at most this many candidates.
MAX_CANDIDATES = 10


class SessionStatus(StrEnum):
    NEW = "new"  # created (a fork not yet run)
    RUNNING = "running"
    ENDED = "ended"
    CANCELLED = "cancelled"  # the run was cancelled (quit, second Ctrl-C); resumable
    INTERRUPTED = "interrupted"  # its process died or was stopped by a signal; resumable


RESUMABLE = frozenset({SessionStatus.NEW, SessionStatus.CANCELLED, SessionStatus.INTERRUPTED})


class AmbiguousId(StoreError):
    """An id prefix or suffix matches several sessions; ``candidates`` lists them."""

    def __init__(self, text: str, candidates: list["SessionRow"]) -> None:
        self.candidates = candidates
        lines = "\n".join(f"  {r.id}  {r.question[:60]}" for r in candidates[:MAX_CANDIDATES])
        more = f"\n  … and {len(candidates) - MAX_CANDIDATES} more" if len(candidates) > MAX_CANDIDATES else ""
        super().__init__(f"the id {text!r} matches {len(candidates)} sessions (give more of it):\n{lines}{more}")


def short_id(session_id: str) -> str:
    """The random part of an id (``20260102-101500-d37a5d`` → ``d37a5d``): unique in practice,
    accepted wherever an id is taken; other ids are returned whole."""
    date, _, rest = session_id.partition("-")
    clock, _, random = rest.partition("-")
    if len(date) == 8 and date.isdigit() and len(clock) == 6 and clock.isdigit() and random:
        return random
    return session_id


@dataclass
class SessionRow:
    id: str
    created: float
    updated: float
    question: str
    model: str
    status: str
    termination: str | None
    parent_id: str | None
    fork_step: int | None
    steps: int
    cost_usd: float | None
    tool_calls: int = 0
    tokens: int = 0
    eval_label: str | None = None
    case_id: str | None = None
    team_parent: str | None = None  # a team research's sub-agent: its parent session
    team_agent: int | None = None  # and its number there

    @property
    def shown_status(self) -> str:
        """What a list shows: the termination of an ended run, else the status."""
        return self.termination if self.status == SessionStatus.ENDED and self.termination else self.status

    @property
    def resumable(self) -> bool:
        return self.status in RESUMABLE

    @property
    def short_id(self) -> str:
        return short_id(self.id)
