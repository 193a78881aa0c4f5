"""A random-looking value written after a provider's name: ``apiTemplate := "EeOPHL…"``,
``cloudmersive: "sxk5k1…"``, ``confluence_a=NTk3MjQz…``, ``kucoin 2313b299-7ba8-…``.

The vendored rule sets know about 700 providers, each by its name and by the exact shape of its
keys. A provider changes the shape, or a text writes the key in a way no rule expected; the name
stays. This detector takes the providers' names from the rule sets themselves (their rule ids and
keywords, :func:`tui_agent.safety.rule_sets.provider_names`) and masks a value after one when it
passes the same gates as a value after a secret word (:mod:`tui_agent.safety.keywords`: long,
random-looking, enough entropy, not words, a path or a reference), except that a provider's name
may be followed by more of a name (``kraken_secret``, ``apiTemplate``) and by an assignment
(``=``, ``:=``, ``:``, ``(``), since no other detector reads a value after a name that does not
say secret.

Because a provider's name says less than a secret word, the value must also hold a run of
MIN_RANDOM_RUN_CHARS mixed letters and digits that is not words, and hold no ``:``, ``\\`` or ``&``
(a time, a Windows path, a query string). Names that are ordinary words (:data:`COMMON_NAMES`) are
not providers here; a name inside a word, path, host or URL query is not read; a git commit or
SHA-256 hash (40 or 64 hex digits) after a name is a hash, not a key (``github 3f2a…``).

Linear: one regex pass finds the letter runs; a set lookup decides if a run is a provider's
name; the value after it is matched by anchored regexes of bounded length.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from tui_agent.safety.keywords import KEYWORDS, value_after
from tui_agent.safety.rule_sets import provider_names
from tui_agent.safety.values import ascii_lower, wordy

COMMON_NAMES = frozenset(
    "access auth close column defined float front frame generic line linear private privacy monday notify "
    "moderation humanity hunter impala magnetic apollo courier envoy guardian harness holistic nimble octopus "
    "prefect coda ditto enigma polygon eraser intra curl odbc netrc passwd password credential credentials creds "
    "hashes privkey pwhash secret secrets token tokens keys client config default local public session signing "
    "webhook basic bearer shared master admin user users account service server cloud data base test tests http "
    "https chief ramp readme sauce square vault raven streak mysql django".split()
)
"""Provider names in the rule sets that are also ordinary words of prose or code: not read as a
provider's name (the secret words among them are :mod:`tui_agent.safety.keywords`')."""
MIN_PROVIDER_NAME_CHARS = 4
"""Shortest provider name read (shorter ones, ``aws``, ``gcp``, are prefixes the rules know)."""
MAX_NAME_TAIL_CHARS = 30
"""Most characters of a name after the provider's (``_api_secret_key``)."""

_RUN = re.compile(r"[a-z]{%d,}" % MIN_PROVIDER_NAME_CHARS)
_BEFORE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./:-?&=#%\\")
"""A provider name right after one of these is inside a word, path, host, URL query or URN."""
_TAIL = re.compile(r"[A-Za-z0-9_\-]{0,%d}(?![A-Za-z0-9_\-])" % MAX_NAME_TAIL_CHARS
                   + r"(?:[\"'`\])]{0,2}[ \t]*(?:\(|,(?=[ \t]*[\"'`])))?")
MIN_RANDOM_RUN_CHARS = 12
"""A value after a provider's name needs a run of this many letters and digits, mixed, that is not
words (``bedrock-2023-05-31``, ``microsoft_365_copilot`` and ``token-counting`` have none)."""
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{%d,}" % MIN_RANDOM_RUN_CHARS)
_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    return frozenset(n for n in provider_names() if len(n) >= MIN_PROVIDER_NAME_CHARS and n not in COMMON_NAMES
                     and n not in KEYWORDS)


def provider_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each random-looking value after a provider's name."""
    names = _names()
    lowered = ascii_lower(text)
    done_until = -1
    for m in _RUN.finditer(lowered):
        pos = m.start()
        if pos < done_until or m.group() not in names or (pos and text[pos - 1] in _BEFORE):
            continue
        tail = _TAIL.match(text, m.end())  # none when the name goes on (``rootly_<token>``: a token)
        span = tail and value_after(text, tail.end(), assignments=True)
        if not span:
            continue
        s, e = span
        value = text[s:e]
        if (_HASH.fullmatch(value) or value.startswith("//") or any(c in value for c in ":\\&")
                or not any(_random(r.group()) for r in _ALNUM_RUN.finditer(value))):
            continue
        done_until = e
        yield s, e, "provider-name"


def _random(run: str) -> bool:
    return not run.isalpha() and not run.isdigit() and not wordy(run)
