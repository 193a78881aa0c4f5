"""Maintained secret-scanning rule sets, vendored as data and run with RE2 (linear time).

The credential formats of providers are a closed, documented set that public scanners maintain;
this module loads theirs instead of keeping a hand-written copy:

- ``secret_rule_data/gitleaks.toml``: gitleaks' default configuration (MIT, see
  ``LICENSE.gitleaks``), verbatim;
- ``secret_rule_data/noseyparker/*.yml``: Nosey Parker's built-in rules (Apache-2.0, see
  ``LICENSE.noseyparker`` and ``NOTICE.noseyparker``), verbatim; only the rules of its
  ``default`` ruleset (``rulesets-default.yml.txt``: the high-precision ones) are used;
- ``secret_rule_data/kingfisher/*.yml``: MongoDB Kingfisher's rules (Apache-2.0, see
  ``LICENSE.kingfisher`` and ``NOTICE.kingfisher``), verbatim; the rules Kingfisher reports by
  default (confidence medium or high) and shows (``visible: false`` marks an id, not a secret);
- ``secret_rule_data/supplement.toml``: the formats no vendored set finds, in gitleaks' format
  (this project's only home for a credential format: a new one is a rule there).

Every rule keeps its id (``gitleaks:github-pat``, ``noseyparker:np.dockerhub.1``) so a finding says
which rule hit. Rules are compiled with ``google-re2`` (RE2 is the Go syntax gitleaks writes its
rules in; matching is guaranteed linear in the input). One :class:`re2.Set` pass over the text
says which rules match at all; only those are run with ``finditer`` (one more pass each), so the
cost is linear in the text for any input.

What a rule reports is checked like the rule set does (the rule's ``entropy`` threshold, its
allowlist regexes and stopwords, gitleaks' global allowlist), plus :func:`uniform`: a body of
few distinct characters is a placeholder (``ghp_xxxx…``).
"""

from __future__ import annotations

import math
import re
import threading
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Iterator

import re2
import yaml

from tui_agent.safety.token_checks import github_checksum_ok
from tui_agent.safety.values import is_placeholder, wordy
from tui_agent.safety.rule_syntax import compact_verbose, re2_pattern  # noqa: F401 (part of this module's API)

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built with it

DATA_DIR = "secret_rule_data"
"""The vendored rule files, package data of tui_agent."""
EXCLUDED_RULES = frozenset({
    # gitleaks' catch-all keyword rule: any value next to "key", "token", "secret", … (assignments
    # are handled with code-aware checks in tui_agent.safety.assignments instead).
    "gitleaks:generic-api-key",
    # Nosey Parker's generic rules: keyword + value shapes that mask code (serializer=SERIALIZER)
    # and are covered by tui_agent.safety.assignments.
    *(f"noseyparker:np.generic.{i}" for i in range(1, 17)),
    # Not secrets to mask in a research assistant's text: the basic-auth rule of a URL is in
    # redaction.py (keeps scheme, user and host); PEM blocks likewise (whole block, any length).
    "noseyparker:np.http.1", "noseyparker:np.uri.1", "noseyparker:np.uri.2", "noseyparker:np.uri.3",
    "noseyparker:np.pem.1", "gitleaks:private-key",
    # curl -u user:password: redaction.py masks the password and keeps the user.
    "gitleaks:curl-auth-user",
    # Kingfisher's URL rules report the scheme or the whole URL, its PEM rules the key body: the
    # URL and PEM detectors of redaction.py mask the password and the whole block.
    "kingfisher:kingfisher.uri.1", "kingfisher:kingfisher.mongodb.3", "kingfisher:kingfisher.postgres.1",
    "kingfisher:kingfisher.pem.1", "kingfisher:kingfisher.privkey.1", "kingfisher:kingfisher.privkey.2",
    # Stripe pk_live_ keys are public by design (not redacted); sk_live_ is kingfisher.stripe.2's.
    "kingfisher:kingfisher.stripe.1",
    # A user name (REACT_APP_AUTH_USERNAME=bowie), not a secret.
    "kingfisher:kingfisher.reactapp.1",
    # Case-insensitive copies of case-sensitive prefixes (LTAI…, hf_…) that match words in URLs and
    # code (__biz=ltAi…, HF_CAASIMULIA…); gitleaks and supplement.toml have the exact formats.
    "kingfisher:kingfisher.alibabacloud.1", "kingfisher:kingfisher.huggingface.1",
})
"""Rules not used (by id), each for the reason given."""
SECRET_GROUPS = {
    "np.auth0.1": (2, 3), "np.aws.6": (2,), "np.azure.1": (2,), "np.azure.2": (3,), "np.blynk.8": (2,),
    "np.blynk.9": (2,), "np.gitalk.1": (2,), "np.google.6": (2,), "np.gradle.1": (2,), "np.kubernetes.2": (2,),
    "np.mongodb.1": (2,), "np.netrc.1": (3,), "np.odbc.1": (2,), "np.phpmailer.1": (3,), "np.postgres.1": (2,),
    "np.psexec.1": (2,), "np.vmware.1": (2,),
}
KINGFISHER_SECRET_GROUPS = {
    "kingfisher.azure.1": (2,), "kingfisher.azure.2": (3,), "kingfisher.blynk.8": (2,), "kingfisher.blynk.9": (2,),
    "kingfisher.discord.1": (2,), "kingfisher.google.6": (2, 3), "kingfisher.gradle.1": (2,),
    "kingfisher.netrc.1": (3,), "kingfisher.odbc.1": (2,), "kingfisher.psexec.1": (2,), "kingfisher.readme.1": (1,),
    "kingfisher.twitter.v2.1": (1,), "kingfisher.youtube.1": (1, 2),
}
"""Nosey Parker reports every capture group of a rule, Kingfisher its first; of their rules that
capture a user, host or client id besides the secret, the groups that hold the secret (the others
stay readable)."""
KEYWORD_WINDOW = 200
"""A gitleaks rule with keywords counts a match only when one of them occurs in it or this many
characters around it (gitleaks asks for them in the scanned file; a 40-hex commit hash is not a
Sourcegraph token unless "sourcegraph" or "sgp_" is near)."""
MIN_SECRET_CHARS = 6
"""A reported secret shorter than this (quotes and backslashes aside) is not masked."""
MIN_DISTINCT_SECRET_CHARS = 6
"""A reported secret with fewer distinct characters (in its last three quarters) is a placeholder."""
MAX_RULE_MEMORY = 64 << 20
"""Memory RE2 may use for the DFA of the set of all rules (bytes)."""


