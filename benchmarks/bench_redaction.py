"""Redaction: recall on public secret samples, false positives on ordinary text, throughput.

- Recall: ``benchmarks/data/gitleaks_samples.jsonl`` (gitleaks' rule tests, MIT; see its first
  line). A sample counts as redacted when no LEAK_WINDOW characters in a row of its secret part
  (for assignments: the value; the whole secret if shorter) survive ``redact(text, {})``, so
  masking a fragment of a secret does not count (windows that also occur in the text around
  the secret, such as a name repeating the token prefix, are not counted as leaks). Reported per credential family (the rule id's family),
  then overall for the public samples (kind ``tp``: verbatim literals, and literal secrets in
  assignment contexts) and, separately, for samples generated from the rules' formats.
- gitleaks' own false-positive samples (``fp``): how many ``redact`` changes (informative: many
  are placeholders or public keys, some are credential-shaped on purpose).
- Negatives that must stay intact: 2,000 each of random commit hashes, UUIDs, sha256 hex strings
  and base64 PNG data URIs (in a few surrounding contexts), and lines of real text on this
  machine: docstrings and comments of the Python standard library (prose), its source lines
  (code), and the URLs in both. A negative counts when ``redact`` changes it at all.
- Throughput: ``redact`` on 1 MB of that prose, 1 MB of that code and two adversarial pages (1 MB
  of secret-named assignments, 1 MB of one base64 run), this implementation vs the one before it
  (``git show <rev>:tui_agent/safety/hygiene.py`` of the newest revision that still held its own
  redaction, loaded into a temporary module; measured in the same run, interleaved; median of
  --repeat).
- Side by side, when it is installed (``pip install detect-secrets``; not a dependency of the
  project): detect-secrets 1.5 with its default plugins as a redactor (each value it reports on a
  line is replaced), on the same samples and on 2,000 items of each negative class.

- Recall on corpora it was not tuned on: every example of Nosey Parker's default rules
  (vendored with the rules in ``tui_agent/secret_rule_data``), and detect-secrets' plugin test
  strings (``tests/fixtures/detect_secrets_samples.jsonl``).
- False positives in real code: the lines ``redact`` changes in every .py file of the standard
  library and in a seeded sample of 3,000 site-packages files, by detector, with a sample printed
  for review (all of them with --show-misses).
- Time against input size on crafted texts (10 KB, 100 KB, 1 MB): the ratio of the last two
  shows the growth (10x for linear).
- Worst time per MB over crafted inputs (``--only worst``): seconds per MB at 1 and 2 MB for each,
  with the ratio of the two rates (1x for linear growth, 2x for quadratic).

- Corpora it was not tuned on (``benchmarks/recall_corpora.py``): secretlint, ripsecrets and
  ggshield test data (MIT, ``benchmarks/data/recall_corpora.jsonl``) by source, split (tune /
  held-out) and context; Kingfisher's rule examples; trufflehog's detector tests from a checkout
  (``--trufflehog DIR``, AGPL-3.0, not copied); pages of the extraction dev set changed; the
  rule sets' compile time in a fresh process.

Run: ``.venv/bin/python benchmarks/bench_redaction.py [--repeat 7] [--show-misses]
[--only recall|code|scaling|worst|negatives|throughput|corpora] [--trufflehog DIR]``.
"""

from __future__ import annotations

import argparse
import ast
import base64
import bisect
import collections
import importlib.util
import json
import random
import re
import statistics
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tui_agent.safety.redaction import find_secrets, redact  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "gitleaks_samples.jsonl"
NEGATIVES_PER_CLASS = 2000
LEAK_WINDOW = 8
"""A secret leaks when this many of its characters in a row (or all, if shorter) survive."""
MB = 1_000_000

FAMILY_ALIASES = {
    "PKCS8": "private-key", "RSA": "private-key", "private": "private-key", "new": "newrelic",
    "vault": "hashicorp-vault", "claude": "anthropic", "microsoft": "teams", "1password": "1password",
    "aws": "aws", "jwt": "jwt", "curl": "curl", "generic": "generic", "database": "generic",
    "mcp": "generic", "hashicorp": "hashicorp-terraform", "datafactory": "azure", "azure": "azure",
}


def family(rule_id: str) -> str:
    head = rule_id.split("-")[0]
    return FAMILY_ALIASES.get(head, head)


