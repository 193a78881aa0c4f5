"""Main-text quality on real pages: readability-lxml, trafilatura and tui-agent side by side.

Corpora (read from outside the repository, never committed):

- ``trafilatura`` (default): trafilatura's own evaluation set — ``tests/eval/*.html`` and
  ``tests/evaldata.json`` of the trafilatura repository (Apache-2.0), shipped as
  ``shared/extraction-dev/trafilatura-eval.tar.xz`` beside the repository. By default the tarball is
  unpacked once into the user cache directory; ``--corpus DIR`` reads an unpacked copy instead.
  Scored as trafilatura's ``tests/eval_common.py`` does: a ``with`` segment found in the output
  (whitespace-normalised substring) is a true positive, missing a false negative; a ``without``
  segment found is a false positive, missing a true negative; precision, recall, F1 and accuracy
  over all segments of all pages. trafilatura was tuned on these pages: a strong baseline here.
- ``aeb``: the ScrapingHub article-extraction benchmark (181 news pages; ``--aeb DIR`` is a clone of
  github.com/scrapinghub/article-extraction-benchmark with ``html/*.html.gz`` and
  ``ground-truth.json``). Scored as its ``evaluate.py`` does: word 4-gram shingles per page,
  tp/fp/fn normalised per page, precision and recall averaged over pages, F1 of the two means.

Extractors, each given the page's bytes (a page is decoded inside the timing):

- readability-lxml: ``Document(html).summary(html_partial=True)`` on the page decoded by
  tui-agent, rendered to plain text by ``web/render.py`` (trafilatura's evaluation scores the raw
  summary HTML, which costs readability segments that cross tags);
- trafilatura, library defaults: ``trafilatura.extract(body)``;
- trafilatura: ``extract(body, include_comments=False, include_tables=True, include_formatting=False)``,
  the options of trafilatura's own evaluation (``EXTRACT_OPTS``) — "trafilatura alone" below;
- trafilatura favor_precision / favor_recall / fast: the same with that option (``fast``, formerly
  ``no_fallback``, skips the comparison with readability and jusText);
- tui-agent: ``content.to_page(body, "text/html", url, fmt="text").text``, the code path of
  ``tui-agent read --format text`` after the fetch (web/maintext.py);
- tui-agent without the readability fallback, and keeping a first heading that repeats the
  title: the same with one of its two rules off (ablations: what each rule adds);
- tui-agent with favor_precision / with fast: the same with that option added to
  ``maintext.TRAFILATURA_OPTIONS``.

Times are the mean wall time per page of one run of each extractor per page, run in turn
page by page (so load changes hit them all alike), and its ratio to trafilatura alone.

Run: ``.venv/bin/python benchmarks/bench_quality.py [--corpus DIR | --tarball FILE] [--aeb DIR]
[--only trafilatura|aeb] [--limit N] [--extractor NAME ...]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARBALL_NAME = "trafilatura-eval.tar.xz"
# where the shared folder sits: beside the repository (a fresh clone) or two levels up (a worktree)
SHARED_CANDIDATES = [ROOT.parent / "shared" / "extraction-dev", ROOT.parents[1] / "shared" / "extraction-dev"]
SHINGLE_N = 4  # word 4-grams, as in the article-extraction benchmark
_WS = re.compile(r"\s+")
_TOKEN = re.compile(r"\w+", re.UNICODE)


# --- corpora ----------------------------------------------------------------------------------


def default_tarball() -> Path | None:
    for folder in SHARED_CANDIDATES:
        if (folder / TARBALL_NAME).is_file():
            return folder / TARBALL_NAME
    return None


def unpacked(tarball: Path) -> Path:
    """The corpus folder, unpacked once from ``tarball`` into the user cache directory."""
    import platformdirs

    cache = Path(platformdirs.user_cache_dir("tui-agent")) / "bench-quality"
    target = cache / "trafilatura-eval"
    marker = cache / f".{tarball.name}.{tarball.stat().st_size}.done"
    if not marker.exists():
        cache.mkdir(parents=True, exist_ok=True)
        print(f"unpacking {tarball} into {cache} …", file=sys.stderr)
        with tarfile.open(tarball) as tar:
            tar.extractall(cache, filter="data")
        marker.touch()
    return target


def trafilatura_pages(corpus: Path, limit: int | None) -> list[dict]:
    """Pages of trafilatura's evaluation set that are present in ``corpus`` (a few referenced
    files live in its tests/cache folder and are not part of the set)."""
    tests = corpus / "tests" if (corpus / "tests").is_dir() else corpus
    data = json.loads((tests / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url, item in data.items():
        path = tests / "eval" / item["file"]
        if path.is_file():
            pages.append({"url": url, "body": path.read_bytes(), "with": item["with"], "without": item["without"]})
    return pages[:limit] if limit else pages


def aeb_pages(folder: Path, limit: int | None) -> list[dict]:
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for key, item in sorted(truth.items()):
        with gzip.open(folder / "html" / f"{key}.html.gz", "rb") as fh:
            body = fh.read()
        pages.append({"url": item.get("url") or f"https://aeb.invalid/{key}", "body": body,
                      "truth": item.get("articleBody", "")})
    return pages[:limit] if limit else pages


# --- scoring ----------------------------------------------------------------------------------


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def segment_counts(page: dict, output: str | None) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of one page, as trafilatura's evaluation counts them."""
    out = norm(output) if isinstance(output, str) else None
    tp = sum(1 for w in page["with"] if out is not None and norm(w) in out)
    fp = sum(1 for w in page["without"] if out is not None and norm(w) in out)
    return tp, fp, len(page["with"]) - tp, len(page["without"]) - fp


