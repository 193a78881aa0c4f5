"""Named upgrades of stored events: what an event stored before one of its fields existed is given
when it is read back, so that old sessions fold, resume and export as they did.

Each :class:`Upgrade` names the event type and the field it fills; it applies only when a stored
event lacks that field (an event written since carries it, even empty). The store reads every
session's events through :func:`upgrade`, in order, so an upgrade may use what earlier events said.

The builders below are frozen copies of the code that made the text when the fold computed it
itself (``plan.prompts.plan_block`` and ``plan.prompts.clarifications`` at commit cf09bf1): a later
change to the live prompts must not change what an old session's model was sent. Do not edit them;
add an upgrade instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from tui_agent.core.plan_schema import Plan
from tui_agent.kinds import PlanDecisionKind


@dataclass
class Seen:
    """What the events read so far said that an upgrade may need."""

    questions: list[str] = field(default_factory=list)  # the last clarifying questions asked

    def note(self, d: dict[str, Any]) -> None:
        if d.get("type") == "clarify_asked":
            self.questions = list(d.get("questions") or [])


@dataclass(frozen=True)
class Upgrade:
    name: str
    event_type: str
    field: str
    fill: Callable[[dict[str, Any], Seen], Any]


def upgrade(dicts: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The stored event dicts, in order, each with the fields it lacks filled by :data:`UPGRADES`
    (a new dict when one applies; the others are passed through as they are)."""
    seen = Seen()
    for d in dicts:
        for u in UPGRADES:
            if d.get("type") == u.event_type and u.field not in d:
                d = {**d, u.field: u.fill(d, seen)}
        seen.note(d)
        yield d


# -- plan_decided carries plan_text ----------------------------------------------------------


def _plan_text(d: dict[str, Any], seen: Seen) -> str:
    """What the fold appended to the question for an approved or edited plan ("" otherwise)."""
    if d.get("kind") not in (PlanDecisionKind.APPROVED, PlanDecisionKind.EDITED) or d.get("plan") is None:
        return ""
    return _plan_block_v1(Plan.from_dict(d["plan"]))


def _plan_block_v1(plan: Plan) -> str:
    lines = ["Research plan, approved by the person who asked:"]
    for i, sq in enumerate(plan.sub_questions, 1):
        lines.append(f"{i}. {sq.question}")
        if sq.acceptance:
            lines.append(f"   Done when: {sq.acceptance}")
        if sq.queries:
            lines.append("   Search queries: " + "; ".join(json.dumps(q, ensure_ascii=False) for q in sq.queries))
    if plan.domains:
        lines.append("Domains worth reading: " + ", ".join(plan.domains))
    lines.append("Searches with these queries and visits to the pages they return (or to these domains) run "
                 "without asking; anything else waits for the person's approval.")
    lines.append("Your <answer> has one section per sub-question, in this order, each headed "
                 "\"## N. <sub-question>\", and every section cites its sources as [n].")
    return "\n".join(lines)


# -- clarify_answered carries text -----------------------------------------------------------


def _clarification_text(d: dict[str, Any], seen: Seen) -> str:
    """What the fold appended to the question for the answers to the last questions asked."""
    return _clarifications_v1(seen.questions, list(d.get("answers") or []))


def _clarifications_v1(questions: list[str], answers: list[str]) -> str:
    pairs = [(q, a) for q, a in zip(questions, answers) if a.strip()]
    if not pairs:
        return ""
    lines = ["Clarifications from the person who asked:"]
    lines += [f"- {q.strip()} — {a.strip()}" for q, a in pairs]
    return "\n".join(lines)


UPGRADES: tuple[Upgrade, ...] = (
    Upgrade("plan_decided_carries_plan_text", "plan_decided", "plan_text", _plan_text),
    Upgrade("clarify_answered_carries_text", "clarify_answered", "text", _clarification_text),
)
"""Every upgrade, applied in this order."""
