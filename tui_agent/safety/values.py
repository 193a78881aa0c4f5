"""What a value looks like: a secret, a placeholder, a reference, a location or words.

The tests every detector shares (:mod:`tui_agent.safety.assignments`, :mod:`tui_agent.safety.keywords`,
:mod:`tui_agent.safety.rule_sets`, :mod:`tui_agent.safety.redaction`): one home, so a detector does
not reach into another's private helpers.
"""

from __future__ import annotations

import math
import re
from collections import Counter

MIN_SECRET_VALUE_LENGTH = 8
"""Shortest value of a token/secret/key-named assignment that is masked."""
MIN_NUMERIC_SECRET_LENGTH = 16
"""An all-digit value counts as random only from this length (``MAX_TOKENS=100000`` is a setting)."""
MIN_DISTINCT_CHARS = 5
"""A value with fewer distinct characters is a placeholder (``xxxxxxxx``, ``12121212``)."""
MIN_LETTERS_ONLY_LENGTH = 16
MIN_LETTERS_ONLY_ENTROPY = 3.0
"""A value of letters only (no digit, no symbol) counts as random only in mixed case, at least
this long, with at least this Shannon entropy in bits per character."""

_PLACEHOLDER_WORDS = frozenset(
    "redacted null none nil true false undefined string required optional empty secret password passwd "
    "token apikey api_key key value changeme changeit placeholder example sample dummy fake test mock todo "
    "fixme your_password your_token your_api_key yourpassword mypassword ****".split()
)
_PLACEHOLDER_RE = re.compile(
    r"(?i)^(?:x+|\*+|\.+|#+|-+|_+|0+|<[^>]*>|\[[^\]\d]*\]|\{[^}\d]*\}|%\w+%|\$\w+|\$\{.*|\$\(.*"
    r"|(?:your|my|insert|enter|replace|put)[_\- ]?.*(?:here|key|token|secret|password).*|.*_here)$"
)
REFERENCE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")  # var.db_password
_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_CALL_OR_INDEX_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*[(\[]")
_FILE_RE = re.compile(r"(?i)\.(?:pem|key|crt|cer|p12|pfx|json|ya?ml|txt|env|keytab|jks|der|pub|cfg|conf|ini)$")
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_DIGIT_RE = re.compile(r"\d")
_SYMBOL_RE = re.compile(r"[^A-Za-z0-9]")


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(text: str) -> str:
    """``text`` with only A-Z lower-cased: the same length, so a match in it is a match in ``text``
    at the same place (``str.lower`` turns a few characters into two)."""
    return text.translate(_ASCII_LOWER)


_REFERENCE_PREFIXES = ("os.environ/", "$")
"""A value that names where the secret is (litellm's ``os.environ/NAME``, ``$NAME/…``)."""


def is_placeholder(value: str) -> bool:
    """A reference, template, placeholder or already-redacted value, not a secret."""
    v = value.strip()
    if not v or "REDACTED" in v or "${" in v or "{{" in v or "$(" in v or v.startswith(_REFERENCE_PREFIXES):
        return True
    return v.lower() in _PLACEHOLDER_WORDS or bool(_PLACEHOLDER_RE.match(v)) or len(set(v)) < 3


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def looks_random(value: str, min_length: int = MIN_SECRET_VALUE_LENGTH) -> bool:
    """Long and varied enough to be a generated secret rather than a word, number or name.

    At least ``min_length`` characters and MIN_DISTINCT_CHARS distinct ones, not a placeholder,
    path, URL or e-mail address; then letters with digits, or three character classes (lower,
    upper, digit, symbol), or mixed-case letters of MIN_LETTERS_ONLY_LENGTH with high entropy.
    All-digit values count from MIN_NUMERIC_SECRET_LENGTH.
    """
    if len(value) < min_length or is_placeholder(value) or looks_like_location(value):
        return False
    if value.isdigit():
        return len(value) >= MIN_NUMERIC_SECRET_LENGTH and len(set(value)) >= MIN_DISTINCT_CHARS
    if len(set(value)) < MIN_DISTINCT_CHARS:
        return False
    lower = value.upper() != value
    upper = value.lower() != value
    digit = _DIGIT_RE.search(value) is not None
    other = _SYMBOL_RE.search(value) is not None
    if digit and (lower or upper):
        return True
    if lower + upper + digit + other >= 3:
        return True
    return (lower and upper and not other and len(value) >= MIN_LETTERS_ONLY_LENGTH
            and entropy(value) >= MIN_LETTERS_ONLY_ENTROPY)


def looks_like_location(value: str) -> bool:
    """A path, a URL without credentials, a key or config file name, or an e-mail address."""
    if value.startswith(("/", "./", "../", "~/")) or re.match(r"^[A-Za-z]:\\", value):
        return True
    if "://" in value and "@" not in value:
        return True
    return bool(_FILE_RE.search(value) or _EMAIL_RE.match(value))


MAX_REFERENCE_DIGIT_SHARE = 0.1
"""An unquoted identifier-like value is a reference in code when it has no digit
(``KQ_FILTER_READ``) or is made of ``_``/``.``-separated words with digits under this share
(``self._token2``), not like a generated ``b__8k74ad7reuv…``."""


def is_reference(value: str) -> bool:
    """An identifier, call or index in code (``KQ_FILTER_READ``, ``get_password(user)``), not a value."""
    if _CALL_OR_INDEX_RE.match(value):
        return True  # get_password(user), tokens[0]
    if not _IDENTIFIER_RE.match(value):
        return False
    digits = len(_DIGIT_RE.findall(value))
    if not digits:
        return True  # KQ_FILTER_READ, userPassword
    # self._token2, config.api_key_v2, v1_api_key: separated words with a digit or two
    return ("_" in value or "." in value) and digits <= max(2, MAX_REFERENCE_DIGIT_SHARE * len(value))


NOT_SECRET_VALUE_RE = re.compile(
    r"^[A-Za-z0-9.\-]+\.[A-Za-z]{2,}:\d{1,5}$|^localhost:\d+$"  # proxy.example.com:3128
    r"|\{\w*\}|%[sd]|&(?:lt|gt|amp|quot);"  # "{}.{}", "provider_spend:{provider}:1d", HTML entities
    r"|^(?:CRAM|DIGEST|SCRAM)-(?:MD5|SHA-?\d+)(?:-PLUS)?$"  # SASL mechanisms (AUTH=CRAM-MD5)
    r"|^(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[0-7]{3})+$"  # '\xa1\xa2'
)
WORDS_RE = re.compile(r"^[A-Z]?[a-z]+(?:[-_.][A-Z]?[a-z]+)+$|^[A-Z]?[a-z]+(?:[A-Z][a-z]+)+$")
"""Words, dashed or joined (Proxy-Authorization, ProxyBasicAuthHandler): a name, not a token
(each repetition starts with a separator or a capital, so matching is linear)."""


_WORD_HUMPS = re.compile(r"[A-Z]?[a-z]{3,}")
MIN_WORD_VOWELS = 0.25
"""Words have this share of vowels or more (ClassificationOutputElement 0.4, RemovedInPyjwt3Warning 0.26);
random letters about 0.19 (5 of 26)."""
MAX_WORD_SHARE = 0.75
"""A prefixed token's body with more than this share in camelCase words of 3+ letters is an
identifier (``assertRaisesRegexWithCallable2``: nearly all); random base62 has about a sixth, and
under 0.72 in 2,000 draws of 32 characters."""

_ENV_NAME = re.compile(r"_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


def wordy(value: str) -> bool:
    """Made of words: dashed or camelCase words (``RemovedInPyjwt3Warning``, ``token-counting``), a
    mixed-case value with more than MAX_WORD_SHARE of it in words of 3+ letters with vowels as
    words have them, or an upper-case name (``_X509_TOKEN_TYPE``)."""
    if WORDS_RE.match(value) or _ENV_NAME.match(value):
        return True
    if value.lower() == value or value.upper() == value:
        return False  # single-case random strings have long letter runs too
    humps = "".join(_WORD_HUMPS.findall(value))
    vowels = sum(c in "aeiouAEIOU" for c in humps)
    return len(humps) > MAX_WORD_SHARE * len(value) and vowels >= MIN_WORD_VOWELS * len(humps)
