"""What a run's handle and its front end exchange (``agent/handle.py``): the requests and decisions,
the pause at a breakpoint, the sink a run hands things to, the phases and kinds of waiting, what a
run is started with, and resolving a future from any thread. No Textual here."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TYPE_CHECKING, Callable, Protocol, Union

from tui_agent.core.approval import ApprovalRequest, DecisionT
from tui_agent.core.events import Event, ModelCallStarted

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.model import Model
    from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanDecision, PlanRequest
    from tui_agent.core.sink import SessionLog
    from tui_agent.tools.base import ToolRegistry

Request = Union["ApprovalRequest", "PlanRequest", "ClarifyRequest"]
Decision = Union[DecisionT, "PlanDecision", "ClarifyAnswers"]
Messages = list[dict[str, str]]
Follower = Callable[[Event], None]


class Phase(StrEnum):
    """The front end's phases of a run, laid over the fold's ``Status`` (never stored in a session)."""

    NONE = ""
    STARTING = "starting"  # a model is looked for, or the engine loads, until the run has started
    PAUSED = "paused"  # at a breakpoint: the prompt inspector waits
    FAILED = "ended: error"  # the run could not start


class Waiting(StrEnum):
    """The kind of decision that waits for the person (``RunHandle.waiting_on``)."""

    TOOL_CALL = "tool call"
    PLAN = "plan"
    CLARIFY = "clarifying questions"
    BREAKPOINT = "breakpoint"


@dataclass(eq=False)
class Pause:
    """The run paused before a model call: ``release`` it with the messages to send (None: as they are)."""

    messages: Messages
    started: ModelCallStarted
    future: asyncio.Future[Messages | None]


class RunSink(Protocol):
    """What a run hands its front end, from the run's thread (the sink must be thread-safe)."""

    def asked(self, request: Request) -> None: ...
    def paused(self, pause: Pause) -> None: ...
    def released(self) -> None: ...
    def finished(self, result: dict[str, object] | None, error: str | None) -> None: ...
    def note(self, text: str | None) -> None: ...
    def settings_changed(self, settings: Settings) -> None: ...


def resolve(future: asyncio.Future | None, value: object) -> bool:
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


@dataclass
class RunSpec:
    """What a run is started with besides its question and settings (all optional)."""

    session_id: str | None = None
    resume_id: str | None = None
    store: SessionLog | None = None
    tools: ToolRegistry | None = None
    clock: Callable[[], float] | None = None
    llm: Model | None = None  # tests: the in-memory ``ScriptedModel``
    research: Any = None  # a team research's executor (``team.TeamResearch``): the engine's research hook
    listeners: list[Callable[[Event], None]] = field(default_factory=list)
    """This run's listeners besides the handle's followers (``--otel``: the tracing's)."""
    prepare_resume: Callable[..., Any] | None = None
    """With ``resume_id``: ``session.resume.prepare_resume``, handed in by the front end (storage sits
    above the engine side: agent/ imports nothing of session/)."""


