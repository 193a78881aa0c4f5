"""Assignments whose name says secret, and what counts as a secret-looking value.

A name says secret when its words (``AUTH_CLIENT_SECRET``, ``clientSecret``, ``x-api-key``,
``$DB_PASSWD``) include a password word or a token/secret/credential word, and do not end in a
word that makes it a label (``token_url``, ``secret_name``, ``client_id``, ``max_tokens``).
Recognised forms: ``name = "v"``, ``name: v`` (YAML, also ``|``/``>`` blocks), ``"name": "v"``,
``NAME=v``, ``name := v`` and other operators, ``--name v``/``--name=v``, ``<name>v</name>``,
``<add key="Password" value="v"/>``, ``setenv("NAME", "v")``, ``Authorization: Bearer v``.

The value is masked, the name kept, and only when the value looks like a secret
(:func:`looks_random`, or a password of at least MIN_PASSWORD_LENGTH characters): references
(``${X}``, ``$X``, ``var.x``, ``{{ x }}``), placeholders (``xxxx``, ``<token>``, ``changeme``),
paths, URLs without credentials and plain words are left alone.
"""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache
from typing import Callable, Iterator

from tui_agent.safety.values import (  # noqa: F401 (is_placeholder, entropy, looks_random: also read from here)
    MIN_SECRET_VALUE_LENGTH, NOT_SECRET_VALUE_RE, REFERENCE_RE, WORDS_RE, ascii_lower, entropy, is_placeholder,
    is_reference, looks_like_location, looks_random)

MIN_PASSWORD_LENGTH = 6
"""Shortest value of a password-named assignment that is masked."""
MIN_KEY_VALUE_LENGTH = 20
"""Shortest value masked when the only secret word of the name is a bare ``key``."""
MAX_RESCAN_CHARS = 256
"""A keyword inside the value of an assignment already read is looked at again only while that
value is shorter than this: a masked value, or a longer one, is read once (linear time on
``password=password=…``), and a value is masked whole, whatever its length."""
MAX_NAME_CHARS = 80
"""Longest assignment name looked at around a keyword."""

_SPACE_RE = re.compile(r"\s")
_HEX_RE = re.compile(r"[0-9A-Fa-f]+$")
QUERY_DIGEST_NAMES = frozenset({"token", "sig", "signature", "hash"})
"""A URL query parameter of one of these names whose value is hex only is a signed link's digest
(a page publishes it in its links), not a credential; ``access_token=``, ``api_key=`` and others
are masked as usual, and so is a non-hex value."""


def password_like(value: str, quoted: bool) -> bool:
    """A password: MIN_PASSWORD_LENGTH or longer, not a placeholder; unquoted, not a bare word
    (``password: userPassword`` in code is a reference)."""
    if len(value) < MIN_PASSWORD_LENGTH or is_placeholder(value) or looks_like_location(value):
        return False
    if REFERENCE_RE.match(value) or (not quoted and is_reference(value)):
        return False
    return True


# --- names ------------------------------------------------------------------------------------

_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "passcode"})
_SECRET_PARTS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey",
                 "secretkey", "credential", "signingkey", "encryptionkey", "masterkey", "accountkey",
                 "sharedaccesskey", "clientkey", "consumerkey", "sessionkey", "authkey")
_SECRET_WORDS = frozenset({"auth", "authorization", "creds", "bearer", "login", "pat", "pwd", "pass"})
_LABEL_LAST_WORDS = frozenset(
    "id ids name names url uri urls uris endpoint file files path paths dir length len size type types count "
    "limit expiry expires expiration ttl format version header field prefix suffix label hint policy mode "
    "enabled required provider method scope scopes regex pattern timeout duration algorithm alg store manager "
    "service class param params column table index location ref reference env var variable placeholder "
    "hash digest schema kind source mapping map hdr handler label handlers tag node".split()
)
_LABEL_FIRST_WORDS = frozenset(
    "max min num total input output prompt completion cached reasoning public pub csrf xsrf is has use enable "
    "disable show hide no allow require reset forgot primary foreign sort partition".split()
)
_TOKEN_COUNT_WORDS = frozenset({"tokens", "tokenizer", "tokenizers", "tokenize", "tokenized", "tokenization"})

PASSWORD, SECRET, KEY = "password", "secret", "key"


