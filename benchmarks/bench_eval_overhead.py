"""Eval overhead: what `tui-agent eval` costs per case beyond the model's own time.

The model answers instantly (no network, no litellm: a stand-in LLM that replies from the
conversation), so every millisecond measured is the product's own: the engine and its fold, the
tools' bookkeeping, the store (redaction, and one SQLite commit per event, or per step in eval), the
case session, the result read back through the fold, and asyncio scheduling. Side by side, in one run:

- bare: each case as an engine run without a store (the engine's own cost);
- run: each case through ``runner.Run`` with the store, one after another (what a headless run costs);
- eval ×1 / ×4: the same cases through ``EvalRun`` at concurrency 1 and 4.

Each case makes STEPS tool calls (observations of about OBS_TOKENS tokens) and then answers.

    .venv/bin/python benchmarks/bench_eval_overhead.py [--cases 40]

Throughput on the real path (litellm, the HTTP client, servers with latency, workers): bench_eval.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_engine import TextTool, make_texts  # noqa: E402  (same folder)
from tui_agent.config import Settings  # noqa: E402
from tui_agent.evals.cases import Case  # noqa: E402
from tui_agent.evals.runs import EvalRun  # noqa: E402
from tui_agent.model.llm import LLM, Reply  # noqa: E402
from tui_agent.agent.runner import Run  # noqa: E402
from tui_agent.session.store import Store  # noqa: E402
from tui_agent.tools.base import ToolRegistry  # noqa: E402

STEPS = 3
OBS_TOKENS = 1000


class ConversationLLM(LLM):
    """Replies at once from the conversation itself: a tool call per step, then an answer
    (stateless, so concurrent cases can share it)."""

    def context_window(self, model: str | None = None) -> int:
        return 10**9

    def price(self, model, prompt_tokens, completion_tokens):
        return None

    async def complete(self, messages, *, purpose="research", model=None, stream=None, on_delta=None,
                       on_retry=None, stop=None) -> Reply:
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn < STEPS:
            call = json.dumps({"name": "lookup", "arguments": {"topic": f"{messages[1]['content'][:20]} {turn}"}})
            text = f"<think>Step {turn}: more evidence.</think><tool_call>{call}</tool_call>"
        else:
            text = "<think>Enough.</think><answer>It is 42 [1].</answer>"
        if on_delta:
            on_delta(text, False)
        return Reply(text, "", None, len(text) // 4, None, "stop", model or "instant")


def settings(data: str) -> Settings:
    return Settings(model="instant/model", context_window=10**9, answer_reserve=1000, max_calls=1000,
                    extract=False, data_dir=data, auto_approve=True)


def cases(n: int) -> list[Case]:
    return [Case(f"case-{i}", f"Question number {i}: what is it?", ["42"]) for i in range(n)]


async def bare(n: int, texts: list[str]) -> float:
    s = settings(tempfile.mkdtemp())
    llm = ConversationLLM(s)
    t0 = time.perf_counter()
    for case in cases(n):
        await Run(s, case.question, store=None, approver=None, tools=ToolRegistry([TextTool(texts)]), llm=llm).start()
    return time.perf_counter() - t0


async def runs(n: int, texts: list[str]) -> float:
    d = tempfile.mkdtemp()
    s, store = settings(d), Store(Path(d))
    llm = ConversationLLM(s)
    t0 = time.perf_counter()
    for case in cases(n):
        await Run(s, case.question, store=store, approver=None, tools=ToolRegistry([TextTool(texts)]), llm=llm).start()
    return time.perf_counter() - t0


async def evals(n: int, texts: list[str], concurrency: int) -> float:
    d = tempfile.mkdtemp()
    s, store = settings(d), Store(Path(d))
    run = EvalRun(s, store, f"bench-{concurrency}", "bench.jsonl", concurrency,
                  run_kwargs={"tools": ToolRegistry([TextTool(texts)]), "llm": ConversationLLM(s)})
    t0 = time.perf_counter()
    results = await run.run(cases(n))
    elapsed = time.perf_counter() - t0
    assert all(r.passed for r in results), [r for r in results if not r.passed][:1]
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=40)
    n = ap.parse_args().cases
    texts = make_texts(8, OBS_TOKENS)
    asyncio.run(evals(2, texts, 1))  # warm up imports, the tokenizer, the validator cache
    rows = [("bare engine (no store)", asyncio.run(bare(n, texts))),
            ("runner.Run with the store", asyncio.run(runs(n, texts))),
            ("eval, concurrency 1", asyncio.run(evals(n, texts, 1))),
            ("eval, concurrency 4", asyncio.run(evals(n, texts, 4)))]
    base = rows[0][1]
    print(f"{n} cases, {STEPS} tool calls of ~{OBS_TOKENS} tokens each + an answer; the model answers instantly\n")
    print(f"{'':<28} {'total s':>8} {'ms/case':>8} {'× bare':>7}")
    for name, total in rows:
        print(f"{name:<28} {total:>8.2f} {total / n * 1000:>8.1f} {total / base:>7.2f}")
    run_store = (rows[1][1] - rows[0][1]) / n * 1000
    eval_extra = (rows[2][1] - rows[0][1]) / n * 1000
    print(f"\nbeyond the bare engine, per case: a run with the store (one commit per event) {run_store:.1f} ms; "
          f"an eval case (one commit per step, and the eval's bookkeeping) {eval_extra:.1f} ms\n"
          f"(the store alone, old against new: benchmarks/bench_store_cost.py)")


if __name__ == "__main__":
    main()
