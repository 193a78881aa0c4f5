"""Build ``benchmarks/data/recall_corpora.jsonl``: secret samples from scanners' own test data.

The samples come from projects whose licences allow copying them here (MIT), read from local
git checkouts (no work tree needed: ``git --git-dir=DIR/.git`` or a bare ``DIR``):

- secretlint/secretlint (MIT): every ``ng.*`` snapshot of a ``secretlint-rule-*`` package; the
  secret is what its ``output.json`` reports (the message's ``data`` values found in the input);
- sirwart/ripsecrets (MIT): ``test/one_per_line/*`` (each line one secret) and
  ``test/one_per_file/*``; the secret is the value after the line's last ``=``/``:`` operator,
  or its longest run of token characters;
- GitGuardian/ggshield (MIT): the ``"match": "…"`` values of the scan results in its unit tests,
  with the test line that holds each.

Not copied: semgrep/semgrep-rules (Commons Clause) and trufflesecurity/trufflehog (AGPL-3.0);
``bench_redaction.py --trufflehog DIR`` reads trufflehog's detector tests from a checkout instead.

A sample is kept when its secret is realistic: 8 characters or more, not a placeholder
(``xxxx``, ``<token>``, ``${VAR}``, a run of one character, ``EXAMPLE``, ``123456789``,
``abcdefghij``), one sample per
(source, secret, text). Each gets a split, ``tune`` or ``held-out``, from a hash of its source
file (a third tune), and a context: ``assignment`` (a name and an operator before the value),
``keyword`` (a word before it, no operator) or ``bare``.

Run: ``python benchmarks/build_recall_corpora.py --secretlint DIR --ripsecrets DIR --ggshield DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui_agent.safety.assignments import is_placeholder  # noqa: E402

OUT = ROOT / "benchmarks" / "data" / "recall_corpora.jsonl"
SOURCES = {
    "secretlint": ("secretlint/secretlint", "MIT (Copyright (c) 2020 azu)"),
    "ripsecrets": ("sirwart/ripsecrets", "MIT (Copyright 2022 Brian Smith)"),
    "ggshield": ("GitGuardian/ggshield", "MIT (Copyright (c) 2019 GitGuardian)"),
}
SKIPPED_SECRETLINT_RULES = ("no-homedir", "no-dotenv", "filter-comments", "example", "no-k8s-kind-secret", "pattern")
"""secretlint rules whose findings are not a secret value (a home directory path, a file name, a
line matched by a user's pattern)."""
IDENTIFIERS = re.compile(r"(?i)account ?id|client ?id|tenant ?id|\bhost\b|user ?name|\bport\b|database")
"""Findings that name an account, not a credential (secretlint's message, ggshield's match type)."""
MAX_TEXT = 4_000
SEQUENTIAL = re.compile(r"(?i)123456789|abcdefghij")
"""A counting run is a placeholder (the entry of Kingfisher's safe list for it, ``src/safe_list.rs``)."""


class Repo:
    def __init__(self, path: Path) -> None:
        self.git_dir = path / ".git" if (path / ".git").exists() else path
        self.commit = self.git("rev-parse", "HEAD").strip()

    def git(self, *args: str) -> str:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, text=True,
                              check=True, errors="replace").stdout

    def files(self, under: str) -> list[str]:
        return self.git("ls-tree", "-r", "--name-only", "HEAD", under).splitlines()

    def show(self, path: str) -> str:
        return self.git("show", f"HEAD:{path}")


def realistic(secret: str) -> bool:
    s = secret.strip("\"'` ")
    return (len(s) >= 8 and not is_placeholder(s) and not re.search(r"(.)\1{5,}", s)
            and "example" not in s.lower() and len(set(s)) >= 5 and not SEQUENTIAL.search(s))


_OPERATOR_BEFORE = re.compile(r"(?:[:=>,]|:=|=>|\bvalue)\s*[\"'`]?$")


def context(text: str, secret: str) -> str:
    i = text.find(secret)
    before = text[text.rfind("\n", 0, i) + 1:i].rstrip("\"'` \t")
    if _OPERATOR_BEFORE.search(text[text.rfind("\n", 0, i) + 1:i]) and re.search(r"[A-Za-z]", before):
        return "assignment"
    if re.search(r"[A-Za-z]{2,}[^A-Za-z0-9]*$", before):
        return "keyword"
    return "bare"


def split_of(repo: str, path: str) -> str:
    return "tune" if int(hashlib.sha256(f"{repo}/{path}".encode()).hexdigest(), 16) % 3 == 0 else "held-out"


_URL_PASSWORD = re.compile(r"://[^:/@\s]*:(.+)@[^@]*$")


def sample(source: str, repo: Repo, path: str, text: str, secret: str) -> dict | None:
    url = _URL_PASSWORD.search(secret)
    if url:
        secret = url.group(1)  # a URL with credentials: the password is the secret, not the host
    if secret not in text or not realistic(secret):
        return None
    if len(text) > MAX_TEXT:
        i = text.find(secret)
        lo = text.rfind("\n", 0, max(0, i - 200)) + 1
        text = text[lo:i + len(secret) + 200]
    name, licence = SOURCES[source]
    return {"source": name, "path": path, "commit": repo.commit, "license": licence, "split": split_of(name, path),
            "context": context(text, secret), "text": text, "secret": secret}