def segment_scores(counts: list[tuple[int, int, int, int]]) -> dict:
    tp, fp, fn, tn = (sum(c[i] for c in counts) for i in range(4))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    total = tp + fp + fn + tn
    return {"precision": precision, "recall": recall, "f1": 2 * tp / (2 * tp + fp + fn) if tp else 0.0,
            "accuracy": (tp + tn) / total if total else 0.0}


def _shingles(text: str) -> Counter:
    tokens = _TOKEN.findall(text or "")
    return Counter(tuple(tokens[i:i + SHINGLE_N]) for i in range(max(1, len(tokens) - SHINGLE_N + 1))
                   if tokens[i:i + SHINGLE_N])


def shingle_counts(page: dict, output: str | None) -> tuple[float, float, float]:
    """Per-page (tp, fp, fn) over shingles, normalised to sum to 1, as the benchmark's evaluate.py."""
    true, pred = _shingles(page["truth"]), _shingles(output or "")
    tp = sum((true & pred).values())
    fp = sum((pred - true).values())
    fn = sum((true - pred).values())
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s else (0.0, 0.0, 0.0)


def shingle_scores(counts: list[tuple[float, float, float]]) -> dict:
    def ratio(a: float, b: float, fp: float, fn: float) -> float:
        return 1.0 if fp == fn == 0 else (0.0 if a == b == 0 else a / (a + b))

    precision = statistics.mean(ratio(tp, fp, fp, fn) for tp, fp, fn in counts if tp + fp > 0)
    recall = statistics.mean(ratio(tp, fn, fp, fn) for tp, fp, fn in counts if tp + fn > 0)
    return {"precision": precision, "recall": recall, "f1": 2 * precision * recall / (precision + recall),
            "accuracy": None}


# --- extractors -------------------------------------------------------------------------------


def extractors() -> dict:
    import lxml.html
    import trafilatura
    from readability import Document

    from tui_agent.web import content, maintext
    from tui_agent.web.render import render

    opts = {"include_comments": False, "include_tables": True, "include_formatting": False}

    def readability_alone(body: bytes, url: str) -> str:
        summary = Document(content.decode(body, "text/html")).summary(html_partial=True)
        return render(lxml.html.fragment_fromstring(summary, create_parent="div"), markdown=False)

    def tui_agent(body: bytes, url: str) -> str:
        return content.to_page(body, "text/html", url, None, fmt="text").text

    def tui_agent_without_readability(body: bytes, url: str) -> str:
        saved, maintext.MIN_MAIN_CHARS = maintext.MIN_MAIN_CHARS, 0
        try:
            return tui_agent(body, url)
        finally:
            maintext.MIN_MAIN_CHARS = saved

    def tui_agent_favoring_precision(body: bytes, url: str) -> str:
        saved = dict(maintext.TRAFILATURA_OPTIONS)
        maintext.TRAFILATURA_OPTIONS.update(favor_precision=True)
        try:
            return tui_agent(body, url)
        finally:
            maintext.TRAFILATURA_OPTIONS.clear()
            maintext.TRAFILATURA_OPTIONS.update(saved)

    def tui_agent_fast(body: bytes, url: str) -> str:
        saved = dict(maintext.TRAFILATURA_OPTIONS)
        maintext.TRAFILATURA_OPTIONS.update(fast=True)
        try:
            return tui_agent(body, url)
        finally:
            maintext.TRAFILATURA_OPTIONS.clear()
            maintext.TRAFILATURA_OPTIONS.update(saved)

    def tui_agent_keeping_the_title_heading(body: bytes, url: str) -> str:
        saved, maintext._repeats_title = maintext._repeats_title, lambda heading, title: False
        try:
            return tui_agent(body, url)
        finally:
            maintext._repeats_title = saved

    return {
        "readability-lxml": readability_alone,
        "trafilatura, library defaults": lambda body, url: trafilatura.extract(body),
        "trafilatura": lambda body, url: trafilatura.extract(body, **opts),
        "trafilatura favor_precision": lambda body, url: trafilatura.extract(body, favor_precision=True, **opts),
        "trafilatura favor_recall": lambda body, url: trafilatura.extract(body, favor_recall=True, **opts),
        "trafilatura fast": lambda body, url: trafilatura.extract(body, fast=True, **opts),
        "tui-agent read --format text": tui_agent,
        "tui-agent without the readability fallback": tui_agent_without_readability,
        "tui-agent keeping a heading that repeats the title": tui_agent_keeping_the_title_heading,
        "tui-agent with favor_precision": tui_agent_favoring_precision,
        "tui-agent with fast": tui_agent_fast,
    }


