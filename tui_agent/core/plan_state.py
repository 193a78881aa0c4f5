"""What the fold keeps of plan mode (``SessionState.plan``): the proposals, the decisions, the
approved plan and the clarifying questions with their answers. Changed only by
``core.fold_plan``; imports nothing of the session package."""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_agent.kinds import PlanDecisionKind, PlanMode
from tui_agent.core.plan_schema import Plan


@dataclass
class Proposal:
    attempt: int
    plan: Plan | None
    raw: str
    feedback: str = ""  # the replan request it answers
    error: str = ""  # why the reply held no usable plan


@dataclass
class PlanDecisionRecord:
    kind: PlanDecisionKind
    feedback: str = ""
    auto: bool = False


@dataclass
class PlanState:
    proposals: list[Proposal] = field(default_factory=list)
    decisions: list[PlanDecisionRecord] = field(default_factory=list)
    approved: Plan | None = None  # the plan in force (approved or edited)
    skipped: bool = False
    questions: list[str] = field(default_factory=list)  # clarifying questions asked
    asked: bool = False  # the clarifying questions were asked (none is an answer too)
    answers: list[str] | None = None  # None: not answered yet; []: skipped
    awaiting: bool = False  # the latest proposal holds a plan and waits for a decision
    next_feedback: str = ""  # a replan request the next proposal answers
    unreadable: int = 0  # proposals in a row without a usable plan

    @property
    def decided(self) -> bool:
        """Planning is over: a plan was approved, or planning was skipped."""
        return self.approved is not None or self.skipped

    @property
    def pending(self) -> Proposal | None:
        """The proposal waiting for a decision (asked again after a resume)."""
        return self.proposals[-1] if self.awaiting and self.proposals else None

    @property
    def active(self) -> bool:
        """Plan mode touched this session (something to show and to export)."""
        return bool(self.proposals or self.decisions or self.asked)


def next_mode(current: str) -> str:
    """The plan mode after ``current`` (the TUI's key cycles off → ask → clarify → off)."""
    modes = list(PlanMode)
    return str(modes[(modes.index(PlanMode(current)) + 1) % len(modes)])
