"""Token counting per turn at a 100K-token history: cached counter vs full recount vs reload.

The history is what a research run holds after ~20 steps: a system prompt, then pairs of an
assistant reply (~100 tokens) and an observation (~5,000 tokens), ~100,000 tokens in all. Each
turn adds one new observation message (--new-tokens, default 5,000) and counts the prompt:

- ``cached``: ``tokens.TokenCounter.messages`` as the engine uses it (one counter for the run:
  only the new message is tokenized, the rest are cache hits);
- ``full recount``: ``tokens.count`` on every message, every turn (no per-message cache);
- ``reload + recount``: what the reference implementation does: ``tiktoken.get_encoding`` fresh
  each turn (tiktoken's registry cache cleared, so the bundled o200k_base file is read, parsed
  and a new ``Encoding`` built) and then every message encoded with it;
- ``reload only``: the encoder load alone, for reference.

Rows are measured interleaved, turn by turn, so machine noise hits them alike; medians in ms per
turn and ratios to ``cached``. Goal: ``cached`` is a small fraction of ``full recount`` (it
tokenizes ~5K tokens instead of ~105K) and the encoder is never reloaded per turn.

A second table: ``tokens.truncate`` of a page's text to ``extract_max_tokens`` (24,000), as
visit's extraction cuts it: ``old`` is the whole text encoded and its first tokens decoded
(``budgets.cut``, what truncate did before), ``new, first read`` the head only (the process's count
cache emptied each time), ``new, read again`` the same text a second time in the process (another
eval case reading the same page: one lookup when it fits). Pages: bench_extract's generated
article through trafilatura (150 KB of HTML: ~107K characters that fit in 24,000 tokens, the page
of bench_eval; 1 MB: ~700K characters), and a Chinese text without spaces.

Run: ``.venv/bin/python benchmarks/bench_tokens.py [--turns 15] [--history 100000] [--new-tokens 5000] [--repeat 15]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_agent.model import tokens  # noqa: E402

WORDS = (
    "energy climate policy market growth annual percent estimate survey population average "
    "increase decrease measurement report study evidence source analysis figure table method "
    "sample test according however although therefore because between during against the of "
    "and in to for with on by from at as is was were be been are this that which"
).split()


def text_of(rng: random.Random, n_tokens: int, label: str) -> str:
    """About ``n_tokens`` tokens of prose with numbers (each call different)."""
    enc = tokens.encoder()
    parts = [label]
    n = len(enc.encode(label))
    while n < n_tokens:
        chunk = " ".join(rng.choice(WORDS) if rng.random() > 0.1 else str(rng.randint(0, 99999)) for _ in range(100))
        parts.append(chunk)
        n += len(enc.encode(" " + chunk))
    return " ".join(parts)


def build_history(target: int, rng: random.Random) -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": text_of(rng, 1000, "System prompt.")},
            {"role": "user", "content": "What is the answer?"}]
    step = 0
    while sum(tokens.count(m["content"]) for m in msgs) < target:
        step += 1
        msgs.append({"role": "assistant", "content": text_of(rng, 100, f"<think>step {step}</think>")})
        msgs.append({"role": "user", "content": text_of(rng, 5000, f"<tool_response>observation {step}")})
    return msgs


def reload_encoder():
    """A fresh Encoding as ``tiktoken.get_encoding`` builds it on a cold registry."""
    import tiktoken
    import tiktoken.registry

    with tiktoken.registry._lock:
        tiktoken.registry.ENCODINGS.pop(tokens.ENCODING, None)
    return tiktoken.get_encoding(tokens.ENCODING)


def full_count(enc, msgs: list[dict[str, str]]) -> int:
    total = tokens.REPLY_PRIMING
    for m in msgs:
        total += len(enc.encode(m["content"], disallowed_special=())) + len(enc.encode(m["role"])) + tokens.MESSAGE_OVERHEAD
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=15)
    ap.add_argument("--history", type=int, default=100_000)
    ap.add_argument("--new-tokens", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=15, help="truncate table: timings per row (median)")
    args = ap.parse_args()

    rng = random.Random(3)
    tokens.encoder()  # sets TIKTOKEN_CACHE_DIR to the bundled files, loads once
    history = build_history(args.history, rng)
    news = [{"role": "user", "content": text_of(rng, args.new_tokens, f"<tool_response>new {i}")}
            for i in range(args.turns + 1)]

    counter = tokens.TokenCounter()
    counter.messages(history)  # the run so far: every history message already counted once
    shared = tokens.encoder()

    times: dict[str, list[float]] = {"cached": [], "full recount": [], "reload + recount": [], "reload only": []}
    totals: dict[str, int] = {}
    for turn in range(args.turns + 1):
        msgs = history + [news[turn]]
        t0 = time.perf_counter()
        total_cached, _ = counter.messages(msgs)
        t1 = time.perf_counter()
        total_full = full_count(shared, msgs)
        t2 = time.perf_counter()
        enc = reload_encoder()
        t3 = time.perf_counter()
        total_reload = full_count(enc, msgs)
        t4 = time.perf_counter()
        assert total_cached == total_full == total_reload, (total_cached, total_full, total_reload)
        if turn == 0:  # warm-up turn (first reload also warms the file cache)
            continue
        times["cached"].append(t1 - t0)
        times["full recount"].append(t2 - t1)
        times["reload + recount"].append(t4 - t2)
        times["reload only"].append(t3 - t2)
        totals = {"prompt": total_cached}

    hist_tokens = sum(tokens.count(m["content"]) for m in history)
    print(f"token counting per turn: history {len(history)} messages ≈{hist_tokens:,} tokens, one new message "
          f"of ≈{tokens.count(news[1]['content']):,} tokens per turn (prompt ≈{totals['prompt']:,} tokens); "
          f"median of {args.turns} turns")
    head = f"{'method':<18} {'ms/turn':>10} {'× cached':>10} {'tokens encoded/turn':>20}"
    print(head)
    print("-" * len(head))
    base = statistics.median(times["cached"])
    encoded = {"cached": f"{tokens.count(news[1]['content']):,}", "full recount": f"{totals['prompt']:,}",
               "reload + recount": f"{totals['prompt']:,}", "reload only": "0"}
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<18} {med * 1e3:10.2f} {med / base:10.1f} {encoded[name]:>20}")
    full = statistics.median(times["full recount"])
    reload = statistics.median(times["reload + recount"])
    print(f"full recount / cached = {full / base:.1f}x; reload + recount / cached = {reload / base:.1f}x; "
          f"reload + recount / full recount = {reload / full:.1f}x")
    truncate_table(args.repeat)
    return 0


def page_texts() -> dict[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import trafilatura
    from bench_extract import make_article

    cjk = ("全球能源使用在二零二四年增长了百分之二这是根据国际能源机构的年度报告其中可再生能源的份额继续上升，"
           "煤炭的使用在亚洲仍然很高而欧洲的需求下降了。")
    return {"page 150 KB (fits)": trafilatura.extract(make_article(150_000)) or "",
            "page 1 MB": trafilatura.extract(make_article(1_000_000)) or "",
            "Chinese 300K chars": cjk * (300_000 // len(cjk))}


def truncate_table(repeat: int, limit: int = 24_000) -> None:
    from tui_agent.core import budgets

    print(f"\ntokens.truncate to {limit:,} tokens (visit's extraction cut); median of {repeat} in ms")
    head = f"{'text':<20} {'chars':>9} {'tokens':>8} {'old':>8} {'new, first read':>16} {'new, read again':>16} {'old / new first':>16}"
    print(head)
    print("-" * len(head))
    for name, text in page_texts().items():
        times: dict[str, list[float]] = {"old": [], "first": [], "again": []}
        for _ in range(repeat):
            tokens._counts = tokens._Counts()  # a process that has not seen the text
            t0 = time.perf_counter()
            old = budgets.cut(text, limit)[0]
            t1 = time.perf_counter()
            first = tokens.truncate(text, limit)
            t2 = time.perf_counter()
            again = tokens.truncate(text, limit)
            t3 = time.perf_counter()
            assert old == first == again
            times["old"].append(t1 - t0)
            times["first"].append(t2 - t1)
            times["again"].append(t3 - t2)
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        print(f"{name:<20} {len(text):>9,} {tokens.count(text):>8,} {med['old']:>8.2f} {med['first']:>16.2f} "
              f"{med['again']:>16.3f} {med['old'] / med['first']:>15.1f}x")


if __name__ == "__main__":
    sys.exit(main())
