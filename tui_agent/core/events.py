"""Typed events: the contract between the engine, its front ends, the store and every view.

A session is its events. The engine emits them in order; ``core.fold.apply`` folds each into
the session's state (the engine advances only through it), the store appends them, and every
view (the TUI, the session browser, the headless trace, the exports) is derived from the same
fold. Every event carries the session id, a step number (one step = one model call and the tool
calls it made), a timestamp and the run's elapsed time. ``ModelDelta`` is the only event that is
not stored one by one: the text of a model call is stored with ``ModelCallEnded``.

The base class is in ``event_base``; plan mode's and the citation check's events are in
``events_plan`` and ``events_verify``, re-exported here with the registry of every kind.

Kinds, statuses and terminations are the ``StrEnum``s of :mod:`tui_agent.kinds`: stored as their plain string values, compared
equal to them, so an old database reads back unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tui_agent.kinds import (  # noqa: F401 - the events' vocabulary, defined at the bottom of the package
    FORMAT_ERROR_REASONS, TERMINATIONS, ContextEditKind, CorrectionReason, DecisionKind, NoticeLevel,
    ObservationStatus, PlanDecisionKind, Purpose, Termination, Verdict,
)
from tui_agent.core.event_base import Event, field_names
from tui_agent.core.events_plan import ClarifyAnswered, ClarifyAsked, PlanDecided, PlanProposed  # noqa: F401
from tui_agent.core.events_verify import ClaimChecked, VerificationEnded, VerificationStarted  # noqa: F401
from tui_agent.core.events_team import (  # noqa: F401
    TEAM_EVENTS, AgentEnded, AgentStarted, FactsExtracted, SectionWritten,
)


@dataclass(kw_only=True)
class RunStarted(Event):
    """A run of the session starts (the first one, or a resumed one)."""

    type: ClassVar[str] = "run_started"
    question: str
    model: str
    settings: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False
    system_prompt: str = ""
    # Auto mode as given on this run's command line (--yes): approval policy never carries over
    # from an earlier run of the session.
    auto_approve: bool = False
    tools: list[dict[str, Any]] = field(default_factory=list)  # native protocol: the tools=[…] of its requests


@dataclass(kw_only=True)
class ModelCallStarted(Event):
    """A model call is about to be made with exactly these messages."""

    type: ClassVar[str] = "model_call_started"
    messages: list[dict[str, str]]
    message_tokens: list[int]
    prompt_tokens: int
    threshold: int
    context_window: int
    purpose: Purpose = Purpose.RESEARCH
    model: str = ""
    # native protocol: the request's tools=[…] (stored once, with RunStarted) and tool_choice
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: str | None = None

    def stored_dict(self) -> dict[str, Any]:
        # The full messages are rebuilt from the other events (the fold); storing them on every
        # call would make the database grow with the square of the run's length. Built field by
        # field (the messages are not even copied).
        d = {name: getattr(self, name) for name in field_names(type(self))}
        d["messages"] = []
        d["tools"] = []
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
    purpose: Purpose = Purpose.RESEARCH


@dataclass(kw_only=True)
class ModelCallEnded(Event):
    """The model call finished (or was cancelled); ``text`` is the reply after cutting."""

    type: ClassVar[str] = "model_call_ended"
    text: str
    thought: str = ""
    reasoning: str = ""
    cancelled: bool = False
    cut: bool = False  # cut at a <tool_response> the model wrote
    purpose: Purpose = Purpose.RESEARCH
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_estimate: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    finish_reason: str | None = None  # "length": the reply was cut by the token limit
    interrupted: bool = False  # cancelled because the process was stopped: a resumed run makes it again
    # native protocol: the reply's structured calls ({"id", "type", "function": {"name", "arguments"}})
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(kw_only=True)
class Retry(Event):
    type: ClassVar[str] = "retry"
    attempt: int
    delay_s: float
    reason: str
    purpose: Purpose = Purpose.RESEARCH


@dataclass(kw_only=True)
class ActionProposed(Event):
    type: ClassVar[str] = "action_proposed"
    call_id: str
    tool: str
    arguments: Any
    error: str | None = None  # set when the call cannot run (unknown tool, bad arguments, …)


@dataclass(kw_only=True)
class ApprovalRequested(Event):
    """The engine waits for a person's decision on ``call_id``."""

    type: ClassVar[str] = "approval_requested"
    call_id: str
    agent: str = ""  # a team research's sub-agent that asks ("" for the run's own calls)


@dataclass(kw_only=True)
class ApprovalModeChanged(Event):
    """Auto mode switched on or off for the rest of this run."""

    type: ClassVar[str] = "approval_mode_changed"
    auto: bool


