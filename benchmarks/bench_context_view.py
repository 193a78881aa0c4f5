"""The context view's rebuild: what deriving its rows from the folded state costs as the run grows.

  python benchmarks/bench_context_view.py [--rounds 8 16 24] [--page-tokens 6000] [--repeat 5]

The TUI's context view rebuilds from the fold's state after the events of a step (``context_rows``:
one row per item with its tokens, the totals, the whole prompt's count). A session of N rounds
(a thought, a call and an observation of about ``--page-tokens`` tokens each) is folded from its
events; the table gives the rebuild time with the row counts remembered (``view._COUNTS``, as
live: each event changes one or two items) beside a cold rebuild (every text counted again), and
their ratio, side by side in one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui_agent.config import Settings  # noqa: E402
from tui_agent.context import view  # noqa: E402
from tui_agent.model.tokens import TokenCounter  # noqa: E402
from tui_agent.core.events import (  # noqa: E402
    ActionProposed, ModelCallEnded, ModelCallStarted, Observation, ObservationMessage, RunStarted,
)
from tui_agent.core.fold import fold  # noqa: E402

WORDS = ("the report says that revenue grew while costs fell in the third quarter of the year and "
         "analysts expect more of the same ").split()


def page(n: int, tokens: int) -> str:
    words = [f"{WORDS[(i * 7 + n) % len(WORDS)]}{'' if i % 13 else n}" for i in range(int(tokens * 0.8))]
    return f"[{n}] " + " ".join(words)


def session(rounds: int, page_tokens: int):
    events = [RunStarted(question="What happened to revenue?", model="m", system_prompt="You research. " * 300)]
    for n in range(1, rounds + 1):
        reply = (f"<think>Read source {n}.</think>\n<tool_call>\n"
                 f'{{"name": "lookup", "arguments": {{"topic": "t{n}"}}}}\n</tool_call>')
        text = page(n, page_tokens)
        events += [ModelCallStarted(step=n, messages=[], message_tokens=[], prompt_tokens=10, threshold=28000,
                                    context_window=32000),
                   ModelCallEnded(step=n, text=reply),
                   ActionProposed(step=n, call_id=f"c{n}", tool="lookup", arguments={"topic": f"t{n}"}),
                   Observation(step=n, call_id=f"c{n}", tool="lookup", arguments={"topic": f"t{n}"}, text=text,
                               executed=True, sources=[n]),
                   ObservationMessage(step=n, content=f"<tool_response>\n{text}\n</tool_response>")]
    return fold(events)


def timed(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[8, 16, 24])
    parser.add_argument("--page-tokens", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    settings = Settings(context_window=32000, answer_reserve=4000)
    head = ["rounds", "items", "prompt tokens", "cold ms", "warm ms", "cold/warm"]
    rows = []
    for rounds in ns.rounds:
        state = session(rounds, ns.page_tokens)
        counter = TokenCounter()

        def cold() -> None:
            view._COUNTS.clear()
            view.context_rows(state, settings, counter)

        def warm() -> None:
            view.context_rows(state, settings, counter)

        cold_ms = timed(cold, ns.repeat)
        warm()
        warm_ms = timed(warm, ns.repeat)
        shown = view.context_rows(state, settings, counter)
        rows.append([str(rounds), str(len(shown.rows)), f"{shown.prompt_tokens:,}", f"{cold_ms:.1f}",
                     f"{warm_ms:.1f}", f"{cold_ms / max(warm_ms, 1e-6):.1f}x"])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print(f"context_rows on a folded session, observations of about {ns.page_tokens:,} tokens (median of "
          f"{ns.repeat})")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
