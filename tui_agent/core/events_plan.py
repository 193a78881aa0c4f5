"""The events of plan mode: the proposed plan, the person's decision on it, and the clarifying
questions with their answers (``tui_agent/plan``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from tui_agent.kinds import PlanDecisionKind
from tui_agent.core.event_base import Event


@dataclass(kw_only=True)
class PlanProposed(Event):
    """Plan mode: one model call proposed a plan (``plan``: the plan as read, None when the reply
    held none, ``error`` then says why). ``attempt`` counts proposals; ``feedback`` is the person's
    request it answers (a replan)."""

    type: ClassVar[str] = "plan_proposed"
    plan: dict[str, Any] | None
    raw: str
    attempt: int = 1
    feedback: str = ""
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class PlanDecided(Event):
    """The person's decision on the proposed plan: approved, edited (``plan`` as approved), replan
    (``feedback`` for the next proposal) or skipped. ``auto``: approved without asking.
    ``plan_text``: the approved plan as the research model reads it, appended to the question by
    the fold (``plan.prompts.plan_block``; events stored before it was carried get it from
    ``core.upgrades``)."""

    type: ClassVar[str] = "plan_decided"
    kind: PlanDecisionKind
    plan: dict[str, Any] | None = None
    feedback: str = ""
    auto: bool = False
    plan_text: str = ""


@dataclass(kw_only=True)
class ClarifyAsked(Event):
    """Clarify mode: the model's questions about the question (none: it needs none)."""

    type: ClassVar[str] = "clarify_asked"
    questions: list[str]
    raw: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class ClarifyAnswered(Event):
    """The person's answers, one per question (empty: skipped); they become part of the question:
    ``text`` is what the fold appends to it (``plan.prompts.clarifications``; "" when nothing was
    answered; events stored before it was carried get it from ``core.upgrades``)."""

    type: ClassVar[str] = "clarify_answered"
    answers: list[str]
    text: str = ""
