"""The fold's share for plan mode (see ``tui_agent.plan``): what ``PlanProposed``, ``PlanDecided``,
``ClarifyAsked`` and ``ClarifyAnswered`` do to ``SessionState.plan`` and to the question the
research model reads. Called by ``core.fold.apply`` only.

The text appended to the question comes with the events (``PlanDecided.plan_text``,
``ClarifyAnswered.text``, written by the planner): the fold needs nothing from ``plan/``."""

from __future__ import annotations

from tui_agent.core import context_items as ctxitems
from tui_agent.kinds import PlanDecisionKind
from tui_agent.core.plan_schema import Plan
from tui_agent.core.plan_state import PlanDecisionRecord, Proposal
from tui_agent.core.events import ClarifyAnswered, ClarifyAsked, PlanDecided, PlanProposed
from tui_agent.core.state import SessionState


def plan_proposed(s: SessionState, e: PlanProposed) -> None:
    p = s.plan
    plan = Plan.from_dict(e.plan) if e.plan is not None else None
    p.proposals.append(Proposal(e.attempt, plan, e.raw, e.feedback, e.error))
    p.awaiting = plan is not None
    p.unreadable = 0 if plan is not None else p.unreadable + 1
    p.next_feedback = ""


def plan_decided(s: SessionState, e: PlanDecided) -> None:
    p = s.plan
    p.decisions.append(PlanDecisionRecord(e.kind, e.feedback, e.auto))
    p.awaiting = False
    match e.kind:
        case PlanDecisionKind.APPROVED | PlanDecisionKind.EDITED if e.plan is not None:
            p.approved = Plan.from_dict(e.plan)
            _append_to_question(s, e.plan_text)
        case PlanDecisionKind.REPLAN:
            p.next_feedback = e.feedback
        case PlanDecisionKind.SKIPPED:
            p.skipped = True


def clarify_asked(s: SessionState, e: ClarifyAsked) -> None:
    s.plan.asked = True
    s.plan.questions = list(e.questions)


def clarify_answered(s: SessionState, e: ClarifyAnswered) -> None:
    s.plan.answers = list(e.answers)
    _append_to_question(s, e.text)


def _append_to_question(s: SessionState, text: str) -> None:
    """The question message (and its context item) grows by ``text``: what the model reads."""
    if not text or len(s.messages) < 2:
        return
    content = s.messages[1]["content"].rstrip() + "\n\n" + text
    s.messages[1] = {"role": s.messages[1]["role"], "content": content}
    item = s.context.items.get(ctxitems.QUESTION)
    if item is not None:
        item.text = content
