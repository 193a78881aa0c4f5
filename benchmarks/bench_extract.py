"""Page-reading cost on a large page: the visit pipeline minus network vs trafilatura alone.

Builds a ~1 MB realistic article page in memory (head with scripts and styles, navigation,
sidebar, an article of paragraphs with links, lists, tables and code, comments, footer) and
prints the median time of

- trafilatura: ``trafilatura.extract(html, include_comments=False, include_tables=True)`` on the
  decoded page (the main-content extractor the pipeline is built on);
- pipeline: ``content.to_page`` (``classify`` + ``decode`` + trafilatura with links, the budget cut
  and the Markdown render — see tui_agent/web/maintext.py) and ``clean_observation``, what a visit
  does to a fetched body, with the text budget a visit of one URL uses by default (enough for
  ``extract_max_tokens``).

Goal: pipeline / trafilatura <= 1.2. Real pages of every size are timed by
``benchmarks/bench_quality.py``. Run: ``.venv/bin/python benchmarks/bench_extract.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _interleaved(fns: dict, runs: int) -> dict[str, list[float]]:
    """Times of each function, run in turn every round so load changes hit them all alike."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            times[name].append(_timed(fn))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="page size in bytes")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    args = parser.parse_args()

    import trafilatura

    from tui_agent.config import Settings
    from tui_agent.safety.hygiene import clean_observation
    from tui_agent.web.content import decode, html_to_markdown, to_page
    from tui_agent.tools.visit import text_budget

    html = make_article(args.size)
    body = html.encode("utf-8")
    url = "https://news.example.com/2024/energy"
    content_type = "text/html; charset=utf-8"

    def bare() -> None:
        trafilatura.extract(body.decode("utf-8"), include_comments=False, include_tables=True)

    settings = Settings()
    budget = text_budget(settings, 1)

    def pipeline() -> None:
        page = to_page(body, content_type, url, budget)
        assert page.method == "trafilatura"
        clean_observation(page.text, settings.observation_max_tokens)

    def pipeline_unbounded() -> None:
        page = to_page(body, content_type, url, None)
        clean_observation(page.text, settings.observation_max_tokens)

    # warm up imports and caches (tokenizer, converter) outside the measurement
    pipeline()
    bare()
    page = html_to_markdown(html, url, budget)
    times = _interleaved(
        {
            "bare": bare,
            "pipe": pipeline,
            "full": pipeline_unbounded,
            "decode": lambda: decode(body, content_type),
            "clean": lambda: clean_observation(page.text, settings.observation_max_tokens),
        },
        args.runs,
    )
    med = {name: statistics.median(ts) for name, ts in times.items()}
    ratio = statistics.median(p / b for p, b in zip(times["pipe"], times["bare"]))

    print(f"page: {len(body):,} bytes of HTML -> {len(page.text):,} characters of Markdown rendered "
          f"(budget {budget:,} characters of text; the article has {page.full_chars or len(page.text):,}); "
          f"median of {args.runs} interleaved runs")
    print()
    print("| step | median ms | vs trafilatura |")
    print("|---|---:|---:|")
    rows = [
        ("trafilatura.extract(html)", med["bare"]),
        ("pipeline: decode+classify+html_to_markdown+clean_observation", med["pipe"]),
        ("  same, rendering the whole article (no budget)", med["full"]),
        ("  of which decode", med["decode"]),
        (f"  of which clean_observation ({settings.observation_max_tokens}-token cap)", med["clean"]),
    ]
    for name, t in rows:
        print(f"| {name} | {t * 1000:.1f} | {t / med['bare']:.2f}x |")
    print()
    print(f"ratio pipeline / trafilatura (median of per-run ratios) = {ratio:.2f} (goal <= 1.20): "
          f"{'OK' if ratio <= 1.2 else 'OVER'}")


if __name__ == "__main__":
    main()
