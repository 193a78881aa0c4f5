"""The research loop. Pure asyncio: no front-end imports (a test keeps textual out).

The engine owns the messages, the gates, the forced answer, approvals and the termination, and changes none of
them by hand: it emits typed events (``core/events.py``), each folded into ``self.state`` by ``fold.apply``
first. Decisions come back through the ``Approver`` seam (``approval.py``); plan mode runs first (``plan.planner``).
"""

from __future__ import annotations

import asyncio
import time
from datetime import date
from typing import TYPE_CHECKING, Awaitable, Callable

from tui_agent import protocol
from tui_agent.core.approval import Approver
from tui_agent.config import Settings
from tui_agent.model import Model, ModelError, Reply
from tui_agent.core.run_control import Clock, RunControl, SubmitRequested, call_in_loop
from tui_agent.core import fold
from tui_agent.core import budgets
from tui_agent.context.policies import ContextSteward
from tui_agent.kinds import ContextEditKind
from tui_agent.core.events import (
    AnswerEvent, ApprovalModeChanged, Correction, CorrectionReason, Event, ForcedAnswer, Notice, NoticeLevel, Purpose, RunEnded, RunStarted, Termination,
)
from tui_agent.core.fold import SessionState
from tui_agent.model.tokens import CountedPrompt, TokenCounter, request_tokens
from tui_agent.agent.tool_runner import Replay
from tui_agent.agent.model_calls import BreakpointHook, ModelCalls
from tui_agent.agent.native_calls import Wire, protocol_notices, runner_for, wire_for
from tui_agent.plan.planner import Planner
from tui_agent.tools.base import ToolRegistry

if TYPE_CHECKING:
    import httpx

__all__ = ["BreakpointHook", "Engine", "Replay", "RunResult", "SubmitRequested"]

RunResult = dict[str, object]  # the run's result object (fold.result)
# Research done another way once the plan is approved (a team research, ``tui_agent.team``): it
# emits through the engine and returns how the run ends. Declared here, supplied from above.
ResearchHook = Callable[["Engine"], Awaitable[Termination]]



