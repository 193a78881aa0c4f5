"""The plan mode prompts: the planner's, the clarifier's, and the text the research model reads
(the clarifications and the approved plan, appended to the question; the answer's shape)."""

from __future__ import annotations

import json

from tui_agent.core.plan_schema import Plan

PLANNER = """You plan a web research before it starts. Do not answer the question and do not call tools.
Split the question into 2 to 6 sub-questions that together answer it, covering where they apply:
the current state, the key players, trends, and risks. For each give an acceptance criterion (what
counts as answered, e.g. "a figure with its year, from at least 2 sources") and 2 or 3 search
queries: one in precise technical terms, one in plain words, one phrased as a trend or report.
Name the domains worth reading, if any, and a budget for the research.

Reply with one JSON object and nothing else:
{"sub_questions": [{"question": "...", "acceptance": "...", "queries": ["...", "..."]}],
 "domains": ["example.org"], "budget": {"max_calls": 30, "max_minutes": 20, "budget_usd": 1.0}}"""

CLARIFIER = """Before a web research starts, you may ask the person up to three short questions about
their question: only what changes what to research (scope, period, region, purpose). Do not
answer the question. Reply with one JSON object and nothing else: {"questions": ["...", "..."]}
(an empty list when the question is clear)."""

REPLAN = "The person asked for another plan. Their feedback: {feedback}\nThe previous plan was:\n{previous}"
UNREADABLE = "Your reply held no usable plan ({error}). Reply with the JSON object only."


def planner_messages(question: str, feedback: str = "", previous: Plan | None = None,
                     error: str = "") -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": PLANNER}, {"role": "user", "content": question}]
    if feedback:
        prev = json.dumps(previous.to_dict(), ensure_ascii=False) if previous is not None else "(none)"
        msgs.append({"role": "user", "content": REPLAN.format(feedback=feedback, previous=prev)})
    if error:
        msgs.append({"role": "user", "content": UNREADABLE.format(error=error)})
    return msgs


def clarifier_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": CLARIFIER}, {"role": "user", "content": question}]


def clarifications(questions: list[str], answers: list[str]) -> str:
    """The clarifications as they are appended to the question."""
    pairs = [(q, a) for q, a in zip(questions, answers) if a.strip()]
    if not pairs:
        return ""
    lines = ["Clarifications from the person who asked:"]
    lines += [f"- {q.strip()} — {a.strip()}" for q, a in pairs]
    return "\n".join(lines)


def plan_block(plan: Plan) -> str:
    """The approved plan as the research model reads it (after the question), with the answer's shape."""
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
