"""Shared helpers for engine tests: settings for the scripted server, simple local tools."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
from typing import Any

from tui_agent.core.approval import Approve
from tui_agent.config import Settings
from tui_agent.agent.engine import Engine
from tui_agent.model.llm import LLM
from tui_agent.core.events import Event
from tui_agent.tools.base import FAILED, OK, Tool, ToolContext, ToolRegistry, ToolResult
from tui_agent.web.net import fetch, make_client


def settings_for(chat: Any, **overrides: Any) -> Settings:
    base = dict(
        model="openai/test-model", api_base=chat.base_url, api_key="test-key", retry_base_s=0.0,
        retry_attempts=3, retry_cap_s=30.0, model_timeout_s=30.0, context_window=32000, answer_reserve=4000,
        forced_answer_tokens=1000, extract=False, allow_private_urls=True, search_retries=1,
    )
    base.update(overrides)
    return Settings(**base)


class NoteTool(Tool):
    """A deterministic local tool: returns a note about its topic and records each run."""

    name = "lookup"
    description = "Look up a topic in the local notes."
    parameters = {
        "type": "object",
        "properties": {"topic": {"type": "string", "description": "what to look up"}},
        "required": ["topic"],
        "additionalProperties": False,
    }

    def __init__(self, size: int = 0) -> None:
        self.runs: list[dict] = []
        self.size = size

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs.append(arguments)
        src = ctx.sources.register(f"https://notes.example/{arguments['topic']}", f"Notes on {arguments['topic']}")
        text = f"[{src.number}] Notes on {arguments['topic']}: the answer is 42."
        if self.size:
            text += "\n" + ("filler words here " * self.size)
        return ToolResult(text, OK, [src.number])


class BrokenTool(Tool):
    """Fails like a network error every time."""

    name = "fetchy"
    description = "Fetch something that is down."
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs += 1
        return ToolResult("Error: connection refused by remote host", FAILED)


class SlowTool(Tool):
    name = "slow"
    description = "Takes a long time."
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(60)
        return ToolResult("done")


def call(name: str, **arguments: Any) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, e: Event) -> None:
        self.events.append(e)

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.type == kind]


class RecordingApprover:
    """Answers approval requests from a queue of decisions (default: approve)."""

    def __init__(self, *decisions: Any) -> None:
        self.decisions = list(decisions)
        self.requests: list[Any] = []

    async def decide(self, request: Any) -> Any:
        self.requests.append(request)
        if self.decisions:
            d = self.decisions.pop(0)
            return d(request) if callable(d) else d
        return Approve(request.arguments)


def make_engine(chat: Any, *tools: Tool, sleeps: list | None = None, approver: Any = None,
                clock: Any = None, **overrides: Any) -> tuple[Engine, Recorder]:
    settings = settings_for(chat, **overrides)
    rec = Recorder()

    async def fake_sleep(d: float) -> None:
        if sleeps is not None:
            sleeps.append(d)

    llm = LLM(settings, sleep=fake_sleep)
    kw: dict[str, Any] = {}
    if clock is not None:
        kw["clock"] = clock
    engine = Engine(settings, "What is the answer?", tools=ToolRegistry(list(tools) or [NoteTool()]), llm=llm,
                    approver=approver, emit=rec, session_id="test-session", **kw)
    return engine, rec


async def fetch_measured(url: str, settings: Settings):
    """(result, peak bytes traced by tracemalloc during the fetch)."""
    gc.collect()
    tracemalloc.start()
    try:
        async with make_client(settings) as client:
            result = await fetch(client, url, settings)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak
