"""Secret redaction: one pipeline of detectors, one place that merges their spans and replaces them.

:func:`redact` replaces each secret with :data:`REDACTED` and keeps what makes the text readable:
the name of an assignment (``password = "[REDACTED]"``), the scheme, user and host of a URL
(``https://alice:[REDACTED]@db.example``), the word ``Bearer``. :func:`find_secrets` returns the
spans it would replace, named by detector or rule. Both work on plain text (not JSON-encoded text)
and are idempotent: redacting twice gives the same text.

The pipeline (:func:`find_with_values`):

1. every detector of :data:`tui_agent.safety.detectors.DETECTORS` (vendored rule sets and the
   supplement, PEM blocks, URL and curl credentials, Bearer tokens, assignments, Kubernetes
   Secrets, keyword-near-token) and :class:`~tui_agent.safety.detectors.KnownValues` (the
   environment's secret values and the known values of :func:`add_known_values`) each return
   spans through the same ``find(text)``;
2. the same runs on the text folded (NFKC, format and default-ignorable characters removed), its
   spans mapped back: a zero-width space, soft hyphen or fullwidth letters inside a token still
   leave it found, and the original characters of its span, invisible ones included, are replaced;
3. every other occurrence, in the same text, of a secret found (:func:`_repeated_spans`);
4. :func:`_redact` merges overlapping spans and replaces each with :data:`REDACTED`.

A new credential format is a rule in ``secret_rule_data/supplement.toml`` (gitleaks' format); a new
kind of context is a detector in :mod:`tui_agent.safety.detectors`.
"""

from __future__ import annotations

import threading
from typing import Callable, Mapping

from tui_agent.safety import invisible, rule_sets
from tui_agent.safety.detectors import DETECTORS, Finding, KnownValues
from tui_agent.safety.env_values import (  # noqa: F401 (the redactor's API, read from here)
    LOCATION_NAME_SUFFIXES, MIN_ENV_SECRET_LENGTH, SECRET_NAME_PARTS, add_known_values, environment_values,
    known_values, names_secret, secret_values)
from tui_agent.safety.values import NOT_SECRET_VALUE_RE, looks_random, wordy

REDACTED = "[REDACTED]"

__all__ = ["REDACTED", "Finding", "Redacted", "add_known_values", "environment_values", "find_secrets",
           "find_with_values", "known_values", "names_secret", "redact", "redactor", "secret_values",
           "start_warm_up", "warm_up"]


class Redacted(str):
    """A text made only of redacted parts and fixed text of ours (a prompt around a page already
    redacted): the model boundary sends it without scanning it again. Any operation on it gives a
    plain ``str``, so a text changed afterwards is scanned as usual."""

    __slots__ = ()


# --- the pass ---------------------------------------------------------------------------------


def warm_up() -> None:
    """Compile the rule sets now (about a second, once per process) instead of at the first
    redaction; :func:`start_warm_up` does it in a background thread."""
    rule_sets.compiled()
    invisible.fold("\u00e9")  # the folding tables


def start_warm_up() -> threading.Thread:
    """Start :func:`warm_up` in a daemon thread (front ends call this at start-up, so the first
    event written, on the UI's path, does not wait for the compile)."""
    thread = threading.Thread(target=warm_up, name="redaction-rules", daemon=True)
    thread.start()
    return thread


