"""The plain-terminal front end: trace on stderr, answer on stdout, questions on the terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any, Callable, TextIO

from tui_agent.approval import Approve, ApprovalRequest, PolicyApprover, Reject, SubmitNow
from tui_agent.session.events import (
    ActionProposed, AnswerEvent, Correction, Decision, Event, ForcedAnswer, ModelCallEnded,
    ModelCallStarted, ModelDelta, Notice, Observation, PromptEdited, Retry, RunEnded, RunStarted, SourceAdded,
    ToolProgress,
)
from tui_agent.hygiene import strip_controls
from tui_agent.tools.base import validate_arguments

OBSERVATION_PREVIEW_LINES = 12
THOUGHT_PREVIEW_CHARS = 2000


def clean(text: Any) -> str:
    return strip_controls(str(text))


def _args(arguments: Any) -> str:
    return clean(json.dumps(arguments, ensure_ascii=False))


class TracePrinter:
    """Renders events as readable lines with step numbers and timestamps."""

    def __init__(self, out: TextIO = sys.stderr, live: bool = False) -> None:
        self.out = out
        self.live = live  # on a terminal: stream the model's text as it arrives
        self._ts = time.time()
        self._streaming = False

    def _delta(self, e: ModelDelta) -> None:
        if e.purpose == "extract":
            return
        if not self._streaming:
            self._streaming = True
            self.out.write(f"[{time.strftime('%H:%M:%S', time.localtime(e.ts))}] step {e.step:>3} │ ")
        self.out.write(clean(e.text).replace("\n", "\n" + " " * 20 + "│ "))
        self.out.flush()

    def _end_stream(self) -> bool:
        was, self._streaming = self._streaming, False
        if was:
            self.out.write("\n")
        return was

    def line(self, step: int, text: str) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(self._ts))
        prefix = f"[{stamp}] step {step:>3} │ " if step else f"[{stamp}]          │ "
        lines = text.splitlines() or [""]
        self.out.write(prefix + lines[0] + "\n")
        pad = " " * (len(prefix) - 2) + "│ "
        for extra in lines[1:]:
            self.out.write(pad + extra + "\n")
        self.out.flush()

    def __call__(self, e: Event) -> None:
        if isinstance(e, ModelDelta):
            if self.live:
                self._delta(e)
            return
        streamed = self._end_stream()
        self._ts = e.ts  # the event's own time, so a stored session prints the same trace
        s = e.step
        if isinstance(e, RunStarted):
            verb = "resumed" if e.resumed else "session"
            self.line(0, f"{verb} {e.session_id} · model {clean(e.model)}")
            self.line(0, f"question: {clean(e.question)}")
        elif isinstance(e, ModelCallStarted):
            label = {"research": "model call", "forced": "forced answer call"}.get(e.purpose, e.purpose)
            self.line(s, f"{label} · prompt ≈{e.prompt_tokens:,} tokens (gate {e.threshold:,} of {e.context_window:,})")
        elif isinstance(e, ModelCallEnded):
            if e.cancelled:
                self.line(s, "model call cancelled")
                return
            if e.thought and not streamed:
                thought = clean(e.thought)
                if len(thought) > THOUGHT_PREVIEW_CHARS:
                    thought = thought[:THOUGHT_PREVIEW_CHARS] + " …"
                self.line(s, "thought: " + thought)
            measured = f"{e.prompt_tokens:,} measured" if e.prompt_tokens is not None else "not reported"
            cost = f" · ${e.cost_usd:.5f}" if e.cost_usd is not None else ""
            comp = f"{e.completion_tokens:,}" if e.completion_tokens is not None else "?"
            self.line(s, f"usage: prompt ≈{e.prompt_tokens_estimate:,} ({measured}) · completion {comp}{cost} · "
                         f"{e.duration_s:.1f} s" + (" · reply cut at <tool_response>" if e.cut else ""))
        elif isinstance(e, Retry):
            self.line(s, f"retrying in {e.delay_s:.1f} s after {clean(e.reason)} (attempt {e.attempt})")
        elif isinstance(e, ActionProposed):
            self.line(s, f"action {e.call_id}: {clean(e.tool) or '?'} {_args(e.arguments)}")
        elif isinstance(e, Decision):
            extra = f": {clean(e.reason)}" if e.reason else ""
            if e.kind == "edited":
                extra = f" → {_args(e.arguments)}"
            self.line(s, f"decision {e.call_id}: {e.kind}{extra}")
        elif isinstance(e, ToolProgress):
            self.line(s, f"  {e.call_id} · {clean(e.text)}")
        elif isinstance(e, Observation):
            body = clean(e.text).splitlines()
            more = len(body) - OBSERVATION_PREVIEW_LINES
            preview = "\n".join(body[:OBSERVATION_PREVIEW_LINES]) + (f"\n… ({more} more lines)" if more > 0 else "")
            self.line(s, f"observation {e.call_id} ({e.status}, {e.duration_s:.1f} s):\n{preview}")
        elif isinstance(e, Correction):
            self.line(s, f"correction ({e.reason}): {clean(e.content)}")
        elif isinstance(e, SourceAdded):
            self.line(s, f"source [{e.number}] {clean(e.title) or ''} {clean(e.url)}".replace("  ", " "))
        elif isinstance(e, ForcedAnswer):
            self.line(s, f"forcing the answer ({e.reason})")
        elif isinstance(e, PromptEdited):
            self.line(s, f"prompt edited: message {e.index} ({e.role})")
        elif isinstance(e, Notice):
            self.line(s, f"{e.level}: {clean(e.text)}")
        elif isinstance(e, AnswerEvent):
            tag = "" if e.tagged else " (no <answer> tags: whole reply kept)"
            self.line(s, "answer ready" + tag + (" · unsupported: no tool ran" if e.unsupported else ""))
        elif isinstance(e, RunEnded):
            r = e.result
            cost = f"${r['cost_usd']:.5f}" if r.get("cost_usd") is not None else "cost unknown"
            self.line(0, f"ended: {e.termination} · {r.get('model_calls')} model calls · {r.get('tool_calls')} tool calls · "
                         f"{r.get('total_tokens'):,} tokens · {cost} · {r.get('elapsed_s')} s"
                         + (f" · {clean(e.message)}" if e.message else ""))


class TerminalAsker:
    """Asks each tool call on the terminal: approve, edit JSON, reject with a reason, submit now."""

    def __init__(self, tool_schemas: Callable[[str], Any] | None = None, inp: TextIO = sys.stdin, out: TextIO = sys.stderr):
        self.inp = inp
        self.out = out

    async def _read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = await asyncio.to_thread(self.inp.readline)
        if line == "":
            raise EOFError
        return line.strip()

    async def __call__(self, req: ApprovalRequest) -> Approve | Reject | SubmitNow:
        self.out.write(f"\n  {req.tool} {_args(req.arguments)}\n")
        while True:
            try:
                choice = await self._read("  [a]pprove  [A]lways this tool  [e]dit  [r]eject  [s]ubmit now > ")
            except EOFError:
                return Reject("no answer from the terminal (end of input)")
            if choice in ("", "a", "y", "yes"):
                return Approve(req.arguments)
            if choice == "A":
                return Approve(req.arguments, always=True)
            if choice in ("s", "S"):
                return SubmitNow()
            if choice in ("r", "R"):
                try:
                    reason = await self._read("  reason > ")
                except EOFError:
                    reason = ""
                return Reject(reason or "rejected by the user")
            if choice in ("e", "E"):
                try:
                    text = await self._read("  arguments as JSON > ")
                    args = json.loads(text)
                except EOFError:
                    continue
                except ValueError as exc:
                    self.out.write(f"  not valid JSON: {exc}\n")
                    continue
                error = _validate(req, args)
                if error:
                    self.out.write(f"  {error}\n")
                    continue
                return Approve(args, edited=True)
            self.out.write("  please answer a, A, e, r or s\n")


def _validate(req: ApprovalRequest, args: Any) -> str | None:
    class _T:
        name = req.tool
        parameters = req.schema

    return validate_arguments(_T(), args)  # type: ignore[arg-type]


def terminal_approver(auto: bool) -> PolicyApprover:
    return PolicyApprover(TerminalAsker(), auto=auto)


def render_answer(result: dict[str, Any], sources: list[tuple[int, str, str]]) -> str:
    text = clean(result.get("answer") or "")
    if sources:
        text += "\n\nSources:\n" + "\n".join(f"[{n}] {clean(t) + ' — ' if t else ''}{clean(u)}" for n, u, t in sources)
    return text
