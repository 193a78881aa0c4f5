"""Observation hygiene: what every piece of outside text goes through before a model sees it.

- :func:`strip_controls` removes terminal escapes (CSI, OSC, DCS, …), C0 controls (except tab and
  newline; a carriage return becomes a newline), C1 controls (U+0080–U+009F) and DEL.
- :func:`terminal_safe` is strip_controls plus the bidirectional embeddings, overrides and
  isolates and the Unicode tag characters, for text that reaches a terminal.
- :func:`redact` (from :mod:`tui_agent.safety.redaction`) replaces secrets with ``[REDACTED]``.
- :func:`scrub` copies a JSON-able structure with every string (keys too) stripped and redacted,
  for what is written as JSON.
- :func:`escape_tags` neutralises the protocol tags, chat-template tokens and the extraction
  prompt's page markers, look-alikes included (NFKC, invisible characters), so page text can never
  close a ``<tool_response>`` block, forge an ``<answer>`` or end the model's turn.

``core.budgets.clean_observation`` chains strip_controls → redact → escape_tags → the token cap
(a cut needs the tokenizer, which sits above this package). All of it is
linear-time work (regexes anchored on literals, no nested quantifiers, bounded windows); escape_tags
takes about 0.1 s per MB of prose and under 2.5 s per MB of the most hostile text measured
(benchmarks/bench_escape.py, benchmarks/bench_redaction.py).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Mapping

from tui_agent.safety import invisible
from tui_agent.safety.redaction import REDACTED, Finding, find_secrets, redact, redactor, secret_values

__all__ = [
    "REDACTED", "Finding", "escape_tags", "find_secrets", "redact", "scrub", "secret_values", "strip_controls",
    "terminal_safe",
]

# --- control characters and terminal escapes ------------------------------------------------

# One pass: any control character; when it is ESC, the whole sequence it introduces goes too:
# - CSI: ESC [, parameter bytes, intermediate bytes, one final byte;
# - strings (OSC, DCS, SOS, PM, APC): ESC ] P X ^ _ up to BEL or ST (ESC \ or 0x9C); an
#   unterminated one stops at the end of its line so it cannot swallow the rest of a page;
# - other escapes: ESC, intermediates, one final byte (ESC c, ESC ( B, ESC 7 …).
# 8-bit C1 introducers are removed as single characters: in decoded text they are far more often
# mis-decoded bytes than real escapes, and their payload is inert once the introducer is gone.
# (The pattern starts with a character class so the regex engine can skip ahead quickly.)
_CONTROL_RE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"
    r"(?:(?<=\x1b)(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|[ -/]*[0-~]?))?"
)
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """Remove terminal escape sequences and control characters; keep ``\\t`` and ``\\n``.

    ``\\r\\n`` and a lone ``\\r`` become ``\\n`` (a bare carriage return could otherwise make
    a terminal overwrite what was shown before it on the line).
    """
    if not text or not _ANY_CONTROL.search(text):
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL_RE.sub("", text)


# --- what reaches a terminal ----------------------------------------------------------------

# Embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069) reorder the characters
# after them, so page text could make a line read differently from what it says ("Trojan
# Source"). They are removed. The marks U+200E, U+200F and U+061C are kept: they are strong
# characters themselves, cannot reorder other strong text, and right-to-left text needs them to
# place its punctuation. Line and paragraph separators (U+2028, U+2029) become newlines, the way
# a reader would see them.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Unicode tag characters (U+E0000–E007F) are invisible and can smuggle text past a reader: removed.
_TERMINAL_TABLE = ({ord(c): None for c in BIDI_CONTROLS} | {0x2028: "\n", 0x2029: "\n"}
                   | {c: None for c in range(0xE0000, 0xE0080)})
_TERMINAL_RE = re.compile("[" + BIDI_CONTROLS + "\u2028\u2029\U000e0000-\U000e007f]")


def terminal_safe(text: str) -> str:
    """:func:`strip_controls`, then remove bidirectional controls: for text shown in a terminal."""
    text = strip_controls(text)
    if not text or not _TERMINAL_RE.search(text):
        return text
    return text.translate(_TERMINAL_TABLE)


def for_terminal(text: Any) -> str:
    """Outside text as a person reads it in a terminal (the headless trace, the TUI's panes):
    terminal_safe, then redact."""
    return redact(terminal_safe(str(text)))


def scrub(obj: Any, environ: Mapping[str, str] | None = None, *, terminal: bool = False,
          controls: bool = True) -> Any:
    """A copy of ``obj`` with every string, dict keys included, passed through strip_controls and
    redact (``terminal=True``: terminal_safe and redact; ``controls=False``: redact only, as the
    store keeps text as it was), before it is encoded as JSON.

    Dicts, lists and tuples are copied recursively (tuples stay tuples); other values are
    returned as they are. Two keys that become equal after scrubbing keep the later value.
    """
    clean = terminal_safe if terminal else strip_controls if controls else None
    redact_text = redactor(environ)  # the environment's secret values read once, not per string

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return redact_text(clean(value) if clean else value)
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return value

    return walk(obj)


# --- protocol tags, chat-template tokens, prompt markers ------------------------------------------

PROTOCOL_TAGS = ("think", "thinking", "tool_call", "tool_response", "answer")
# Chat-template tokens written as tags: a server that tokenizes them as special tokens would end
# the turn or open a new one (<|im_end|>, <|eot_id|>, <|channel|>, <｜User｜> all fall under <|…|>).
TEMPLATE_TAGS = ("start_of_turn", "end_of_turn", "eos", "bos", "s", "pad", "unk", "start_function_call",
                 "end_function_call", "start_function_response", "end_function_response")
# ... and written in square brackets (Mistral, MiniMax).
TEMPLATE_BRACKETS = ("INST", "SYSTEM_PROMPT", "TOOL_CALLS", "TOOL_CALL", "TOOL_RESULTS", "AVAILABLE_TOOLS", "THINK",
                     "TOOL_CONTENT", "IMG", "SYSTEM", "USER", "ASSISTANT")
# The markers that fence page text in the extraction prompt (prompts/extract.txt).
PROMPT_MARKERS = ("PAGE START", "PAGE END")

# Characters that render as nothing: every format character and default-ignorable code point
# (tui_agent.safety.invisible: zero-width spaces and joiners, bidirectional controls, soft hyphen,
# U+0600–0605, U+FFF0–FFFB, Egyptian format controls, variation selectors, the Unicode tag block,
# fillers…). Inside a look-alike tag they are removed before the tag is judged; tag characters are
# removed everywhere. The patterns that hold them are built on first use (_lookalikes).
TAG_CHARS_RE = re.compile("[\U000e0000-\U000e007f]")
# Characters NFKC folds into "<", "[" and "=" (fullwidth and small forms).
_LT, _LBRACKET, _EQ = "<\ufe64\uff1c", "\\[\ufe47\uff3b", "=\u207c\u208c\ufe66\uff1d"
_ANGLE_BODY = (r"\s*/?\s*(?:(?:" + "|".join(PROTOCOL_TAGS) + r")(?![\w-])|(?:" + "|".join(TEMPLATE_TAGS) + r")\s*>)"
               r"|\|[^|\n]{1,48}\|\s*>")
_BRACKET_BODY = r"\s*/?\s*(?:" + "|".join(TEMPLATE_BRACKETS) + r")\s*\]"
_MARKER_BODY = r"=+\s*(?:" + "|".join(m.replace(" ", r"\s*") for m in PROMPT_MARKERS) + r")\s*=+"
# Plain ASCII spellings: one pass each, like any regex anchored on a literal.
_ASCII_ANGLE = re.compile(f"<(?={_ANGLE_BODY})", re.IGNORECASE)
_ASCII_BRACKET = re.compile(f"\\[(?=\\s*/?\\s*[a-z])(?={_BRACKET_BODY})", re.IGNORECASE)
# Starts only where a run of "=" does (the literal first lets the scan skip ahead).
_ASCII_MARKER = re.compile("=(?<!==)=*" + _MARKER_BODY.removeprefix("=+"), re.IGNORECASE)
# Look-alikes, looked for only in text that is not ASCII: a fullwidth or small-form opener, or an ASCII
# one with a non-ASCII character close after it. Each candidate is judged on its NFKC form without
# invisible characters; the window holds at most _WINDOW visible characters, with runs of invisible
# ones between them, and stops at the next opener or line, so the work stays linear.
_WINDOW = 72
_FORGED_ANGLE = re.compile(_ANGLE_BODY, re.IGNORECASE)
_FORGED_BRACKET = re.compile(_BRACKET_BODY, re.IGNORECASE)
_MARKER = re.compile(_MARKER_BODY + "$", re.IGNORECASE)
_OPENERS_RE = re.compile(f"[{_LT}{_LBRACKET}]")
_EQ_RE = re.compile(f"[{_EQ}]")


@cache
def _lookalikes() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(invisible characters, tag candidates, marker candidates)."""
    inv = invisible.ignorable_class()
    candidate = re.compile(f"(?:[\ufe64\uff1c\ufe47\uff3b]|[<\\[](?=[^\n<\\[]{{0,{_WINDOW}}}?[^\\x00-\\x7f]))"
                           f"(?:[{inv}]++|[^\n{_LT}{_LBRACKET}{inv}]){{0,{2 * _WINDOW}}}")
    marker = re.compile(f"(?<![{_EQ}{inv}])(?:[{_EQ}][{inv}]*)++[^\n{_EQ}]{{1,60}}(?:[{_EQ}][{inv}]*)++")
    return invisible.ignorable_re(), candidate, marker


def normalise(text: str) -> str:
    """NFKC, then without the invisible characters: what a look-alike is judged by."""
    if text.isascii():
        return text
    import unicodedata

    return _lookalikes()[0].sub("", unicodedata.normalize("NFKC", text))


def _escape_candidate(m: re.Match) -> str:
    opener, window = m.group(0)[0], m.group(0)[1:]
    folded = normalise(window)
    if opener == "<" or normalise(opener) == "<":
        forged = _FORGED_ANGLE.match(folded)
        escaped = "&lt;"
    else:
        forged = _FORGED_BRACKET.match(folded)
        escaped = "&#91;"
    if not forged:
        return m.group(0)
    # Escape the opener; inside the tag's own span the invisible characters go too.
    head, seen = len(window), 0
    for i, ch in enumerate(window):
        if seen >= forged.end():
            head = i
            break
        seen += len(normalise(ch))
    return escaped + _lookalikes()[0].sub("", window[:head]) + window[head:]


def _neutralise_marker(m: re.Match) -> str:
    folded = normalise(m.group(0)).strip()
    if not _MARKER.match(folded):
        return m.group(0)
    name = re.sub(r"[=\s]+", " ", folded).strip().upper()
    return f"[{name} marker quoted in the page]"


def escape_tags(text: str) -> str:
    """Neutralise everything in outside text that a model could take for protocol structure:

    - the protocol tags (``<think>``, ``<thinking>``, ``<tool_call>``, ``<tool_response>``,
      ``<answer>``; any case, spacing, attributes) and chat-template tokens (``<|im_end|>``,
      ``<|eot_id|>``, ``<|channel|>``, ``<end_of_turn>``, ``</s>``, ``[INST]``, ``[/INST]``…):
      their ``<`` becomes ``&lt;`` and their ``[`` becomes ``&#91;``;
    - look-alikes of them: fullwidth or small-form ``＜`` ``［`` ``｜``, and zero-width or other
      invisible characters inside (judged after NFKC; the invisible characters of a forged tag go);
    - the extraction prompt's ``=== PAGE START ===`` / ``=== PAGE END ===`` markers, in any spelling,
      become ``[PAGE END marker quoted in the page]``;
    - Unicode tag characters (U+E0000–E007F) are removed everywhere.

    Other markup, comparisons and Markdown stay as they are.
    """
    if not text:
        return text
    if not text.isascii():
        if TAG_CHARS_RE.search(text):
            text = TAG_CHARS_RE.sub("", text)
        if _OPENERS_RE.search(text):
            text = _lookalikes()[1].sub(_escape_candidate, text)
        if _EQ_RE.search(text):
            text = _lookalikes()[2].sub(_neutralise_marker, text)
    if "<" in text:
        text = _ASCII_ANGLE.sub("&lt;", text)
    if "[" in text:
        text = _ASCII_BRACKET.sub("&#91;", text)
    if "=" in text:
        text = _ASCII_MARKER.sub(_neutralise_marker, text)
    return text