@dataclass(frozen=True)
class Rule:
    """One vendored rule: ``id`` is ``source:rule-id``; ``groups`` are the capture groups whose
    text is the secret (empty: the whole match)."""

    id: str
    pattern: str
    groups: tuple[int, ...]
    entropy: float = 0.0
    allow: tuple[str, ...] = ()
    allow_match: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()


# --- loading ----------------------------------------------------------------------------------


def _read(name: str) -> str:
    return _data().joinpath(name).read_text(encoding="utf-8")


def _data():
    return resources.files("tui_agent.safety").joinpath(DATA_DIR)


def _gitleaks_rules(name: str, source: str) -> tuple[list[Rule], tuple[str, ...], tuple[str, ...]]:
    """(rules, global allowlist regexes, global stopwords) of a gitleaks-format TOML file."""
    config = tomllib.loads(_read(name))
    rules = []
    for r in config.get("rules", []):
        if "regex" not in r or "path" in r:
            continue  # a rule for files of one name (*.tf, nuget.config): text has no file name
        allow, allow_match, stop = [], [], []
        for a in r.get("allowlists", []) + ([r["allowlist"]] if "allowlist" in r else []):
            if a.get("paths") and (a.get("condition") == "AND" or not (a.get("regexes") or a.get("stopwords"))):
                continue  # about file paths, which text has none of
            target = allow_match if a.get("regexTarget") in ("match", "line") else allow
            target.extend(a.get("regexes", []))
            stop.extend(w.lower() for w in a.get("stopwords", []))
        group = int(r.get("secretGroup", 0))
        rules.append(Rule(f"{source}:{r['id']}", r["regex"], (group,) if group else (), float(r.get("entropy", 0)),
                          tuple(allow), tuple(allow_match), tuple(stop), tuple(k.lower() for k in r.get("keywords", []))))
    glob = config.get("allowlist", {})
    return rules, tuple(glob.get("regexes", [])), tuple(w.lower() for w in glob.get("stopwords", []))


