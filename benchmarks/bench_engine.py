"""Engine overhead per step with an in-process, zero-latency model.

A 100-step run: the scripted model (an ``LLM`` subclass whose ``complete`` returns a ``Reply``
at once) calls a local tool each step with a new topic, the tool returns a fresh ~5,000-token
text, and the model answers at step 101. no approver (every call approved), a context window of 10^9 tokens (the
token gate never fires). Two rows, run interleaved so machine noise hits both alike:

- ``no store``: events go nowhere;
- ``sqlite store``: every event is appended to a ``Store`` in a temporary directory, as
  ``runner.Run`` does.

Tokenizing is measured by wrapping the process-wide tiktoken encoder and ``tokens.count``:

- ``count``: time inside ``tokens.count`` (the ``TokenCounter`` tokenizing a new message);
- ``oth.enc``: other encoder calls (``budgets.cap_tokens`` encoding each observation to
  check it against ``observation_max_tokens``);
- ``rest``: per-step time minus both: the engine overhead outside tokenizing new text, split
  into ``cache`` (``TokenCounter.messages`` lookups over the history, minus ``count``),
  ``hygiene`` (``clean_observation`` regexes, minus its encoding), ``store`` (``Store.append``)
  and ``engine`` (everything else: parsing, events, asyncio, validation).

All times are CPU time of the engine's thread (``time.thread_time``; wall time is shown too),
so a busy machine descheduling the process does not count. Goal: ``rest`` < 1 ms/step. Medians
over --repeat runs. ``--profile`` prints a cProfile of one
run of each row (top functions by own time).

Run: ``.venv/bin/python benchmarks/bench_engine.py [--steps 100] [--repeat 5] [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_tokens import text_of  # noqa: E402  (same folder: the shared prose generator)
from tui_agent.core import budgets  # noqa: E402
from tui_agent.model import tokens
from tui_agent.config import Settings  # noqa: E402
from tui_agent.agent.engine import Engine  # noqa: E402
from tui_agent.model.llm import LLM, Reply  # noqa: E402
from tui_agent.session.store import Store  # noqa: E402
from tui_agent.tools.base import OK, Tool, ToolContext, ToolRegistry, ToolResult  # noqa: E402

OBS_TOKENS = 5000
# CPU time of this thread (the engine, the store and the tokenizer all run on it): robust against
# the machine descheduling the process, which wall time is not on a busy 2-core box.
CLOCK = time.thread_time
GOAL_REST_MS = 1.0



# --- instrumentation --------------------------------------------------------------------------
class Timers:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.count_s = 0.0  # inside tokens.count
        self.encode_s = 0.0  # inside any encoder.encode / decode
        self.calls = 0
        self.counter_s = 0.0  # TokenCounter.messages, minus the tokens.count inside it
        self.hygiene_s = 0.0  # budgets.clean_observation, minus the encoder calls inside it
        self.store_s = 0.0  # Store.append (json, redaction, SQLite)


TIMERS = Timers()


class TimedEncoder:
    """Proxy of the tiktoken Encoding that times encode/decode."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def encode(self, *a: Any, **kw: Any) -> list[int]:
        t0 = CLOCK()
        try:
            return self._inner.encode(*a, **kw)
        finally:
            TIMERS.encode_s += CLOCK() - t0
            TIMERS.calls += 1

    def decode(self, *a: Any, **kw: Any) -> str:
        t0 = CLOCK()
        try:
            return self._inner.decode(*a, **kw)
        finally:
            TIMERS.encode_s += CLOCK() - t0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def instrument() -> None:
    tokens._encoder = TimedEncoder(tokens.encoder())
    original = tokens.count

    def timed_count(text: str) -> int:
        t0 = CLOCK()
        try:
            return original(text)
        finally:
            TIMERS.count_s += CLOCK() - t0

    tokens.count = timed_count  # TokenCounter.message looks ``count`` up in the module

    messages = tokens.TokenCounter.messages

    def timed_messages(self: Any, msgs: Any) -> Any:
        t0, c0 = CLOCK(), TIMERS.count_s
        try:
            return messages(self, msgs)
        finally:
            TIMERS.counter_s += (CLOCK() - t0) - (TIMERS.count_s - c0)

    tokens.TokenCounter.messages = timed_messages

    clean = budgets.clean_observation

    def timed_clean(text: str, max_tokens: int) -> str:
        t0, e0 = CLOCK(), TIMERS.encode_s
        try:
            return clean(text, max_tokens)
        finally:
            TIMERS.hygiene_s += (CLOCK() - t0) - (TIMERS.encode_s - e0)

    budgets.clean_observation = timed_clean  # the engine calls budgets.clean_observation


