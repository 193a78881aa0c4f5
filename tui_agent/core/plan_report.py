"""The plan as the Markdown export and ``sessions show`` write it: each sub-question with its status,
the domains and budget, how it was decided, and the clarifications."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.kinds import PlanStatus
from tui_agent.core.plan_progress import of_state
from tui_agent.core.plan_schema import Plan
from tui_agent.safety.hygiene import for_terminal

if TYPE_CHECKING:
    from tui_agent.core.state import SessionState

MARKS = {PlanStatus.OPEN: "○ open", PlanStatus.ANSWERED: "✓ answered", PlanStatus.NEEDS_REVIEW: "! needs review"}


def budget_text(plan: Plan) -> str:
    b = plan.budget
    parts = ([f"{b.max_calls} calls"] if b.max_calls else []) + ([f"{b.max_minutes:g} min"] if b.max_minutes else []) \
        + ([f"${b.budget_usd:g}"] if b.budget_usd else [])
    return ", ".join(parts)


def plan_lines(plan: Plan) -> list[str]:
    """The plan as plain lines (the headless question, the trace)."""
    out = []
    for i, sq in enumerate(plan.sub_questions, 1):
        out.append(f"{i}. {for_terminal(sq.question)}")
        if sq.acceptance:
            out.append(f"   done when: {for_terminal(sq.acceptance)}")
        if sq.queries:
            out.append("   queries: " + "; ".join(for_terminal(q) for q in sq.queries))
    if plan.domains:
        out.append("domains: " + ", ".join(for_terminal(d) for d in plan.domains))
    if budget_text(plan):
        out.append("budget: " + budget_text(plan))
    return out


def plan_markdown(state: SessionState) -> list[str]:
    """The "Plan" section of the report (nothing when plan mode was off)."""
    p = state.plan
    if not p.active:
        return []
    out = ["## Plan", ""]
    if p.questions:
        out += ["Clarifications:", ""]
        answers = p.answers or []
        for i, q in enumerate(p.questions):
            a = answers[i] if i < len(answers) and answers[i] else "*(not answered)*"
            out.append(f"- {for_terminal(q)} — {for_terminal(a)}")
        out.append("")
    if p.approved is None:
        out += ["*Planning was skipped.*" if p.skipped else "*No plan was approved.*", ""]
        return out
    last = p.decisions[-1] if p.decisions else None
    how = f"{last.kind}{' without asking' if last.auto else ''}" if last else "approved"
    out += [f"{len(p.proposals)} proposal(s); {how}.", "", "| # | sub-question | status | note |", "|---|---|---|---|"]
    for prog, sq in zip(of_state(state), p.approved.sub_questions):
        out.append(f"| {prog.number} | {for_terminal(sq.question)} | {MARKS[prog.status]} | {prog.note} |")
    extra = [f"Domains: {', '.join(p.approved.domains)}"] if p.approved.domains else []
    extra += [f"Budget: {budget_text(p.approved)}"] if budget_text(p.approved) else []
    return out + [""] + ([" · ".join(extra), ""] if extra else [])
