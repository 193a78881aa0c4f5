"""Observation hygiene: what every piece of outside text goes through before a model sees it.

- :func:`strip_controls` removes terminal escapes (CSI, OSC, DCS, …), C0/C1 controls, BEL and
  DEL, keeping tab and newline (a carriage return becomes a newline).
- :func:`redact` replaces secret values from the environment and credential shapes.
- :func:`escape_tags` neutralises the protocol tags so page text can never close a
  ``<tool_response>`` block or forge an ``<answer>``.
- :func:`cap_tokens` cuts to a token budget with a note saying how much was cut.

:func:`clean_observation` chains them in that order. All of it is linear-time regex work; a
1 MB text takes a few tens of milliseconds.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from typing import Mapping

from tui_agent import tokens

REDACTED = "[REDACTED]"

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


# --- protocol tags ----------------------------------------------------------------------------

PROTOCOL_TAGS = ("think", "tool_call", "tool_response", "answer")
# "<", optional spaces, optional "/", optional spaces, a tag name not followed by a name char:
# catches <answer>, </ANSWER>, </ tool_response >, <answer foo="x">, <think/>.
_TAG_RE = re.compile(
    r"<(?=\s*/?\s*(?:" + "|".join(PROTOCOL_TAGS) + r")(?![\w-]))",
    re.IGNORECASE,
)


def escape_tags(text: str) -> str:
    """Replace the ``<`` of protocol tags (any case, any spacing) with ``&lt;``.

    Only those tags are touched, so other markup, comparisons and Markdown stay readable.
    """
    if not text or "<" not in text:
        return text
    return _TAG_RE.sub("&lt;", text)


# --- redaction --------------------------------------------------------------------------------

SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
# Names that say they hold a location, not a secret (TIKTOKEN_CACHE_DIR, SSH_KEY_PATH, …).
LOCATION_NAME_SUFFIXES = ("_DIR", "_PATH", "_FILE", "_HOME")
MIN_SECRET_LENGTH = 6

# Credential shapes, one alternation so a text is scanned once. Each starts at a word boundary;
# the pattern begins with a character class (and checks the boundary behind it) for speed, and
# each branch checks the first character it belongs to.
_SHAPE_RE = re.compile(
    r"[sAgxBb](?<=\b[sAgxBb])(?:"
    r"(?<=s)k-[A-Za-z0-9][A-Za-z0-9_\-]{15,}"  # sk-…: OpenAI / Anthropic style keys
    r"|(?<=A)KIA[0-9A-Z]{16}\b"  # AKIA…: AWS access key id
    r"|(?<=g)h[pousr]_[A-Za-z0-9]{20,}"  # ghp_ gho_ ghu_ ghs_ ghr_: GitHub tokens
    r"|(?<=g)ithub_pat_[A-Za-z0-9_]{20,}"  # github_pat_…: GitHub fine-grained tokens
    r"|(?<=x)ox[abposr]-[A-Za-z0-9\-]{10,}"  # xoxb- xoxp- …: Slack tokens
    # "Bearer <token>": the word stays, the token goes. A token has a digit and 16+ characters,
    # so prose like "bearer instruments" is left alone.
    r"|(?<=[Bb])(?P<bearer>earer\s+)(?=[A-Za-z\-._~+/=]*\d)[A-Za-z0-9\-._~+/]{16,}=*"
    r")"
)


def _shape_sub(m: re.Match[str]) -> str:
    bearer = m.group("bearer")
    return m.group(0)[0] + bearer + REDACTED if bearer else REDACTED


_NUMERIC = re.compile(r"[\d.,:+\-]+")

_cache_lock = threading.Lock()
_env_cache: OrderedDict[tuple[str, ...], re.Pattern[str] | None] = OrderedDict()
_ENV_CACHE_SIZE = 8


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of variables whose names look secret, longest first.

    Skipped: values shorter than MIN_SECRET_LENGTH and purely numeric values (``MAX_TOKENS=100000``
    is a setting, and blanking every "100000" in page text would corrupt facts).
    For ``os.environ`` the result is memoised until the environment changes (every stored event
    is redacted, and scanning the environment costs ~50 µs; comparing it with a snapshot ~1 µs).
    """
    global _values_memo
    if environ is None:
        data = getattr(os.environ, "_data", None)  # CPython's raw mapping behind os.environ
        memo = _values_memo
        if data is None:
            return _scan_secret_values(os.environ)
        if memo is not None and memo[0] == data:
            return memo[1]
        snapshot = dict(data)  # taken before the scan: a change during it only causes a rescan
        values = _scan_secret_values(os.environ)
        _values_memo = (snapshot, values)
        return values
    return _scan_secret_values(environ)


