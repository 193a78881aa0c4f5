"""Secret redaction: credential formats, secret-named assignments, key blocks, URL and curl
credentials, and the values of secret-named environment variables.

:func:`redact` replaces each secret with :data:`REDACTED` and keeps what makes the text readable:
the name of an assignment (``password = "[REDACTED]"``), the scheme, user and host of a URL
(``https://alice:[REDACTED]@db.example``), the word ``Bearer``. :func:`find_secrets` returns the
spans it would replace, named by detector. Both work on plain text (not JSON-encoded text) and
are idempotent: redacting twice gives the same text.

Detectors (each a linear scan anchored on a cheap literal or keyword):

- formats from :mod:`tui_agent.safety.secret_rules` (one alternation) and the maintained rule sets of
  gitleaks and Nosey Parker (:mod:`tui_agent.safety.rule_sets`; ``kind`` is the rule id, such as
  ``noseyparker:np.dockerhub.1``);
- PEM private key blocks, whole, whatever their length (``-----BEGIN … PRIVATE KEY-----`` to
  its END line);
- credentials in URLs (``scheme://user:password@host``: the password);
- ``curl -u user:password`` / ``--user`` (the password; the user when the password is empty);
- assignments whose name says secret (:mod:`tui_agent.safety.assignments`), Kubernetes Secret data;
- a random-looking value after a secret word without an operator (``api key 4f9c…``, ``password
  is …``) and prefixed tokens of providers no rule knows (:mod:`tui_agent.safety.keywords`);
- values of environment variables whose names say secret, when the value looks like a secret
  (:func:`tui_agent.safety.assignments.looks_random`), and their URL-encoded form; and the values
  made known by :func:`add_known_values` (an MCP server's tokens);
- every other occurrence, in the same text, of a secret one of the above found.

Every detector also reads the text folded (NFKC, format and default-ignorable characters removed):
a zero-width space, soft hyphen or fullwidth letters inside a token still leave it found, and the
original characters of its span, invisible ones included, are replaced.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping
from urllib.parse import quote

from tui_agent.safety import invisible, rule_sets, secret_rules
from tui_agent.safety.assignments import (
    _NOT_SECRET_VALUE_RE, assignment_spans, is_placeholder, kubernetes_secret_spans, looks_random)
from tui_agent.safety.keywords import keyword_spans, wordy

REDACTED = "[REDACTED]"


class Redacted(str):
    """A text made only of redacted parts and fixed text of ours (a prompt around a page already
    redacted): the model boundary sends it without scanning it again. Any operation on it gives a
    plain ``str``, so a text changed afterwards is scanned as usual."""

    __slots__ = ()

SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PWD", "AUTH")
"""An environment variable whose name contains one of these may hold a secret."""
LOCATION_NAME_SUFFIXES = ("_DIR", "_PATH", "_FILE", "_HOME", "_URL", "_HOST", "_ID", "_NAME")
"""…unless its name says it holds a location or a label (TIKTOKEN_CACHE_DIR, SSH_KEY_PATH)."""
MIN_ENV_SECRET_LENGTH = 8
"""Shorter environment values are never masks (``OPENAI_API_KEY=ollama`` must not blank words)."""
CURL_CONTEXT_CHARS = 2_000
"""``-u``/``--user`` counts as curl's flag when ``curl`` occurs this close before it."""


@dataclass(frozen=True)
class Finding:
    """A span of text that :func:`redact` replaces; ``kind`` names the detector or format."""

    start: int
    end: int
    kind: str


# --- PEM blocks -------------------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Without an END line the block runs over what a key body is made of, piece by piece, each after
# whitespace or the literal \n of a key quoted inside JSON: base64 runs of PEM_MIN_LINE_CHARS or
# more, a shorter last run (padded, or followed only by whitespace up to a dash line or the end), the
# armor header lines (``Proc-Type: 4,ENCRYPTED``, ``Version:``), a PGP checksum (``=abcd``) and further BEGIN lines. Prose after
# the block stops it: a word of prose is neither.
PEM_MIN_LINE_CHARS = 16
"""A base64 run this long continues a key body that has no END line; a shorter one only ends it."""
_PEM_SEP = r"(?:\s|\\[nr])"
_PEM_BODY = re.compile(
    rf"(?:{_PEM_SEP}+(?:[A-Za-z0-9+/]{{{PEM_MIN_LINE_CHARS},}}={{0,2}}|[A-Za-z0-9+/]{{1,{PEM_MIN_LINE_CHARS}}}={{1,2}}"
    rf"|[A-Za-z0-9+/]{{1,{PEM_MIN_LINE_CHARS}}}(?={_PEM_SEP}*+(?:-----|\Z))"
    r"|=[A-Za-z0-9+/]{4}|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):[^\n\\]{0,200}|-----BEGIN[ A-Z0-9_-]{0,40}-----))*"
)
_PEM_SEPS = re.compile(rf"{_PEM_SEP}*+")


