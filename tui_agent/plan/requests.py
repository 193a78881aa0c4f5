"""What the engine asks a person in plan mode, through the same ``Approver`` seam (and the same
future, the same human wait, the same front-end path) as a tool call: :class:`PlanRequest` (decide
the proposed plan) and :class:`ClarifyRequest` (answer up to three questions). The answers are
typed: :class:`PlanDecision` and :class:`ClarifyAnswers`; ``approval.SubmitNow`` stays possible."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from tui_agent.kinds import PlanDecisionKind
from tui_agent.core.plan_schema import PLAN_SCHEMA, Plan


@dataclass
class PlanRequest:
    plan: Plan
    attempt: int
    step: int = 0
    schema: dict[str, Any] = field(default_factory=lambda: PLAN_SCHEMA)
    future: "asyncio.Future[Any] | None" = field(default=None, repr=False)

    @property
    def arguments(self) -> dict[str, Any]:
        """The plan as JSON: an approver that approves whatever it is asked approves the plan."""
        return self.plan.to_dict()


@dataclass
class ClarifyRequest:
    questions: list[str]
    step: int = 0
    future: "asyncio.Future[Any] | None" = field(default=None, repr=False)

    @property
    def arguments(self) -> dict[str, Any]:
        return {"questions": list(self.questions)}


@dataclass
class PlanDecision:
    kind: PlanDecisionKind
    plan: Plan | None = None  # approved or edited: the plan as approved
    feedback: str = ""  # replan: what the next plan should change
    auto: bool = False  # approved without asking (--yes, --approve-plan, auto mode)


@dataclass
class ClarifyAnswers:
    answers: list[str]  # one per question ("" for one left unanswered); empty: skipped


def is_plan_request(request: Any) -> bool:
    return isinstance(request, (PlanRequest, ClarifyRequest))