def load_samples() -> list[dict]:
    with DATA.open(encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if "_meta" not in r]


def recall(samples: list[dict], show_misses: bool) -> None:
    per_family: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    totals: collections.Counter = collections.Counter()
    misses = []
    for s in samples:
        if s["kind"] not in ("tp", "generated"):
            continue
        ok = not leaks(s, redact)
        bucket = "public" if s["kind"] == "tp" else "generated"
        per_family[family(s["id"])][(bucket, ok)] += 1
        totals[(bucket, ok)] += 1
        if bucket == "public":
            totals[(s["origin"], ok)] += 1
        if not ok:
            misses.append(s)
    print(f"{'family':<22}{'public':>14}{'generated':>14}")
    for fam in sorted(per_family):
        c = per_family[fam]
        print(f"{fam:<22}{_frac(c, 'public'):>14}{_frac(c, 'generated'):>14}")
    print()
    print(f"recall, public samples (kind tp):        {_frac(totals, 'public', pct=True)}")
    print(f"  of which verbatim literals:            {_frac(totals, 'literal', pct=True)}")
    print(f"  of which literal secrets in contexts:  {_frac(totals, 'literal-secret', pct=True)}")
    print(f"recall, generated from rule formats:     {_frac(totals, 'generated', pct=True)}")
    if show_misses:
        print("\nmisses:")
        for s in misses:
            print(f"  {s['kind']:<9} {s['id']:<36} {s['text'][:110]!r}")


def leaks(sample: dict, redactor) -> bool:
    """Some LEAK_WINDOW characters in a row of the secret survive (and were not also in the text
    around the secret, like ``rubygems`` of a ``rubygemsToken = rubygems_…`` name)."""
    secret, text = sample["secret"], sample["text"]
    out, context = redactor(text, {}), text.replace(secret, "\0")
    n = min(LEAK_WINDOW, len(secret))
    windows = {secret[i:i + n] for i in range(len(secret) - n + 1)}
    return any(w in out and w not in context for w in windows)


def _frac(c: collections.Counter, bucket: str, pct: bool = False) -> str:
    hit, miss = c[(bucket, True)], c[(bucket, False)]
    if not hit + miss:
        return "-"
    text = f"{hit}/{hit + miss}"
    return f"{text}  ({100 * hit / (hit + miss):.1f}%)" if pct else text


def gitleaks_fps(samples: list[dict], show: bool) -> None:
    fps = [s for s in samples if s["kind"] == "fp"]
    changed = [s for s in fps if redact(s["text"], {}) != s["text"]]
    print(f"gitleaks false-positive samples changed: {len(changed)}/{len(fps)}")
    if show:
        for s in changed:
            print(f"  {s['id']:<36} {redact(s['text'], {})[:110]!r}")


# --- negatives --------------------------------------------------------------------------------