@lru_cache(maxsize=4096)
def name_kind(name: str) -> str | None:
    """PASSWORD, SECRET, KEY (a bare ``key`` word) or None for a name that does not say secret."""
    words = [w.lower() for w in _WORD_RE.findall(name)]
    if not words or words[-1] in _LABEL_LAST_WORDS or words[0] in _LABEL_FIRST_WORDS:
        return None
    if _TOKEN_COUNT_WORDS.intersection(words):
        return None
    joined = "".join(words)
    password_words = _PASSWORD_WORDS.intersection(words)
    if password_words == {"pass"} and words[-1] != "pass":
        password_words = set()  # PASS_THROUGH_ENDPOINTS, pass_through: "pass" as a verb
    if password_words or any(p in joined for p in ("password", "passwd", "passphrase")):
        return PASSWORD
    if any(part in joined for part in _SECRET_PARTS) or _SECRET_WORDS.intersection(words):
        return SECRET
    if "key" in words:
        return KEY
    return None


# --- the detector -----------------------------------------------------------------------------

# Keywords are found with str.find on a lower-cased copy (much faster than a case-insensitive
# regex); the name around each is then read with anchored regexes.
_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "login", "bearer")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$-")
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.$\-]{0,%d}" % MAX_NAME_CHARS)
# After a name, an operator must follow (or whitespace, for a --flag): most keyword hits in prose
# ("the key findings") fail here, before any other work.
_OPERATOR_PEEK = re.compile(r"\\?[\"'`]?\]?[ \t]*(?:[:=>,?+.]|value)")
_FLAG_PEEK = re.compile(r"[ \t]+\S")
_VALUE_RE = re.compile(
    r"(?P<q>\\?[\"'`])?\]?"  # closing quote of a quoted name; ] of os.environ['NAME']
    r"(?P<op>[ \t]*(?::::=|::=|:=|=>|==|\?=|\+=|\.=|=|:|,)[ \t]*"
    r"|[ \t]+value[ \t]*=[ \t]*|>[ \t]*(?:\r?\n[ \t]*)?|[ \t]+)"
    r"(?P<block>[|>][-+]?[ \t]*\r?\n[ \t]*)?"  # YAML block scalar
    r"(?:(?P<scheme>Bearer|Basic|Token|Api-Token|Digest|JWT)[ \t]+)?"
    r"(?P<value>\\\"(?:[^\"\\\n]|\\[^\"\n])*\\\"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`"
    r"|[^\s\"'`,;<>|&\\]+)"
)
_CLOSERS = {")": "(", "]": "[", "}": "{"}


_LEADING_SPACE = re.compile(r"[^\S\n]*")


class _NetrcLines:
    """Whether a name stands on a ``machine host login user password VALUE`` line (.netrc), after
    its ``login`` word. Each line is read once: the names asked about come in increasing order, so
    the newline before each is searched for only in the text not searched yet (linear time on a long
    line of keywords, where reading the line from its start at every name was quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.searched = 0  # no text before this is searched for newlines again
        self.line_start = 0  # the start of the line holding position ``searched``
        self.line_read = -1  # the line whose ``login`` word was looked for ...
        self.login_end = -1  # ... and the position just after it (-1: not a .netrc line)
        self.lines_read = 0  # for tests: how many lines were read

    def _start_of_line(self, pos: int) -> int:
        if pos >= self.searched:
            newline = self.text.rfind("\n", self.searched, pos)
            if newline >= 0:
                self.line_start = newline + 1
            self.searched = pos
            return self.line_start
        if pos >= self.line_start:
            return self.line_start
        return self.text.rfind("\n", 0, pos) + 1  # not reached: names never go back a line

    def __call__(self, pos: int) -> bool:
        start = self._start_of_line(pos)
        if start != self.line_read:
            self.line_read, self.login_end = start, self._login_end(start)
        return 0 <= self.login_end <= pos

    def _login_end(self, start: int) -> int:
        self.lines_read += 1
        text = self.text
        first = _LEADING_SPACE.match(text, start).end()
        if not text.startswith(("machine ", "default "), first):
            return -1
        end = text.find("\n", first)
        login = text.find(" login ", first, len(text) if end < 0 else end)
        return -1 if login < 0 else login + len(" login")


def _closes_element(text: str, pos: int, name_start: int) -> bool:
    name = _NAME_TAIL.match(text, name_start).group(0)
    return re.match(r"\s*</" + re.escape(name) + ">", text[pos:pos + len(name) + 40]) is not None


def _trim_closers(value: str) -> str:
    """Drop what belongs to the code around an unquoted value: the ``}`` of ``{token: abc}``, the
    ``):`` of ``def f(pwd=None):``."""
    while value:
        last = value[-1]
        if last in ":;," or (last in _CLOSERS and value.count(last) > value.count(_CLOSERS[last])):
            value = value[:-1]
        else:
            break
    return value


_WORD_NUMBER_RE = re.compile(r"^[A-Za-z_]+\d{0,3}$")  # urllib2, HTTPPasswordMgr: a name, maybe numbered
_ENV_NAME_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CODE_VALUE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*=(?!=)|[()]")
def _basic_has_password(value: str) -> bool:
    try:
        return b":" in base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return True  # not base64: whatever it is, it is masked


_SCHEME_RE = re.compile(r"(?:Bearer|Basic|Token|Api-Token|Digest|JWT)[ \t]+")


def assignment_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each masked value of a secret-named assignment."""
    if text.isascii():
        lowered: str | bytes = text.encode("ascii").lower()  # bytes: much faster to lower and search
        keywords: tuple = _KEYWORDS_BYTES
    else:
        lowered = text.lower()
        if len(lowered) != len(text):  # a few characters lower-case to two: ASCII-only lowering
            lowered = ascii_lower(text)
        keywords = _KEYWORDS
    hits = sorted({i for kw in keywords for i in _find_all(lowered, kw)})
    in_netrc_line = _NetrcLines(text)
    done_until = -1
    for i in hits:
        if i < done_until:
            continue
        start, lo = i, max(0, i - MAX_NAME_CHARS)
        while start > lo and text[start - 1] in _NAME_CHARS:
            start -= 1
        end = _NAME_TAIL.match(text, i).end()
        done_until = end
        raw = text[start:end]
        name = raw.rstrip(".-")
        end = start + len(name)
        if not _OPERATOR_PEEK.match(text, end) and not (
                _FLAG_PEEK.match(text, end) and (name.startswith("-") or in_netrc_line(start))):
            continue
        kind = name_kind(name.lstrip("$-"))
        if kind is None:
            continue
        m = _VALUE_RE.match(text, end)
        if m is None:
            continue
        span = _value_span(text, m, start, kind, in_netrc_line)
        if span:
            done_until = max(done_until, span[1])
            yield span[0], span[1], f"assignment-{kind}"
        elif m.end() - end > MAX_RESCAN_CHARS:
            done_until = max(done_until, m.end())


_KEYWORDS_BYTES = tuple(k.encode() for k in _KEYWORDS)


def _find_all(haystack, needle) -> Iterator[int]:
    i = haystack.find(needle)
    while i >= 0:
        yield i
        i = haystack.find(needle, i + 1)


def _value_span(text: str, m: re.Match[str], name_start: int, kind: str,
                in_netrc_line: Callable[[int], bool]) -> tuple[int, int] | None:
    op = m.group("op")
    before = text[name_start - 1] if name_start else ""
    if op.startswith(">") and (before != "<" or not _closes_element(text, m.end(), name_start)):
        return None  # '>' only ends an XML start tag whose element holds just the value
    if not op.strip() and not text[name_start:name_start + 1] == "-" and not (kind == PASSWORD and in_netrc_line(name_start)):
        return None  # whitespace alone separates a CLI flag (or a .netrc password) from its value
    if m.group("block") and op.strip() != ":":
        return None
    s, e = m.span("value")
    value = m.group("value")
    if before and before in "\"'`" and not m.group("q") and value.startswith(before):
        return None  # "Password:" is a string: its quote closes it, no value opens (,rememberMeLabel:)
    quoted = value[:1] in "\"'`"
    if value.startswith('\\"'):
        s, e = s + 2, e - 2
    elif quoted:
        s, e = s + 1, e - 1
    trimmed = False
    if not quoted:
        kept = len(_trim_closers(text[s:e]))
        trimmed = kept < e - s and text[s + kept] in ")]}"
        e = s + kept
    inner = text[s:e]
    scheme = _SCHEME_RE.match(inner)
    if scheme and quoted:
        s += scheme.end()
        inner = text[s:e]
        if scheme.group(0).startswith("Basic") and not _basic_has_password(inner):
            return None  # Basic dXNlcg== is "user": a user name without a password
    if op.strip() == "," and not (quoted and m.group("q")) and not (
            not quoted and not m.group("q") and text[m.end():m.end() + 1] in ",\n\r"):
        return None  # only "name", "value" and CSV's name,value, (not a call's arguments)
    if op.strip() == "," and trimmed:
        return None  # (JWT, OAuth2, OAuth2-proxy): the last item of a list in code or prose
    if _SPACE_RE.search(inner):
        return None  # a phrase, not a secret
    if before in "?&" and _HEX_RE.match(inner) and text[name_start:m.start()].lower() in QUERY_DIGEST_NAMES:
        return None  # a signed link's digest (reader.elsevier.com/…?token=86EDF3…): shown to every reader
    if not quoted and (is_reference(inner) or inner[:1] in "([{#" or _CODE_VALUE_RE.search(inner)):
        return None  # code: a reference (token = self._token), an expression (pwd = (a, b)),
        # a keyword argument (passwd, is_authenticated=False), a call (self).setUp()), a comment
    if NOT_SECRET_VALUE_RE.search(inner) or (kind != PASSWORD and WORDS_RE.match(inner)):
        return None  # a host:port, a format string, escaped bytes, HTML entities, dashed words
    if op.strip() == "," and quoted and (is_reference(inner) or _WORD_NUMBER_RE.match(inner) or is_placeholder(
            text[name_start:m.start()].strip("\"'`") or "x") or not looks_random(inner, MIN_PASSWORD_LENGTH)):
        return None  # a list of names ('HTTPPasswordMgr', 'HTTPPasswordMgrWithDefaultRealm', "urllib2")
    if quoted and kind != PASSWORD and (is_reference(inner) or _ENV_NAME_RE.match(inner)):
        return None  # auth: "OneLogin_Saml2_Auth" (a type), "api_key": "AZURE_API_KEY" (a variable's name)
    if quoted and kind == PASSWORD and _ENV_NAME_RE.match(inner):
        return None  # "azure_password": "AZURE_PASSWORD"
    if op.strip() == "," and not quoted and not looks_random(inner):
        return None  # CSV's name,value, needs a random value
    if kind == PASSWORD:
        ok = password_like(inner, quoted)
    elif kind == KEY:
        ok = looks_random(inner, MIN_KEY_VALUE_LENGTH) and not REFERENCE_RE.match(inner)
    else:
        ok = looks_random(inner) and not (not quoted and REFERENCE_RE.match(inner))
    return (s, e) if ok else None


# --- Kubernetes Secret manifests --------------------------------------------------------------

_K8S_KIND = re.compile(r"(?m)kind:[ \t]*[\"']?[Ss]ecret[\"']?[ \t]*$")  # literal first: fast
_K8S_DATA = re.compile(r"(?m)^(?P<indent>[ \t]*)data:[ \t]*$")
_K8S_ENTRY = re.compile(
    r"(?m)^(?P<indent>[ \t]+)(?:#[^\n]*|[\w.\-]+:[ \t]*(?:[|>][-+]?[ \t]*\n[ \t]+)?[\"']?"
    r"(?P<v>[A-Za-z0-9+/]{10,}={0,3})[\"']?[ \t]*)$"
)


def kubernetes_secret_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """The base64 values under ``data:`` in a manifest of ``kind: Secret`` (documents split on ---)."""
    if "kind:" not in text or "data:" not in text or not _K8S_KIND.search(text):
        return
    bounds = [0] + [m.end() for m in re.finditer(r"(?m)^---[ \t]*$", text)] + [len(text)]
    for offset, stop in zip(bounds, bounds[1:]):
        doc = text[offset:stop]
        if not _K8S_KIND.search(doc):
            continue
        for data in _K8S_DATA.finditer(doc):
            pos = data.end() + 1
            while True:
                m = _K8S_ENTRY.match(doc, pos)
                if m is None or len(m.group("indent").expandtabs()) <= len(data.group("indent").expandtabs()):
                    break
                if m.group("v"):
                    yield offset + m.start("v"), offset + m.end("v"), "kubernetes-secret"
                pos = m.end() + 1
