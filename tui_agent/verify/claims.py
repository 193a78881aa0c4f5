"""The claims of an answer: its sentences that cite sources as ``[n]``, and what each source said.

A claim is one sentence (a list item, a table row, a heading) of the answer that cites at least
one source: ``[1]``, ``[1][2]``, ``[1] [2]``, ``[1, 2]``, ``[1; 2]``, ``[1–3]`` (a range, any dash).
Its text is an exact slice of the answer (``start``/``end``), so a view can mark it in place.

How the answer is read:

- Markdown first, by lines: a blank line ends a paragraph; list items, headings, block quotes and
  table rows are blocks of their own (their markers are not part of the claim); a plain line
  right after a paragraph or list item continues it (a soft line break). Fenced code blocks
  and inline code are not prose: brackets inside them are never citations. A block that starts
  with a citation (``[1] Title — URL``) is an entry of a source list, not a claim.
- Each block is cut into sentences by ``nupunkt`` (a Punkt model trained on a large English
  corpus: abbreviations, initials, decimals, URLs), then after CJK full stops, which always end a
  sentence. benchmarks/bench_claims.py compares it with sentencex and pySBD. The splitter reads
  the block without its citations; each sentence then takes back the citations that follow it
  (``… 2023.[1] The …``, ``… Need." [1] It …``): a citation belongs to the sentence before it.

When an answer has more claims than the sample, the sample is spread evenly over the answer
(always the same claims for the same answer: checks are reproducible).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from tui_agent.core.state import CallState, SessionState

DEFAULT_SAMPLE = 10
MAX_SOURCE_NUMBER = 999
"""Bracketed numbers above this are not citations (``[2019]`` is a year)."""
MAX_RANGE = 20
"""A range citation spanning more numbers than this (``[1–500]``) is not a citation."""

_NUM = r"[1-9]\d{0,2}"
_CITATION = re.compile(r"\[\s*(" + _NUM + r"(?:\s*(?:[,;]|[-–—]|to)\s*" + _NUM + r")*)\s*\]")
_GROUP = re.compile(r"(?:\s*" + _CITATION.pattern + r")+")
# A sentence that starts with citations: the citations and the punctuation right after them.
_LEADING = re.compile(r"(?:\s*" + _CITATION.pattern + r")+[.,;:!?)\]»”\"'。！？]*")
_PART = re.compile(r"(" + _NUM + r")(?:\s*[-–—]\s*|\s*to\s*)(" + _NUM + r")|(" + _NUM + r")")
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•‣⁃]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_THEMATIC_BREAK = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_REFERENCE = re.compile(r"\s*\[\s*" + _NUM + r"\s*\][:.]?\s+(?!\[)\S")
_WORDLESS = re.compile(r"^[\W_]*$")


@dataclass(frozen=True)
class Claim:
    """One sentence of the answer and the sources it cites (in the order it cites them)."""

    text: str
    sources: tuple[int, ...]
    start: int = 0  # the claim is answer[start:end]
    end: int = 0


Splitter = Callable[[str], list[tuple[int, int]]]
# A CJK full stop, question or exclamation mark (and closing quotes or brackets after it) always
# ends a sentence: those scripts have no abbreviations with a full stop.
_CJK_END = re.compile(r"[。！？]+[」』）】〉》”’\"')]*")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text``: nupunkt's (a trained Punkt model), cut after CJK full stops."""
    import nupunkt

    out: list[tuple[int, int]] = []
    for start, end in nupunkt.sent_spans(text):
        for m in _CJK_END.finditer(text, start, end):
            if m.end() < end:
                out.append((start, m.end()))
                start = m.end()
        out.append((start, end))
    return out


# -- citations -----------------------------------------------------------------------------------


def cited_numbers(text: str) -> list[int]:
    """The source numbers cited in ``text`` (inline code left out), in order, each once."""
    out: list[int] = []
    code = [m.span() for m in _INLINE_CODE.finditer(text)]
    for m in _CITATION.finditer(text):
        if any(s <= m.start() < e for s, e in code):
            continue
        for n in _numbers(m.group(1)):
            if n not in out:
                out.append(n)
    return out


def _numbers(inside: str) -> list[int]:
    numbers: list[int] = []
    for m in _PART.finditer(inside):
        if m.group(3):
            numbers.append(int(m.group(3)))
            continue
        low, high = int(m.group(1)), int(m.group(2))
        if low <= high and high - low < MAX_RANGE:
            numbers.extend(range(low, high + 1))
        else:
            numbers.extend((low, high))
    return [n for n in numbers if n <= MAX_SOURCE_NUMBER]


# -- blocks --------------------------------------------------------------------------------------


def blocks(answer: str) -> Iterator[tuple[int, int]]:
    """Spans of the answer's prose blocks (paragraphs, list items, headings, quotes, table rows),
    markers left out, code blocks skipped."""
    pos = 0
    current: list[int] | None = None  # [start, end] of a block that a plain line may continue
    in_fence = False
    for line in answer.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        end = start + len(body)
        if _FENCE.match(body):
            in_fence = not in_fence
            if current:
                yield tuple(current)  # type: ignore[misc]
            current = None
            continue
        if in_fence:
            continue
        if not body.strip() or _THEMATIC_BREAK.match(body) or _TABLE_RULE.match(body) and "-" in body:
            if current:
                yield tuple(current)  # type: ignore[misc]
            current = None
            continue
        if _REFERENCE.match(body):  # "[1] Title — URL": an entry of a source list
            if current:
                yield tuple(current)  # type: ignore[misc]
            current = None
            continue
        single = None
        for pattern in (_HEADING, _QUOTE, _TABLE_ROW):
            m = pattern.match(body)
            if m:
                single = start + (m.end() if pattern is not _TABLE_ROW else 0)
                break
        if single is not None:
            if current:
                yield tuple(current)  # type: ignore[misc]
            current = None
            yield single, end
            continue
        m = _LIST_ITEM.match(body)
        if m:
            if current:
                yield tuple(current)  # type: ignore[misc]
            current = [start + m.end(), end]
        elif current:
            current[1] = end
        else:
            current = [start + len(body) - len(body.lstrip()), end]
    if current:
        yield tuple(current)  # type: ignore[misc]


