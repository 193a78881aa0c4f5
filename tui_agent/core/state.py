"""The session's state, as the one fold (``core.fold``) makes it from the event log.

:class:`SessionState` holds the engine's working state (the exact message list, counters, the
gates' inputs, seen calls, tool failures, this run's approval policy, what an interrupted step had
done) and what every view shows (steps, calls, sources, the answer, the status, the last prompt).
Nothing here changes state: ``fold.apply`` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tui_agent.core.events import (
    AnswerEvent, CorrectionReason, DecisionKind, Notice, ObservationStatus, Purpose, RunEnded, Termination, Verdict,
)
from tui_agent.core.context_items import ContextState
from tui_agent.core.plan_state import PlanState
from tui_agent.core.team_state import TeamState
from tui_agent.core.live import StreamSplitter

# Used when a session's settings do not say (sessions stored before the setting existed).
DEFAULT_FAILURE_LIMIT = 3


class Status(StrEnum):
    """Where a run stands, as its events say (the front end's own phases, such as starting or
    paused at a breakpoint, are the app's: ``app.phases.Phase``)."""

    IDLE = "idle"
    RUNNING = "running"
    AWAITING = "awaiting approval"
    ANSWERING = "answering"
    ENDED = "ended"


ACTIVE = frozenset({Status.RUNNING, Status.AWAITING, Status.ANSWERING})


def canonical_call(name: str, arguments: Any) -> str:
    """A call's key in ``SessionState.seen_calls`` (and a recorded call's in a replay): its tool and
    its arguments with sorted keys."""
    return name + ":" + json.dumps(arguments, sort_keys=True, ensure_ascii=False)


@dataclass
class CallState:
    """One tool call: what the model proposed, what was decided, what came back."""

    call_id: str
    step: int
    tool: str
    arguments: Any
    error: str | None = None  # the call could not run (unknown tool, bad arguments)
    decision: DecisionKind | None = None
    decided_arguments: Any = None
    proposed: Any = None  # the arguments the model wrote, when a person edited them (``arguments``: what ran)
    reason: str = ""
    status: ObservationStatus | None = None  # None until its observation
    observation: str | None = None  # the text the model got, once the call finished
    duration_s: float | None = None
    sources: list[int] = field(default_factory=list)
    executed: bool = False
    started: bool = False  # its ToolStarted was recorded: it may have run, even without an observation
    progress: list[str] = field(default_factory=list)
    awaiting: bool = False  # a person is being asked

    @property
    def label(self) -> str:
        """The status shown beside the call."""
        if self.status is not None and self.status not in (ObservationStatus.OK, ObservationStatus.REJECTED):
            return str(self.status)
        if self.decision == DecisionKind.SUBMIT:
            return "not run"
        if self.decision is not None:
            return str(self.decision)
        return "pending" if self.status is None else str(self.status)

    def short_arguments(self, limit: int = 60) -> str:
        text = json.dumps(self.arguments, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class StepState:
    """One step: a model call and the tool calls it made."""

    number: int
    purpose: Purpose = Purpose.RESEARCH
    thought: str = ""
    reply: str = ""
    reasoning: str = ""
    live_thought: str = ""
    live_call: str = ""
    live_answer: str = ""
    ended: bool = False
    cancelled: bool = False
    interrupted: bool = False  # stopped with its process (a signal): made again under this number
    cut: bool = False
    finish_reason: str | None = None
    prompt_tokens_estimate: int = 0
    prompt_tokens: int | None = None  # as the provider measured it
    completion_tokens: int | None = None
    cost_usd: float | None = None
    duration_s: float | None = None
    calls: list[CallState] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # retries, prompt edits, cancellation
    corrections: list[tuple[CorrectionReason, str]] = field(default_factory=list)

    @property
    def shown_thought(self) -> str:
        return self.thought if self.ended else self.live_thought

    @property
    def empty(self) -> bool:
        """Nothing to show: a call cancelled before any text or action arrived."""
        return (self.cancelled and not self.reply.strip() and not self.live_thought.strip() and not self.calls
                and not self.corrections)

    @property
    def unfinished(self) -> bool:
        """Its model call never completed (cancelled empty, or its process stopped mid-call, by
        kill -9 or a signal): the next call is made under the same step number, in its place."""
        return (self.empty or (self.interrupted and not self.calls and not self.corrections)
                or (not self.ended and not self.calls and not self.corrections))


@dataclass
class SourceState:
    number: int
    url: str
    title: str = ""
    read_at: float = 0.0


@dataclass
class PromptView:
    """The last model call's request, for the prompt inspector."""

    step: int
    purpose: Purpose
    messages: list[dict[str, str]]
    message_tokens: list[int]
    prompt_tokens: int
    threshold: int
    context_window: int
    tools: list[dict[str, Any]] = field(default_factory=list)  # native protocol: the request's tools=[…]
    tool_choice: str | None = None  # native protocol: "none" for the forced answer


@dataclass
class ClaimState:
    claim: str
    sources: list[int]
    verdict: Verdict
    evidence: str = ""
    note: str = ""


@dataclass
class Verification:
    """The latest citation check of the answer (``ClaimChecked`` events, then a summary)."""

    model: str
    sample: int
    claims: list[ClaimState] = field(default_factory=list)
    ended: bool = False
    needs_review: bool = False

    def count(self, verdict: Verdict) -> int:
        return sum(1 for c in self.claims if c.verdict == verdict)

    @property
    def unsupported_share(self) -> float | None:
        return self.count(Verdict.UNSUPPORTED) / len(self.claims) if self.claims else None


@dataclass
class ApprovalPolicy:
    """This run's approval policy: auto mode and the tools always approved. Reset by every
    RunStarted, so it never carries over to a resumed run, a fork or another session."""

    auto: bool = False
    always: set[str] = field(default_factory=set)


@dataclass
class SessionState:
    session_id: str = ""
    question: str = ""
    model: str = ""
    system_prompt: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    runs: int = 0
    status: Status = Status.IDLE
    # -- what the next model call sends -------------------------------------------------------
    messages: list[dict[str, str]] = field(default_factory=list)
    last_observation_index: int | None = None
    request_tools: list[dict[str, Any]] = field(default_factory=list)  # native protocol: tools=[…] of the run
    protocol: str = "tags"  # the tool-calling protocol the session started with (a resume or fork keeps it)
    context: ContextState = field(default_factory=ContextState)  # the items and their overrides (context.items)
    peak_prompt_tokens: int = 0  # the largest prompt sent in a research step
    # -- counters -------------------------------------------------------------------------------
    step: int = 0
    model_calls: int = 0  # research calls that completed (the call gate)
    in_flight: bool = False  # a research call has started and not ended
    tool_calls: int = 0
    call_seq: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    auxiliary_tokens: int = 0  # of the totals above: tools' own model calls (extraction), not research steps
    cost_usd: float | None = None
    elapsed_s: float = 0.0
    last_ts: float = 0.0  # the latest event's timestamp (a resumed run's events come after it)
    # -- the gates' and guards' inputs --------------------------------------------------------
    tool_ran: bool = False
    evidence_refused: bool = False
    format_errors: int = 0
    seen_calls: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)
    approval: ApprovalPolicy = field(default_factory=ApprovalPolicy)
    # -- views --------------------------------------------------------------------------------
    steps: dict[int, StepState] = field(default_factory=dict)
    calls: dict[str, CallState] = field(default_factory=dict)
    sources: dict[str, SourceState] = field(default_factory=dict)  # by URL
    pending_approval: str | None = None
    last_prompt: PromptView | None = None
    threshold: int = 0
    context_window: int = 0
    answer: AnswerEvent | None = None
    forced_reason: Termination | None = None
    forced_content: str | None = None
    ended: RunEnded | None = None
    notices: list[Notice] = field(default_factory=list)
    verification: Verification | None = None
    plan: PlanState = field(default_factory=PlanState)  # plan mode: proposals, decisions, clarifications
    team: TeamState = field(default_factory=TeamState)  # team research: agents, facts, sections
    # -- resume: what an interrupted step had done ---------------------------------------------
    open_calls: list[str] | None = None  # the calls of a stored reply whose observations were not all sent
    # -- streaming (not stored) --------------------------------------------------------------------
    _splitter: StreamSplitter = field(default_factory=StreamSplitter, repr=False, compare=False)
    _stream_step: int = field(default=0, repr=False, compare=False)

    # -- queries ---------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def failure_limit(self) -> int:
        return int(self.settings.get("tool_failure_limit") or DEFAULT_FAILURE_LIMIT)

    @property
    def step_numbers(self) -> list[int]:
        return sorted(n for n, s in self.steps.items() if not s.empty)

    @property
    def latest_step(self) -> StepState | None:
        numbers = self.step_numbers
        return self.steps[numbers[-1]] if numbers else None

    @property
    def shown_calls(self) -> int:
        """Model calls for the gauge: the completed ones and the one under way."""
        return self.model_calls + (1 if self.in_flight else 0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def research_tokens(self) -> int:
        """Tokens of the research and forced-answer calls: what a prompt change moves."""
        return self.total_tokens - self.auxiliary_tokens

    def step_state(self, number: int) -> StepState:
        rec = self.steps.get(number)
        if rec is None:
            rec = self.steps[number] = StepState(number)
        return rec

    def source_list(self) -> list[SourceState]:
        return sorted(self.sources.values(), key=lambda s: s.number)

    def recorded_calls(self) -> list[CallState]:
        """The calls of an interrupted step, in order (see ``open_calls``)."""
        return [self.calls[c] for c in self.open_calls or [] if c in self.calls]

    def observations(self) -> list[CallState]:
        """Every call that has an observation, in order."""
        return [c for c in self.calls.values() if c.observation is not None]

    def path(self) -> list[dict[str, Any]]:
        """The tool calls that ran, in order: name and arguments (a run's path through the web)."""
        return [{"tool": c.tool, "arguments": c.arguments} for c in self.calls.values() if c.executed]