class Engine:
    """One run of the research loop. Holds the session state (folded from its own events), a
    :class:`~tui_agent.model.Model` (its calls as events: :class:`ModelCalls`), a :class:`ToolRunner` for the tool calls and the run's
    :class:`RunControl` (Submit now and its one clock)."""

    def __init__(
        self,
        settings: Settings,
        question: str,
        *,
        tools: ToolRegistry,
        llm: Model | None = None,
        approver: Approver | None = None,
        emit: Callable[[Event], None] = lambda e: None,
        session_id: str = "",
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
        today: date | None = None,
        system_prompt: str | None = None,
        http: "httpx.AsyncClient | None" = None,
        state: SessionState | None = None,
        before_call: BreakpointHook | None = None,
        replay: Replay | None = None,
        research: ResearchHook | None = None,
    ) -> None:
        self.settings = settings
        self.research = research
        self.question = question
        self.tools = tools
        if llm is None:
            from tui_agent.model.llm import LLM

            llm = LLM(settings)
        self.llm: Model = llm
        self._emit = emit
        self.session_id = session_id
        self.before_call = before_call
        self.counter = TokenCounter()
        self.state = state if state is not None else fold.new_state(session_id, question, settings.model or "")
        self.resumed = bool(self.state.messages)
        self.wire: Wire = wire_for(self.state.protocol if self.resumed else settings.protocol, tools)
        # Built once between events; a native request's tools specs count in every total.
        self._prompt = CountedPrompt(self.counter, lambda: self.prompt(),
                                     fixed=request_tokens(self.wire.request(Purpose.RESEARCH)))
        if self.resumed:
            self.system_prompt = self.state.system_prompt
        else:
            template = system_prompt if system_prompt is not None else self.wire.template(settings.system_prompt_file)
            self.system_prompt = protocol.render_system_prompt(template, tools.prompt_block(), today)
        self._step = self.state.step  # the step stamped on events (the next call's, during its breakpoint)
        self.control = RunControl(clock, wall, elapsed_before=self.state.elapsed_s, last_ts=self.state.last_ts)
        self.model = settings.model or ""
        self.calls = ModelCalls(self.llm, self.wire, self.control, self.emit, self._prompt, lambda: self.before_call,
                                self.model, settings.extract_model)
        self.runner = runner_for(self.wire)(tools=tools, settings=settings, state=self.state, emit=self.emit,
                                            approver=approver, control=self.control, complete=self.calls.sub_complete,
                                            http=http, replay=replay)
        self._loop: asyncio.AbstractEventLoop | None = None
        # Without an approver, or with --yes on this run's command line, every call is approved.
        self._auto_at_start = settings.auto_approve or approver is None
        self._context_window: int | None = None
        # The steward weighs the messages: the room it sees is what the tools specs leave.
        self.steward = ContextSteward(settings, self.state, self.counter, self.emit, self.calls.compact_complete,
                                      lambda: self.context_window() - self._prompt.fixed,
                                      lambda: max(1, self.threshold() - self._prompt.fixed))

    # -- control from front ends (safe from any thread) ------------------------------------
    def request_submit(self) -> None:
        """Submit now."""
        self._call_soon(self.control.request_submit)

    def set_auto(self, on: bool) -> None:
        """Auto mode on or off for the rest of this run (before it starts: the run starts with it)."""
        def change() -> None:
            if not self.control.started:
                self._auto_at_start = on
            elif self.state.approval.auto != on:
                self.emit(ApprovalModeChanged(auto=on))

        self._call_soon(change)

    @property
    def auto_approving(self) -> bool:
        """Whether tool calls are approved without asking right now."""
        return self.state.approval.auto if self.control.started else self._auto_at_start

    def edit_context(self, kind: ContextEditKind | str, target: str, text: str | None = None) -> None:
        """Drop, pin, unpin, summarise (``text``: the summary) or restore one context item (safe from
        any thread; between steps the next model call sees it). Raises ValueError for an unknown
        target or a summary without text."""
        kind = ContextEditKind(kind)
        self.steward.check(kind, target, text)
        self._call_soon(lambda: self.steward.edit(kind, target, text))

    async def propose_summary(self, target: str) -> str:
        """One model call (purpose compact, ``compact_model``): a summary of ``target`` for the
        question, for the person to edit; applies nothing. Awaitable from any loop: it runs on the
        engine's own (the TUI runs the engine on a thread of its own; its state is folded there)."""
        loop = self._loop
        if loop is None or not loop.is_running() or loop is asyncio.get_running_loop():
            return await self.steward.propose_summary(target)
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.steward.propose_summary(target), loop))

    def prompt(self) -> list[dict[str, str]]:
        """The next model call's messages: the fold's messages with the context's overrides."""
        return fold.prompt(self.state)

    def _call_soon(self, fn: Callable[[], None]) -> None:
        call_in_loop(self._loop, fn)

    # -- helpers ------------------------------------------------------------------------
    @property
    def ended(self) -> RunEnded | None:
        return self.state.ended

    def emit(self, event: Event) -> None:
        """Stamp (session, step, the one clock's time), fold into the state, then hand to the
        listeners (front ends, store)."""
        event.session_id = self.session_id
        if not event.step:
            event.step = self._step
        event.ts = self.control.timestamp()
        if self.control.started:
            event.elapsed_s = round(self.elapsed(), 3)
        fold.apply(self.state, event)
        self._prompt.stale()
        self._emit(event)

    def elapsed(self) -> float:
        """The run's elapsed time (human waits excluded; frozen while a person decides)."""
        return self.control.elapsed()

    def context_window(self) -> int:
        if self._context_window is None:
            self._context_window = self.llm.context_window(self.model)
        return self._context_window

    def threshold(self) -> int:
        return max(1, self.context_window() - self.settings.answer_reserve)

    # -- the loop -----------------------------------------------------------------------
    async def run(self) -> RunResult:
        self._loop = asyncio.get_running_loop()
        self.control.start()
        self.emit(RunStarted(question=self.question or self.state.question, model=self.model,
                             settings=self.settings.summary(), resumed=self.resumed, system_prompt=self.system_prompt,
                             auto_approve=self._auto_at_start, tools=self.wire.specs))
        for note in protocol_notices(self.wire, self.settings):  # a session keeps the protocol it started with
            self.emit(note)
        try:
            termination = await self._loop_body()
        except ModelError as exc:
            self.emit(Notice(text=f"Model error: {exc}", level=NoticeLevel.ERROR))
            return self._end(Termination.MODEL_ERROR, str(exc))
        except asyncio.CancelledError:
            self._end(Termination.CANCELLED, "the run was cancelled")
            raise
        return self._end(termination, "")

    def _planner(self) -> Planner:
        """The plan step of this run, wired to its settings, state, approver, clock and model; the
        plan's budget comes back through ``use_gates`` as this run's settings."""
        def use_gates(settings: Settings) -> None:
            self.settings = settings

        return Planner(settings=self.settings, state=self.state, emit=self.emit, approver=self.runner.approver,
                       control=self.control, auto=lambda: self.auto_approving, use_gates=use_gates,
                       complete=lambda msgs, purpose: self.calls.sub_complete(msgs, purpose=purpose, model=self.model))

    async def _loop_body(self) -> Termination:
        if self.resumed:
            done = await self._finish_interrupted()
            if done:
                return done
        await self._planner().prepare()
        if self.research is not None and self.state.plan.approved is not None and not self.control.submitted:
            return await self.research(self)
        while True:
            if not self.control.submitted:
                await self.steward.facts()
                await self.steward.at_gate()
            gate = Termination.USER_SUBMIT if self.control.submitted else self._gate()
            if gate:
                return await self._forced(gate)
            try:
                done = await self._handle_reply(await self._model_call(Purpose.RESEARCH))
            except SubmitRequested:
                return await self._forced(Termination.USER_SUBMIT)
            if done:
                return done

    async def _handle_reply(self, reply: Reply) -> Termination | None:
        """What the reply says: an answer (the end), tool calls (run them), or neither (correct it)."""
        s = self.settings
        text, _ = self.wire.cut(reply.text)
        if reply.failed_call:  # the provider refused the model's tool call: the model's to mend, like any bad call
            return await self._format_error(self.wire.refused_correction(reply.text, reply.failed_call),
                                            CorrectionReason.REFUSED_CALL)
        if reply.finish_reason == "length":  # a cut reply is never final: ask again, shorter
            return await self._format_error(self.wire.cut_correction(text, reply.completion_tokens, reply.tool_calls),
                                            CorrectionReason.CUT_REPLY)
        parsed = self.wire.read(text, reply.reasoning, reply.tool_calls)
        if parsed.answer is not None and not parsed.calls:
            if not self.state.tool_ran and s.require_evidence and not self.state.evidence_refused:
                self._correct(self.wire.evidence_reminder, CorrectionReason.ANSWER_WITHOUT_EVIDENCE)
                return None
            self.emit(AnswerEvent(text=parsed.answer, tagged=True, unsupported=not self.state.tool_ran))
            return Termination.ANSWER
        if not parsed.calls:
            return await self._format_error(self.wire.correction(parsed), _reason(parsed))
        await self.runner.run_calls(parsed)
        return None

    async def _format_error(self, content: str, reason: CorrectionReason) -> Termination | None:
        """Correct the model, or force the answer once it has failed the format too often."""
        if self.state.format_errors + 1 >= self.settings.max_format_errors:
            return await self._forced(Termination.FORMAT_ERROR)
        self._correct(content, reason)
        return None

    async def _finish_interrupted(self) -> Termination | None:
        """Continue a resumed run where the stopped process left its last step."""
        st = self.state
        if st.answer is not None:
            tagged = st.answer.tagged
            return (st.forced_reason or Termination.ANSWER) if tagged else Termination.FORMAT_ERROR
        if st.forced_reason is not None:
            return await self._forced(st.forced_reason, emit_forced=False)
        if self.state.messages[-1]["role"] != "assistant":
            return None
        parsed = self.wire.read_message(self.state.messages[-1])
        try:
            if parsed.calls:  # what the stopped process had done already is not done again
                await self.runner.run_calls(parsed, st.recorded_calls())
            else:
                self._correct(self.wire.correction(parsed), _reason(parsed))
        except SubmitRequested:
            return await self._forced(Termination.USER_SUBMIT)
        return None

    def _gate(self) -> Termination | None:
        return gate(self.settings, self.state, self.elapsed(), self._prompt.current()[1], self.threshold())

    def _correct(self, content: str, reason: CorrectionReason) -> None:
        self.emit(Correction(content=content, reason=reason))

    # -- model calls ----------------------------------------------------------------------
    async def _model_call(self, purpose: Purpose, messages: list[dict[str, str]] | None = None) -> Reply:
        latest = self.state.steps.get(self.state.step)
        # A call replaces one that never completed (cancelled empty by Submit now, or cut off by a stop).
        reuse = latest is not None and latest.unfinished
        self._step = self.state.step if reuse else self.state.step + 1
        return await self.calls.call(purpose, messages, threshold=self.threshold(), context_window=self.context_window())

    # -- the forced answer ---------------------------------------------------------------------
    def forced_messages(self, reason: Termination) -> list[dict[str, str]]:
        room = self.context_window() - self.settings.forced_answer_tokens - self._prompt.fixed
        return forced_request(self.state, self.counter, room, reason, self.wire)

    async def _forced(self, reason: Termination, emit_forced: bool = True) -> Termination:
        msgs = self.forced_messages(reason)
        if emit_forced:
            self.emit(ForcedAnswer(reason=reason, content=msgs[-1]["content"]))
        reply = await self._model_call(Purpose.FORCED, msgs)
        text, _ = self.wire.cut(reply.text)
        parsed = self.wire.read(text, reply.reasoning, reply.tool_calls)
        # The last word, kept: cut by the length limit (marked), or not the protocol's answer (whole, minus thinking).
        flags = {"unsupported": not self.state.tool_ran, "truncated": reply.finish_reason == "length"}
        answer, tagged = self.wire.forced_answer(text, parsed)
        self.emit(AnswerEvent(text=answer, tagged=tagged, **flags))
        return reason if tagged else Termination.FORMAT_ERROR

    # -- the end ---------------------------------------------------------------------------------
    def result(self, termination: Termination) -> RunResult:
        return fold.result(self.state, termination, self.elapsed())

    def _end(self, termination: Termination, message: str) -> RunResult:
        result = self.result(termination)
        self.emit(RunEnded(termination=termination, message=message, result=result))
        return result