def _noseyparker_rules() -> list[Rule]:
    default = yaml.load(_read("noseyparker/rulesets-default.yml.txt"), Loader=_YAML_LOADER)["rulesets"][0]["include_rule_ids"]
    wanted = set(default)
    rules = []
    for entry in sorted(_data().joinpath("noseyparker").iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yml"):
            continue
        for r in yaml.load(entry.read_text(encoding="utf-8"), Loader=_YAML_LOADER).get("rules", []):
            if r["id"] in wanted:
                rules.append(Rule(f"noseyparker:{r['id']}", r["pattern"], SECRET_GROUPS.get(r["id"], (-1,))))
    return rules


KINGFISHER_SAFE_LIST = (
    r"(?i)123456789|abcdefghij",
    r"(?i)\b(AKIA(?:.*?EXAMPLE|.*?FAKE|TEST|.*?SAMPLE))\b",
    r"(?i)EXAMPLEKEY",
    r"(?i)<secretmanager>|\bclasspath://|\bSECRETMANAGER",
)
"""Kingfisher's own safe list (``src/safe_list.rs``), the entries that can apply to a secret
alone: a match holding one of these is a placeholder, not a credential."""
KINGFISHER_CONFIDENCE = frozenset({"medium", "high"})
"""Kingfisher reports rules of these confidences by default (``--confidence medium``)."""


def kingfisher_entries() -> Iterator[tuple[Rule, dict]]:
    """Each Kingfisher rule it reports by default, with its YAML entry (``examples``,
    ``negative_examples``): the secret is the first capture group that matched (else the match),
    kept when its entropy reaches the rule's ``min_entropy``."""
    for entry in sorted(_data().joinpath("kingfisher").iterdir(), key=lambda p: p.name):
        if not entry.name.endswith((".yml", ".yaml")):
            continue
        for r in yaml.load(entry.read_text(encoding="utf-8"), Loader=_YAML_LOADER).get("rules") or []:
            if r.get("visible") is False or str(r.get("confidence") or "medium").lower() not in KINGFISHER_CONFIDENCE:
                continue
            groups = KINGFISHER_SECRET_GROUPS.get(r["id"], ())
            yield Rule(f"kingfisher:{r['id']}", r["pattern"], groups, float(r.get("min_entropy") or 0),
                       KINGFISHER_SAFE_LIST), r


_ESCAPES_ONLY = re.compile(r"(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4})+$")  # '\xa1\xa2' in a test
_PASSWORD_HASH = re.compile(r"\$(?:[0-9]|2[abxy]|y|gy|argon2(?:id|i|d)|krb5\w*|scrypt|pbkdf2[\w-]*)\$")  # crypt(3)
_SNAKE_WORDS = re.compile(r"[a-z]+(?:_[a-z]+){2,}$")  # configured_client_secret: a variable, not its value


_SKIPPED: list[str] = []
"""Ids of rules RE2 could not compile: reported by :func:`skipped` and left out."""


def skipped() -> tuple[str, ...]:
    """Ids of the vendored rules RE2 could not compile (after :func:`compiled`), which are not used."""
    compiled()
    return tuple(_SKIPPED)


@dataclass
class _Compiled:
    rules: list[Rule]
    regexes: list
    allow: list[list]
    allow_match: list[list]
    global_allow: list
    global_stopwords: tuple[str, ...]
    rule_set: object


_compile_lock = threading.Lock()


def compiled() -> _Compiled:
    """All rules compiled once (a few hundred RE2 programs and one filter over them, about a
    second): the first caller compiles, concurrent first callers wait for it."""
    with _compile_lock:
        return _compiled()


@lru_cache(maxsize=1)
def _compiled() -> _Compiled:
    gl, g_allow, g_stop = _gitleaks_rules("gitleaks.toml", "gitleaks")
    sup, _, _ = _gitleaks_rules("supplement.toml", "tui-agent")
    options = re2.Options()
    options.max_mem = MAX_RULE_MEMORY
    options.log_errors = False
    rules = []
    rule_set = re2.Filter()
    for rule in gl + _noseyparker_rules() + [rule for rule, _ in kingfisher_entries()] + sup:
        if rule.id in EXCLUDED_RULES:
            continue
        rule = replace(rule, pattern=re2_pattern(rule.pattern))
        try:
            rule_set.Add(rule.pattern, options)
        except re2.error:
            _SKIPPED.append(rule.id)
            continue
        rules.append(rule)
    rule_set.Compile()
    regexes = [rule_set.re(i) for i in range(len(rules))]  # the filter's own compiled programs
    allow = [[re2.compile(a) for a in r.allow] for r in rules]
    allow_match = [[re2.compile(a) for a in r.allow_match] for r in rules]
    return _Compiled(rules, regexes, allow, allow_match, [re2.compile(a) for a in g_allow], g_stop, rule_set)


def provider_names() -> frozenset[str]:
    """The providers the rules are about, by name, lower-case: from each rule's id (Kingfisher's
    ``kingfisher.mixpanel.1``, Nosey Parker's ``np.mapbox.2``, gitleaks' ``kraken-access-token``)
    and its alphabetic keywords. Read by :mod:`tui_agent.safety.providers`."""
    names = set()
    for rule in compiled().rules:
        source, rule_id = rule.id.split(":", 1)
        parts = rule_id.split(".") if source in ("kingfisher", "noseyparker") else [rule_id.split("-")[0]]
        names.add((parts[1] if len(parts) > 1 else parts[0]).lower())
        names.update(k for k in rule.keywords if k.isalpha())
    return frozenset(n for n in names if n.isalpha())


# --- scanning ---------------------------------------------------------------------------------


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def uniform(secret: str) -> bool:
    """Too few distinct characters to be generated (``xxxx…``, ``0000…``, ``abcabc…``)."""
    body = secret[len(secret) // 4:]
    return len(set(body)) < min(MIN_DISTINCT_SECRET_CHARS, max(2, len(body) // 3))


CHUNK_CHARS = 16_384
"""Text is scanned in pieces of about this many characters: the filter's literal pass says which
rules can match in each piece, and only those run there (a rule whose literal occurs once in a
megabyte runs on one piece, not the megabyte)."""
CHUNK_OVERLAP = 4_096
"""Consecutive pieces share this many characters, so a secret across a boundary is whole in one."""
BOUNDARY_SEARCH = 256
"""A piece starts and ends at whitespace found within this many characters of its nominal edge."""


def chunks(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of overlapping pieces covering ``text``, cut at whitespace where possible."""
    n = len(text)
    start = 0
    while True:
        end = n if n - start <= CHUNK_CHARS else _at_space(text, start + CHUNK_CHARS)
        yield start, end
        if end >= n:
            return
        start = max(start + 1, _at_space(text, end - CHUNK_OVERLAP))


def _at_space(text: str, pos: int) -> int:
    for sep in ("\n", " "):
        i = text.find(sep, pos, pos + BOUNDARY_SEARCH)
        if i >= 0:
            return i + 1
    return pos


def scan(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, rule id) of each secret a vendored rule finds in ``text``.

    Linear: the pieces overlap by a fixed share, so each character is in at most two; in each,
    the filter's literal pass (RE2 set) and each rule it lets through (RE2) are linear in the
    piece, and the number of rules is fixed.
    """
    if len(text) < 8:
        return
    c = compiled()
    seen: set[tuple[int, int, str]] = set()
    for offset, stop in chunks(text):
        piece = text[offset:stop]
        candidates = c.rule_set.Match(piece, potential=True)
        lowered = piece.lower() if candidates else ""
        for index in sorted(candidates or ()):
            rule, rx = c.rules[index], c.regexes[index]
            if rule.keywords and not any(k in lowered for k in rule.keywords):
                continue  # gitleaks asks for one of the rule's keywords: none in this piece
            for m in rx.finditer(piece):
                if rule.keywords and not _keyword_near(piece, m.start(), m.end(), rule.keywords):
                    continue
                for start, end in _secret_spans(m, rule):
                    if end - start >= 2 and piece[start] in "\"'`" and piece[end - 1] == piece[start]:
                        start, end = start + 1, end - 1
                    found = (offset + start, offset + end, rule.id)
                    if found in seen or _allowed(c, index, piece[start:end], m.group(0)):
                        continue
                    seen.add(found)
                    yield found


def _keyword_near(text: str, start: int, end: int, keywords: tuple[str, ...]) -> bool:
    window = text[max(0, start - KEYWORD_WINDOW):end + KEYWORD_WINDOW].lower()
    return any(k in window for k in keywords)


def _secret_spans(m, rule: Rule) -> list[tuple[int, int]]:
    if not rule.groups:
        # gitleaks: without a secretGroup the first non-empty group is the secret, else the match
        for g in range(1, (m.re.groups or 0) + 1):
            if m.group(g):
                return [m.span(g)]
        return [m.span()]
    if rule.groups == (-1,):  # Nosey Parker: every capture group is reported
        spans = [m.span(g) for g in range(1, (m.re.groups or 0) + 1) if m.group(g)]
        return spans or [m.span()]
    return [m.span(g) for g in rule.groups if m.group(g)]


def _allowed(c: _Compiled, index: int, secret: str, match: str) -> bool:
    """The rule set's own allowlists, its entropy threshold, and placeholders."""
    rule = c.rules[index]
    core = secret.strip("\\\"'` ")
    if github_checksum_ok(core):
        return False  # GitHub's checksum holds: a real token, however uniform its body looks
    if (len(core) < MIN_SECRET_CHARS or uniform(core) or (is_placeholder(core) and not _PASSWORD_HASH.match(core))
            or _ESCAPES_ONLY.match(core)
            or _SNAKE_WORDS.match(core)):
        return True
    if rule.entropy and entropy(secret) < rule.entropy:
        return True
    if rule.id.startswith("kingfisher:") and wordy(core):
        return True  # a provider's name near words: ZeroShotImageClassificationOutputElement is not a key
    lower = secret.lower()
    if any(w in lower for w in rule.stopwords) or any(w in lower for w in c.global_stopwords if len(w) > 3):
        return True
    if any(a.search(secret) for a in c.allow[index]) or any(a.search(match) for a in c.allow_match[index]):
        return True
    return any(a.search(secret) for a in c.global_allow)
