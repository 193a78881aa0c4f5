"""The detectors of the redaction pipeline, each behind one protocol: ``find(text)`` returns the
spans of ``text`` it takes for secrets, as :class:`Finding` (start, end, kind).

:mod:`tui_agent.safety.redaction` runs :data:`DETECTORS` (and :class:`KnownValues` for the
environment's and the MCP servers' values) over a text and its folded form, merges the spans and
replaces them. A detector here is a linear scan anchored on a cheap literal or keyword:

- :data:`RULE_SETS`: the vendored rule sets (gitleaks, Nosey Parker, Kingfisher) and this project's
  ``secret_rule_data/supplement.toml``, on RE2 (:mod:`tui_agent.safety.rule_sets`); ``kind`` is the
  rule id, such as ``noseyparker:np.dockerhub.1``. A credential format has its home there;
- :data:`PEM_BLOCKS`: private key blocks, whole, whatever their length;
- :data:`URL_CREDENTIALS`: ``scheme://user:password@host`` (the password);
- :data:`CURL_USER`: ``curl -u user:password`` / ``--user`` (the password; the user when the
  password is empty);
- :data:`BEARER_TOKENS`: ``Bearer <token>`` anywhere (the token);
- :data:`ASSIGNMENTS` and :data:`KUBERNETES_SECRETS`: assignments whose name says secret
  (:mod:`tui_agent.safety.assignments`), Kubernetes Secret data;
- :data:`KEYWORDS`: a random-looking value after a secret word without an operator, and
  prefixed tokens of providers no rule knows (:mod:`tui_agent.safety.keywords`);
- :data:`PROVIDER_NAMES`: a random-looking value after the name of a provider the rule sets know,
  in whatever shape (:mod:`tui_agent.safety.providers`);
- :data:`XML_ELEMENTS`: random-looking words inside a secret-named XML element in braces or with
  several words (Jenkins' ``<secret>{AQAAABAAA…}</secret>``);
- :data:`JOSE_TOKENS`: JSON Web Tokens in any compact form (RFC 7515/7516: signed, unsigned or
  encrypted), known by their header: base64url JSON naming ``alg`` or ``enc``;
- :class:`KnownValues`: given values wherever they occur (:mod:`tui_agent.safety.env_values`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Protocol

from tui_agent.safety import rule_sets
from tui_agent.safety.assignments import assignment_spans, kubernetes_secret_spans, name_kind
from tui_agent.safety.env_values import value_pattern
from tui_agent.safety.keywords import keyword_spans
from tui_agent.safety.providers import provider_spans
from tui_agent.safety.values import is_placeholder, is_reference, looks_random, wordy

CURL_CONTEXT_CHARS = 2_000
"""``-u``/``--user`` counts as curl's flag when ``curl`` occurs this close before it."""


@dataclass(frozen=True)
class Finding:
    """A span of text that redaction replaces; ``kind`` names the detector or the rule."""

    start: int
    end: int
    kind: str


class Detector(Protocol):
    """Finds secrets in a text: every span it takes for one, possibly overlapping, in any order."""

    name: str

    def find(self, text: str) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class Spans:
    """A detector made of a function that yields (start, end, kind) or :class:`Finding`."""

    name: str
    spans: Callable[[str], Iterable]

    def find(self, text: str) -> Iterator[Finding]:
        for span in self.spans(text):
            yield span if isinstance(span, Finding) else Finding(*span)


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


# --- given values ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownValues:
    """Every occurrence of given values (the environment's secret values and the known values of
    :func:`tui_agent.safety.env_values.add_known_values`, longest first): one regex pass."""

    values: tuple[str, ...]
    name: str = "environment"

    def find(self, text: str) -> Iterator[Finding]:
        pattern = value_pattern(self.values)
        if pattern is not None:
            for m in pattern.finditer(text):
                yield Finding(m.start(), m.end(), self.name)


# --- Bearer tokens ----------------------------------------------------------------------------

