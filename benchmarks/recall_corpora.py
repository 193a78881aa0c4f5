"""Redaction on corpora it was not tuned on, false positives on real pages, rule-set load time.

Sections of ``bench_redaction.py --only corpora`` (functions here, so the main file stays small):

- recall on ``benchmarks/data/recall_corpora.jsonl`` (secretlint, ripsecrets, ggshield test data,
  MIT; built by ``build_recall_corpora.py``), per source with its licence, per split (``tune``:
  looked at while building the detectors; ``held-out``: not) and per context (assignment,
  keyword without operator, bare token);
- recall on the examples of Kingfisher's rules (vendored; these are the rule set's own tests,
  so a tuned figure);
- recall on trufflehog's detector tests (AGPL-3.0: not copied into this repository), read from a
  git checkout given with ``--trufflehog DIR``: each ``want`` string of a test case whose name
  does not say invalid, found whole in its ``input`` (realistic, not a URL or host name), split
  like the corpora by a hash of its file;
- pages of the extraction dev set (``shared/extraction-dev``) whose main text ``redact`` changes;
- the time to compile the rule sets in a fresh process (median of LOAD_RUNS), by rule source.
"""

from __future__ import annotations

import collections
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "benchmarks" / "data" / "recall_corpora.jsonl"
LOAD_RUNS = 3
SPLITS = ("held-out", "tune")
CONTEXTS = ("assignment", "keyword", "bare")


def _pct(hit: int, n: int) -> str:
    return f"{hit}/{n}  ({100 * hit / n:.1f}%)" if n else "-"


def corpora_recall(redact, leaks, show: bool) -> None:
    with CORPORA.open(encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if "_meta" not in r]
    c: collections.Counter = collections.Counter()
    licences = {}
    for r in rows:
        ok = not leaks(r, redact)
        licences[r["source"]] = r["license"]
        for key in (r["split"], (r["split"], r["context"]), (r["source"], r["split"])):
            c[(key, ok)] += 1
        if show and not ok:
            print(f"  missed {r['split']:<9}{r['context']:<11}{r['source']:<22}{r['text'][:90]!r}")
    print(f"{'recall on scanners test data (not tuned on)':<46}{'held-out':>18}{'tune':>18}")
    for source, licence in sorted(licences.items()):
        cells = [_pct(c[((source, s), True)], c[((source, s), True)] + c[((source, s), False)]) for s in SPLITS]
        print(f"  {source + ' (' + licence.split(' (')[0] + ')':<44}{cells[0]:>18}{cells[1]:>18}")
    for context in CONTEXTS:
        cells = [_pct(c[((s, context), True)], c[((s, context), True)] + c[((s, context), False)]) for s in SPLITS]
        print(f"  {'context: ' + context:<44}{cells[0]:>18}{cells[1]:>18}")
    cells = [_pct(c[(s, True)], c[(s, True)] + c[(s, False)]) for s in SPLITS]
    print(f"  {'all':<44}{cells[0]:>18}{cells[1]:>18}")


def kingfisher_recall(show: bool) -> None:
    """Each secret a used Kingfisher rule finds in its examples (what Kingfisher's own safe list
    and entropy gate drop is not counted), masked by ``redact``."""
    import re2

    from tui_agent.safety import rule_sets
    from tui_agent.safety.redaction import find_secrets

    c = rule_sets.compiled()
    index = {(r.id, r.pattern): i for i, r in enumerate(c.rules)}
    hit = total = dropped = 0
    for rule, raw in rule_sets.kingfisher_entries():
        i = index.get((rule.id, rule_sets.re2_pattern(rule.pattern)))
        if i is None:
            continue
        for example in raw.get("examples") or []:
            m = c.regexes[i].search(example)
            if not m:
                continue
            found = find_secrets(example, {})
            for start, end in rule_sets._secret_spans(m, c.rules[i]):
                secret = example[start:end]
                if any(re2.search(a, secret) for a in rule_sets.KINGFISHER_SAFE_LIST) or (
                        rule.entropy and rule_sets.entropy(secret) <= rule.entropy):
                    dropped += 1
                    continue
                total += 1
                ok = any(f.start <= start + 1 and end - 1 <= f.end for f in found)
                hit += ok
                if show and not ok:
                    print(f"  missed {rule.id:<40} {example[:80]!r}")
    print(f"recall, Kingfisher rule examples (its tests; tuned): {_pct(hit, total)}; "
          f"{dropped} example secrets Kingfisher itself drops (safe list, entropy) not counted")