def png_data_uri(rng: random.Random) -> str:
    w, h = rng.randint(1, 24), rng.randint(1, 24)
    raw = b"".join(b"\x00" + rng.randbytes(w * 3) for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode()


def synthetic_negatives(rng: random.Random) -> dict[str, list[str]]:
    contexts = ["{}", "commit {} fixed it", '"id": "{}",', "https://example.com/files/{}", "({})"]
    img_contexts = ['<img src="{}">', "![figure]({})", "{}"]

    def place(values, ctx):
        return [ctx[i % len(ctx)].format(v) for i, v in enumerate(values)]

    n = NEGATIVES_PER_CLASS
    return {
        "commit hashes (40 hex)": place([rng.randbytes(20).hex() for _ in range(n)], contexts),
        "UUIDs": place([str(uuid.UUID(bytes=rng.randbytes(16), version=4)) for _ in range(n)], contexts),
        "sha256 hex": place([rng.randbytes(32).hex() for _ in range(n)], contexts),
        "base64 PNG data URIs": place([png_data_uri(rng) for _ in range(n)], img_contexts),
    }


def stdlib_text() -> tuple[list[str], list[str]]:
    """(prose lines, code lines) from the standard library: docstrings and comments are prose."""
    prose, code = [], []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    prose.extend(line.strip() for line in doc.splitlines() if len(line.strip()) > 20)
        for line in source.splitlines():
            stripped = line.strip()
            if stripped.startswith("#") and len(stripped) > 20:
                prose.append(stripped.lstrip("# "))
            elif stripped and not stripped.startswith(("#", '"""', "'''")):
                code.append(line)
    return prose, code


def negatives(rng: random.Random, show: bool) -> tuple[list[str], list[str]]:
    prose, code = stdlib_text()
    urls = sorted({u.rstrip(".,;:)'\"") for line in prose + code for u in re.findall(r"https?://[^\s<>\"'`]+", line)})
    classes = synthetic_negatives(rng)
    classes["prose lines (stdlib docstrings, comments)"] = prose
    classes["code lines (stdlib source)"] = code
    classes["URLs without credentials"] = urls
    print(f"{'negative class':<44}{'changed':>18}")
    for name, items in classes.items():
        changed = [x for x in items if redact(x, {}) != x]
        print(f"{name:<44}{len(changed):>8}/{len(items):<9} ({100 * len(changed) / max(1, len(items)):.2f}%)")
        if show:
            for x in changed[:40]:
                print(f"    {redact(x, {})[:120]!r}")
    return prose, code


# --- throughput -------------------------------------------------------------------------------


def baseline_redact():
    """``redact`` as it was before this implementation: hygiene.py of the newest commit whose
    hygiene.py still held its own redaction (does not import tui_agent.safety.redaction)."""
    source, rev = "", ""
    revs = subprocess.run(["git", "log", "--format=%H", "--", "tui_agent/safety/hygiene.py"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.split()
    for rev in revs:
        source = subprocess.run(["git", "show", f"{rev}:tui_agent/safety/hygiene.py"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout
        if "tui_agent.safety.redaction" not in source:
            break
    tmp = Path(tempfile.mkdtemp()) / "hygiene_head.py"
    tmp.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("hygiene_head", tmp)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.redact, rev[:10]


def megabyte(lines: list[str]) -> str:
    text = "\n".join(lines)
    return (text * (MB // max(1, len(text)) + 1))[:MB]


def throughput(prose: list[str], code: list[str], repeat: int) -> None:
    old, rev = baseline_redact()
    print(f"baseline: tui_agent/safety/hygiene.py at {rev} (the redaction before this one)")
    rng = random.Random(3)
    pages = {
        "1 MB prose": megabyte(prose),
        "1 MB code": megabyte(code),
        # adversarial: every line a secret-named assignment, and one long base64 run
        "1 MB key=value": megabyte([f"api_key_{i} = {rng.randbytes(12).hex()}" for i in range(2000)]),
        "1 MB base64": base64.b64encode(rng.randbytes(MB * 3 // 4)).decode(),
    }
    print(f"{'page':<16}{'this (MB/s)':>14}{'before (MB/s)':>14}{'this/before':>17}")
    for name, page in pages.items():
        new_t, old_t = [], []
        for _ in range(repeat):
            new_t.append(_timed(redact, page))
            old_t.append(_timed(old, page))
        n, o = statistics.median(new_t), statistics.median(old_t)
        print(f"{name:<16}{len(page) / MB / n:>14.1f}{len(page) / MB / o:>14.1f}{n / o:>16.1f}x")


def _timed(fn, page: str) -> float:
    start = time.perf_counter()
    fn(page, {})
    return time.perf_counter() - start


# --- detect-secrets side by side ---------------------------------------------------------------


def detect_secrets_redactor():
    """``redact``-like function built on detect-secrets' default plugins, or None if not installed."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def redact_with_detect_secrets(text: str, _env=None) -> str:
        with default_settings():
            out = []
            for line in text.split("\n"):
                values = sorted({s.secret_value for s in scan_line(line) if s.secret_value}, key=len, reverse=True)
                for v in values:
                    line = line.replace(v, "[REDACTED]")
                out.append(line)
        return "\n".join(out)

    return redact_with_detect_secrets


def compare_detect_secrets(samples: list[dict], prose: list[str], code: list[str]) -> None:
    other = detect_secrets_redactor()
    if other is None:
        print("detect-secrets is not installed: side-by-side comparison skipped (pip install detect-secrets)")
        return
    rows = []
    for bucket in ("tp", "generated"):
        chosen = [s for s in samples if s["kind"] == bucket]
        ours = sum(not leaks(s, redact) for s in chosen)
        theirs = sum(not leaks(s, other) for s in chosen)
        rows.append((f"recall, {'public' if bucket == 'tp' else 'generated'} samples", ours, theirs, len(chosen)))
    rng = random.Random(11)
    classes = synthetic_negatives(rng)
    classes["prose lines"] = rng.sample(prose, min(NEGATIVES_PER_CLASS, len(prose)))
    classes["code lines"] = rng.sample(code, min(NEGATIVES_PER_CLASS, len(code)))
    for name, items in classes.items():
        ours = sum(redact(x, {}) != x for x in items)
        theirs = sum(other(x) != x for x in items)
        rows.append((f"changed: {name}", ours, theirs, len(items)))
    print(f"{'side by side':<40}{'this':>16}{'detect-secrets':>18}")
    for label, ours, theirs, n in rows:
        print(f"{label:<40}{f'{ours}/{n}':>16}{f'{theirs}/{n}':>18}")


# --- the vendored rule set's own examples (a corpus this redaction was not tuned on) ----------


def noseyparker_recall(show: bool) -> None:
    """Nosey Parker's rule examples (Apache-2.0, vendored in tui_agent/secret_rule_data): every
    example of every rule of its default ruleset, with the secret its rule captures; placeholders
    (``aaaa…``, ``xxxx…``, ``password``) are not counted. Rules this redaction does not use
    (generic keyword rules) count too: their examples are the assignment detector's to catch."""
    import re2
    import yaml

    from tui_agent.safety import rule_sets
    from tui_agent.safety.assignments import is_placeholder

    data = rule_sets._data()
    default = set(yaml.safe_load(data.joinpath("noseyparker/rulesets-default.yml.txt").read_text())["rulesets"][0]
                  ["include_rule_ids"])
    in_use = {r.id.split(":", 1)[1] for r in rule_sets.compiled().rules}
    counts: collections.Counter = collections.Counter()
    misses = []
    for path in sorted(data.joinpath("noseyparker").iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".yml"):
            continue
        for rule in yaml.safe_load(path.read_text(encoding="utf-8"))["rules"]:
            if rule["id"] not in default:
                continue
            rx = re2.compile(rule_sets.re2_pattern(rule["pattern"]))
            groups = rule_sets.SECRET_GROUPS.get(rule["id"])
            bucket = "rules in use" if rule["id"] in in_use else "rules not used (generic)"
            for example in rule.get("examples") or []:
                m = rx.search(example)
                if not m:
                    continue
                secrets = [m.group(g) for g in groups] if groups else [g for g in m.groups() if g] or [m.group(0)]
                secrets = [x for x in secrets if x and not rule_sets.uniform(x) and not is_placeholder(x.strip("\"'"))]
                if not secrets:
                    continue
                ok = not any(leaks({"secret": x, "text": example}, redact) for x in secrets)
                counts[(bucket, ok)] += 1
                counts[("all", ok)] += 1
                if not ok:
                    misses.append((rule["id"], example))
    for bucket in ("rules in use", "rules not used (generic)", "all"):
        print(f"recall, Nosey Parker examples, {bucket + ':':<26}{_frac(counts, bucket, pct=True)}")
    if show:
        for rule_id, example in misses:
            print(f"  {rule_id:<18} {example[:110]!r}")


DETECT_SECRETS = ROOT / "tests" / "fixtures" / "detect_secrets_samples.jsonl"


def detect_secrets_samples_recall(show: bool) -> None:
    """detect-secrets' plugin test strings (Apache-2.0; tests/fixtures/detect_secrets_samples.jsonl):
    true samples masked (not counting placeholders such as ``AP6xxxxxxxxxx`` and public IP
    addresses, which are not credentials here), and how many of its negative samples change
    (many are credential-shaped strings its plugins reject for their own reasons)."""
    with DETECT_SECRETS.open(encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if "_meta" not in r]
    true = [r for r in rows if r["should_flag"] and r["plugin"] != "ip_public"
            and not re.search(r"(.)\1{5,}", r["text"]) and "username:password" not in r["text"]]
    masked = [r for r in true if redact(r["text"], {}) != r["text"]]
    negatives = [r for r in rows if not r["should_flag"]]
    changed = [r for r in negatives if redact(r["text"], {}) != r["text"]]
    print(f"recall, detect-secrets test samples:      {len(masked)}/{len(true)}  ({100 * len(masked) / len(true):.1f}%)")
    print(f"detect-secrets negative samples changed:  {len(changed)}/{len(negatives)}")
    if show:
        for r in true:
            if r not in masked:
                print(f"  missed {r['plugin']:<16} {r['text'][:100]!r}")


# --- false positives in code: the whole standard library, a sample of site-packages ------------

SITE_PACKAGES_SAMPLE = 3000
"""Files drawn (seeded) from the site-packages of the running interpreter."""
SHOWN_CHANGES = 40


def code_false_positives(show_all: bool) -> None:
    """Lines ``redact`` changes in real code: every .py file of the standard library (tests
    included) and a seeded sample of site-packages; by detector, with a sample for review.
    Literal passwords in tests (``PASSWD = 'testPass'``) count: they are credentials, masked on
    purpose, and listed so a reader can judge."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = Path(sysconfig.get_paths()["purelib"])
    std_files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)
    site_files = sorted(site.rglob("*.py"))
    site_files = random.Random(5).sample(site_files, min(SITE_PACKAGES_SAMPLE, len(site_files)))
    for label, root, files in (("standard library", stdlib, std_files), ("site-packages sample", site, site_files)):
        lines_total, changed, kinds = 0, [], collections.Counter()
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = text.split("\n")
            lines_total += len(lines)
            findings = find_secrets(text, {})
            if not findings:
                continue
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line) + 1)
            seen = {}
            for f in findings:
                i = bisect.bisect_right(starts, f.start) - 1
                seen.setdefault(i, f.kind)
            for i, kind in sorted(seen.items()):
                kinds[kind] += 1
                changed.append((f"{path.relative_to(root)}:{i + 1}", kind, lines[i].strip()))
        print(f"{label}: {len(files)} files, {lines_total:,} lines, {len(changed)} lines changed "
              f"({100 * len(changed) / max(1, lines_total):.4f}%)")
        print("  by detector: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        shown = changed if show_all else random.Random(1).sample(changed, min(SHOWN_CHANGES, len(changed)))
        for where, kind, line in sorted(shown):
            print(f"    {where:<58} {kind:<24} {line[:90]!r}")


# --- time against input size on crafted text --------------------------------------------------

SCALING_SIZES = (10_000, 100_000, 1_000_000)


def adversarial_inputs() -> dict[str, object]:
    """Texts crafted to make a backtracking or rescanning detector quadratic (each a function of
    the size in characters)."""

    def rep(unit: str):
        return lambda n: (unit * (n // len(unit) + 1))[:n]

    return {
        "password= repeated": rep("password="),
        "BEGIN PRIVATE KEY lines": rep("-----BEGIN PRIVATE KEY-----\n"),
        "PEM blocks, BEGIN..END": rep("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"),
        'token=" repeated': rep('token="'),
        "key:key: no spaces": rep("key:"),
        "sntrys_= (prefix in token)": rep("sntrys_="),
        "--user= no spaces": rep("curl --user=--user="),
        "curl -u ' repeated": rep("curl -u '"),
        "scheme://a: no @": rep("http://a:"),
        "base64 run": lambda n: base64.b64encode(random.Random(2).randbytes(n * 3 // 4 + 3)).decode()[:n],
        "eyJ JWT-like parts": rep("eyJhbGciOi."),
    }


def scaling() -> None:
    """Seconds of ``redact`` per input size; the last column is the ratio of the two largest
    sizes (10 for linear growth with 10x the input, 100 for quadratic)."""
    heads = "".join(f"{n // 1000:>9} KB" for n in SCALING_SIZES)
    print(f"{'crafted input':<30}{heads}{'ratio':>10}")
    redact("warm up the rule sets", {})
    for name, make in adversarial_inputs().items():
        times = []
        for n in SCALING_SIZES:
            text = make(n)
            times.append(_timed(redact, text))
        ratio = times[-1] / max(times[-2], 1e-9)
        print(f"{name:<30}" + "".join(f"{t:>10.3f}s" for t in times) + f"{ratio:>9.1f}x")



def other_corpora(trufflehog: Path | None, show: bool) -> None:
    """Recall on corpora not tuned on, false positives on real pages, rule-set load time."""
    import recall_corpora
    from build_recall_corpora import realistic

    recall_corpora.corpora_recall(redact, leaks, show)
    print()
    recall_corpora.kingfisher_recall(show)
    recall_corpora.trufflehog_recall(trufflehog, redact, leaks, realistic, show)
    recall_corpora.dev_pages_false_positives(show)
    recall_corpora.load_time()




# --- worst time per MB over crafted inputs (issue 27, item 8) ------------------------------------

WORST_SIZES = (1_000_000, 2_000_000)


def worst_case_inputs() -> dict[str, object]:
    """Inputs crafted against the detectors' rescans, each a function of the size in characters:
    the scaling set above plus keyword runs on one long line (``key `` repeated made
    ``_in_netrc_line`` reread the line at every keyword: 2.9 s for 1 MB, 14 s for 2 MB before)."""

    def rep(unit: str):
        return lambda n: (unit * (n // len(unit) + 1))[:n]

    prose = "the key findings of the token audit were passed on to the login team, secret or not. "
    return adversarial_inputs() | {
        '"key " repeated': rep("key "),
        "keywords on one long line": rep("token secret key pass auth login bearer cred pwd "),
        ".netrc line of keywords": lambda n: "machine h login u " + rep("password key ")(n - 18),
        "prose of keywords, one line": rep(prose),
        "BEGIN PRIVATE KEY, no END, prose": lambda n: "-----BEGIN PRIVATE KEY-----\n" + rep(prose)(n - 28),
        "BEGIN PRIVATE KEY, no END, base64": lambda n: "-----BEGIN PRIVATE KEY-----\n" + rep("MIIEvQIBADANBgkqhkiG9w0BAQEF\n")(n - 28),
        "--password flags": rep("--password "),
        "Bearer repeated": rep("Authorization: Bearer "),
        "<secret>{…} elements": rep("<secret>{jenkins AQAAABAAA 5422358j60yxo9nc0dbpxby602tsxd6j}</secret>\n"),
        "<secret> open, never closed": rep("<secret>{a b c d e f g h i j "),
        "provider names, values that fail": rep("kraken mapbox_key := (bedrock-2023-05-31 "),
        "provider name, long name tail": rep("kraken" + "_a" * 40 + " "),
    }


def worst_time_per_mb() -> None:
    """Seconds of ``redact`` per MB for each crafted input at 1 and 2 MB, and the ratio of the two
    rates (about 1 when the time grows linearly, 2 when it is quadratic); the worst rate last."""
    heads = "".join(f"{n // MB:>9} MB" for n in WORST_SIZES)
    print("seconds per MB of redact on crafted inputs")
    print(f"{'crafted input':<36}{heads}{'ratio':>9}")
    redact("warm up the rule sets", {})
    worst = (0.0, "")
    for name, make in worst_case_inputs().items():
        rates = [_timed(redact, make(n)) / (n / MB) for n in WORST_SIZES]
        worst = max(worst, (max(rates), name))
        print(f"{name:<36}" + "".join(f"{r:>10.2f}s" for r in rates) + f"{rates[-1] / max(rates[0], 1e-9):>8.2f}x")
    print(f"worst: {worst[0]:.2f} s per MB ({worst[1]})")


SECTIONS = ("recall", "code", "scaling", "worst", "negatives", "throughput", "corpora")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--show-misses", action="store_true", help="list missed samples and changed negatives")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only these sections (repeatable)")
    parser.add_argument("--trufflehog", type=Path, help="a git checkout of trufflesecurity/trufflehog (corpora section)")
    args = parser.parse_args()
    only = set(args.only or SECTIONS)
    samples = load_samples()
    if "recall" in only:
        recall(samples, args.show_misses)
        print()
        noseyparker_recall(args.show_misses)
        print()
        detect_secrets_samples_recall(args.show_misses)
        print()
        gitleaks_fps(samples, args.show_misses)
        print()
    if "corpora" in only:
        other_corpora(args.trufflehog, args.show_misses)
        print()
    if "code" in only:
        code_false_positives(args.show_misses)
        print()
    if "scaling" in only:
        scaling()
        print()
    if "worst" in only:
        worst_time_per_mb()
        print()
    if only & {"negatives", "throughput"}:
        prose, code = negatives(random.Random(10), args.show_misses)
        print()
        if "negatives" in only:
            compare_detect_secrets(samples, prose, code)
            print()
        if "throughput" in only:
            throughput(prose, code, args.repeat)


if __name__ == "__main__":
    main()
