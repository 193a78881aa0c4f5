"""Team research against a plain run: wall time, model calls, tokens, peak prompt per agent, sources per section.

  python benchmarks/bench_team.py [--subs 3] [--reads 4] [--latency 0.3] [--corpus DIR]

One research of ``--subs`` sub-questions, each answered by ``--reads`` real pages from the
trafilatura evaluation set (``../shared/extraction-dev/``, unpacked once into the user cache, or
``--corpus``), served by a local page server and read by the real visit tool (fetch, decoding,
main text; goal-directed extraction off). The model is the in-memory scripted model with a fixed
latency per call (``--latency`` seconds, any purpose); its usage is counted with the prompts'
tokenizer, cost at $0.15 / $0.60 per million prompt / completion tokens.

- plain: one run reads every sub-question's pages in turn, then answers (no plan);
- team at concurrency 1 and 3: the plan (one call), one sub-agent per sub-question (a search,
  its pages, its answer), a facts call per page read, a section call per sub-question.

Goals (issue 29): at concurrency 3 the wall time is at most 0.5x that of concurrency 1, and
every agent's peak prompt is below the plain run's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_quality import corpus_pages  # noqa: E402

from tests.servers import PageServer  # noqa: E402
from tui_agent.agent.runner import Run  # noqa: E402
from tui_agent.config import Settings  # noqa: E402
from tui_agent.model import Reply  # noqa: E402
from tui_agent.model.scripted import ScriptedModel  # noqa: E402
from tui_agent.model.tokens import count  # noqa: E402
from tui_agent.team import TeamResearch  # noqa: E402
from tui_agent.tools.base import Tool, ToolContext, ToolRegistry, ToolResult  # noqa: E402
from tui_agent.tools.visit import VisitTool  # noqa: E402
from tui_agent.web.net import make_client  # noqa: E402

WINDOW = 131072
PRICE_IN, PRICE_OUT = 0.15e-6, 0.60e-6
MIN_PAGE_BYTES = 30_000
QUESTION = "Compare what these groups of pages report."


def reply(text: str, messages) -> Reply:
    prompt = sum(count(m.get("content") or "") + 4 for m in messages)
    completion = count(text)
    return Reply(text=text, prompt_tokens=prompt, completion_tokens=completion,
                 cost_usd=prompt * PRICE_IN + completion * PRICE_OUT)


def tool_call(name: str, **arguments) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


class ListSearch(Tool):
    """``search`` answering each sub-question's query with its pages (no network)."""

    name = "search"
    description = "Search the web."
    parameters = {"type": "object", "properties": {"query": {"type": "array", "items": {"type": "string"}}},
                  "required": ["query"]}

    def __init__(self, results: dict[str, list[str]]) -> None:
        self.results = results

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        lines = []
        for q in arguments["query"]:
            lines.append(f'Results for "{q}":')
            lines += [f"{i}. A page\n   {u}" for i, u in enumerate(self.results.get(q, []), 1)]
        return ToolResult("\n".join(lines))


class Model:
    """The scripted model's replies by purpose; every call waits ``latency`` seconds first."""

    def __init__(self, groups: list[list[str]], latency: float) -> None:
        self.groups, self.latency = groups, latency

    def __call__(self, messages, purpose):
        async def later(messages, purpose):
            await asyncio.sleep(self.latency)
            return reply(self.text(messages, purpose), messages)
        return later

    def text(self, messages, purpose) -> str:
        last = messages[-1]["content"] or ""
        if purpose == "plan":
            plan = {"sub_questions": [{"question": f"What does group {i + 1} report?",
                                       "acceptance": f"from at least {len(g)} sources",
                                       "queries": [f"group {i + 1} pages"]} for i, g in enumerate(self.groups)]}
            return "```json\n" + json.dumps(plan) + "\n```"
        if purpose == "facts":
            page = last.split("=== PAGE START ===", 1)[-1].split("=== PAGE END ===", 1)[0]
            sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(page.split())) if len(s.split()) > 5]
            return "\n".join(" ".join(s.split()[:50]) for s in sentences[:4]) or "N/A"
        if purpose == "section":
            cited = re.findall(r"(?m)^\[(\d+)\]", last)
            return "The pages report their figures " + " ".join(f"[{n}]" for n in cited) + "."
        if purpose == "forced":
            return "<answer>What was read so far [1].</answer>"
        steps = sum(1 for m in messages if m["role"] == "assistant")
        m = re.search(r"Your sub-question: What does group (\d+) report", messages[1]["content"])
        if m:  # a sub-agent: search, then its group's pages one by one
            group = self.groups[int(m.group(1)) - 1]
            if steps == 0:
                return "<think>search</think>" + tool_call("search", query=[f"group {m.group(1)} pages"])
            if steps <= len(group):
                return f"<think>page {steps}</think>" + tool_call("visit", url=[group[steps - 1]], goal="facts")
            return "<answer>" + "\n".join(f"A fact [{i}]" for i in range(1, len(group) + 1)) + "</answer>"
        pages = [u for g in self.groups for u in g]  # plain: every page in turn
        if steps < len(pages):
            return f"<think>page {steps + 1}</think>" + tool_call("visit", url=[pages[steps]], goal="facts")
        return "<answer>" + " ".join(f"Group facts [{i}]." for i in range(1, len(pages) + 1)) + "</answer>"


