"""Exports of a stored session: a cited Markdown report, JSON (result + events), JSONL (events).

``step_views`` groups a session's events into steps (one model call and the tool calls it made);
the session browser uses the same grouping.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tui_agent.session.events import (
    ActionProposed, AnswerEvent, Decision, Event, ModelCallEnded, ModelCallStarted, Observation,
    RunEnded, RunStarted, SourceAdded,
)
from tui_agent.hygiene import redact, strip_controls

OBSERVATION_EXCERPT_CHARS = 1500
THOUGHT_EXCERPT_CHARS = 3000


@dataclass
class ActionView:
    call_id: str
    tool: str
    arguments: Any
    error: str | None = None
    decision: str = ""
    reason: str = ""
    status: str = ""
    observation: str = ""
    duration_s: float = 0.0


@dataclass
class StepView:
    number: int
    purpose: str = "research"
    thought: str = ""
    reply: str = ""
    prompt_tokens: int | None = None
    prompt_tokens_estimate: int = 0
    completion_tokens: int | None = None
    cost_usd: float | None = None
    cancelled: bool = False
    actions: list[ActionView] = field(default_factory=list)


def step_views(events: list[Event]) -> list[StepView]:
    steps: dict[int, StepView] = {}
    actions: dict[str, ActionView] = {}

    def step(n: int) -> StepView:
        if n not in steps:
            steps[n] = StepView(number=n)
        return steps[n]

    for e in events:
        if isinstance(e, ModelCallStarted) and e.purpose in ("research", "forced"):
            sv = step(e.step)
            sv.purpose = e.purpose
            sv.prompt_tokens_estimate = e.prompt_tokens
        elif isinstance(e, ModelCallEnded) and e.purpose in ("research", "forced"):
            sv = step(e.step)
            sv.thought, sv.reply, sv.cancelled = e.thought, e.text, e.cancelled
            sv.prompt_tokens, sv.completion_tokens, sv.cost_usd = e.prompt_tokens, e.completion_tokens, e.cost_usd
        elif isinstance(e, ActionProposed):
            av = ActionView(call_id=e.call_id, tool=e.tool, arguments=e.arguments, error=e.error)
            actions[e.call_id] = av
            step(e.step).actions.append(av)
        elif isinstance(e, Decision) and e.call_id in actions:
            av = actions[e.call_id]
            av.decision, av.reason = e.kind, e.reason
            if e.kind == "edited":
                av.arguments = e.arguments
        elif isinstance(e, Observation) and e.call_id in actions:
            av = actions[e.call_id]
            av.status, av.observation, av.duration_s = e.status, e.text, e.duration_s
    return [steps[n] for n in sorted(steps) if n > 0]


def _clean(text: Any) -> str:
    return redact(strip_controls(str(text)))


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts))


def _quote(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) > limit:
        text = text[:limit].rstrip() + f"\n[… {len(text) - limit} more characters]"
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def summary(events: list[Event]) -> dict[str, Any]:
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    ended = next((e for e in reversed(events) if isinstance(e, RunEnded)), None)
    answer = next((e for e in reversed(events) if isinstance(e, AnswerEvent)), None)
    sources = {}
    for e in events:
        if isinstance(e, SourceAdded):
            sources[e.number] = e
    return {"started": started, "ended": ended, "answer": answer, "sources": [sources[n] for n in sorted(sources)]}


def markdown(events: list[Event]) -> str:
    info = summary(events)
    started, ended, answer = info["started"], info["ended"], info["answer"]
    question = _clean(started.question if started else "")
    out = [f"# {question.splitlines()[0] if question else 'Research session'}", ""]
    if question and "\n" in question:
        out += [_quote(question, 10_000), ""]
    if started:
        out.append(f"Session `{started.session_id}` · model `{_clean(started.model)}`")
        out.append("")
    out.append("## Answer")
    out.append("")
    if answer:
        out.append(_clean(answer.text).strip())
        notes = []
        if not answer.tagged:
            notes.append("the model did not mark this answer with <answer> tags; its whole reply is kept")
        if answer.unsupported:
            notes.append("unsupported: no tool had run when the model answered")
        if notes:
            out += ["", "*Note: " + "; ".join(notes) + ".*"]
    else:
        out.append("*No answer was produced.*")
    out += ["", "## Sources", ""]
    if info["sources"]:
        for s in info["sources"]:
            title = _clean(s.title) or _clean(s.url)
            out.append(f"[{s.number}] {title} — <{_clean(s.url)}> (read {_when(s.read_at)})")
            out.append("")
    else:
        out += ["*No sources were read.*", ""]
    out += ["## Run", ""]
    r = ended.result if ended else {}
    cost = r.get("cost_usd")
    out += [
        "| termination | model calls | tool calls | tokens | cost | time |",
        "|---|---|---|---|---|---|",
        f"| {ended.termination if ended else 'unfinished'} | {r.get('model_calls', '-')} | {r.get('tool_calls', '-')} | "
        f"{r.get('total_tokens', '-')} | {'$%.4f' % cost if cost is not None else 'unknown'} | "
        f"{'%.1f s' % r['elapsed_s'] if 'elapsed_s' in r else '-'} |",
        "",
        "## Appendix: trace",
        "",
    ]
    for sv in step_views(events):
        label = " (forced answer)" if sv.purpose == "forced" else ""
        tokens = sv.prompt_tokens if sv.prompt_tokens is not None else sv.prompt_tokens_estimate
        out.append(f"### Step {sv.number}{label}")
        out.append("")
        out.append(f"Prompt {tokens} tokens" + (" (measured)" if sv.prompt_tokens is not None else " (estimated)")
                   + (f", completion {sv.completion_tokens}" if sv.completion_tokens is not None else "")
                   + (" · cancelled" if sv.cancelled else ""))
        out.append("")
        if sv.thought:
            out += ["**Thought**", "", _quote(_clean(sv.thought), THOUGHT_EXCERPT_CHARS), ""]
        for av in sv.actions:
            args = _clean(json.dumps(av.arguments, ensure_ascii=False))
            decision = av.decision or ("not run" if av.error else "")
            reason = f" ({_clean(av.reason)})" if av.reason else ""
            out.append(f"**Action {av.call_id}** `{_clean(av.tool) or '?'}` `{args}` — {decision}{reason}")
            out.append("")
            if av.observation:
                out += [f"Observation ({av.status}, {av.duration_s:.1f} s):", "",
                        _quote(_clean(av.observation), OBSERVATION_EXCERPT_CHARS), ""]
    return "\n".join(out).rstrip() + "\n"


def result_json(events: list[Event]) -> dict[str, Any]:
    info = summary(events)
    ended = info["ended"]
    result = dict(ended.result) if ended else {"termination": None}
    return {"result": result, "events": [e.stored_dict() for e in events]}


def jsonl(events: list[Event]) -> str:
    return "".join(json.dumps(e.stored_dict(), ensure_ascii=False) + "\n" for e in events)


def export(events: list[Event], fmt: str) -> str:
    if fmt == "md":
        return markdown(events)
    if fmt == "json":
        return redact(json.dumps(result_json(events), ensure_ascii=False, indent=2)) + "\n"
    if fmt == "jsonl":
        return redact(jsonl(events))
    raise ValueError(f"unknown export format {fmt!r}")
