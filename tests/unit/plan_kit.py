"""Tools named like the real ``search`` and ``visit`` (in memory) and plan replies, for the plan tests."""

from __future__ import annotations

import json
from typing import Any

from tui_agent.tools.base import Tool, ToolContext, ToolResult

PLAN = {
    "sub_questions": [
        {"question": "When did the bridge open?", "acceptance": "a year, from at least 1 source",
         "queries": ["bridge opening year", "when was the bridge opened"]},
        {"question": "Who built it?", "acceptance": "the company", "queries": ["bridge builder company"]},
    ],
    "domains": ["bridges.example"],
}


def plan_reply(plan: dict[str, Any] | None = None, fenced: bool = True) -> str:
    body = json.dumps(plan or PLAN)
    return f"Here is the plan:\n```json\n{body}\n```" if fenced else body


class FakeSearch(Tool):
    name = "search"
    description = "Search the web."
    parameters = {"type": "object", "properties": {"query": {"type": "array", "items": {"type": "string"}}},
                  "required": ["query"]}

    def __init__(self, results: dict[str, list[str]] | None = None) -> None:
        self.results = results or {}
        self.runs: list[list[str]] = []

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs.append(list(arguments["query"]))
        lines = []
        for q in arguments["query"]:
            lines.append(f'Results for "{q}":')
            lines += [f"{i}. A page\n   {url}" for i, url in enumerate(self.results.get(q, []), 1)]
        return ToolResult("\n".join(lines))


class FakeVisit(Tool):
    name = "visit"
    description = "Read pages."
    parameters = {"type": "object", "properties": {"url": {"type": "array", "items": {"type": "string"}},
                                                   "goal": {"type": "string"}}, "required": ["url"]}

    def __init__(self) -> None:
        self.runs: list[list[str]] = []

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs.append(list(arguments["url"]))
        src = ctx.sources.register(arguments["url"][0], "A page")
        return ToolResult(f"[{src.number}] The bridge opened in 1932, built by Acme.", sources=[src.number])
