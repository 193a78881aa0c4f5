"""Secrets written after a keyword without an assignment operator, and prefixed tokens of unknown
providers.

- Keyword near a token: ``api key 4f9c…``, ``my password is Tr0ub4dor&3``, ``token\\n  ghx_…``,
  ``Secret: …`` in prose. A secret word (:data:`KEYWORDS`), then at most MAX_FILLER_WORDS short
  words or signs (``is``, ``for``, ``:``, ``-``, ``/``) on the same or the next line, then one
  whitespace-free value. The value is masked only when it passes the gates: at least
  MIN_TOKEN_CHARS (MIN_PASSWORD_CHARS after a password word), random-looking
  (:func:`tui_agent.safety.assignments.looks_random`), entropy of at least MIN_TOKEN_ENTROPY bits
  per character (MIN_PASSWORD_ENTROPY for a password), and not a name, reference, path, URL,
  e-mail address or words (:func:`wordy`). ``name = value`` is left to the assignment detector.
- Prefixed token: a lower-case prefix of 2–8 letters and ``_`` or ``-`` (``vcp_``, ``shpss_``),
  then PREFIXED_BODY_CHARS or more letters and digits in both cases with at least
  PREFIXED_BODY_ENTROPY bits per character: the shape providers give their keys, whatever the
  provider (an identifier in code has words in it and less entropy).

Linear: keywords and prefixes are found by one regex pass each; after each keyword the fillers and
the value are matched by an anchored regex of bounded length.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Iterator

from tui_agent.safety.values import (  # noqa: F401 (wordy: also read from here)
    NOT_SECRET_VALUE_RE, REFERENCE_RE, ascii_lower, entropy, is_placeholder, is_reference, looks_like_location,
    looks_random, wordy)

MIN_TOKEN_CHARS = 16
"""Shortest value masked after a token, key or secret word."""
MIN_PASSWORD_CHARS = 8
"""Shortest value masked after a password word."""
MIN_TOKEN_ENTROPY = 3.3
"""Fewest bits per character of a value after a token word (hex of 16+ characters has ~3.5)."""
MIN_PASSWORD_ENTROPY = 2.5
"""Fewest bits per character of a value after a password word (8 distinct characters have 3)."""
MAX_FILLER_WORDS = 3
"""Short words or signs allowed between the keyword and the value."""
MAX_VALUE_CHARS = 300
"""Longest value read after a keyword (a longer run is not taken for a value here; long blobs are
the rule sets' and the assignment detector's)."""
PREFIXED_BODY_CHARS = 30
"""Fewest characters after the prefix of a prefixed token."""
PREFIXED_BODY_ENTROPY = 4.3
"""Fewest bits per character of a prefixed token's body (random base62 of 30+ characters has ~4.6
and more; camelCase identifiers stay under ~4.1)."""

KEYWORDS = (
    "api key", "api-key", "api_key", "apikey", "access key", "access-key", "access_key", "secret key", "secret_key",
    "private key", "client secret", "client_secret", "access token", "access_token", "auth token", "auth_token",
    "api token", "api_token", "bearer token", "refresh token", "token", "tokens", "secret", "secrets",
    "password", "passwords", "passwd", "passphrase", "pwd", "credential", "credentials", "keys",
)
"""Words after which a random-looking value is a secret (case-insensitive, whole words)."""
_PASSWORD_WORDS = ("password", "passwords", "passwd", "passphrase", "pwd")

# Found in a lower-cased copy (a case-insensitive alternation is many times slower); the left
# boundary is checked apart, so that re can skip ahead to the keywords' first letters.
_KEYWORD_RE = re.compile(
    "(" + "|".join(re.escape(k) for k in sorted(KEYWORDS, key=len, reverse=True)) + r")(?![a-z0-9_]|-[a-z0-9])"
)
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:")
"""A keyword after one of these is part of a name, path or URN (oauth/token, type:access_token)."""
# spaces, quotes, bold marks; a line break only after spaces (a closing quote ends a string)
_SEP = r"(?:[ \t*]*\r?\n[ \t\"'`*]*|[ \t\"'`*]*)"
_FILLER = r"(?:(?:is|was|are|be|for|of|to|the|my|your|our|this|here|it|as|id|key|set)(?![A-Za-z0-9])|[:=/\-–—>|]{1,2})"
_VALUE_RE = re.compile(
    r"(?:%s%s){0,%d}%s(?P<v>[A-Za-z0-9+/=_\-~!#$%%^&\\][A-Za-z0-9+/=_\-~!@#$%%^&:.\\]{%d,%d})(?![^\s\"'`<>,;()\[\]{}*])"
    % (_SEP, _FILLER, MAX_FILLER_WORDS, _SEP, MIN_PASSWORD_CHARS - 1, MAX_VALUE_CHARS - 1)
)
_PREFIXED_RE = re.compile(r"(?<![A-Za-z0-9_\-./+])[a-z]{2,8}[_\-](?P<b>[A-Za-z0-9]{%d,256})(?![A-Za-z0-9_\-])"
                          % PREFIXED_BODY_CHARS)
_TRAILING = ".:!?"
_SEQUENTIAL = re.compile(r"(?i)123456789|abcdefghij")  # a placeholder (Kingfisher's safe list)


def keyword_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each value masked after a keyword, and of each prefixed token."""
    done_until = -1
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lower-case to two: ASCII-only lowering
        lowered = ascii_lower(text)
    k = _KEYWORD_RE.search(lowered)
    while k is not None:
        pos = k.start()
        if pos < done_until or (pos and text[pos - 1] in _WORD_CHARS):
            k = _KEYWORD_RE.search(lowered, pos + 1)  # "api token" inside "neutrinoapi token": try "token"
            continue
        span = value_after(text, k.end(), password=k.group(1) in _PASSWORD_WORDS)
        if span:
            done_until = span[1]
            yield span[0], span[1], "keyword-near-token"
        k = _KEYWORD_RE.search(lowered, k.end())
    for m in _PREFIXED_RE.finditer(text):
        b = m.group("b")
        if (not b.isalpha() and not b.isdigit() and b.lower() != b and b.upper() != b
                and entropy(b) >= PREFIXED_BODY_ENTROPY and not is_placeholder(b) and not _SEQUENTIAL.search(b)
                and not wordy(b) and not _encoded_text(b)):
            yield m.start(), m.end(), "prefixed-token"


