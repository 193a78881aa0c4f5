"""Facts per source (seed §3.4): each page a sub-agent read, pressed into the facts it holds for
that agent's sub-question by one model call (``prompts/facts.txt``); each fact keeps its URL."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tui_agent.core.events_team import FactsExtracted
from tui_agent.kinds import ObservationStatus, Purpose
from tui_agent.model import ModelError
from tui_agent.team import prompts

if TYPE_CHECKING:
    from tui_agent.core.state import CallState, SessionState
    from tui_agent.model import Model

MAX_FACT_WORDS = 80  # a fact line longer than this (the prompt asks ~60) is cut, not dropped
PAGE_TOOLS = frozenset({"visit"})  # the tools whose observations are pages read
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_UNRELATED = re.compile(r"^\W*n\s*/?\s*a\W*$", re.I)


def parse_facts(text: str) -> list[str]:
    """The facts of a reply: one a line, bullets and numbering stripped, ``N/A`` lines dropped."""
    out: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or _UNRELATED.match(line):
            continue
        words = line.split()
        if len(words) > MAX_FACT_WORDS:
            line = " ".join(words[:MAX_FACT_WORDS]) + " …"
        if line not in out:
            out.append(line)
    return out


def pages(call: CallState, state: SessionState) -> dict[str, str]:
    """The pages one call read, by URL: a call of one source is its whole observation; of several,
    the part of the observation headed by each source's ``[n]``."""
    if call.tool not in PAGE_TOOLS or call.observation is None or call.status != ObservationStatus.OK:
        return {}
    by_number = {s.number: s.url for s in state.sources.values()}
    numbers = [n for n in dict.fromkeys(call.sources) if n in by_number]
    text = call.observation
    if len(numbers) == 1:
        return {by_number[numbers[0]]: text}
    marks = sorted((m.start(), n) for n in numbers for m in [re.search(rf"(?m)^\s*\[{n}\]", text)] if m)
    out = {}
    for i, (start, n) in enumerate(marks):
        end = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        out[by_number[n]] = text[start:end]
    return out


def pages_read(state: SessionState) -> dict[str, str]:
    """Every page an agent's session read, by URL (the first reading of each)."""
    out: dict[str, str] = {}
    for call in state.observations():
        for url, text in pages(call, state).items():
            out.setdefault(url, text)
    return out


async def extract(llm: Model, model: str, agent: int, question: str, url: str, content: str) -> FactsExtracted:
    """One page's facts for one sub-question (a failed call: no facts, its error named)."""
    try:
        reply = await llm.complete(prompts.facts_messages(question, url, content), purpose=Purpose.FACTS,
                                   model=model, stream=False)
    except ModelError as exc:
        return FactsExtracted(agent=agent, url=url, error=f"the facts call failed: {exc}")
    return FactsExtracted(agent=agent, url=url, facts=parse_facts(reply.text), prompt_tokens=reply.prompt_tokens or 0,
                          completion_tokens=reply.completion_tokens or 0, cost_usd=reply.cost_usd)
