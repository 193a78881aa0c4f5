"""What the TUI knows about a run, built from engine events only (no Textual here).

``Trace.apply(event)`` folds each event into steps (one model call and the tool calls it made)
and run-wide figures (tokens, calls, cost, sources, state). Widgets render from this model;
the model never touches a widget. ``StreamSplitter`` routes streamed text to the pane it
belongs to (thinking, a tool call being written, an answer) while the reply is still arriving.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only annotations: the events module stays off the way to the first frame
    from tui_agent.session.events import (
        ActionProposed, AnswerEvent, Correction, Decision, Event, ForcedAnswer, ModelCallEnded, ModelCallStarted,
        Notice, Observation, PromptEdited, Retry, RunEnded, RunStarted, SourceAdded, ToolProgress,
    )

# Run states shown in the header.
IDLE, STARTING, RUNNING, AWAITING, PAUSED, ANSWERING, ENDED = (
    "idle", "starting", "running", "awaiting approval", "paused", "answering", "ended")

THOUGHT, CALL, ANSWER = "thought", "call", "answer"
_TAGS = {
    "<think>": (THOUGHT, True), "</think>": (THOUGHT, False),
    "<tool_call>": (CALL, True), "</tool_call>": (CALL, False),
    "<answer>": (ANSWER, True), "</answer>": (ANSWER, False),
}
_MAX_TAG = max(len(t) for t in _TAGS)


class StreamSplitter:
    """Splits streamed reply text into (kind, text) pieces, tags removed, even when a tag
    arrives split across two deltas. Text outside any tag counts as thought."""

    def __init__(self) -> None:
        self.kind = THOUGHT
        self._held = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        buf = self._held + text
        self._held = ""
        out: list[tuple[str, str]] = []
        i = 0
        start = 0
        while True:
            j = buf.find("<", i)
            if j < 0:
                break
            for tag, (kind, opening) in _TAGS.items():
                if buf.startswith(tag, j):
                    if j > start:
                        out.append((self.kind, buf[start:j]))
                    self.kind = kind if opening else THOUGHT
                    start = i = j + len(tag)
                    break
            else:
                rest = buf[j:]
                if len(rest) < _MAX_TAG and any(t.startswith(rest) for t in _TAGS):
                    if j > start:
                        out.append((self.kind, buf[start:j]))
                    self._held = rest
                    return _merge(out)
                i = j + 1
        if start < len(buf):
            out.append((self.kind, buf[start:]))
        return _merge(out)

    def flush(self) -> list[tuple[str, str]]:
        held, self._held = self._held, ""
        return [(self.kind, held)] if held else []


def _merge(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    merged: list[tuple[str, str]] = []
    for kind, text in pieces:
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged


@dataclass
class CallRecord:
    call_id: str
    step: int
    tool: str
    arguments: Any
    error: str | None = None
    decision: str = ""  # approved | edited | auto | rejected | submit
    reason: str = ""
    status: str = "proposed"  # the observation status once it ran
    observation: str = ""
    duration_s: float | None = None
    progress: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The status shown in the list of calls."""
        if self.status in ("failed", "duplicate", "invalid", "disabled", "refused", "replayed"):
            return self.status
        if self.decision == "submit":
            return "not run"
        if self.decision:
            return self.decision
        if self.status == "proposed":
            return "pending"
        return self.status

    def pretty_arguments(self) -> str:
        return pretty(self.arguments)

    def short_arguments(self, limit: int = 60) -> str:
        text = json.dumps(self.arguments, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class StepRecord:
    number: int
    purpose: str = "research"
    thought: str = ""
    live_thought: str = ""
    live_call: str = ""
    live_answer: str = ""
    text: str = ""
    ended: bool = False
    cancelled: bool = False
    prompt_tokens: int = 0
    measured_prompt_tokens: int | None = None
    completion_tokens: int | None = None
    duration_s: float | None = None
    calls: list[CallRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # corrections, prompt edits, forced-answer reason

    @property
    def shown_thought(self) -> str:
        return self.thought if self.ended else self.live_thought


@dataclass
class Source:
    number: int
    url: str
    title: str = ""


def pretty(arguments: Any) -> str:
    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(arguments)


class Trace:
    """The UI's model of one run."""

    def __init__(self, question: str = "", model: str = "", session_id: str = "") -> None:
        self.question = question
        self.model = model
        self.session_id = session_id
        self.state = IDLE
        self.steps: dict[int, StepRecord] = {}
        self.calls: dict[str, CallRecord] = {}
        self.sources: list[Source] = []
        self.prompt_tokens = 0
        self.threshold = 0
        self.context_window = 0
        self.measured_prompt_tokens: int | None = None
        self.model_calls = 0
        self.cost_usd: float | None = None
        self.answer: AnswerEvent | None = None
        self.ended: RunEnded | None = None
        self.forced_reason: str | None = None
        self.last_prompt: ModelCallStarted | None = None
        self.pending_call: str | None = None
        self._splitter = StreamSplitter()
        self._stream_step = 0

    # -- queries ----------------------------------------------------------------------------
    @property
    def step_numbers(self) -> list[int]:
        return sorted(self.steps)

    @property
    def latest_step(self) -> StepRecord | None:
        return self.steps[max(self.steps)] if self.steps else None

    @property
    def active(self) -> bool:
        return self.state not in (IDLE, ENDED)

    @property
    def state_label(self) -> str:
        if self.state == ENDED and self.ended is not None:
            return f"ended: {self.ended.termination}"
        return self.state

    def step(self, number: int) -> StepRecord:
        rec = self.steps.get(number)
        if rec is None:
            rec = self.steps[number] = StepRecord(number)
        return rec

    # -- streaming ----------------------------------------------------------------------------
    def stream(self, step: int, text: str, reasoning: bool) -> list[tuple[str, str]]:
        """Add streamed text; returns the (kind, text) pieces to append to the panes."""
        rec = self.step(step)
        if step != self._stream_step:
            self._splitter = StreamSplitter()
            self._stream_step = step
        pieces = [(THOUGHT, text)] if reasoning else self._splitter.feed(text)
        for kind, piece in pieces:
            if kind == THOUGHT:
                rec.live_thought += piece
            elif kind == CALL:
                rec.live_call += piece
            else:
                rec.live_answer += piece
                if self.state == RUNNING:
                    self.state = ANSWERING
        return pieces

    # -- events ---------------------------------------------------------------------------------
    def apply(self, e: Event) -> None:
        handler = getattr(self, "_on_" + e.type, None)
        if handler is not None:
            handler(e)

    def _on_run_started(self, e: RunStarted) -> None:
        self.question = e.question
        self.model = e.model
        self.session_id = e.session_id or self.session_id
        self.state = RUNNING

    def _on_model_call_started(self, e: ModelCallStarted) -> None:
        rec = self.step(e.step)
        rec.purpose = e.purpose
        rec.prompt_tokens = e.prompt_tokens
        self.prompt_tokens = e.prompt_tokens
        self.threshold = e.threshold
        self.context_window = e.context_window
        self.measured_prompt_tokens = None
        self.last_prompt = e
        if e.purpose == "research":
            self.model_calls += 1
            if self.state not in (ANSWERING,):
                self.state = RUNNING

    def _on_model_call_ended(self, e: ModelCallEnded) -> None:
        rec = self.step(e.step)
        rec.ended = True
        rec.cancelled = e.cancelled
        rec.text = e.text
        rec.thought = e.thought or (e.reasoning if e.cancelled else "") or (rec.live_thought if e.cancelled else "")
        rec.measured_prompt_tokens = e.prompt_tokens
        rec.completion_tokens = e.completion_tokens
        rec.duration_s = e.duration_s
        if e.prompt_tokens is not None:
            self.measured_prompt_tokens = e.prompt_tokens
        if e.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + e.cost_usd
        if e.cancelled:
            rec.notes.append("model call cancelled")

    def _on_retry(self, e: Retry) -> None:
        rec = self.step(e.step)
        rec.live_thought = rec.live_call = rec.live_answer = ""
        self._splitter = StreamSplitter()
        rec.notes.append(f"retry {e.attempt} in {e.delay_s:.1f} s: {e.reason}")

    def _on_action_proposed(self, e: ActionProposed) -> None:
        call = CallRecord(call_id=e.call_id, step=e.step, tool=e.tool, arguments=e.arguments, error=e.error)
        self.calls[e.call_id] = call
        self.step(e.step).calls.append(call)

    def _on_decision(self, e: Decision) -> None:
        call = self.calls.get(e.call_id)
        if call is not None:
            call.decision = e.kind
            call.reason = e.reason
            if e.kind == "edited" and e.arguments is not None:
                call.arguments = e.arguments
        if self.pending_call == e.call_id:
            self.pending_call = None
            if self.state == AWAITING:
                self.state = RUNNING

    def _on_tool_progress(self, e: ToolProgress) -> None:
        call = self.calls.get(e.call_id)
        if call is not None:
            call.progress.append(e.text)
        if e.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + e.cost_usd

    def _on_observation(self, e: Observation) -> None:
        call = self.calls.get(e.call_id)
        if call is None:
            call = CallRecord(call_id=e.call_id, step=e.step, tool=e.tool, arguments=e.arguments)
            self.calls[e.call_id] = call
            self.step(e.step).calls.append(call)
        call.status = e.status
        call.observation = e.text
        call.duration_s = e.duration_s
        call.arguments = e.arguments

    def _on_correction(self, e: Correction) -> None:
        self.step(e.step).notes.append(f"correction ({e.reason}): {e.content}")

    def _on_source_added(self, e: SourceAdded) -> None:
        self.sources.append(Source(e.number, e.url, e.title))

    def _on_prompt_edited(self, e: PromptEdited) -> None:
        self.step(e.step).notes.append(f"prompt edited before this call: message {e.index} ({e.role})")

    def _on_forced_answer(self, e: ForcedAnswer) -> None:
        self.forced_reason = e.reason
        self.state = ANSWERING

    def _on_answer(self, e: AnswerEvent) -> None:
        self.answer = e

    def _on_notice(self, e: Notice) -> None:
        pass

    def _on_run_ended(self, e: RunEnded) -> None:
        self.ended = e
        self.state = ENDED
        self.pending_call = None
        if e.result.get("cost_usd") is not None:
            self.cost_usd = e.result["cost_usd"]

    # -- approvals (not events: the request comes from the approver) ------------------------------
    def approval_pending(self, call_id: str) -> None:
        self.pending_call = call_id
        self.state = AWAITING

    def approval_done(self) -> None:
        self.pending_call = None
        if self.state == AWAITING:
            self.state = RUNNING


def answer_markdown(answer: str, sources: list[Source]) -> str:
    """The answer with its numbered sources, as Markdown."""
    text = answer.strip()
    if sources:
        lines = []
        for s in sorted(sources, key=lambda s: s.number):
            title = s.title.replace("[", "(").replace("]", ")") if s.title else ""
            lines.append(f"- **[{s.number}]** " + (f"[{title}]({s.url}) — {s.url}" if title else f"<{s.url}>"))
        text += "\n\n**Sources**\n\n" + "\n".join(lines)
    return text
