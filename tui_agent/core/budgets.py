"""Token budgets and the one cut.

Every place that cuts text to a token budget cuts it here, and says so in one note format:
``[… cut N of M tokens to fit <what>]``. The observation cap (:func:`cap_tokens`), visit's
per-URL share (handed to tools in their ``ToolContext``), the forced answer's trim of the latest
observation, the verifier's source budget and the compaction calls all use :func:`cut` or
:func:`fit`. The one cut without a note or a count is ``tokens.truncate`` (the page text sent to
extraction), which encodes only the head of a long text.
"""

from __future__ import annotations

from tui_agent.model import tokens
from tui_agent.safety.hygiene import escape_tags, redact, strip_controls

OBSERVATION_LIMIT = "the observation limit"
ANSWER_ROOM = "the room left for the answer"
SOURCE_SHARE = "this source's share of the verifier's budget"
NOTE_TOKENS = 40
"""Room for a cut note and the message overhead, kept free when a text must fit a room exactly."""
_EXACT_COUNT_CHARS = 200_000  # beyond this the total is estimated from a prefix ("about")


def note(cut_tokens: int, total: int, why: str = OBSERVATION_LIMIT, estimated: bool = False) -> str:
    """The one note of a cut: how much of how much, and to fit what."""
    about = "about " if estimated else ""
    return f"[… cut {about}{cut_tokens:,} of {about}{total:,} tokens to fit {why}]"


def cut(text: str, max_tokens: int) -> tuple[str, int]:
    """The first ``max_tokens`` tokens of ``text`` and how many tokens were cut (no note)."""
    if max_tokens <= 0:
        return "", tokens.count(text)
    ids = tokens.encode(text)
    if len(ids) <= max_tokens:
        return text, 0
    return tokens.encoder().decode(ids[:max_tokens]), len(ids) - max_tokens


def fit(text: str, max_tokens: int, why: str = OBSERVATION_LIMIT) -> str:
    """Keep the first ``max_tokens`` tokens of ``text``; a cut ends with the note (not counted).

    Counts exactly for texts up to 200,000 characters and estimates beyond (the note says "about").
    """
    if not text:
        return text
    # A token is at least one byte of UTF-8, so a text this short always fits.
    if len(text) <= max_tokens and len(text.encode("utf-8", "surrogatepass")) <= max_tokens:
        return text
    enc = tokens.encoder()
    if len(text) <= _EXACT_COUNT_CHARS:
        ids = tokens.encode(text)
        if len(ids) <= max_tokens:
            return text
        kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
        return with_note(kept, note(len(ids) - max_tokens, len(ids), why))
    # Long text: encode a prefix that is long enough, growing it if the text is very dense.
    window = max(4096, max_tokens * 8)
    while True:
        prefix = text[:window]
        ids = tokens.encode(prefix)
        if len(ids) > max_tokens or window >= len(text):
            break
        window *= 4
    if window >= len(text):
        if len(ids) <= max_tokens:
            return text
        kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
        return with_note(kept, note(len(ids) - max_tokens, len(ids), why))
    kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
    per_char = len(ids) / max(1, len(prefix))
    total = len(ids) + round((len(text) - len(prefix)) * per_char)
    return with_note(kept, note(total - max_tokens, total, why, estimated=True))


def fit_room(text: str, room: int, why: str) -> str:
    """``text`` cut so that it and its note fit in ``room`` tokens (a message in a full prompt)."""
    if tokens.count(text) <= room:
        return text
    return fit(text, max(0, room - NOTE_TOKENS), why)


def with_note(kept: str, cut_note: str) -> str:
    kept = kept.rstrip()
    return f"{kept}\n{cut_note}" if kept else cut_note


def share(total: int, parts: int, overhead: int = 0, minimum: int = 1) -> int:
    """One part's share of ``total`` tokens split ``parts`` ways, ``overhead`` set aside per part."""
    parts = max(1, parts)
    return max(minimum, (total - overhead * parts) // parts)


# -- the observation cap ----------------------------------------------------------------------

def cut_note(cut_tokens: int, total: int, estimated: bool = False) -> str:
    """The observation limit's cut note."""
    return note(cut_tokens, total, OBSERVATION_LIMIT, estimated)


def cap_tokens(text: str, max_tokens: int) -> str:
    """Keep the first ``max_tokens`` tokens of ``text``; a cut ends with a note saying how much
    (:func:`fit`, the one cut)."""
    return fit(text, max_tokens, OBSERVATION_LIMIT)


def clean_observation(text: str, max_tokens: int) -> str:
    """strip_controls → redact → escape_tags (``safety.hygiene``) → cap_tokens: the one path into a
    model's context."""
    return cap_tokens(escape_tags(redact(strip_controls(text))), max_tokens)
