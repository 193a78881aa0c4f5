"""Plan mode on a plain terminal (``tui-agent run``): the trace lines of the plan events, and the
questions ``cli.headless.TerminalApprover`` asks — the plan (approve, edit the JSON, replan with
feedback, skip, submit now) and the clarifying questions (or their answers from ``--clarify FILE``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, Callable, TextIO

from tui_agent.kinds import PlanDecisionKind
from tui_agent.core.plan_report import plan_lines
from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanDecision, PlanRequest
from tui_agent.core.plan_schema import Plan, parse_edited
from tui_agent.safety.hygiene import for_terminal
from tui_agent.core.events import ClarifyAnswered, ClarifyAsked, Event, PlanDecided, PlanProposed

Read = Callable[[str], Awaitable[str]]  # asks one line; EOFError at the end of input


def describe(e: Event) -> str | None:
    """The trace line of a plan event (None for other events)."""
    match e:
        case PlanProposed(plan=None):
            return f"plan proposal {e.attempt} unusable: {for_terminal(e.error)}"
        case PlanProposed():
            head = f"plan proposed (attempt {e.attempt}" + (f", after: {for_terminal(e.feedback)}" if e.feedback else "")
            return head + "):\n" + "\n".join(plan_lines(Plan.from_dict(e.plan or {})))
        case PlanDecided():
            auto = " (without asking)" if e.auto else ""
            extra = f": {for_terminal(e.feedback)}" if e.feedback else ""
            return f"plan {e.kind}{auto}{extra}"
        case ClarifyAsked():
            if not e.questions:
                return "clarifying questions: none needed"
            return "clarifying questions:\n" + "\n".join(f"{i}. {for_terminal(q)}" for i, q in enumerate(e.questions, 1))
        case ClarifyAnswered():
            if not e.answers:
                return "clarifying questions skipped"
            return "clarifications:\n" + "\n".join(f"{i}. {for_terminal(a) or '(no answer)'}"
                                                   for i, a in enumerate(e.answers, 1))
    return None


def read_answers(path: str) -> list[str]:
    """The answers of ``--clarify FILE``: a JSON list of strings, or one answer per line."""
    text = Path(path).expanduser().read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, list):
        return [str(a) for a in data]
    return [line.strip() for line in text.splitlines() if line.strip()]


async def ask_plan(req: PlanRequest, read: Read, out: TextIO, *, approve_plan: bool = False) -> Any:
    """The plan asked like a call: approve, edit the JSON, replan with feedback, skip, submit now."""
    from tui_agent.core.approval import SubmitNow

    if approve_plan:
        out.write("  plan approved (--approve-plan)\n")
        return PlanDecision(PlanDecisionKind.APPROVED, auto=True)
    out.write(f"\n  the plan above (attempt {req.attempt})\n")
    while True:
        try:
            choice = await read("  [a]pprove  [e]dit JSON  [r]eplan with feedback  [k] skip planning  [s]ubmit now > ")
        except EOFError:
            return PlanDecision(PlanDecisionKind.SKIPPED, feedback="no answer from the terminal (end of input)")
        if choice in ("", "a", "y", "yes"):
            return PlanDecision(PlanDecisionKind.APPROVED)
        if choice in ("s", "S"):
            return SubmitNow()
        if choice in ("k", "K"):
            return PlanDecision(PlanDecisionKind.SKIPPED)
        if choice in ("r", "R"):
            try:
                feedback = await read("  feedback for the next plan > ")
            except EOFError:
                feedback = ""
            return PlanDecision(PlanDecisionKind.REPLAN, feedback=feedback or "another plan, please")
        if choice in ("e", "E"):
            plan = await _edit(req, read, out)
            if plan is not None:
                return PlanDecision(PlanDecisionKind.EDITED, plan=plan)
            continue
        out.write("  please answer a, e, r, k or s\n")


async def _edit(req: PlanRequest, read: Read, out: TextIO) -> Plan | None:
    out.write(f"  current: {for_terminal(json.dumps(req.plan.to_dict(), ensure_ascii=False))}\n")
    while True:
        try:
            text = await read("  plan as JSON on one line (empty line: back to the menu) > ")
        except EOFError:
            return None
        if not text:
            return None
        plan, error = parse_edited(text)
        if plan is not None:
            return plan
        out.write(f"  {error}\n  you wrote: {for_terminal(text)}\n")


async def ask_clarify(req: ClarifyRequest, read: Read, out: TextIO, *, answers: list[str] | None = None) -> Any:
    """Each clarifying question on the terminal (an empty line leaves one unanswered), or the answers of
    ``--clarify FILE``."""
    if answers is not None:
        out.write(f"  clarifications from the file: {len(answers)} answer(s)\n")
        return ClarifyAnswers(list(answers))
    got = []
    out.write("\n  the model asks (an empty line leaves a question unanswered):\n")
    for i, q in enumerate(req.questions, 1):
        try:
            got.append(await read(f"  {i}. {for_terminal(q)}\n  > "))
        except EOFError:
            break
    return ClarifyAnswers(got)