# --- trufflehog's detector tests, read from a checkout ------------------------------------------

_GO_STRING = r'"(?:[^"\\\n]|\\.)*"|`[^`]*`'
_GO_CONST = re.compile(r"(?m)^\s*(\w+)\s*(?:string\s*)?=\s*(" + _GO_STRING + r")\s*$")
_CASE = re.compile(r"name:\s*(" + _GO_STRING + r"),\s*input:\s*(?P<input>" + _GO_STRING
                   + r"|fmt\.Sprintf\((?:[^()]|\([^()]*\))*\)|\w+),\s*want:\s*\[\]string\{(?P<want>[^}]*)\}", re.S)


def _go_literal(text: str) -> str:
    if text.startswith("`"):
        return text[1:-1]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text[1:-1]


def _go_value(expr: str, consts: dict[str, str]) -> str | None:
    expr = expr.strip()
    if expr[:1] in "\"`":
        return _go_literal(expr)
    if expr in consts:
        return consts[expr]
    m = re.match(r"fmt\.Sprintf\((" + _GO_STRING + r")((?:\s*,\s*[^,()]+)*)\s*\)$", expr, re.S)
    if not m:
        return None
    args = [_go_value(a, consts) for a in m.group(2).split(",")[1:]]
    if any(a is None for a in args):
        return None
    fmt = _go_literal(m.group(1))
    return re.sub(r"%[sqv]", lambda _: args.pop(0) if args else "", fmt)


def trufflehog_samples(checkout: Path) -> list[dict]:
    git_dir = checkout / ".git" if (checkout / ".git").exists() else checkout

    def git(*args: str) -> str:
        return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True,
                              errors="replace", check=True).stdout

    samples = []
    for path in git("ls-tree", "-r", "--name-only", "HEAD", "pkg/detectors").splitlines():
        if not path.endswith("_test.go") or "integration" in path:
            continue
        source = git("show", f"HEAD:{path}")
        consts = {name: _go_literal(lit) for name, lit in _GO_CONST.findall(source)}
        for m in _CASE.finditer(source):
            if "invalid" in _go_literal(m.group(1)).lower():
                continue
            text = _go_value(m.group("input"), consts)
            if not text:
                continue
            for item in re.findall(_GO_STRING + r"|\w+", m.group("want")):
                secret = _go_value(item, consts)
                if secret and len(secret) >= 8 and secret in text:
                    samples.append({"path": path, "text": text, "secret": secret})
    return samples


_ENDPOINT = re.compile(r"://|^[\w.-]+\.(?:com|net|org|io|cloud|ai|co)(?::\d+)?(?:/|$)")
"""A ``want`` string that is a URL or a host name is the endpoint a detector reports beside the
secret, not a credential: not counted."""


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_IDENTITY_NAME = re.compile(r"(?i)(?:name|user|login|e-?mail|account|host|domain|region|org|tenant|project)[\w\-]*$")
_SECRET_NAME = re.compile(r"(?i)key|secret|token|pass|pwd|auth|cred|sig")


def identity(text: str, secret: str) -> str | None:
    """What a reported string is when it is not a credential, else None. trufflehog's tests list every
    string a detector reports, the account, user or host beside the key, so a ``want`` is:
    an e-mail address; a field's name (the text has it before ``:`` or ``=``, not as a value);
    a host name's label (``storagetest123.blob.core…``); or the value of a field whose name says
    account, user, name or host and not key, secret, token or password (``AccountName=…``)."""
    if _EMAIL.match(secret):
        return "e-mail address"
    i = text.find(secret)
    after = text[i + len(secret):i + len(secret) + 40]
    line = text[text.rfind("\n", 0, i) + 1:i]
    if (re.match(r"[A-Za-z_]", secret) and re.match(r"[\"'`]?\s*[:=]", after)
            and not re.search(r"[:=]\s*[\"'`]?$", line)):
        return "field name"
    if re.match(r"\.[a-z0-9-]+\.[a-z]", after) or line.endswith("@"):
        return "host name"
    names = re.findall(r"[A-Za-z_][\w\-]*", line[-60:])
    if names and _IDENTITY_NAME.search(names[-1]) and not _SECRET_NAME.search(names[-1]):
        return "identity field"
    return None


