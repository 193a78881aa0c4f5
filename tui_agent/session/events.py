"""Typed events: the contract between the engine and its front ends (and the store).

The engine emits these in order; front ends render them, the store appends them. Every event
carries the session id, a step number (one step = one model call and the tool calls it made)
and a timestamp. ``ModelDelta`` is the only event that is not stored one by one: the text of a
model call is stored with ``ModelCallEnded``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

TERMINATIONS = (
    "answer",
    "token_limit",
    "call_limit",
    "time_limit",
    "budget_limit",
    "user_submit",
    "format_error",
    "model_error",
    "cancelled",
)


@dataclass(kw_only=True)
class Event:
    type: ClassVar[str] = "event"
    stored: ClassVar[bool] = True
    session_id: str = ""
    step: int = 0
    ts: float = field(default_factory=time.time)
    elapsed_s: float = 0.0  # the run's elapsed time (human waits excluded) when emitted

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["type"] = self.type
        return d

    def stored_dict(self) -> dict[str, Any]:
        """What the store keeps (by default everything)."""
        return self.to_dict()


@dataclass(kw_only=True)
class RunStarted(Event):
    type: ClassVar[str] = "run_started"
    question: str
    model: str
    settings: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False
    system_prompt: str = ""


@dataclass(kw_only=True)
class ModelCallStarted(Event):
    """A model call is about to be made with exactly these messages."""

    type: ClassVar[str] = "model_call_started"
    messages: list[dict[str, str]]
    message_tokens: list[int]
    prompt_tokens: int
    threshold: int
    context_window: int
    purpose: str = "research"  # research | forced | extract
    model: str = ""

    def stored_dict(self) -> dict[str, Any]:
        # The full messages are rebuilt from the other events (see resume.py); storing them on
        # every call would make the database grow with the square of the run's length. Built field
        # by field: to_dict() (dataclasses.asdict) would deep-copy every message first, at every call.
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["messages"] = []
        d["message_tokens"] = list(self.message_tokens)
        d["type"] = self.type
        return d


@dataclass(kw_only=True)
class ModelDelta(Event):
    """A piece of streamed text (``reasoning`` True for provider-separated reasoning)."""

    type: ClassVar[str] = "model_delta"
    stored: ClassVar[bool] = False
    text: str
    reasoning: bool = False
    purpose: str = "research"


@dataclass(kw_only=True)
class ModelCallEnded(Event):
    """The model call finished (or was cancelled); ``text`` is the reply after cutting."""

    type: ClassVar[str] = "model_call_ended"
    text: str
    thought: str = ""
    reasoning: str = ""
    cancelled: bool = False
    cut: bool = False
    purpose: str = "research"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_estimate: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0


@dataclass(kw_only=True)
class Retry(Event):
    type: ClassVar[str] = "retry"
    attempt: int
    delay_s: float
    reason: str
    purpose: str = "research"


@dataclass(kw_only=True)
class ActionProposed(Event):
    type: ClassVar[str] = "action_proposed"
    call_id: str
    tool: str
    arguments: Any
    error: str | None = None  # set when the call cannot run (unknown tool, bad arguments, …)


@dataclass(kw_only=True)
class Decision(Event):
    """The answer to an approval request: approve, edit, auto, reject or submit."""

    type: ClassVar[str] = "decision"
    call_id: str
    kind: str  # approved | edited | auto | rejected | submit
    arguments: Any = None
    reason: str = ""


@dataclass(kw_only=True)
class ToolProgress(Event):
    """A sub-step inside a tool (e.g. an extraction model call); shown, stored."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    text: str
    cost_usd: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(kw_only=True)
class Observation(Event):
    type: ClassVar[str] = "observation"
    call_id: str
    tool: str
    arguments: Any
    text: str
    # ok | failed | rejected | duplicate | invalid | disabled | refused | replayed
    status: str = "ok"
    duration_s: float = 0.0
    sources: list[int] = field(default_factory=list)
    executed: bool = False  # the tool actually ran (or its recorded result was replayed)


@dataclass(kw_only=True)
class ObservationMessage(Event):
    """The user message carrying this step's <tool_response> blocks, exactly as sent."""

    type: ClassVar[str] = "observation_message"
    content: str


@dataclass(kw_only=True)
class Correction(Event):
    """A user message the engine added to steer the model (format reminder, evidence guard)."""

    type: ClassVar[str] = "correction"
    content: str
    reason: str


@dataclass(kw_only=True)
class SourceAdded(Event):
    type: ClassVar[str] = "source_added"
    number: int
    url: str
    title: str = ""
    read_at: float = 0.0


@dataclass(kw_only=True)
class PromptEdited(Event):
    """The user edited the prompt at a breakpoint: ``index`` of the message, its new content."""

    type: ClassVar[str] = "prompt_edited"
    index: int
    role: str
    content: str


@dataclass(kw_only=True)
class ForcedAnswer(Event):
    type: ClassVar[str] = "forced_answer"
    reason: str
    content: str  # the final user message of the forced request


@dataclass(kw_only=True)
class AnswerEvent(Event):
    type: ClassVar[str] = "answer"
    text: str
    tagged: bool = True
    unsupported: bool = False


@dataclass(kw_only=True)
class Notice(Event):
    type: ClassVar[str] = "notice"
    text: str
    level: str = "info"  # info | warning | error


@dataclass(kw_only=True)
class RunEnded(Event):
    type: ClassVar[str] = "run_ended"
    termination: str
    message: str = ""
    result: dict[str, Any] = field(default_factory=dict)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RunStarted, ModelCallStarted, ModelDelta, ModelCallEnded, Retry, ActionProposed, Decision,
        ToolProgress, Observation, ObservationMessage, Correction, SourceAdded, PromptEdited,
        ForcedAnswer, AnswerEvent, Notice, RunEnded,
    )
}


def event_from_dict(d: dict[str, Any]) -> Event:
    d = dict(d)
    cls = EVENT_TYPES[d.pop("type")]
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})
