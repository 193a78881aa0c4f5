"""Page-reading cost on a large page: the visit pipeline minus network vs trafilatura alone.

Builds a realistic article page in memory (1 MB by default: head with scripts and styles,
navigation, sidebar, an article of paragraphs with links, lists, tables and code, comments,
footer) and prints the median time of

- trafilatura: ``trafilatura.extract(html, include_comments=False, include_tables=True)`` on the
  decoded page (the main-content extractor the pipeline is built on);
- pipeline: ``content.to_page`` (``classify`` + ``decode`` + trafilatura with links, the budget cut
  and the Markdown render — see tui_agent/web/maintext.py) and ``clean_observation``, what a visit
  does to a fetched body, with the text budget a visit of one URL uses by default (enough for
  ``extract_max_tokens``);
- of which trafilatura's own extraction (``maintext.trafilatura_body`` on the parsed page, the page
  parsed outside the timing), so that pipeline − parse − extraction − clean_observation is
  to_page's own part: decoding, choosing the source, trafilatura's XML to HTML, the cut and the
  Markdown render.

Each measured step runs in a worker process, one per version of the code: this checkout and,
with ``--ref REF`` (a git ref, unpacked with ``git archive``) or ``--baseline DIR`` (a checkout), a
baseline, measured side by side in one run — every round runs each step in each version in turn,
so load changes hit them all alike — with the ratio of the two.

Goal: pipeline / trafilatura <= 1.2. Real pages of every size are timed by
``benchmarks/bench_quality.py``. Run: ``.venv/bin/python benchmarks/bench_extract.py [--size BYTES]
[--runs N] [--ref main | --baseline DIR]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if "--worker" not in sys.argv:  # a worker puts the code it measures on the path itself
    sys.path.insert(0, str(ROOT))

WORDS = (
    "the research model page result evidence source network data analysis figure table "
    "study report value growth energy climate policy market system method sample test "
    "according to which however although therefore because between during against "
    "population measurement average increase decrease annual percent estimate survey"
).split()


def _sentence(rng: random.Random, n: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def make_article(target_bytes: int = 1_000_000, seed: int = 7) -> str:
    """A realistic article page of about ``target_bytes`` bytes of HTML."""
    rng = random.Random(seed)
    head = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Global energy use in 2024: a long read — Example News</title>",
        "<meta property='og:title' content='Global energy use in 2024: a long read'>",
        "<style>" + "body{font:16px/1.5 sans-serif}.nav a{color:#06c}" * 200 + "</style>",
        "<script>" + "window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}" * 200 + "</script>",
        "</head><body><header class='site-header'><nav class='nav'>",
        "".join(f"<a href='/section/{i}'>Section {i}</a> " for i in range(40)),
        "</nav></header><div class='layout'><aside class='sidebar'><ul>",
        "".join(f"<li><a href='/related/{i}'>Related story {i}</a></li>" for i in range(60)),
        "</ul></aside><main><article class='post-content'><h1>Global energy use in 2024</h1>",
    ]
    tail = [
        "</article><section class='comments'>",
        "".join(f"<div class='comment'><p>{_sentence(rng, 10)}</p></div>" for _ in range(30)),
        "</section></main></div><footer class='site-footer'><p>© Example News</p>",
        "".join(f"<a href='/footer/{i}'>Footer link {i}</a> " for i in range(30)),
        "</footer><script>console.log('bye')</script></body></html>",
    ]
    body: list[str] = []
    size = sum(map(len, head)) + sum(map(len, tail))
    section = 0
    while size < target_bytes:
        section += 1
        parts = [f"<h2>Section {section}: {_sentence(rng, 5)}</h2>"]
        for _ in range(6):
            link = f"<a href='/source/{rng.randrange(10**6)}'>{rng.choice(WORDS)} source</a>"
            parts.append(f"<p>{_sentence(rng)} {_sentence(rng)} See the {link}, {_sentence(rng, 12)}</p>")
        if section % 3 == 0:
            parts.append("<ul>" + "".join(f"<li>{_sentence(rng, 8)}</li>" for _ in range(5)) + "</ul>")
        if section % 4 == 0:
            rows = "".join(
                f"<tr><td>{rng.choice(WORDS)}</td><td>{rng.randrange(1000)}</td><td>{rng.random():.2f}</td></tr>"
                for _ in range(6)
            )
            parts.append(f"<table><tr><th>Item</th><th>Count</th><th>Share</th></tr>{rows}</table>")
        if section % 5 == 0:
            parts.append("<pre><code class='language-python'>for x in range(10):\n    print(x * 2)\n</code></pre>")
        chunk = "".join(parts)
        body.append(chunk)
        size += len(chunk)
    return "".join(head + body + tail)


STEPS = {
    "bare": "trafilatura.extract(html)",
    "pipe": "pipeline: decode+classify+html_to_markdown+clean_observation",
    "full": "  same, rendering the whole article (no budget)",
    "decode": "  of which decode",
    "parse": "  of which parsing the page (trafilatura's load_html)",
    "extract": "  of which trafilatura's extraction (maintext.trafilatura_body)",
    "clean": "  of which clean_observation",
}


def worker(code: Path, size: int) -> None:
    """Run in a child process: the steps of ``code`` on demand, one per line read; answers the
    step's time in seconds, one per line."""
    sys.path.insert(0, str(code))
    import trafilatura

    from tui_agent.config import Settings
    from tui_agent.core.budgets import clean_observation
    from tui_agent.tools.visit import text_budget
    from tui_agent.web import maintext
    from tui_agent.web.content import decode, to_page

    assert Path(maintext.__file__).resolve().is_relative_to(code.resolve()), maintext.__file__
    html = make_article(size)
    body = html.encode("utf-8")
    url = "https://news.example.com/2024/energy"
    content_type = "text/html; charset=utf-8"
    settings = Settings()
    budget = text_budget(settings, 1)

    def bare() -> None:
        trafilatura.extract(body.decode("utf-8"), include_comments=False, include_tables=True)

    def pipeline() -> None:
        page = to_page(body, content_type, url, budget)
        assert page.method == "trafilatura"
        clean_observation(page.text, settings.observation_max_tokens)

    def pipeline_unbounded() -> None:
        page = to_page(body, content_type, url, None)
        clean_observation(page.text, settings.observation_max_tokens)

    def extract() -> float:  # the page parsed as main_content parses it, outside the timing
        tree = maintext.parse_html(html)
        title = maintext.page_title(tree)
        maintext.mark_preformatted(tree)
        start = time.perf_counter()
        maintext.trafilatura_body(tree, title)
        return time.perf_counter() - start

    page = to_page(body, content_type, url, budget)
    steps = {
        "bare": bare, "pipe": pipeline, "full": pipeline_unbounded,
        "decode": lambda: decode(body, content_type),
        "parse": lambda: maintext.parse_html(html),
        "extract": extract,
        "clean": lambda: clean_observation(page.text, settings.observation_max_tokens),
    }
    for fn in steps.values():  # warm up imports and caches (tokenizer, converter)
        fn()
    print(json.dumps({"bytes": len(body), "chars": len(page.text), "budget": budget,
                      "article": page.full_chars or len(page.text), "cap": settings.observation_max_tokens}),
          flush=True)
    for line in sys.stdin:
        fn = steps[line.strip()]
        start = time.perf_counter()
        took = fn()
        elapsed = time.perf_counter() - start
        print(took if isinstance(took, float) else elapsed, flush=True)  # extract times itself


