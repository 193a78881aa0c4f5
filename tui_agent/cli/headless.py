"""The plain-terminal front end: trace on stderr, answer on stdout, questions on the terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from tui_agent.core.approval import Approve, ApprovalRequest, DecisionT, Reject, SubmitNow
from tui_agent.app.attention import attention_sequence
from tui_agent.cli.line_input import LineReader
from tui_agent.safety.hygiene import for_terminal
from tui_agent.core import fold
from tui_agent.core.events import (
    ActionProposed, AnswerEvent, ApprovalModeChanged, ContextCompacted, ContextEdited, Correction, Decision,
    DecisionKind, Event, ForcedAnswer, ModelCallEnded, ModelCallStarted, ModelDelta, Notice, Observation, PromptEdited,
    Purpose, Retry, RunEnded,
    RunStarted, SourceAdded, ToolProgress, VerificationStarted, ClaimChecked, VerificationEnded, PlanProposed,
    PlanDecided, ClarifyAsked, ClarifyAnswered,
)
from tui_agent.plan import terminal as plan_terminal
from tui_agent.plan.requests import ClarifyRequest, PlanRequest
from tui_agent.tools.base import validate_arguments

OBSERVATION_PREVIEW_LINES = 12
THOUGHT_PREVIEW_CHARS = 2000


clean = for_terminal  # text for the terminal: controls, escapes and bidi overrides removed, secrets redacted


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def _args(arguments: Any) -> str:
    return clean(json.dumps(arguments, ensure_ascii=False))


class TracePrinter:
    """Renders events as readable lines with step numbers and timestamps.

    A view over the fold: it folds each event into its own copy of the session state first and
    prints from the event and that state, so a live run and ``sessions show`` (the stored events
    fed through the same printer) print the same trace.
    """

    def __init__(self, out: TextIO = sys.stderr, live: bool = False) -> None:
        self.out = out
        self.live = live  # on a terminal: stream the model's text as it arrives
        self.state = fold.new_state()
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
        fold.apply(self.state, e)
        if isinstance(e, ModelDelta):
            if self.live:
                self._delta(e)
            return
        streamed = self._end_stream()
        self._ts = e.ts  # the event's own time, so a stored session prints the same trace
        text = self._describe(e, streamed)
        if text is not None:
            self.line(0 if isinstance(e, (RunStarted, RunEnded)) else e.step, text)

    def _describe(self, e: Event, streamed: bool) -> str | None:
        st = self.state
        match e:
            case RunStarted():
                verb = "resumed" if e.resumed else "session"
                auto = " · auto-approving tool calls (--yes)" if e.auto_approve else ""
                return f"{verb} {e.session_id} · model {clean(e.model)}{auto}\nquestion: {clean(st.question)}"
            case ModelCallStarted():
                label = {Purpose.RESEARCH: "model call", Purpose.FORCED: "forced answer call"}.get(e.purpose, e.purpose)
                return f"{label} · prompt ≈{e.prompt_tokens:,} tokens (gate {e.threshold:,} of {e.context_window:,})"
            case ModelCallEnded(cancelled=True):
                return "model call cancelled"
            case ModelCallEnded():
                lines = []
                if e.thought and not streamed:
                    thought = clean(e.thought)
                    if len(thought) > THOUGHT_PREVIEW_CHARS:
                        thought = thought[:THOUGHT_PREVIEW_CHARS] + " …"
                    lines.append("thought: " + thought)
                measured = f"{e.prompt_tokens:,} measured" if e.prompt_tokens is not None else "not reported"
                cost = f" · ${e.cost_usd:.5f}" if e.cost_usd is not None else ""
                comp = f"{e.completion_tokens:,}" if e.completion_tokens is not None else "?"
                cut = " · reply cut at <tool_response>" if e.cut else ""
                cut += " · cut by the length limit" if e.finish_reason == "length" else ""
                lines.append(f"usage: prompt ≈{e.prompt_tokens_estimate:,} ({measured}) · completion {comp}{cost} · "
                             f"{e.duration_s:.1f} s{cut}")
                return "\n".join(lines)
            case Retry():
                return f"retrying in {e.delay_s:.1f} s after {clean(e.reason)} (attempt {e.attempt})"
            case ActionProposed():
                return f"action {e.call_id}: {clean(e.tool) or '?'} {_args(e.arguments)}"
            case ApprovalModeChanged():
                return "auto mode " + ("on: tool calls are approved without asking" if e.auto else "off")
            case Decision():
                extra = f": {clean(e.reason)}" if e.reason else ""
                if e.kind == DecisionKind.EDITED:
                    extra = f" → {_args(e.arguments)}"
                if e.always:
                    extra += f" (and every later {clean(st.calls[e.call_id].tool) if e.call_id in st.calls else ''}"
                    extra += " call of this run)"
                return f"decision {e.call_id}: {e.kind}{extra}"
            case ToolProgress():
                return f"  {e.call_id} · {clean(e.text)}"
            case Observation():
                body = clean(e.text).splitlines()
                more = len(body) - OBSERVATION_PREVIEW_LINES
                preview = "\n".join(body[:OBSERVATION_PREVIEW_LINES]) + (f"\n… ({more} more lines)" if more > 0 else "")
                return f"observation {e.call_id} ({e.status}, {e.duration_s:.1f} s):\n{preview}"
            case Correction():
                return f"correction ({e.reason}): {clean(e.content)}"
            case SourceAdded():
                return f"source [{e.number}] {clean(e.title) or ''} {clean(e.url)}".replace("  ", " ")
            case ForcedAnswer():
                return f"forcing the answer ({e.reason})"
            case PromptEdited():
                return f"prompt edited: message {e.index} ({e.role})"
            case ContextCompacted():
                return (f"context compacted ({e.policy}): {e.tokens_before:,} → {e.tokens_after:,} tokens, "
                        f"{len(e.covered)} items covered")
            case ContextEdited():
                by = f" by the {e.policy} policy" if e.policy else ""
                return f"context {e.kind} {e.target}{by}: {e.tokens_before:,} → {e.tokens_after:,} tokens"
            case Notice():
                return f"{e.level}: {clean(e.text)}"
            case PlanProposed() | PlanDecided() | ClarifyAsked() | ClarifyAnswered():
                return plan_terminal.describe(e)
            case AnswerEvent():
                from tui_agent.session.exports import answer_notes

                return " · ".join(["answer ready", *answer_notes(e)])
            case RunEnded():
                # The run's own fold (its result) counts the whole session, earlier runs included.
                r = {"model_calls": st.model_calls, "tool_calls": st.tool_calls, "total_tokens": st.total_tokens,
                     "cost_usd": st.cost_usd, "elapsed_s": st.elapsed_s} | e.result
                cost = f"${r['cost_usd']:.5f}" if r["cost_usd"] is not None else "cost unknown"
                return (f"ended: {e.termination} · {r['model_calls']} model calls · {r['tool_calls']} tool calls · "
                        f"{r['total_tokens']:,} tokens · {cost} · {r['elapsed_s']} s"
                        + (f" · {clean(e.message)}" if e.message else ""))
            case VerificationStarted():
                return f"citation check with {clean(e.model)}: {e.claims} claims cite sources, {min(e.claims, e.sample)} checked"
            case ClaimChecked():
                extra = f"\n  evidence: {clean(e.evidence)}" if e.evidence else ""
                extra += f"\n  note: {clean(e.note)}" if e.note else ""
                return f"claim {e.verdict}: {' '.join(clean(e.claim).split())}{extra}"
            case VerificationEnded():
                review = " · needs review" if e.needs_review else ""
                return (f"citation check: {e.checked} checked · {e.supported} supported · {e.unsupported} unsupported · "
                        f"{e.unclear} unclear{review}")
        return None


class TerminalApprover:
    """Asks each tool call on the terminal: approve, always, edit JSON, reject with a reason,
    submit now (an ``approval.Approver``)."""

    def __init__(self, inp: TextIO = sys.stdin, out: TextIO = sys.stderr, *, notify: str = "all",
                 notify_after_s: float = 10.0, env: Mapping[str, str] | None = None, approve_plan: bool = False,
                 clarify_answers: list[str] | None = None):
        self.inp = inp
        self.out = out
        self.approve_plan = approve_plan  # --approve-plan (or --yes): the plan is approved unasked
        self.clarify_answers = clarify_answers  # --clarify FILE
        self.notify = notify  # the notify setting: what rings when a question waits notify_after_s
        self.notify_after_s = notify_after_s
        self.env = env
        self._lines = LineReader(inp)

    def _attention(self, detail: str) -> None:
        """The question has waited notify_after_s: ring the terminal (only a terminal: never into a pipe)."""
        if not _is_terminal(self.out):
            return
        seq = attention_sequence(self.notify, "tui-agent", detail, self.env)
        if seq:
            self.out.write(seq)
            self.out.flush()

    def _call_when_waiting(self, detail: str) -> asyncio.TimerHandle | None:
        if self.notify == "off":
            return None
        return asyncio.get_running_loop().call_later(self.notify_after_s, self._attention, detail)

    async def _read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = await self._lines.readline()
        if line == "":
            raise EOFError
        return line.strip()

    async def _edit(self, req: ApprovalRequest) -> dict | None:
        """Ask for the arguments as JSON until they parse and fit the schema. A rejected text is
        shown back with what is wrong, and the JSON prompt is asked again (the text is never lost);
        an empty line or end of input goes back to the menu (None)."""
        self.out.write(f"  current: {_args(req.arguments)}\n")
        while True:
            try:
                text = await self._read("  arguments as JSON (empty line: back to the menu) > ")
            except EOFError:
                return None
            if not text:
                return None
            try:
                args = json.loads(text)
            except ValueError as exc:
                self.out.write(f"  not valid JSON: {exc}\n  you wrote: {clean(text)}\n")
                continue
            error = validate_arguments(req.tool, req.schema, args)
            if error:
                self.out.write(f"  {error}\n  you wrote: {clean(text)}\n")
                continue
            return args

    async def decide(self, req: ApprovalRequest) -> DecisionT:
        if isinstance(req, PlanRequest):
            what = "plan waiting for your decision"
        elif isinstance(req, ClarifyRequest):
            what = "clarifying questions waiting"
        else:
            what = f"tool call waiting: {req.tool} {_args(req.arguments)}"
        ring = self._call_when_waiting(what)
        try:
            return await self._decide(req)
        finally:
            if ring is not None:
                ring.cancel()

    async def _decide(self, req: ApprovalRequest) -> DecisionT:
        if isinstance(req, PlanRequest):  # plan mode asks through the same seam
            return await plan_terminal.ask_plan(req, self._read, self.out, approve_plan=self.approve_plan)
        if isinstance(req, ClarifyRequest):
            return await plan_terminal.ask_clarify(req, self._read, self.out, answers=self.clarify_answers)
        outside = "   ← outside the plan" if req.outside_plan else ""
        who = f"\n  {clean(req.agent)} asks:" if req.agent else ""  # a team's sub-agent
        self.out.write(f"{who}\n  {req.tool} {_args(req.arguments)}{outside}\n")
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
                args = await self._edit(req)
                if args is not None:
                    return Approve(args, edited=True)
                continue
            self.out.write("  please answer a, A, e, r or s\n")


def render_answer(state: fold.SessionState) -> str:
    """The answer for stdout, with its numbered sources."""
    text = clean(state.answer.text if state.answer else "")
    sources = state.source_list()
    if sources and not state.team.active:  # a team's report lists each section's sources itself
        text += "\n\nSources:\n" + "\n".join(f"[{s.number}] {clean(s.title) + ' — ' if s.title else ''}{clean(s.url)}"
                                             for s in sources)
    if state.answer is not None and state.answer.truncated:
        text += "\n\n[truncated: cut by the model's length limit]"
    return text