# "Bearer <token>" outside a secret-named assignment: the word stays, the token goes. A token has a
# digit and 16+ characters, so prose like "bearer instruments" is left alone.
BEARER_RE = re.compile(r"(?i:bearer)[ \t]+((?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{16,}=*)")


def _bearer_spans(text: str) -> Iterator[Finding]:
    if "earer" in text or "EARER" in text:
        for m in BEARER_RE.finditer(text):
            yield Finding(*m.span(1), "bearer-token")


# --- XML elements whose name says secret, holding more than one word -------------------------

_XML_ELEMENT = re.compile(r"<(?P<name>[A-Za-z][A-Za-z0-9_.\-]{0,80})>(?P<content>[^<\n]{1,%d})</(?P=name)>" % 500)
_WORD = re.compile(r"[^\s{}]+")
MIN_ELEMENT_WORD_CHARS = 16
"""Shortest word masked inside a secret-named element's braces or phrase (``<secret>{AQAAABAAA…}``)."""


def _xml_element_spans(text: str) -> Iterator[Finding]:
    """The random-looking words of ``<secret>{…}</secret>``, ``<password>{…}</password>`` (Jenkins'
    credentials.xml keeps encrypted secrets in braces) and of such an element holding several
    words; a single plain value is the assignment detector's. Linear: an element is read from
    its ``<`` to the next ``<`` at most."""
    if "</" not in text:
        return
    for m in _XML_ELEMENT.finditer(text):
        content = m.group("content")
        if not (content.startswith("{") or " " in content.strip()):
            continue
        kind = name_kind(m.group("name"))
        if kind is None:
            continue
        base = m.start("content")
        for w in _WORD.finditer(content):
            word = w.group(0)
            if (len(word) >= MIN_ELEMENT_WORD_CHARS and looks_random(word) and not wordy(word)
                    and not is_reference(word)):
                yield Finding(base + w.start(), base + w.end(), f"xml-{kind}")


# --- the pipeline's detectors -----------------------------------------------------------------

RULE_SETS = Spans("rule-sets", rule_sets.scan)
PEM_BLOCKS = Spans("private-key-block", _pem_spans)
URL_CREDENTIALS = Spans("url-password", _url_spans)
CURL_USER = Spans("curl-user", _curl_spans)
BEARER_TOKENS = Spans("bearer-token", _bearer_spans)
ASSIGNMENTS = Spans("assignment", assignment_spans)
KUBERNETES_SECRETS = Spans("kubernetes-secret", kubernetes_secret_spans)
KEYWORDS = Spans("keyword-near-token", keyword_spans)
PROVIDER_NAMES = Spans("provider-name", provider_spans)
XML_ELEMENTS = Spans("xml-element", _xml_element_spans)
# --- JOSE compact tokens (JWT, JWS, JWE) --------------------------------------------------------

_JOSE = re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]{8,}){1,4}(?:\.[A-Za-z0-9_-]*)?")
JOSE_MAX_HEADER_CHARS = 2_000
"""A longer first segment is not read as a JOSE header."""


def _jose_header(segment: str) -> bool:
    """Whether ``segment`` is base64url JSON with ``alg`` or ``enc``: a token's protected header."""
    import base64
    import json

    if len(segment) > JOSE_MAX_HEADER_CHARS:
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and ("alg" in header or "enc" in header)


def _jose_spans(text: str) -> Iterator[tuple[int, int, str]]:
    if "eyJ" not in text:
        return
    for m in _JOSE.finditer(text):
        if _jose_header(m.group().split(".", 1)[0]):
            yield m.start(), m.end(), "jose-token"


JOSE_TOKENS = Spans("jose", _jose_spans)

DETECTORS: tuple[Detector, ...] = (
    PEM_BLOCKS, RULE_SETS, URL_CREDENTIALS, CURL_USER, BEARER_TOKENS, ASSIGNMENTS, KUBERNETES_SECRETS, KEYWORDS,
    PROVIDER_NAMES, XML_ELEMENTS, JOSE_TOKENS)
"""The detectors every text goes through, besides :class:`KnownValues`; a new detector joins here."""