def _reason(parsed: protocol.ParsedReply) -> CorrectionReason:
    """The correction's reason: the parser's name for what was wrong."""
    try:
        return CorrectionReason(parsed.problem)
    except ValueError:
        return CorrectionReason.NO_ACTION


def gate(s: Settings, st: SessionState, elapsed: float, prompt_tokens: int, threshold: int) -> Termination | None:
    """The gate that stops the loop before its next research call, if one does."""
    if st.model_calls >= s.max_calls:
        return Termination.CALL_LIMIT
    if elapsed >= s.max_minutes * 60:
        return Termination.TIME_LIMIT
    if s.budget_usd is not None and (st.cost_usd or 0.0) >= s.budget_usd:
        return Termination.BUDGET_LIMIT
    if s.budget_tokens is not None and st.total_tokens >= s.budget_tokens:
        return Termination.BUDGET_LIMIT
    if prompt_tokens > threshold:
        return Termination.TOKEN_LIMIT
    return None


def forced_request(state: SessionState, counter: TokenCounter, room: int, reason: Termination,
                   wire: Wire) -> list[dict[str, str]]:
    """The forced answer's request: the same history, the latest observation (trimmed to fit ``room``; native: the
    last results stay in their tool messages) and the instruction to answer now, in the last user message."""
    msgs, latest = fold.forced_base(state)
    instruction = wire.forced_message(None, reason)
    msgs = wire.fit_results(msgs, counter, room, instruction)
    if latest is not None:
        base, _ = counter.messages(msgs + [{"role": "user", "content": instruction}])
        latest = budgets.fit_room(latest, room - base, budgets.ANSWER_ROOM)
    return msgs + [{"role": "user", "content": wire.forced_message(latest, reason)}]