def trufflehog_recall(checkout: Path | None, redact, leaks, realistic, show: bool) -> None:
    """Credentials and identities apart (:func:`identity`); misses are shown for the tune split only."""
    if checkout is None:
        print("trufflehog detector tests: pass --trufflehog DIR (a git checkout; AGPL-3.0, not copied here)")
        return
    from build_recall_corpora import split_of

    samples = [s for s in trufflehog_samples(checkout) if realistic(s["secret"]) and not _ENDPOINT.search(s["secret"])]
    c: collections.Counter = collections.Counter()
    for s in samples:
        split = split_of("trufflesecurity/trufflehog", s["path"])
        what = "identity" if identity(s["text"], s["secret"]) else "credential"
        ok = not leaks(s, redact)
        c[(split, what, ok)] += 1
        c[(split, "all", ok)] += 1
        if show and not ok and split == "tune":  # the held-out misses stay unread
            print(f"  missed (tune) {s['path'].split('/')[2]:<24} {what:<11} {s['secret'][:40]!r} in "
                  f"{s['text'].strip()[:70]!r}")
    title = f"recall, trufflehog detector tests (AGPL-3.0, from {checkout})"
    print(f"{title:<74}{'held-out':>18}{'tune':>18}")
    for what, label in (("credential", "credentials (keys, tokens, passwords)"),
                        ("identity", "identities beside them (accounts, users, hosts, e-mails, field names)"),
                        ("all", "every reported string")):
        cells = [_pct(c[(sp, what, True)], c[(sp, what, True)] + c[(sp, what, False)]) for sp in SPLITS]
        print(f"  {label:<72}{cells[0]:>18}{cells[1]:>18}")


# --- real pages ---------------------------------------------------------------------------------


def dev_pages_false_positives(show: bool) -> None:
    """Pages of the extraction dev set whose main text (the project's own extraction) ``redact``
    changes; each change is printed for review with --show-misses."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_quality import default_tarball, trafilatura_pages, unpacked

    from tui_agent.safety.redaction import find_secrets
    from tui_agent.web.content import declared_in_body
    from tui_agent.web.maintext import main_content

    tarball = default_tarball()
    if tarball is None:
        print("dev pages: no shared/extraction-dev/trafilatura-eval.tar.xz beside the repository, skipped")
        return
    pages = trafilatura_pages(unpacked(tarball), None)
    changed = []
    for page in pages:
        html = page["body"].decode(declared_in_body(page["body"]) or "utf-8", errors="replace")
        try:
            text = main_content(html, page["url"]).text
        except (LookupError, ValueError):
            continue
        found = find_secrets(text, {})
        if found:
            changed.append((page["url"], [(f.kind, text[f.start:f.end][:40]) for f in found]))
    print(f"dev pages (shared/extraction-dev, main text): {len(changed)} of {len(pages)} changed by redact")
    if show:
        for url, found in changed:
            print(f"  {url[:70]}  {found}")


# --- load time ----------------------------------------------------------------------------------

_LOAD = """
import collections, json, time
t = time.perf_counter()
from tui_agent.safety import rule_sets
c = rule_sets.compiled()
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "rules": collections.Counter(r.id.split(":")[0] for r in c.rules),
                  "skipped": rule_sets.skipped()}))
"""


def load_time() -> None:
    """Seconds to import and compile every rule set in a fresh process (the first redaction of a
    process waits for this, or the front ends' warm-up thread does it at start)."""
    runs = []
    for _ in range(LOAD_RUNS):
        out = subprocess.run([sys.executable, "-c", _LOAD], cwd=ROOT, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    seconds = statistics.median(r["seconds"] for r in runs)
    print(f"rule sets compiled in a fresh process: {seconds:.2f} s (median of {LOAD_RUNS}); rules by source: "
          + ", ".join(f"{k} {v}" for k, v in runs[0]["rules"].items())
          + f"; rules RE2 could not compile: {len(runs[0]['skipped'])}")
