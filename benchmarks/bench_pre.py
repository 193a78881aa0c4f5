"""Do the lines of a page's <pre> blocks survive extraction? Real pages, tui-agent and trafilatura.

A ``<pre>`` holds text whose line breaks and indentation are its meaning (a config file, a shell
session, code without a ``<code>`` element). This script reads the pages of trafilatura's
evaluation set (``shared/extraction-dev/trafilatura-eval.tar.xz``, unpacked as
``benchmarks/bench_quality.py`` does) that have a ``<pre>`` of at least two non-blank lines, and
for each such block that an extractor kept (every one of its lines is found, whitespace-normalised,
in the output) asks whether its lines are still lines:

- *lines kept*: its non-blank lines are consecutive lines of the output (each compared with its
  whitespace collapsed; in Markdown a line may carry the ``> ``/list prefix of its container);
- *exact* (plain text only): the same with indentation and inner spacing unchanged.

A page counts as kept when every multi-line ``<pre>`` its output contains keeps its lines.

Extractors: tui-agent as the model reads it (``content.to_page(..., fmt="markdown")``, the visit
tool's rendering), tui-agent plain text (``fmt="text"``, ``tui-agent read --format text``), and
trafilatura alone (``trafilatura.extract`` with the evaluation's options), which keeps the lines
of what it extracts.

Run: ``.venv/bin/python benchmarks/bench_pre.py [--corpus DIR | --tarball FILE] [--limit N]``.
Run it with ``PYTHONPATH`` set to another checkout to measure that code (before/after a change).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # bench_quality's corpus helpers

from bench_quality import ROOT, default_tarball, trafilatura_pages, unpacked  # noqa: E402

if os.environ.get("PYTHONPATH") and str(ROOT) in sys.path:
    sys.path.remove(str(ROOT))  # bench_quality put this checkout first: PYTHONPATH names the code to measure

_WS = re.compile(r"\s+")
_PREFIX = re.compile(r"^(?:\s*(?:>|[-*]|\d+\.)(?:\s|$))*")  # a Markdown quote or list prefix
_HAS_PRE = re.compile(rb"<pre[\s>]", re.IGNORECASE)


def norm(line: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFC", line.replace("\xa0", " "))).strip()


def pre_blocks(body: bytes) -> list[list[str]]:
    """The non-blank lines (right-stripped) of each <pre> of the page with at least two of them."""
    import lxml.html

    from tui_agent.web.content import decode

    try:
        tree = lxml.html.document_fromstring(decode(body, "text/html"))
    except Exception:
        return []
    blocks = []
    for pre in tree.iter("pre"):
        for br in pre.iter("br"):
            br.tail = "\n" + (br.tail or "")
        text = unicodedata.normalize("NFC", "".join(pre.itertext()).replace("\xa0", " "))
        lines = [line.rstrip() for line in text.split("\n") if line.strip()]
        if len(lines) >= 2:
            blocks.append(lines)
    return blocks


def judge(block: list[str], output: str, *, markdown: bool) -> tuple[bool, bool, bool]:
    """(kept, lines kept, exact) of one <pre> block in one output."""
    flat = norm(output)
    if not all(norm(line) in flat for line in block):
        return False, False, False
    out_lines = [line.rstrip() for line in output.split("\n")
                 if norm(_PREFIX.sub("", line, count=1) if markdown else line)]
    want = [norm(line) for line in block]
    have = [norm(_PREFIX.sub("", line, count=1)) if markdown else norm(line) for line in out_lines]
    plain_have = [norm(line) for line in out_lines]
    lines_kept = exact = False
    n = len(block)
    for i in range(len(out_lines) - n + 1):
        if have[i:i + n] == want or plain_have[i:i + n] == want:
            lines_kept = True
            if not markdown and out_lines[i:i + n] == block:
                exact = True
                break
    return True, lines_kept, exact


def extractors() -> dict:
    import trafilatura

    from tui_agent.web import content

    return {
        "tui-agent markdown (what the model reads)":
            lambda body, url: content.to_page(body, "text/html", url, None, fmt="markdown").text,
        "tui-agent text (read --format text)":
            lambda body, url: content.to_page(body, "text/html", url, None, fmt="text").text,
        "trafilatura alone": lambda body, url: trafilatura.extract(
            body, include_comments=False, include_tables=True, include_formatting=False) or "",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="an unpacked trafilatura-eval folder")
    ap.add_argument("--tarball", type=Path, help="trafilatura-eval.tar.xz (default: shared/extraction-dev)")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    corpus = args.corpus
    if corpus is None:
        tarball = args.tarball or default_tarball()
        if tarball is None:
            sys.exit("no corpus: pass --corpus DIR or --tarball FILE")
        corpus = unpacked(tarball)
    pages = [p for p in trafilatura_pages(corpus, None) if _HAS_PRE.search(p["body"])]
    pages = [p | {"blocks": pre_blocks(p["body"])} for p in pages]
    pages = [p for p in pages if p["blocks"]][: args.limit or None]
    fns = extractors()
    rows = {name: {"pages": 0, "pages_kept": 0, "blocks": 0, "lines": 0, "exact": 0, "s": 0.0} for name in fns}
    for page in pages:
        for name, fn in fns.items():
            start = time.perf_counter()
            try:
                output = fn(page["body"], page["url"])
            except Exception:
                output = ""
            row = rows[name]
            row["s"] += time.perf_counter() - start
            markdown = "markdown" in name
            found = [judge(b, output, markdown=markdown) for b in page["blocks"]]
            found = [f for f in found if f[0]]
            if not found:
                continue
            row["pages"] += 1
            row["pages_kept"] += all(f[1] for f in found)
            row["blocks"] += len(found)
            row["lines"] += sum(f[1] for f in found)
            row["exact"] += sum(f[2] for f in found)
    import tui_agent

    print(f"code measured: {Path(tui_agent.__file__).parent}")
    print(f"{len(pages)} pages of the corpus have a <pre> of 2+ non-blank lines "
          f"({sum(len(p['blocks']) for p in pages)} such blocks)\n")
    head = f"{'extractor':<42} {'pages with one':>14} {'pages: lines kept':>18} {'blocks':>7} {'lines kept':>11} " \
           f"{'exact':>6} {'ms/page':>8}"
    print(head)
    print("-" * len(head))
    for name, r in rows.items():
        exact = "-" if "markdown" in name else str(r["exact"])
        print(f"{name:<42} {r['pages']:>14} {r['pages_kept']:>18} {r['blocks']:>7} {r['lines']:>11} {exact:>6} "
              f"{1000 * r['s'] / max(1, len(pages)):>8.1f}")


if __name__ == "__main__":
    main()