def _pem_spans(text: str) -> Iterator[Finding]:
    """Each private key block, whole: from its BEGIN line to the first END line that follows
    within the key body, or to the end of the body when no END line follows.

    Linear: BEGIN and END lines are found in one pass each; the body after a BEGIN line is
    matched once per run of body characters (a BEGIN inside a body already matched reuses its
    end), and BEGIN lines inside a block already masked are skipped.
    """
    if "PRIVATE KEY" not in text:
        return
    end_lines = [(m.start(), m.end()) for m in _PEM_END.finditer(text)]
    end_starts = [start for start, _ in end_lines]
    masked_until = body_start = body_end = -1
    for m in _PEM_BEGIN.finditer(text):
        if m.start() < masked_until:
            continue
        if not body_start <= m.end() <= body_end:
            body_start, body_end = m.end(), _PEM_BODY.match(text, m.end()).end()
        i = bisect.bisect_left(end_starts, m.end())
        reach = _PEM_SEPS.match(text, body_end).end()  # an END line may follow after whitespace
        stop = end_lines[i][1] if i < len(end_lines) and end_starts[i] <= reach else body_end
        masked_until = stop
        yield Finding(m.start(), stop, "private-key-block")


# --- credentials in URLs and curl -------------------------------------------------------------

# Starts with the literal "://" so re can skip ahead fast; the scheme before it is checked apart.
_URL_CREDENTIALS = re.compile(r"://(?P<user>[^\s:/?#@\[\]\"'<>]{0,200}):(?P<pw>[^\s/?#@\"'<>]{1,500})@(?=[\w\[])")
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")


def _url_spans(text: str) -> Iterator[Finding]:
    if "://" not in text:
        return
    for m in _URL_CREDENTIALS.finditer(text):
        pw = m.group("pw")
        if m.start() and text[m.start() - 1] in _SCHEME_CHARS and not is_placeholder(pw) and pw.lower() not in _WEAK_PASSWORDS:
            yield Finding(*m.span("pw"), "url-password")


_CURL_USER = re.compile(
    r"(?<![\w-])(?:-u|--user)(?:[ \t]*=[ \t]*|[ \t]+)"
    r"(?P<cred>\"[^\"\n]*\"(?::\"[^\"\n]*\")?|'[^'\n]*'|[^\s'\":]{0,256}:(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]*))"
)
_CURL_WORD = re.compile("curl")
# Linear: a try at a flag reads a user of at most 256 characters; a quoted part ends at the next
# quote, which the next flag's quote would be; a match is consumed whole by finditer.
_WEAK_PASSWORDS = frozenset({"pass", "password", "pwd", "test", "token", "secret", "changeme", "changeit"})
"""Words that stand for a password in examples (``http://user:pass@host/``, ``curl -u test:test``)."""


def _curl_spans(text: str) -> Iterator[Finding]:
    if "curl" not in text:
        return
    curls = [m.start() for m in _CURL_WORD.finditer(text)]
    for m in _CURL_USER.finditer(text):
        i = bisect.bisect_left(curls, m.start()) - 1  # the last "curl" before the flag
        if i < 0 or m.start() - curls[i] > CURL_CONTEXT_CHARS:
            continue
        part = _curl_secret_part(text, *m.span("cred"))
        if part:
            yield Finding(*part, "curl-user")