_values_memo: tuple[dict, tuple[str, ...]] | None = None


def _scan_secret_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    found = set()
    for name, value in environ.items():
        upper = name.upper()
        if not any(part in upper for part in SECRET_NAME_PARTS) or upper.endswith(LOCATION_NAME_SUFFIXES):
            continue
        value = value.strip()
        if len(value) < MIN_SECRET_LENGTH or _NUMERIC.fullmatch(value):
            continue
        found.add(value)
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


def _env_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    with _cache_lock:
        if values in _env_cache:
            _env_cache.move_to_end(values)
            return _env_cache[values]
    pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None
    with _cache_lock:
        _env_cache[values] = pattern
        while len(_env_cache) > _ENV_CACHE_SIZE:
            _env_cache.popitem(last=False)
    return pattern


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace secret environment values and credential shapes with ``[REDACTED]``.

    The pattern of environment values is compiled once per distinct set of values and cached.
    """
    if not text:
        return text
    pattern = _env_pattern(secret_values(environ))
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    return _SHAPE_RE.sub(_shape_sub, text)


# --- size -------------------------------------------------------------------------------------

# Above this many characters the total token count in the cut note is estimated from the
# kept part instead of counted (counting a megabyte costs ~50 ms).
_EXACT_COUNT_CHARS = 200_000


def cut_note(cut: int, total: int, estimated: bool = False) -> str:
    about = "about " if estimated else ""
    return f"[… cut {about}{cut:,} of {about}{total:,} tokens to fit the observation limit]"


def cap_tokens(text: str, max_tokens: int) -> str:
    """Keep the first ``max_tokens`` tokens of ``text``; a cut ends with a note saying how much.

    The note counts tokens exactly for texts up to 200,000 characters and estimates beyond
    (saying "about"). The note itself is not counted against ``max_tokens``.
    """
    if not text:
        return text
    # A token is at least one byte of UTF-8, so a text this short always fits.
    if len(text) <= max_tokens and len(text.encode("utf-8", "surrogatepass")) <= max_tokens:
        return text
    enc = tokens.encoder()
    if len(text) <= _EXACT_COUNT_CHARS:
        ids = enc.encode(text, disallowed_special=())
        if len(ids) <= max_tokens:
            return text
        kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
        return _with_note(kept, cut_note(len(ids) - max_tokens, len(ids)))
    # Long text: encode a prefix that is long enough, growing it if the text is very dense.
    window = max(4096, max_tokens * 8)
    while True:
        prefix = text[:window]
        ids = enc.encode(prefix, disallowed_special=())
        if len(ids) > max_tokens or window >= len(text):
            break
        window *= 4
    if window >= len(text):
        if len(ids) <= max_tokens:
            return text
        kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
        return _with_note(kept, cut_note(len(ids) - max_tokens, len(ids)))
    kept = enc.decode(ids[:max_tokens]) if max_tokens > 0 else ""
    per_char = len(ids) / max(1, len(prefix))
    total = len(ids) + round((len(text) - len(prefix)) * per_char)
    return _with_note(kept, cut_note(total - max_tokens, total, estimated=True))


def _with_note(kept: str, note: str) -> str:
    kept = kept.rstrip()
    return f"{kept}\n{note}" if kept else note


def clean_observation(text: str, max_tokens: int) -> str:
    """strip_controls → redact → escape_tags → cap_tokens: the one path into a model's context."""
    return cap_tokens(escape_tags(redact(strip_controls(text))), max_tokens)