async def one(groups: list[list[str]], latency: float, team: bool, concurrency: int) -> dict:
    s = Settings(model="scripted/bench", context_window=WINDOW, answer_reserve=8192, extract=False,
                 allow_private_urls=True, auto_approve=True, max_calls=200, context_policy="none",
                 plan="ask" if team else "off", team=team, team_concurrency=concurrency)
    model = ScriptedModel(Model(groups, latency), window=WINDOW)
    results = {f"group {i + 1} pages": g for i, g in enumerate(groups)}
    tools = lambda: ToolRegistry([ListSearch(results), VisitTool()])  # noqa: E731
    async with make_client(s) as client:
        research = TeamResearch(s, llm=model, tools=tools, http=client) if team else None
        run = Run(s, QUESTION, store=None, approver=None, llm=model, tools=tools(), http=client, research=research)
        started = time.perf_counter()
        result = await run.start()
        result["wall_s"] = time.perf_counter() - started
    result["calls"] = len(model.calls)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subs", type=int, default=3)
    parser.add_argument("--reads", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--corpus", type=Path)
    ns = parser.parse_args()
    pages = corpus_pages(ns.corpus, MIN_PAGE_BYTES)
    need = ns.subs * ns.reads
    with PageServer() as server:
        urls = [server.add(f"/p{i}.html", p["body"]) for i, p in enumerate(pages[:need])]
        groups = [urls[g * ns.reads:(g + 1) * ns.reads] for g in range(ns.subs)]
        runs = [("plain", asyncio.run(one(groups, ns.latency, False, 1))),
                ("team, concurrency 1", asyncio.run(one(groups, ns.latency, True, 1))),
                ("team, concurrency 3", asyncio.run(one(groups, ns.latency, True, 3)))]
    head = ["run", "wall s", "model calls", "tokens", "cost", "peak prompt (per agent)", "sources per section", "answer"]
    rows = []
    for name, r in runs:
        agents = r.get("agents") or []
        peaks = ", ".join(f"{a['peak_prompt_tokens']:,}" for a in agents) or f"{r['peak_prompt_tokens']:,}"
        per_section = ", ".join(str(len(x["sources"])) for x in r.get("sections") or []) or str(len(r["sources"]))
        rows.append([name, f"{r['wall_s']:.2f}", str(r["calls"]), f"{r['total_tokens']:,}", f"${r['cost_usd'] or 0:.4f}",
                     peaks, per_section, r["termination"]])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    print(f"{ns.subs} sub-questions x {ns.reads} real pages, {ns.latency:g} s per model call")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
    plain, c1, c3 = (r for _, r in runs)
    ratio = c3["wall_s"] / c1["wall_s"]
    peak = max(a["peak_prompt_tokens"] for a in c3["agents"])
    print(f"\nconcurrency 3 / concurrency 1 wall: {ratio:.2f} (goal <= 0.5): {'met' if ratio <= 0.5 else 'NOT met'}")
    print(f"largest agent peak prompt {peak:,} vs plain {plain['peak_prompt_tokens']:,}: "
          f"{'below' if peak < plain['peak_prompt_tokens'] else 'NOT below'}")
    print(f"team tokens / plain tokens: {c3['total_tokens'] / plain['total_tokens']:.2f}")


if __name__ == "__main__":
    main()