def _curl_secret_part(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Span of the password in ``user:password`` (quoted whole or in parts), or of the user when
    the password is empty; None for placeholders and values without a colon."""
    cred = text[start:end]
    if is_placeholder(cred):
        return None  # <user:password>, $USER:$PASS
    if cred[:1] in "\"'" and cred.endswith(cred[0]) and cred.count(cred[0]) == 2:
        start, end, cred = start + 1, end - 1, cred[1:-1]  # "user:password" as one quoted word
    colon = _unquoted_colon(cred)
    if colon < 0:
        return None
    user = (start, start + colon)
    pw = (start + colon + 1, end)
    for span in (pw, user) if pw[1] > pw[0] else (user,):
        s, e = span
        if text[s:e][:1] in "\"'" and e - s >= 2 and text[e - 1] == text[s]:
            s, e = s + 1, e - 1
        value = text[s:e]
        if value and not is_placeholder(value) and value.lower() not in _WEAK_PASSWORDS and len(set(value)) > 3:
            return s, e
        if span is pw and value:
            return None  # a placeholder password: the user is not the secret either
    return None


def _unquoted_colon(cred: str) -> int:
    quote_char = ""
    for i, c in enumerate(cred):
        if quote_char:
            quote_char = "" if c == quote_char else quote_char
        elif c in "\"'":
            quote_char = c
        elif c == ":":
            return i
    return -1


# --- credential formats -----------------------------------------------------------------------


def _format_spans(text: str) -> Iterator[Finding]:
    for start, end, name in secret_rules.scan(text):
        yield Finding(start, end, name)
    for start, end, rule_id in rule_sets.scan(text):
        yield Finding(start, end, rule_id)


# --- environment values -----------------------------------------------------------------------

_cache_lock = threading.Lock()
_env_cache: OrderedDict[tuple[str, ...], re.Pattern[str] | None] = OrderedDict()
_ENV_CACHE_SIZE = 8
_values_memo: tuple[dict, tuple[str, ...]] | None = None


_known: frozenset[str] = frozenset()
_with_known: tuple[tuple[str, ...], frozenset[str], tuple[str, ...]] | None = None


def add_known_values(values: Iterable[str]) -> None:
    """Make ``values`` secrets the redactor knows for the rest of the process, like the
    environment's (an MCP server's ``env`` values and tokens, :mod:`tui_agent.safety.server_secrets`).
    Values shorter than MIN_ENV_SECRET_LENGTH and placeholders are ignored; the URL-encoded form
    of each joins too. They apply wherever the environment's do (``environ`` left as None)."""
    global _known
    new = set()
    for value in values:
        value = value.strip()
        if len(value) >= MIN_ENV_SECRET_LENGTH and not is_placeholder(value):
            new |= {value, quote(value, safe="")}
    if not new <= _known:
        with _cache_lock:
            _known = _known | new


def known_values() -> frozenset[str]:
    """The values :func:`add_known_values` made known."""
    return _known


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The environment's secret values (:func:`environment_values`) and, for ``os.environ``
    (``environ`` None), the known values of :func:`add_known_values`; longest first."""
    global _with_known
    values = environment_values(environ)
    known = _known
    if environ is not None or not known:
        return values
    memo = _with_known
    if memo is not None and memo[0] is values and memo[1] is known:
        return memo[2]
    merged = tuple(sorted(set(values) | known, key=lambda v: (-len(v), v)))
    _with_known = (values, known, merged)
    return merged


def environment_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named variables that look like secrets, longest first.

    A value is used only when it is at least MIN_ENV_SECRET_LENGTH long and random enough
    (:func:`tui_agent.safety.assignments.looks_random`): ``ollama``, ``x``, ``none``, ``test-key``,
    ``true``, numbers, paths and URLs without credentials are never masks. For ``os.environ`` the
    result is memoised until the environment changes.
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


def names_secret(name: str) -> bool:
    """Whether a variable's or a flag's name says it holds a secret (one of SECRET_NAME_PARTS)."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def _scan_secret_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    found = set()
    for name, value in environ.items():
        if not names_secret(name) or name.upper().endswith(LOCATION_NAME_SUFFIXES):
            continue
        value = value.strip()
        if len(value) < MIN_ENV_SECRET_LENGTH or not looks_random(value):
            continue
        found.add(value)
        encoded = quote(value, safe="")
        if encoded != value:
            found.add(encoded)  # the value as it appears in a URL query or form body
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


def _env_spans(text: str, values: tuple[str, ...]) -> Iterator[Finding]:
    pattern = _env_pattern(values)
    if pattern is not None:
        for m in pattern.finditer(text):
            yield Finding(m.start(), m.end(), "environment")


# --- the pass ---------------------------------------------------------------------------------


def warm_up() -> None:
    """Compile the rule sets now (about a second, once per process) instead of at the first
    redaction; :func:`start_warm_up` does it in a background thread."""
    rule_sets.compiled()
    secret_rules.scan("warm up")
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
    return _find(text, secret_values(environ)) if text else []


def _find(text: str, values: tuple[str, ...]) -> list[Finding]:
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
    findings: list[Finding] = []
    findings.extend(_env_spans(text, values))
    findings.extend(_pem_spans(text))
    findings.extend(_format_spans(text))
    findings.extend(_url_spans(text))
    findings.extend(_curl_spans(text))
    findings.extend(Finding(s, e, kind) for s, e, kind in assignment_spans(text))
    findings.extend(Finding(s, e, kind) for s, e, kind in kubernetes_secret_spans(text))
    findings.extend(Finding(s, e, kind) for s, e, kind in keyword_spans(text))
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
    values = sorted((v for v in values if looks_random(v) and not _NOT_SECRET_VALUE_RE.search(v) and not wordy(v)
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
    findings = _find(text, values)
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
