"""Progress against the plan: each sub-question's status, read from the answer's sections.

The answer is asked for one section per sub-question (``## N. <sub-question>``). A sub-question is
*open* until there is an answer; then *answered* when its section cites a source ([n]) and is at
least the floor long, else *needs review*: no section, no citation, fewer citations than its
acceptance names ("from at least 2 sources"), or thinner than ``plan_section_min_words``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui_agent.kinds import PlanStatus
from tui_agent.core.plan_schema import Plan

if TYPE_CHECKING:
    from tui_agent.core.state import SessionState

DEFAULT_MIN_WORDS = 30  # when a stored session's settings do not say
_HEADING = re.compile(r"^\s{0,3}(#{1,6}\s+.*|\*\*[^*\n]+\*\*\s*:?\s*)$", re.M)
_CITE = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\]")
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ASKED = re.compile(r"(\d+|one|two|three|four|five|six)\s+(?:independent\s+|distinct\s+|different\s+)?"
                    r"(?:sources|citations|references)", re.I)
_WORD = re.compile(r"\w+")
_STOP = frozenset("the a an of in on for to and or is are was were be it its what which how who when where why does do "
                  "did with by".split())


@dataclass
class SubQuestionProgress:
    number: int
    question: str
    status: PlanStatus
    note: str = ""  # why it needs review
    citations: int = 0
    words: int = 0


def sections(answer: str) -> list[tuple[str, str]]:
    """The answer's (heading, body) sections, in order."""
    marks = list(_HEADING.finditer(answer))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(answer)
        out.append((m.group(0).strip().lstrip("#").strip().strip("*").strip(), answer[m.end():end]))
    return out


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in _STOP}


def _match(plan: Plan, heads: list[tuple[str, str]]) -> list[str | None]:
    """Each sub-question's section: the heading numbered for it, else the unused heading sharing
    most of its words (at least 60%)."""
    found: list[str | None] = [None] * len(plan.sub_questions)
    used: set[int] = set()
    for i in range(len(found)):
        for h, (head, body) in enumerate(heads):
            if h not in used and re.match(rf"(?:sub-?question\s+)?{i + 1}\s*[.):]", head, re.I):
                found[i] = body
                used.add(h)
                break
    for i, sq in enumerate(plan.sub_questions):
        want, best, score = _words(sq.question), None, 0.6
        for h, (head, _) in enumerate(heads):
            overlap = len(want & _words(head)) / len(want) if want and h not in used else 0.0
            if found[i] is None and overlap >= score:
                best, score = h, overlap
        if best is not None:
            found[i] = heads[best][1]
            used.add(best)
    return found


def asked_citations(acceptance: str) -> int:
    """The number of sources an acceptance criterion names (1 when it names none)."""
    m = _ASKED.search(acceptance)
    if not m:
        return 1
    n = m.group(1).lower()
    return int(n) if n.isdigit() else _NUMBERS[n]


def _cited(body: str) -> set[int]:
    out: set[int] = set()
    for m in _CITE.finditer(body):
        for part in re.split(r"\s*,\s*", m.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
                out.update(range(int(bounds[0]), int(bounds[1]) + 1))
            elif part.strip().isdigit():
                out.add(int(part))
    return out


def progress(plan: Plan, answer: str | None, min_words: int = DEFAULT_MIN_WORDS) -> list[SubQuestionProgress]:
    bodies = _match(plan, sections(answer or ""))
    out = []
    for i, sq in enumerate(plan.sub_questions, 1):
        if answer is None:
            out.append(SubQuestionProgress(i, sq.question, PlanStatus.OPEN))
            continue
        body = bodies[i - 1]
        if body is None:
            out.append(SubQuestionProgress(i, sq.question, PlanStatus.NEEDS_REVIEW, "no section in the answer"))
            continue
        cited, words = _cited(body), len(_WORD.findall(_CITE.sub(" ", body)))
        needed = asked_citations(sq.acceptance)
        note = ("cites no source" if not cited else
                f"cites {len(cited)} of the {needed} sources its acceptance asks" if len(cited) < needed else
                f"{words} word{'' if words == 1 else 's'}, under the floor of {min_words}" if words < min_words else "")
        status = PlanStatus.NEEDS_REVIEW if note else PlanStatus.ANSWERED
        out.append(SubQuestionProgress(i, sq.question, status, note, len(cited), words))
    return out


def of_state(s: SessionState) -> list[SubQuestionProgress]:
    plan = s.plan.approved
    if plan is None:
        return []
    floor = int(s.settings.get("plan_section_min_words") or DEFAULT_MIN_WORDS)
    return progress(plan, s.answer.text if s.answer is not None else None, floor)


def plan_result(s: SessionState) -> dict[str, Any] | None:
    """The ``plan`` of ``--json`` and the JSON export: the approved plan, each sub-question with its
    status; None when no plan is in force (``skipped`` says whether planning was skipped)."""
    if not s.plan.active:
        return None
    plan = s.plan.approved
    if plan is None:
        return {"skipped": s.plan.skipped, "sub_questions": [], "proposals": len(s.plan.proposals)}
    d = plan.to_dict()
    for sq, prog in zip(d["sub_questions"], of_state(s)):
        sq["status"] = str(prog.status)
        if prog.note:
            sq["note"] = prog.note
    d["skipped"] = False
    d["proposals"] = len(s.plan.proposals)
    if s.plan.questions:
        d["clarifications"] = [{"question": q, "answer": a} for q, a in
                               zip(s.plan.questions, s.plan.answers or [""] * len(s.plan.questions))]
    return d
