"""Main-content extraction quality: readability alone, trafilatura alone, tui-agent's pipeline.

Reads the corpus in ``benchmarks/quality_pages/`` (built by ``make_quality_pages.py``: 117 pages
from 39 site templates, each with its true body in ``NAME.txt``) and scores each extractor's
plain text against the true body, per page, as public article-extraction benchmarks do:

- tokens: lower-cased Unicode words (``\\w+``), so punctuation and Markdown syntax do not count;
- shingles: word 4-grams (n=4, as in the ScrapingHub article-extraction benchmark), as
  multisets (a repeated 4-gram counts as often as it occurs);
- precision = shared shingles / shingles extracted, recall = shared / shingles of the true body,
  F1 their harmonic mean; the table shows the mean over pages (and the median F1).

Extractors, all on the same decoded HTML:

- readability: ``readability.Document(html).summary(html_partial=True)`` (readability-lxml
  0.9, defaults), rendered to plain text by tui-agent's renderer;
- trafilatura: ``trafilatura.extract(html, include_comments=False, include_tables=True)``
  (2.3.1; comments off because the true bodies exclude comments — with its default
  ``include_comments=True`` it scores lower: ``--defaults`` adds that row);
- tui-agent: ``content.to_page(body, "text/html; charset=utf-8", url, fmt="text")``, the code
  path of ``tui-agent read --format text`` after the fetch (readability + segment analysis +
  trafilatura when they disagree; see tui_agent/tools/maintext.py);
- analysis only (ablation): the segment analysis alone, without readability or trafilatura.

Times are the median per page of one run of each extractor per page, interleaved.

Run: ``.venv/bin/python benchmarks/bench_quality.py [--split dev|heldout|heldout2|heldout3|heldout4|all] [--details]``.

Splits (see make_quality_pages.py), and how honest each figure is:

- dev (8 templates): tuned on freely;
- held-out-1 (8 templates): written before tuning and first run once the extractor was frozen;
  that run (pipeline F1 0.871, trafilatura 0.870) showed failure types that were then fixed
  with generic rules — so its later figures are *seen*, no longer an unbiased estimate;
- held-out-2 (8 new templates): written after that first held-out run and before the fixes;
  its first run (pipeline 0.858, trafilatura 0.812, trafilatura with comments 0.862) showed two
  more failure types (a boilerplate class on the article's wrapper; discussion pages whose
  content is in comment markup), fixed with generic rules — so it is *seen* too;
- held-out-3 (8 new templates): written after that, before those fixes, and run once after
  them (pipeline 0.808, trafilatura 0.867: a structural rule overruled readability and
  trafilatura where both agreed on reddit comments) — fixed with a majority rule, so *seen*;
- held-out-4 (7 new templates): written after the held-out-3 run and before that fix, run
  once with the final extractor (pipeline 0.972, trafilatura 0.838, readability 0.846): the
  honest estimate for pages not tuned on.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PAGES = Path(__file__).resolve().parent / "quality_pages"
N = 4
_TOKEN = re.compile(r"\w+")


def shingles(text: str, n: int = N) -> Counter:
    tokens = _TOKEN.findall(text.lower())
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def score(extracted: str, truth: str) -> tuple[float, float, float]:
    got, want = shingles(extracted), shingles(truth)
    if not got and not want:
        return 1.0, 1.0, 1.0
    shared = sum((got & want).values())
    p = shared / sum(got.values()) if got else 0.0
    r = shared / sum(want.values()) if want else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def extractors(defaults: bool) -> dict:
    import lxml.html
    import trafilatura
    from readability import Document

    from tui_agent.web import content, maintext
    from tui_agent.web.render import render

    def readability_alone(html: str, url: str) -> str:
        summary = Document(html).summary(html_partial=True)
        return render(lxml.html.fragment_fromstring(summary, create_parent="div"), markdown=False)

    def trafilatura_alone(html: str, url: str) -> str:
        return trafilatura.extract(html, include_comments=False, include_tables=True) or ""

    def trafilatura_defaults(html: str, url: str) -> str:
        return trafilatura.extract(html) or ""

    def pipeline(html: str, url: str) -> str:
        return content.to_page(html.encode("utf-8"), "text/html; charset=utf-8", url, None, fmt="text").text

    def analysis_only(html: str, url: str) -> str:
        tree = content.parse_html(html)
        a = maintext.analyse(tree, content.page_title(tree))
        ex = maintext.Extraction(a, a.selected(), "analysis")
        root, _ = maintext.build_tree(ex)
        return render(root, markdown=False) if root is not None else ""

    out = {"readability": readability_alone, "trafilatura": trafilatura_alone}
    if defaults:
        out["trafilatura (defaults)"] = trafilatura_defaults
    out["tui-agent pipeline"] = pipeline
    out["analysis only (ablation)"] = analysis_only
    return out


def load(split: str) -> list[dict]:
    manifest = json.loads((PAGES / "manifest.json").read_text(encoding="utf-8"))
    pages = []
    for m in manifest:
        if split != "all" and m["split"] != split:
            continue
        m = dict(m)
        m["html"] = (PAGES / f"{m['name']}.html").read_text(encoding="utf-8")
        m["truth"] = (PAGES / f"{m['name']}.txt").read_text(encoding="utf-8")
        pages.append(m)
    return pages


def run(pages: list[dict], fns: dict) -> dict:
    results = {name: [] for name in fns}
    for page in pages:
        for name, fn in fns.items():
            start = time.perf_counter()
            text = fn(page["html"], page["url"])
            elapsed = time.perf_counter() - start
            results[name].append((page["name"], *score(text, page["truth"]), elapsed))
    return results


def table(title: str, results: dict) -> None:
    base = statistics.median(r[4] for r in results["readability"])
    print(f"\n{title}\n")
    print("| extractor | precision | recall | F1 | median F1 | pages F1 < 0.9 | median ms/page | × readability |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        p = statistics.mean(r[1] for r in rows)
        r_ = statistics.mean(r[2] for r in rows)
        f = statistics.mean(r[3] for r in rows)
        med_f = statistics.median(r[3] for r in rows)
        low = sum(1 for r in rows if r[3] < 0.9)
        t = statistics.median(r[4] for r in rows)
        print(f"| {name} | {p:.3f} | {r_:.3f} | {f:.3f} | {med_f:.3f} | {low} | {t * 1000:.1f} | {t / base:.2f} |")


def details(results: dict) -> None:
    names = list(results)
    print("\n| page | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for i, row in enumerate(results[names[0]]):
        cells = [f"{results[n][i][3]:.3f}" for n in names]
        print(f"| {row[0]} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "heldout", "heldout2", "heldout3", "heldout4", "all"], default="all")
    parser.add_argument("--details", action="store_true", help="F1 of every page")
    parser.add_argument("--defaults", action="store_true", help="add trafilatura with its default settings")
    args = parser.parse_args()

    import logging

    logging.disable(logging.CRITICAL)  # trafilatura and readability log their doubts
    fns = extractors(args.defaults)
    for page in load("dev")[:2]:  # warm up imports and caches
        for fn in fns.values():
            fn(page["html"], page["url"])
    splits = ["dev", "heldout", "heldout2", "heldout3", "heldout4"] if args.split == "all" else [args.split]
    for split in splits:
        pages = load(split)
        results = run(pages, fns)
        label = {"dev": "dev (tuned on)", "heldout": "held-out-1 (seen: its first run prompted generic fixes)",
                 "heldout2": "held-out-2 (seen: its first run prompted two generic fixes)",
                 "heldout3": "held-out-3 (seen: its first run prompted the arbiter's majority rule)",
                 "heldout4": "held-out-4 (never tuned on)"}[split]
        families = sorted({p["family"] for p in pages})
        table(f"### {label}: {len(pages)} pages, {len(families)} templates ({', '.join(families)}); "
              f"word {N}-gram shingles, mean over pages", results)
        if args.details:
            details(results)


if __name__ == "__main__":
    main()
