"""A team research on the in-memory model: a plan of three sub-questions, in-memory search and
visit tools (one page per sub-question), and a scripted model that answers each purpose."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Callable

from tests.helpers import Recorder, call
from tests.unit.plan_kit import FakeSearch, FakeVisit
from tui_agent.agent.runner import Run
from tui_agent.config import Settings
from tui_agent.model.scripted import ScriptedModel
from tui_agent.team import TeamResearch
from tui_agent.tools.base import Tool, ToolContext, ToolRegistry, ToolResult

SUBS = ["How tall is the Alpha tower?", "When did the Beta bridge open?", "Who designed the Gamma dam?"]
KEYS = ["alpha", "beta", "gamma"]
PLAN = {"sub_questions": [{"question": q, "acceptance": "one figure, from at least 1 source",
                           "queries": [f"{k} facts"]} for q, k in zip(SUBS, KEYS)],
        "domains": ["pages.example"]}
QUESTION = "Tell me about the Alpha tower, the Beta bridge and the Gamma dam."


def url(key: str) -> str:
    return f"https://pages.example/{key}"


class PageVisit(FakeVisit):
    """``visit`` over in-memory pages: each page says a fact about its key."""

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs.append(list(arguments["url"]))
        u = arguments["url"][0]
        key = u.rsplit("/", 1)[-1]
        src = ctx.sources.register(u, f"Page {key}")
        return ToolResult(f"[{src.number}] The {key} page: the {key} figure is 42 units (page {key}).",
                          sources=[src.number])


def agent_key(messages: list[dict[str, str]]) -> str | None:
    """Which sub-question a research request is for (its first user message)."""
    if len(messages) < 2:
        return None
    m = re.search(r"Your sub-question: .*?(Alpha|Beta|Gamma)", messages[1]["content"])
    return m.group(1).lower() if m else None


def research_reply(messages: list[dict[str, str]]) -> str:
    key = agent_key(messages) or "alpha"
    steps = sum(1 for m in messages if m["role"] == "assistant")
    if steps == 0:
        return "<think>search</think>" + call("search", query=[f"{key} facts"])
    if steps == 1:
        return "<think>read</think>" + call("visit", url=[url(key)], goal="the figure")
    return f"<answer>The {key} figure is 42 units [1].</answer>"


def standard(messages: list[dict[str, str]], purpose: str) -> Any:
    """The model's reply by purpose: plan, research (per agent), facts, section."""
    text = messages[-1]["content"]
    if purpose == "plan":
        return "```json\n" + json.dumps(PLAN) + "\n```"
    if purpose == "facts":
        key = re.search(r"pages\.example/(\w+)", text).group(1)
        return f"The {key} figure is 42 units.\nN/A"
    if purpose == "section":
        m = re.search(r"\[(\d+)\] https://pages\.example/(\w+)", text)
        return f"The {m.group(2)} figure is 42 units [{m.group(1)}]."
    return research_reply(messages)


def team_run(script: Callable[[list, str], Any] = standard, *, approver: Any = None, store: Any = None,
             visit: PageVisit | None = None, state: Any = None, session_id: str | None = None,
             claim_events: int | None = None, replay: Any = None, **settings: Any) -> tuple[Run, TeamResearch, ScriptedModel, Recorder]:
    base: dict[str, Any] = dict(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000, plan="ask",
                                team=True, auto_approve=approver is None)
    base.update(settings)
    s = Settings(**base)
    model = ScriptedModel(script)
    visit = visit or PageVisit()
    results = {f"{k} facts": [url(k)] for k in KEYS}
    team = TeamResearch(s, store=store, approver=approver, llm=model,
                        tools=lambda: ToolRegistry([FakeSearch(results), visit]))
    rec = Recorder()
    run = Run(s, QUESTION, store=store, approver=approver, listeners=[rec], llm=model, research=team,
              tools=ToolRegistry([FakeSearch(results), visit]), state=state, session_id=session_id,
              claim_events=claim_events)
    return run, team, model, rec


async def started_together(n: int) -> Callable[[list, str], Any]:
    """A script whose agents' first research calls each wait until ``n`` of them have started."""
    arrived = 0
    all_here = asyncio.Event()

    async def first(messages: list, purpose: str) -> Any:
        nonlocal arrived
        arrived += 1
        if arrived >= n:
            all_here.set()
        await all_here.wait()
        return research_reply(messages)

    def script(messages: list, purpose: str) -> Any:
        if purpose == "research" and agent_key(messages) and not any(m["role"] == "assistant" for m in messages):
            return first
        return standard(messages, purpose)

    return script