def timed_append(store: Store) -> Any:
    def append(event: Any) -> None:
        t0 = CLOCK()
        try:
            store.append(event)
        finally:
            TIMERS.store_s += CLOCK() - t0

    return append


# --- the scripted model and the tool ------------------------------------------------------------
class InstantLLM(LLM):
    """Zero-latency model: a tool call per step, then an answer."""

    def __init__(self, settings: Settings, steps: int) -> None:
        super().__init__(settings)
        self.steps = steps
        self.calls = 0

    def context_window(self, model: str | None = None) -> int:
        return 10**9

    def price(self, model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        return None

    async def complete(self, messages, *, purpose="research", model=None, stream=None, on_delta=None,
                       on_retry=None, stop=None) -> Reply:
        self.calls += 1
        if self.calls <= self.steps:
            call = json.dumps({"name": "lookup", "arguments": {"topic": f"topic number {self.calls}"}})
            text = f"<think>Step {self.calls}: I need more evidence.</think><tool_call>{call}</tool_call>"
        else:
            text = "<think>Enough.</think><answer>It is 42 [1].</answer>"
        if on_delta:
            on_delta(text, False)
        return Reply(text, "", prompt_tokens=None, completion_tokens=len(text) // 4, cost_usd=None,
                     finish_reason="stop", model=model or "instant")


def make_texts(n: int, target_tokens: int, seed: int = 1) -> list[str]:
    """``n`` different texts of about ``target_tokens`` tokens each (built before timing)."""
    rng = random.Random(seed)
    return [text_of(rng, target_tokens, f"Observation {i}.") for i in range(n)]


class TextTool(Tool):
    name = "lookup"
    description = "Look up a topic in the local notes."
    parameters = {
        "type": "object",
        "properties": {"topic": {"type": "string", "description": "what to look up"}},
        "required": ["topic"],
        "additionalProperties": False,
    }

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.i = 0

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        text = self.texts[self.i % len(self.texts)]
        self.i += 1
        src = ctx.sources.register(f"https://notes.example/{self.i}", f"Notes {self.i}")
        return ToolResult(f"[{src.number}] {text}", OK, [src.number])


def settings() -> Settings:
    return Settings(model="instant/model", context_window=10**9, answer_reserve=1000, max_calls=100_000,
                    max_minutes=10_000, extract=False, observation_max_tokens=8000)


# --- one run ------------------------------------------------------------------------------------
def one_run(texts: list[str], steps: int, with_store: bool, profile: cProfile.Profile | None = None) -> dict[str, float]:
    s = settings()
    tmp = tempfile.TemporaryDirectory(prefix="bench-engine-") if with_store else None
    store = Store(Path(tmp.name)) if tmp else None
    emit = (lambda e: None)
    if store is not None:
        store.create_session("bench", "What is the answer?", s.model or "", s.summary())
        emit = timed_append(store)
    engine = Engine(s, "What is the answer?", tools=ToolRegistry([TextTool(texts)]), llm=InstantLLM(s, steps),
                    approver=None, emit=emit, session_id="bench")
    TIMERS.reset()
    if profile is not None:
        profile.enable()
    w0 = time.perf_counter()
    t0 = CLOCK()
    result = asyncio.run(engine.run())
    cpu = CLOCK() - t0
    wall = time.perf_counter() - w0
    if profile is not None:
        profile.disable()
    assert result["termination"] == "answer" and result["tool_calls"] == steps, result
    db_mb = 0.0
    if store is not None:
        store.close()
        db = Path(tmp.name)
        db_mb = sum(p.stat().st_size for p in db.iterdir()) / 1e6
        tmp.cleanup()
    per = 1000.0 / steps
    return {
        "step_ms": cpu * per,
        "wall_ms": wall * per,
        "count_ms": TIMERS.count_s * per,
        "other_enc_ms": (TIMERS.encode_s - TIMERS.count_s) * per,
        "rest_ms": (cpu - TIMERS.encode_s) * per,
        "counter_ms": TIMERS.counter_s * per,
        "hygiene_ms": TIMERS.hygiene_s * per,
        "store_ms": TIMERS.store_s * per,
        "db_mb": db_mb,
    }


def print_profile(title: str, prof: cProfile.Profile, n: int = 18) -> None:
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf)
    st.sort_stats("tottime").print_stats(n)
    print(f"\n--- cProfile: {title} (sorted by own time) ---")
    lines = buf.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    print("\n".join(lines[start:start + n + 1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    texts = make_texts(args.steps, OBS_TOKENS)
    sizes = [tokens.count(t) for t in texts[:5]]
    instrument()
    one_run(texts, 5, False)  # warm-up: imports, regex compilation, jsonschema

    rows: dict[str, list[dict[str, float]]] = {"no store": [], "sqlite store": []}
    for _ in range(args.repeat):
        rows["no store"].append(one_run(texts, args.steps, False))
        rows["sqlite store"].append(one_run(texts, args.steps, True))

    print(f"engine: {args.steps} steps, observations ≈{statistics.median(sizes):,.0f} tokens "
          f"({statistics.median(len(t) for t in texts):,.0f} chars) each, zero-latency model; "
          f"median of {args.repeat} runs, ms per step")
    head = (f"{'row':<14} {'step':>7} {'wall':>7} {'count':>7} {'oth.enc':>7} {'rest':>7} {'goal':>10} │"
            f" {'cache':>7} {'hygiene':>7} {'store':>7} {'engine':>7} │ {'db MB':>6}")
    print(head)
    print("-" * len(head))
    med: dict[str, dict[str, float]] = {}
    for name, runs in rows.items():
        m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        med[name] = m
        ok = "ok" if m["rest_ms"] < GOAL_REST_MS else "MISSED"
        engine_ms = m["rest_ms"] - m["counter_ms"] - m["hygiene_ms"] - m["store_ms"]
        print(f"{name:<14} {m['step_ms']:7.3f} {m['wall_ms']:7.3f} {m['count_ms']:7.3f} {m['other_enc_ms']:7.3f} "
              f"{m['rest_ms']:7.3f} {'<1 ' + ok:>10} │ {m['counter_ms']:7.3f} {m['hygiene_ms']:7.3f} "
              f"{m['store_ms']:7.3f} {engine_ms:7.3f} │ {m['db_mb']:6.1f}")
    ratio = med["sqlite store"]["step_ms"] / med["no store"]["step_ms"]
    print(f"store / no store (step time): {ratio:.2f}x")
    print("step = CPU time per step (all columns but wall are CPU time of the engine's thread); count = tokens.count (TokenCounter on new\n"
          "messages); oth.enc = other encoder calls (cap_tokens on each observation); rest = step - count - oth.enc,\n"
          "split into: cache = TokenCounter.messages minus count (cache lookups over the whole history, twice a\n"
          "step); hygiene = clean_observation minus its encoding (regexes); store = Store.append; engine = the rest")

    if args.profile:
        for name, with_store in (("no store", False), ("sqlite store", True)):
            prof = cProfile.Profile()
            one_run(texts, args.steps, with_store, prof)
            print_profile(name, prof)
    return 0


if __name__ == "__main__":
    sys.exit(main())
