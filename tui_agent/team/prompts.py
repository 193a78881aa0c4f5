"""The team's prompts: the collector's system prompt, a sub-agent's first message, the facts call
and the section writer's call. Each holds one sub-question only (isolation)."""

from __future__ import annotations

import functools
from importlib import resources

from tui_agent.core.plan_schema import SubQuestion

PAGE_CHARS = 24000  # a page's text sent to the facts call at most (about 6,000 tokens)


@functools.cache
def _text(name: str) -> str:
    return resources.files("tui_agent").joinpath(f"prompts/{name}").read_text(encoding="utf-8")


def collector_template(protocol: str) -> str:
    """The collector's system prompt template ({tools}, {date}); the native protocol gets the
    collector's role before its own prompt."""
    collector = _text("collector.txt")
    if protocol != "native":
        return collector
    return collector.split("\n\n", 1)[0] + "\n\n" + _text("system_native.txt")


def first_message(sq: SubQuestion, original: str) -> str:
    """A sub-agent's question: its sub-question, acceptance and queries; the original question as
    background. Nothing of another sub-question."""
    lines = [f"Your sub-question: {sq.question}"]
    if sq.acceptance:
        lines.append(f"It counts as answered when: {sq.acceptance}")
    if sq.queries:
        lines.append("Searches to start from: " + "; ".join(sq.queries))
    lines += ["", "Background only (the larger question this sub-question serves; do not research the rest of it):",
              original.strip()]
    return "\n".join(lines)


def facts_messages(question: str, url: str, content: str) -> list[dict[str, str]]:
    head, _, tail = _text("facts.txt").partition("{content}")
    prompt = head.replace("{question}", question).replace("{url}", url) + content[:PAGE_CHARS] + tail
    return [{"role": "user", "content": prompt}]


def section_messages(sq: SubQuestion, facts_block: str) -> list[dict[str, str]]:
    prompt = (_text("section.txt").replace("{question}", sq.question)
              .replace("{acceptance}", sq.acceptance or "(not given)").replace("{facts}", facts_block))
    return [{"role": "user", "content": prompt}]