def run(pages: list[dict], fns: dict, count) -> dict:
    """Per extractor: the list of per-page counts and the total time."""
    results = {name: {"counts": [], "time": 0.0, "empty": 0, "errors": 0} for name in fns}
    for page in pages:
        for name, fn in fns.items():
            start = time.perf_counter()
            try:
                output = fn(page["body"], page["url"])
            except Exception:  # a crash counts as a full miss, as in trafilatura's evaluation
                output = None
                results[name]["errors"] += 1
            results[name]["time"] += time.perf_counter() - start
            results[name]["empty"] += not output
            results[name]["counts"].append(count(page, output))
    return results


def table(title: str, results: dict, scores, pages: int) -> None:
    base = results["trafilatura"]["time"]
    print(f"\n{title}\n")
    print("| extractor | precision | recall | F1 | accuracy | ms/page | × trafilatura | empty |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        s = scores(r["counts"])
        accuracy = f"{s['accuracy']:.3f}" if s["accuracy"] is not None else "–"
        print(f"| {name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {accuracy} | "
              f"{r['time'] / pages * 1000:.1f} | {r['time'] / base:.2f} | {r['empty']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="an unpacked trafilatura-eval folder")
    parser.add_argument("--tarball", type=Path, help=f"the {TARBALL_NAME} to unpack (default: shared/extraction-dev)")
    parser.add_argument("--aeb", type=Path, help="a clone of scrapinghub/article-extraction-benchmark")
    parser.add_argument("--only", choices=["trafilatura", "aeb"], help="run one corpus only")
    parser.add_argument("--limit", type=int, help="the first N pages of each corpus (a quick look)")
    parser.add_argument("--extractor", action="append", metavar="NAME",
                        help="run only this extractor (repeatable; 'trafilatura' is always run: the times are "
                             "relative to it); default: all")
    args = parser.parse_args()

    import logging

    logging.disable(logging.CRITICAL)  # trafilatura and readability log their doubts
    fns = extractors()
    if args.extractor:
        unknown = set(args.extractor) - set(fns)
        if unknown:
            sys.exit(f"unknown extractor {', '.join(sorted(unknown))}; known: {', '.join(fns)}")
        fns = {name: fn for name, fn in fns.items() if name in args.extractor or name == "trafilatura"}
    warm = b"<html><body><article><p>" + b"Warm-up text for the imports and caches. " * 20 + b"</p></article></body></html>"
    for fn in fns.values():
        fn(warm, "https://example.org/")

    import trafilatura

    versions = f"trafilatura {trafilatura.__version__}, readability-lxml {_version('readability-lxml')}"
    if args.only != "aeb":
        corpus = args.corpus
        if corpus is None:
            tarball = args.tarball or default_tarball()
            if tarball is None:
                sys.exit(f"no corpus: give --corpus DIR or --tarball FILE (looked for {TARBALL_NAME} in "
                         f"{', '.join(str(c) for c in SHARED_CANDIDATES)})")
            corpus = unpacked(tarball)
        pages = trafilatura_pages(corpus, args.limit)
        results = run(pages, fns, segment_counts)
        table(f"### trafilatura's evaluation corpus: {len(pages)} real pages, with/without segments "
              f"({versions})", results, segment_scores, len(pages))
    if args.aeb is not None and args.only != "trafilatura":
        pages = aeb_pages(args.aeb, args.limit)
        results = run(pages, fns, shingle_counts)
        table(f"### article-extraction benchmark: {len(pages)} real pages, word {SHINGLE_N}-gram shingles "
              f"({versions})", results, shingle_scores, len(pages))


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def corpus_pages(corpus: "Path | None", min_bytes: int) -> list[dict]:
    """The trafilatura evaluation corpus's pages of ``min_bytes`` or more: from ``corpus`` (a folder),
    else unpacked from shared/extraction-dev beside the repository; exits with a message without one."""
    if corpus is None:
        tarball = default_tarball()
        if tarball is None:
            sys.exit("no corpus: pass --corpus or put shared/extraction-dev beside the repository")
        corpus = unpacked(tarball)
    return [p for p in trafilatura_pages(corpus, None) if len(p["body"]) >= min_bytes]


if __name__ == "__main__":
    main()