def value_after(text: str, pos: int, password: bool = False, assignments: bool = False) -> tuple[int, int] | None:
    """The span of the secret value read at ``pos`` (after a keyword), if it passes the gates.
    ``name = value`` is the assignment detector's (:mod:`tui_agent.safety.assignments`) unless
    ``assignments`` (a name it does not read as secret)."""
    m = _VALUE_RE.match(text, pos)
    if m is None:
        return None
    s, e = m.span("v")
    if not assignments and "=" in text[pos:s]:
        return None
    while e > s and text[e - 1] in _TRAILING:
        e -= 1
    return (s, e) if secret_value(text[s:e], password) else None


def secret_value(value: str, password: bool) -> bool:
    """Whether a value read after a secret word is masked: long, random-looking, enough entropy,
    not a location, reference, placeholder or words."""
    if len(value) < (MIN_PASSWORD_CHARS if password else MIN_TOKEN_CHARS):
        return False
    if (not looks_random(value, MIN_PASSWORD_CHARS) or looks_like_location(value) or "://" in value
            or _SEQUENTIAL.search(value)):
        return False
    if entropy(value) < (MIN_PASSWORD_ENTROPY if password else MIN_TOKEN_ENTROPY):
        return False
    if is_reference(value) or REFERENCE_RE.match(value) or NOT_SECRET_VALUE_RE.search(value):
        return False
    return not wordy(value)


def _encoded_text(body: str) -> bool:
    """Base64 of printable text (``bGl0ZWxsbTpmaWxl…`` is "litellm:file…"): an encoded id, not a key."""
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 8 and sum(32 <= b < 127 for b in raw) >= 0.9 * len(raw)
