"""What the app does around a run that the session's fold does not hold, and the imports a run
needs (done in a thread after the first frame). No Textual here: the app and its flows import it."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from tui_agent.core.state import Status

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState


class Phase(StrEnum):
    """The app's own phases, laid over the fold's ``Status`` (they are never stored in a session)."""

    NONE = ""
    STARTING = "starting"  # a model is looked for, or the engine loads, until the run has started
    PAUSED = "paused"  # at a breakpoint: the prompt inspector waits
    FAILED = "ended: error"  # the run could not start


def warm_up(settings: Settings | None = None) -> None:
    """Imports the engine needs, done in a thread after the first frame (litellm takes seconds;
    not imported when ``settings`` need none of it: :func:`tui_agent.model.llm.litellm_needed`)."""
    from tui_agent.model import llm
    from tui_agent.agent import runner  # noqa: F401

    llm.warm_up(settings)
    import tui_agent.tools  # noqa: F401
    import tui_agent.web.net  # noqa: F401


# What the header says while a decision of each kind (``RunController.waiting_on``) waits for the user.
WAITING_LABELS = {
    "tool call": str(Status.AWAITING),
    "plan": "awaiting plan approval",
    "clarifying questions": "awaiting your answers",
    "breakpoint": str(Phase.PAUSED),
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