def _trim(text: str, start: int, end: int, strip: str = "") -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in strip):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in strip):
        end -= 1
    return start, end


def _without_citations(block: str) -> tuple[str, list[int]]:
    """The block with its citations (and the blanks before them) left out, and where each of
    its characters stands in the block."""
    kept: list[str] = []
    where: list[int] = []
    pos = 0
    for m in _GROUP.finditer(block):
        kept.append(block[pos:m.start()])
        where.extend(range(pos, m.start()))
        pos = m.end()
    kept.append(block[pos:])
    where.extend(range(pos, len(block)))
    return "".join(kept), where


def _sentences(text: str, start: int, end: int, splitter: Splitter) -> list[tuple[int, int]]:
    """Sentence spans inside one block (a table row is one).

    The splitter reads the block without its citations, as a person reads past them ("… 2023.[1]
    The …" and "… Need." [1] It …" end a sentence, "… sentence [1]." reads "… sentence."); each
    sentence then takes back the citations that follow it, and a stray full stop after them."""
    block = text[start:end]
    if block.lstrip().startswith("|"):
        s, e = _trim(text, start, end, "|")
        return [(s, e)] if s < e else []
    plain, where = _without_citations(block)
    out: list[tuple[int, int]] = []
    for s, e in splitter(plain):
        s, e = _trim(plain, s, e)
        if s >= e:
            continue
        s, e = start + where[s], start + where[e - 1] + 1
        m = _LEADING.match(text, e, end)
        if m:
            e = m.end()
        if out and (_WORDLESS.match(text[s:e]) or s < out[-1][1]):  # a full stop left after citations
            out[-1] = (out[-1][0], max(e, out[-1][1]))
            continue
        out.append((s, e))
    return out


def find_claims(answer: str, splitter: Splitter = split_sentences) -> list[Claim]:
    """Every sentence of ``answer`` that cites a source, in order; a sentence repeated word for
    word counts once."""
    claims: list[Claim] = []
    seen: set[str] = set()
    for b_start, b_end in blocks(answer):
        for s, e in _sentences(answer, b_start, b_end, splitter):
            text = answer[s:e]
            numbers = cited_numbers(text)
            if numbers and text not in seen:
                seen.add(text)
                claims.append(Claim(text, tuple(numbers), s, e))
    return claims


def spread(items: list[Claim], n: int) -> list[Claim]:
    """``n`` of ``items`` spread evenly over them (all of them when there are no more)."""
    if n <= 0:
        return []
    if len(items) <= n:
        return list(items)
    return [items[int((i + 0.5) * len(items) / n)] for i in range(n)]


def all_claims(state: SessionState) -> list[Claim]:
    """Every claim of the session's answer (none without an answer)."""
    answer = state.answer.text if state.answer else ""
    return find_claims(answer) if answer.strip() else []


def claims_of(state: SessionState, sample: int | None = None) -> list[Claim]:
    """The claims of the session's answer that a check looks at: all of them, or ``sample``
    (default 10) spread evenly over the answer."""
    return spread(all_claims(state), DEFAULT_SAMPLE if sample is None else sample)


# -- what the sources said ---------------------------------------------------------------------


def source_texts(state: SessionState) -> dict[int, str]:
    """What the session's tool calls recorded for each source number: the section of each
    observation headed ``[n] …`` (a call that registered one source: the whole observation),
    the sections of several calls joined in order."""
    out: dict[int, list[str]] = {}
    for call in state.observations():
        for n, text in _sections(call).items():
            if text.strip() and text not in out.get(n, []):
                out.setdefault(n, []).append(text)
    numbers = {s.url: s.number for s in state.sources.values()}
    for url, facts in state.team.facts_by_url().items():  # a team's report: its sources' facts
        if url in numbers and facts:
            out.setdefault(numbers[url], []).append("\n".join(facts))
    return {n: "\n\n".join(parts) for n, parts in out.items()}


def _sections(call: CallState) -> dict[int, str]:
    text = call.observation or ""
    numbers = list(dict.fromkeys(call.sources))
    if len(numbers) == 1 and _header(text, numbers[0], 0) is None:
        return {numbers[0]: text.strip()}
    starts: list[tuple[int, int]] = []
    pos = 0
    for n in numbers:  # sections come in the order their sources were registered
        at = _header(text, n, pos)
        if at is None:
            continue
        starts.append((at, n))
        pos = at + 1
    out: dict[int, str] = {}
    for i, (at, n) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        section = text[at:end]
        gap = section.find("\n\n[not read]")  # a URL that failed between two that were read
        out[n] = (section[:gap] if gap >= 0 else section).strip()
    return out


def _header(text: str, n: int, pos: int) -> int | None:
    m = re.compile(r"(?:^|\n)\[" + str(n) + r"\] ").search(text, pos)
    return None if m is None else m.start() + (1 if m.group().startswith("\n") else 0)