@dataclass(kw_only=True)
class Decision(Event):
    """The answer to an approval request: approve, edit, auto, reject or submit."""

    type: ClassVar[str] = "decision"
    call_id: str
    kind: DecisionKind
    arguments: Any = None
    reason: str = ""
    always: bool = False  # also approve this tool for the rest of the run


@dataclass(kw_only=True)
class ToolStarted(Event):
    """A tool call is about to run: saved before it runs, so a resume knows it may have run even
    when its observation was never saved (it is then not run again, agent.tool_runner)."""

    type: ClassVar[str] = "tool_started"
    durable: ClassVar[bool] = True
    call_id: str
    tool: str


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
    clean_fields: ClassVar[tuple[str, ...]] = ("text",)
    call_id: str
    tool: str
    arguments: Any
    text: str
    status: ObservationStatus = ObservationStatus.OK
    duration_s: float = 0.0
    sources: list[int] = field(default_factory=list)
    executed: bool = False  # the tool actually ran (or its recorded result was replayed)


@dataclass(kw_only=True)
class ObservationMessage(Event):
    """The user message carrying this step's <tool_response> blocks, exactly as sent."""

    type: ClassVar[str] = "observation_message"
    clean_fields: ClassVar[tuple[str, ...]] = ("content", "results")  # only cleaned observations, in their blocks
    content: str
    # native protocol: one role "tool" message per call instead ({"tool_call_id", "call_id", "content"})
    results: list[dict[str, str]] = field(default_factory=list)


@dataclass(kw_only=True)
class Correction(Event):
    """A user message the engine added to steer the model (format reminder, evidence guard)."""

    type: ClassVar[str] = "correction"
    content: str
    reason: CorrectionReason


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
class ContextEdited(Event):
    """One item of the context changed (``target``: a stable id such as ``obs:c3``): dropped to a
    stub, pinned, unpinned, replaced by a summary (``text``), or restored. By a person, or by the
    facts policy (``policy``)."""

    type: ClassVar[str] = "context_edited"
    kind: ContextEditKind
    target: str
    tokens_before: int
    tokens_after: int
    text: str = ""
    policy: str = ""
    # the usage of the model call that made it (a policy's compaction or facts call), if any
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class SummaryProposed(Event):
    """A person asked for a summary of one context item (the TUI's context view): the model's
    proposal and its call's usage, counted in the run's totals whether or not the (edited) summary
    is then applied (that is a ``ContextEdited``)."""

    type: ClassVar[str] = "summary_proposed"
    target: str
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class ContextCompacted(Event):
    """A policy at the token gate compacted the context: the ``covered`` items became stubs
    (``covered_tokens``: what each held) and, for ``summarise``, ``note`` is the new state note."""

    type: ClassVar[str] = "context_compacted"
    policy: str
    tokens_before: int
    tokens_after: int
    note: str = ""
    covered: list[str] = field(default_factory=list)
    covered_tokens: list[int] = field(default_factory=list)
    # the usage of the model call that made it (a policy's compaction or facts call), if any
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class ForcedAnswer(Event):
    type: ClassVar[str] = "forced_answer"
    reason: Termination
    content: str  # the final user message of the forced request


@dataclass(kw_only=True)
class AnswerEvent(Event):
    type: ClassVar[str] = "answer"
    text: str
    tagged: bool = True
    unsupported: bool = False
    truncated: bool = False  # a forced answer cut by the length limit, kept as it came


@dataclass(kw_only=True)
class Notice(Event):
    type: ClassVar[str] = "notice"
    text: str
    level: NoticeLevel = NoticeLevel.INFO


@dataclass(kw_only=True)
class RunEnded(Event):
    type: ClassVar[str] = "run_ended"
    termination: Termination
    message: str = ""
    result: dict[str, Any] = field(default_factory=dict)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RunStarted, ModelCallStarted, ModelDelta, ModelCallEnded, Retry, ActionProposed, ApprovalRequested,
        ApprovalModeChanged, Decision, ToolStarted, ToolProgress, Observation, ObservationMessage, Correction, SourceAdded,
        PromptEdited, ForcedAnswer, AnswerEvent, Notice, RunEnded, VerificationStarted, ClaimChecked,
        VerificationEnded, ContextEdited, ContextCompacted, SummaryProposed, PlanProposed, PlanDecided, ClarifyAsked,
        ClarifyAnswered, *TEAM_EVENTS,
    )
}


def event_from_dict(d: dict[str, Any]) -> Event:
    d = dict(d)
    cls = EVENT_TYPES[d.pop("type")]
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})