def find_secrets(text: str, environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Every secret span in ``text`` (possibly overlapping), in no particular order.

    ``environ`` defaults to ``os.environ``; pass ``{}`` to ignore the environment.
    """
    return find_with_values(text, secret_values(environ)) if text else []


def find_with_values(text: str, values: tuple[str, ...]) -> list[Finding]:
    """Findings in ``text`` and in its folded form (:func:`tui_agent.safety.invisible.fold`: NFKC,
    without format and default-ignorable characters), mapped back to the original's positions,
    so a soft hyphen, a zero-width space or fullwidth letters inside a token do not hide it."""
    findings = _find_plain(text, values)
    folded = invisible.fold(text)
    if folded is not None:
        findings.extend(Finding(folded.start(f.start), folded.end(f.end), f.kind)
                        for f in _find_plain(folded.text, values) if f.end > f.start)
    return findings


def _find_plain(text: str, values: tuple[str, ...]) -> list[Finding]:
    findings: list[Finding] = list(KnownValues(values).find(text))
    for detector in DETECTORS:
        findings.extend(detector.find(text))
    findings.extend(_repeated_spans(text, findings))
    return findings


MIN_REPEATED_CHARS = 8
"""A secret found once is masked wherever else it occurs in the same text when it is at least
this long, random-looking and not made of words (a token quoted again in a log line, a table, a
second config; not ``doesnotexist`` or ``RemovedInPyjwt3Warning``, which are words elsewhere)."""
MAX_REPEATED_VALUES = 256
"""At most this many distinct secrets of one text are looked for again (the longest first)."""


def _repeated_spans(text: str, findings: list[Finding]) -> Iterator[Finding]:
    """Other occurrences of the secrets found: one RE2 pass (linear) over the text."""
    values = {text[f.start:f.end] for f in findings if f.end - f.start >= MIN_REPEATED_CHARS}
    values = sorted((v for v in values if looks_random(v) and not NOT_SECRET_VALUE_RE.search(v) and not wordy(v)
                     and not any(c.isspace() for c in v)), key=lambda v: (-len(v), v))
    if not values:
        return
    import re2  # already loaded by the rule sets

    found = {(f.start, f.end) for f in findings}
    for m in re2.compile("|".join(re2.escape(v) for v in values[:MAX_REPEATED_VALUES])).finditer(text):
        if m.span() not in found:
            yield Finding(m.start(), m.end(), "repeated-secret")


MEMO_MAX_TEXT = 65_536
"""Texts up to this many characters are remembered with their redaction (the store redacts the
same field names, tool names, arguments and ids in event after event)."""
MEMO_CHARS = 4_000_000
"""The remembered texts hold at most this many characters; the oldest are forgotten first."""

_memo_lock = threading.Lock()
_memo: tuple[tuple[str, ...] | None, dict[str, str]] = (None, {})  # (secret values, text → redacted)
_memo_size = 0


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace every secret in ``text`` with ``[REDACTED]`` (overlapping spans are merged).

    The result depends only on the text and the environment's secret values
    (:func:`secret_values`), so it is remembered for texts up to MEMO_MAX_TEXT characters while
    those values stay the same: a text seen again costs one dictionary lookup.
    """
    return _remembered(text, secret_values(environ)) if text else text


def redactor(environ: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """:func:`redact` with the environment's secret values read once, for many texts at a time."""
    values = secret_values(environ)
    return lambda text: _remembered(text, values) if text else text


def _remembered(text: str, values: tuple[str, ...]) -> str:
    global _memo, _memo_size
    if len(text) > MEMO_MAX_TEXT:
        return _redact(text, values)
    memo_values, memo = _memo
    if values is not memo_values and values != memo_values:
        memo = {}  # other secret values: what was remembered no longer holds
        with _memo_lock:
            _memo, _memo_size = (values, memo), 0
    found = memo.get(text)
    if found is not None:
        return found
    result = _redact(text, values)
    with _memo_lock:
        if _memo[1] is memo and text not in memo:
            memo[text] = result
            _memo_size += len(text)
            while _memo_size > MEMO_CHARS:
                oldest = next(iter(memo))
                del memo[oldest]
                _memo_size -= len(oldest)
    return result


def _redact(text: str, values: tuple[str, ...]) -> str:
    findings = find_with_values(text, values)
    if not findings:
        return text
    spans = sorted((f.start, f.end) for f in findings if f.end > f.start)
    parts: list[str] = []
    pos = 0
    cur_start, cur_end = spans[0]
    for start, end in spans[1:]:
        if start <= cur_end:
            cur_end = max(cur_end, end)
            continue
        parts += (text[pos:cur_start], REDACTED)
        pos, (cur_start, cur_end) = cur_end, (start, end)
    parts += (text[pos:cur_start], REDACTED, text[cur_end:])
    return "".join(parts)