def secretlint(repo: Repo) -> list[dict]:
    out = []
    paths = repo.files("packages/@secretlint")
    for p in paths:
        m = re.match(r"packages/@secretlint/secretlint-rule-([^/]+)/test/snapshots/(ng\.[^/]+)/output\.json$", p)
        if not m or m.group(1) in SKIPPED_SECRETLINT_RULES:
            continue
        try:
            report = json.loads(repo.show(p))
        except json.JSONDecodeError:
            continue
        text = report.get("sourceContent") or ""
        if not text or "\0" in text:
            continue
        for msg in report.get("messages", []):
            if IDENTIFIERS.search(msg.get("messageId", "") + " " + msg.get("message", "").split(":")[0]):
                continue
            values = [v for v in (msg.get("data") or {}).values() if isinstance(v, str) and v in text]
            found = re.search(r": (\S+)$", msg.get("message", ""))
            if not values and found and found.group(1) in text:
                values = [found.group(1)]
            for v in sorted(values, key=len, reverse=True)[:1]:
                out.append(sample("secretlint", repo, p.rsplit("/", 1)[0], _lines_around(text, v), v))
    return [s for s in out if s]


def _lines_around(text: str, secret: str) -> str:
    i = text.find(secret)
    lo = text.rfind("\n", 0, text.rfind("\n", 0, i)) + 1 if i > 0 else 0
    hi = text.find("\n", i + len(secret))
    return text[lo:] if hi < 0 else text[lo:hi]


_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~{}\\]{8,}")


def line_secret(line: str) -> str:
    """The value of a one-secret line: after its last operator, else its longest token run."""
    m = re.search(r"(?:[:=]|<\w+>)\s*[\"']?([^\s\"'<]{8,})[\"']?\s*(?:</\w+>)?\s*$", line)
    if m and "://" not in line:
        return m.group(1)
    if "://" in line:
        m = re.search(r"://[^:/@\s]+:([^@\s]+)@", line)
        return m.group(1) if m else ""
    runs = _TOKEN_RUN.findall(line)
    return max(runs, key=len) if runs else ""


def ripsecrets(repo: Repo) -> list[dict]:
    out = []
    for p in repo.files("test/one_per_line"):
        for line in repo.show(p).splitlines():
            if line.strip():
                out.append(sample("ripsecrets", repo, p, line, line_secret(line)))
    for p in repo.files("test/one_per_file"):
        text = repo.show(p)
        body = re.search(r"-----BEGIN[^\n]*-----\s*\n([A-Za-z0-9+/=]{40,})", text)
        secret = body.group(1) if body else line_secret(max(text.splitlines(), key=len))
        out.append(sample("ripsecrets", repo, p, text, secret))
    return [s for s in out if s]


_MATCH = re.compile(r"(?P<before>[^{}]*)[\"']match[\"']:\s*(?:[A-Za-z_]+\b|\"([^\"\n]{8,})\"|'([^'\n]{8,})')(?P<rest>[^{}]*)")


def ggshield(repo: Repo) -> list[dict]:
    out = []
    for p in repo.files("tests"):
        if not p.endswith(".py"):
            continue
        text = repo.show(p)
        if '"match"' not in text and "'match'" not in text:
            continue
        lines = text.splitlines()
        for m in _MATCH.finditer(text):
            value = m.group(2) or m.group(3)
            kind = re.search(r"[\"']type[\"']:\s*[\"'](\w+)", m.group("before") + m.group("rest"))
            if not value or (kind and IDENTIFIERS.search(kind.group(1).replace("_", " "))):
                continue
            for line in lines:
                if value in line and "match" not in line:
                    out.append(sample("ggshield", repo, p, line.lstrip("+ "), value))
                    break
    return [s for s in out if s]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in SOURCES:
        parser.add_argument(f"--{name}", type=Path, required=True, help=f"a git checkout of {SOURCES[name][0]}")
    args = parser.parse_args()
    rows: list[dict] = []
    for name, build in (("secretlint", secretlint), ("ripsecrets", ripsecrets), ("ggshield", ggshield)):
        rows += build(Repo(getattr(args, name)))
    seen, unique = set(), []
    for r in rows:
        key = (r["source"], r["secret"], r["text"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    meta = {"_meta": {"built_by": "benchmarks/build_recall_corpora.py", "doc": __doc__.split("\n\n")[1].strip(),
                      "sources": {v[0]: v[1] for v in SOURCES.values()},
                      "counts": {f"{s}/{split}": sum(r["source"] == s and r["split"] == split for r in unique)
                                 for s, _ in SOURCES.values() for split in ("tune", "held-out")}}}
    with OUT.open("w", encoding="utf-8") as f:
        for r in [meta] + unique:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(unique)} samples -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
