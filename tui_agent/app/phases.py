"""What the header says about a run: the handle's phase laid over the fold's status. No Textual here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.agent.handle import Phase, Waiting, warm_up  # noqa: F401 - warm_up: the app's imports read it here
from tui_agent.core.state import Status

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState


# What the header says while a decision of each kind (``RunHandle.waiting_on``) waits for the user.
WAITING_LABELS = {
    Waiting.TOOL_CALL: str(Status.AWAITING),
    Waiting.PLAN: "awaiting plan approval",
    Waiting.CLARIFY: "awaiting your answers",
    Waiting.BREAKPOINT: str(Phase.PAUSED),
}


def status_label(phase: Phase, s: SessionState, *, waiting: str | None, note: str | None) -> str:
    """What the header says about the run: the app's phase laid over the fold's status; ``waiting``
    is the kind of decision that waits for the user (None: none), whatever the run's status says."""
    if waiting == "breakpoint":
        return WAITING_LABELS[waiting]
    if phase is Phase.FAILED:
        return str(Phase.FAILED)
    if s.ended is not None:
        return f"ended: {s.ended.termination}"
    if waiting is not None:
        return WAITING_LABELS.get(waiting, str(Status.AWAITING))
    if phase is Phase.STARTING:
        return note or str(Phase.STARTING)
    if s.status == Status.IDLE and note:
        return note
    if s.status == Status.AWAITING:  # asked, but the request has not reached the screen yet
        return str(Status.RUNNING)
    return str(s.status)
