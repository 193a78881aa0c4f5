"""A section per sub-question (seed §3.5) and the report assembled by code (§3.6): each section
is written by one call (no tools) from its facts grouped by source, its sources bound from those
facts before it is written, and listed under it as ``[n] URL`` whether or not the writer cited them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.core.events_team import SectionWritten
from tui_agent.core.plan_schema import SubQuestion
from tui_agent.kinds import Purpose, SectionStatus
from tui_agent.model import ModelError
from tui_agent.core.plan_progress import asked_citations
from tui_agent.team import prompts

if TYPE_CHECKING:
    from tui_agent.core.state import SessionState
    from tui_agent.model import Model

NO_FACTS = "No facts were found for this sub-question."


def facts_block(facts: dict[str, list[str]], numbers: dict[str, int]) -> str:
    """The facts grouped by source, each source headed by its number and URL."""
    parts = []
    for url, lines in facts.items():
        parts.append(f"[{numbers[url]}] {url}\n" + "\n".join(f"- {line}" for line in lines))
    return "\n\n".join(parts)


def status_of(sq: SubQuestion, facts: dict[str, list[str]], failure: str) -> tuple[SectionStatus, str]:
    """Answered, needs review (no fact, no source, fewer sources than its acceptance names) or
    incomplete (its agent failed or was stopped: ``failure`` says why)."""
    if failure:
        return SectionStatus.INCOMPLETE, failure
    if not facts:
        return SectionStatus.NEEDS_REVIEW, "no fact found"
    needed = asked_citations(sq.acceptance)
    if len(facts) < needed:
        return SectionStatus.NEEDS_REVIEW, f"{len(facts)} of the {needed} sources its acceptance names"
    return SectionStatus.ANSWERED, ""


def fallback_text(facts: dict[str, list[str]], numbers: dict[str, int], why: str) -> str:
    """A section written by code when no call may be made (the team budget is spent) or the call failed."""
    if not facts:
        return NO_FACTS
    lines = [f"*The section could not be written ({why}); its facts follow.*", ""]
    lines += [f"- {fact} [{numbers[url]}]" for url, fs in facts.items() for fact in fs]
    return "\n".join(lines)


async def write(llm: Model | None, model: str, agent: int, sq: SubQuestion, facts: dict[str, list[str]],
                numbers: dict[str, int], failure: str, no_call: str = "") -> SectionWritten:
    """One sub-question's section: written by one call from its facts (none when it has no fact, or
    ``no_call`` says why no call may be made)."""
    status, note = status_of(sq, facts, failure)
    base = dict(agent=agent, question=sq.question, status=status, note=note, sources=list(facts))
    if not facts:
        return SectionWritten(text=NO_FACTS, **base)
    if no_call or llm is None:
        return SectionWritten(text=fallback_text(facts, numbers, no_call or "no model"), **base)
    try:
        reply = await llm.complete(prompts.section_messages(sq, facts_block(facts, numbers)), purpose=Purpose.SECTION,
                                   model=model, stream=False)
    except ModelError as exc:
        return SectionWritten(text=fallback_text(facts, numbers, f"the writer's call failed: {exc}"), **base)
    text = reply.text.strip() or fallback_text(facts, numbers, "the writer returned nothing")
    return SectionWritten(text=text, prompt_tokens=reply.prompt_tokens or 0, completion_tokens=reply.completion_tokens or 0,
                          cost_usd=reply.cost_usd, **base)


def report(state: SessionState, subs: list[SubQuestion]) -> str:
    """The report: the title, ``## N. sub-question`` per section with its status when not answered,
    and its sources as ``[n] URL`` (the session's source numbers)."""
    numbers = {s.url: s.number for s in state.sources.values()}
    out = [f"# {state.question.strip()}", ""]
    for i, sq in enumerate(subs, 1):
        sec = state.team.sections.get(i)
        out += [f"## {i}. {sq.question}", ""]
        if sec is None:
            out += ["*No section was written.*", ""]
            continue
        out += [sec.text.strip(), ""]
        if sec.status != SectionStatus.ANSWERED:
            out += [f"*Status: {sec.status}{' — ' + sec.note if sec.note else ''}.*", ""]
        if sec.sources:
            out += ["Sources:", ""] + [f"[{numbers[u]}] {u}  " if u in numbers else f"- {u}  " for u in sec.sources]
            out[-1] = out[-1].rstrip()
            out.append("")
    return "\n".join(out).rstrip() + "\n"
