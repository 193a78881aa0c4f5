"""Context policies on long research: answered vs forced, peak prompt, tokens and cost per run.

  python benchmarks/bench_context.py [--questions 4] [--reads 24] [--corpus DIR]

A long-research set at a 32K window: each question needs ``--reads`` page reads (24 by default)
of real pages from the trafilatura evaluation set (``../shared/extraction-dev/``, unpacked once
into the user cache, or ``--corpus``), served by a local page server (``tests/servers.py``) and
read by the real visit tool (fetch, decoding, main-text extraction; goal-directed extraction
off). The model is the in-memory scripted model: it reads its pages one by one, then answers
citing the first and the last page read; for a compaction it writes a deterministic state note
(the first sentence of each covered item) and for the facts policy the first 60 words of the
observation. Its usage is counted with the same tokenizer as the prompts; cost at $0.15 per
million prompt tokens and $0.60 per million completion tokens (a small hosted model's price).

For each policy: runs answered (the model's own answer after all its reads) vs forced (the token
gate's forced answer), peak prompt tokens (the largest research prompt), total tokens (research
and compaction calls) and cost per run, averaged over the questions.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_quality import corpus_pages  # noqa: E402

from tests.servers import PageServer  # noqa: E402
from tui_agent.agent.engine import Engine  # noqa: E402
from tui_agent.config import Settings  # noqa: E402
from tui_agent.model import Reply  # noqa: E402
from tui_agent.model.scripted import ScriptedModel  # noqa: E402
from tui_agent.model.tokens import count  # noqa: E402
from tui_agent.tools.base import ToolRegistry  # noqa: E402
from tui_agent.tools.visit import VisitTool  # noqa: E402
from tui_agent.web.net import make_client  # noqa: E402

WINDOW = 32768
ANSWER_RESERVE = 4096  # the gate at 28,672 tokens
PRICE_IN, PRICE_OUT = 0.15e-6, 0.60e-6
POLICIES = ["none", "truncate", "summarise", "facts", "truncate,summarise", "facts,summarise"]
MIN_PAGE_BYTES = 30_000


def reply(text: str, messages) -> Reply:
    prompt = sum(count(m.get("content", "")) + 4 for m in messages)
    completion = count(text)
    return Reply(text=text, prompt_tokens=prompt, completion_tokens=completion,
                 cost_usd=prompt * PRICE_IN + completion * PRICE_OUT)


def first_sentences(text: str, words: int) -> str:
    return " ".join(re.sub(r"\s+", " ", text).split(" ")[:words])


class Reader:
    """Reads its URLs one by one, then answers; writes notes and facts deterministically."""

    def __init__(self, urls: list[str]) -> None:
        self.urls, self.research = urls, 0

    def __call__(self, messages, purpose):
        text = messages[-1]["content"]
        if purpose == "compact":
            if "state note" in messages[0]["content"]:
                parts = text.split("\n--- ")[1:]
                note = "\n".join("- " + first_sentences(p.split("\n", 1)[-1], 25) for p in parts)
                return reply(note, messages)
            return reply(first_sentences(text.split("\n\n", 1)[-1], 60), messages)
        if purpose == "forced":
            return reply("<answer>Forced: what was read so far [1].</answer>", messages)
        self.research += 1
        if self.research <= len(self.urls):
            url = self.urls[self.research - 1]
            call = '{"name": "visit", "arguments": {"url": ["%s"], "goal": "facts for the question"}}' % url
            return reply(f"<think>Reading page {self.research}.</think>\n<tool_call>\n{call}\n</tool_call>", messages)
        return reply(f"<answer>Summary of the pages [1] [{len(self.urls)}].</answer>", messages)


async def one_run(policy: str, urls: list[str]) -> dict:
    settings = Settings(model="scripted/bench", context_window=WINDOW, answer_reserve=ANSWER_RESERVE,
                        forced_answer_tokens=2048, extract=False, allow_private_urls=True, context_policy=policy,
                        max_calls=200)
    model = ScriptedModel(Reader(urls), window=WINDOW)
    async with make_client(settings) as client:
        engine = Engine(settings, "Summarise what these pages say.", tools=ToolRegistry([VisitTool()]), llm=model,
                        http=client, session_id="bench")
        result = await engine.run()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--reads", type=int, default=24)
    parser.add_argument("--corpus", type=Path)
    ns = parser.parse_args()
    pages = corpus_pages(ns.corpus, MIN_PAGE_BYTES)
    need = ns.questions * ns.reads
    if len(pages) < need:
        sys.exit(f"only {len(pages)} pages of {MIN_PAGE_BYTES:,} bytes or more; {need} needed")
    with PageServer() as server:
        urls = [server.add(f"/p{i}.html", p["body"]) for i, p in enumerate(pages[:need])]
        questions = [urls[q * ns.reads:(q + 1) * ns.reads] for q in range(ns.questions)]
        rows = []
        for policy in POLICIES:
            results = [asyncio.run(one_run(policy, q)) for q in questions]
            answered = sum(r["termination"] == "answer" for r in results)
            rows.append([policy, f"{answered}/{len(results)}", f"{len(results) - answered}/{len(results)}",
                         f"{statistics.mean(r['tool_calls'] for r in results):.1f}",
                         f"{statistics.mean(r['compactions'] for r in results):.1f}",
                         f"{max(r['peak_prompt_tokens'] for r in results):,}",
                         f"{statistics.mean(r['total_tokens'] for r in results):,.0f}",
                         f"${statistics.mean(r['cost_usd'] or 0 for r in results):.4f}"])
    head = ["policy", "answered", "forced", "reads/run", "compactions/run", "peak prompt", "tokens/run", "cost/run"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print(f"{ns.questions} questions x {ns.reads} page reads, window {WINDOW:,}, gate {WINDOW - ANSWER_RESERVE:,}")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