class _Worker:
    def __init__(self, name: str, code: Path, size: int) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(code), "--size", str(size)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=code)
        self.info = json.loads(self.proc.stdout.readline())

    def run(self, step: str) -> float:
        self.proc.stdin.write(step + "\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _baseline(args, tmp: Path) -> Path | None:
    if args.baseline:
        return args.baseline.resolve()
    if not args.ref:
        return None
    return checkout_tree(args.ref, tmp)


def checkout_tree(ref: str, tmp: Path) -> Path:
    """The package as it is at git ``ref``, unpacked under ``tmp`` (``tmp/baseline/tui_agent``)."""
    target = tmp / "baseline"
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "tui_agent"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="page size in bytes")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--ref", help="also measure the code of this git ref (e.g. main), side by side")
    parser.add_argument("--baseline", type=Path, help="also measure the code of this checkout, side by side")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.size)
        return

    with tempfile.TemporaryDirectory() as folder:
        baseline = _baseline(args, Path(folder))
        versions = {"this checkout": ROOT} if baseline is None else {
            (args.ref or str(args.baseline)): baseline, "this checkout": ROOT}
        workers = [_Worker(name, code, args.size) for name, code in versions.items()]
        try:
            times = {w.name: {step: [] for step in STEPS} for w in workers}
            for _ in range(args.runs):
                for step in STEPS:
                    for w in workers:
                        times[w.name][step].append(w.run(step))
        finally:
            for w in workers:
                w.close()
    _report(args, workers, times)


def _report(args, workers: list, times: dict) -> None:
    info = workers[-1].info
    print(f"page: {info['bytes']:,} bytes of HTML -> {info['chars']:,} characters of Markdown rendered "
          f"(budget {info['budget']:,} characters of text; the article has {info['article']:,}); "
          f"median of {args.runs} interleaved runs" + (", each version in its own process" if len(workers) > 1 else ""))
    print()
    med = {name: {step: statistics.median(ts) for step, ts in steps.items()} for name, steps in times.items()}
    for name in med:  # to_page's own part: what it spends outside parsing and trafilatura's extraction
        med[name]["own"] = med[name]["pipe"] - med[name]["parse"] - med[name]["extract"] - med[name]["clean"]
    labels = dict(STEPS, own="  to_page's own part: pipeline - parsing - trafilatura's extraction - clean_observation")
    labels["clean"] = f"  of which clean_observation ({info['cap']}-token cap)"
    names = list(med)
    head = "".join(f" {n} ms | {n} vs trafilatura |" for n in names)
    extra = f" {names[-1]} / {names[0]} |" if len(names) > 1 else ""
    print(f"| step |{head}{extra}")
    print("|---|" + "---:|---:|" * len(names) + ("---:|" if len(names) > 1 else ""))
    for step in ("bare", "pipe", "full", "decode", "parse", "extract", "own", "clean"):
        cells = "".join(f" {med[n][step] * 1000:.1f} | {med[n][step] / med[n]['bare']:.2f}x |" for n in names)
        ratio = f" {med[names[-1]][step] / med[names[0]][step]:.2f} |" if len(names) > 1 else ""
        print(f"| {labels[step]} |{cells}{ratio}")
    print()
    for name in names:
        ratio = statistics.median(p / b for p, b in zip(times[name]["pipe"], times[name]["bare"]))
        print(f"{name}: ratio pipeline / trafilatura (median of per-run ratios) = {ratio:.2f} (goal <= 1.20): "
              f"{'OK' if ratio <= 1.2 else 'OVER'}")


if __name__ == "__main__":
    main()
