"""The research loop. Pure asyncio: no front-end imports (a test keeps textual out).

The engine owns the message list, the gates, the forced answer, approval requests and the
termination. It emits typed events (``events.py``) and awaits decisions (``approval.py``).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Awaitable, Callable

from tui_agent import hygiene, protocol
from tui_agent.approval import Approve, ApprovalRequest, AutoApprover, Reject, SubmitNow
from tui_agent.config import Settings
from tui_agent.session.events import (
    ActionProposed, AnswerEvent, Correction, Decision, Event, ForcedAnswer, ModelCallEnded,
    ModelCallStarted, ModelDelta, Notice, Observation, ObservationMessage, PromptEdited, Retry,
    RunEnded, RunStarted, SourceAdded, ToolProgress,
)
from tui_agent.llm import LLM, ModelError, Reply, RetryInfo
from tui_agent.tokens import TokenCounter, truncate
from tui_agent.tools.base import FAILED, INVALID, OK, REFUSED, Source, SourceRegistry, ToolContext, ToolRegistry


# Room for the "[… trimmed …]" note and the message overhead when trimming an observation.
TRIM_NOTE_TOKENS = 40


class _Submit(Exception):
    """Submit now was requested while something was in flight."""


@dataclass
class RecordedCall:
    """A tool call of the interrupted step of a resumed run, as far as it got."""

    call_id: str
    error: str | None = None
    decision: Any = None  # Approve | Reject | SubmitNow, when one was recorded
    observation: str | None = None  # the text sent to the model, when the call had finished


@dataclass
class RunState:
    """Everything the loop needs to continue; rebuilt from events on resume."""

    messages: list[dict[str, str]] = field(default_factory=list)
    step: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    elapsed_before_s: float = 0.0
    tool_ran: bool = False
    evidence_refused: bool = False
    format_errors: int = 0
    seen_calls: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)
    last_observation_index: int | None = None
    call_seq: int = 0
    # Set by resume: the calls of a step whose reply was stored but whose observations were not
    # all sent, a forced answer that was asked for but not received, an answer already given.
    pending_calls: list[RecordedCall] | None = None
    pending_forced: str | None = None
    answered: Any = None


BreakpointHook = Callable[[list[dict[str, str]], ModelCallStarted], Awaitable[list[dict[str, str]] | None]]


class Engine:
    def __init__(
        self,
        settings: Settings,
        question: str,
        *,
        tools: ToolRegistry,
        llm: LLM | None = None,
        approver: Any = None,
        emit: Callable[[Event], None] = lambda e: None,
        session_id: str = "",
        clock: Callable[[], float] = time.monotonic,
        today: date | None = None,
        system_prompt: str | None = None,
        http: Any = None,
        state: RunState | None = None,
        sources: SourceRegistry | None = None,
        before_call: BreakpointHook | None = None,
        replay: Callable[[str, Any], Observation | None] | None = None,
    ) -> None:
        self.settings = settings
        self.question = question
        self.tools = tools
        self.llm = llm or LLM(settings)
        self.approver = approver or AutoApprover()
        self._emit = emit
        self.session_id = session_id
        self.clock = clock
        self.today = today
        self.http = http
        self.before_call = before_call
        self.replay = replay
        self.counter = TokenCounter()
        self.state = state or RunState()
        self.resumed = state is not None and bool(state.messages)
        self.sources = sources or SourceRegistry()
        self.sources.on_added = self._source_added
        if not self.state.messages:
            template = system_prompt if system_prompt is not None else protocol.load_template(settings.system_prompt_file)
            system = protocol.render_system_prompt(template, tools.prompt_block(), today)
            self.state.messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]
        self._submit = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._start = 0.0
        self._waiting = 0.0
        self.ended: RunEnded | None = None
        self.answer: AnswerEvent | None = None
        self.model = settings.model or ""
        self._context_window: int | None = None

    # -- control from front ends --------------------------------------------------------
    def request_submit(self) -> None:
        """Submit now; safe to call from any thread."""
        loop = self._loop
        if loop is not None and loop.is_running():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                self._submit.set()
            else:
                loop.call_soon_threadsafe(self._submit.set)
        else:
            self._submit.set()

    @property
    def submit_requested(self) -> bool:
        return self._submit.is_set()

    # -- helpers ------------------------------------------------------------------------
    @property
    def messages(self) -> list[dict[str, str]]:
        return self.state.messages

    def emit(self, event: Event) -> None:
        event.session_id = self.session_id
        if not event.step:
            event.step = self.state.step
        if self._start:
            event.elapsed_s = round(self.elapsed(), 3)
        self._emit(event)

    def elapsed(self) -> float:
        return self.state.elapsed_before_s + (self.clock() - self._start) - self._waiting

    def context_window(self) -> int:
        if self._context_window is None:
            self._context_window = self.llm.context_window(self.model)
        return self._context_window

    def threshold(self) -> int:
        return max(1, self.context_window() - self.settings.answer_reserve)

    def _source_added(self, src: Source) -> None:
        self.emit(SourceAdded(number=src.number, url=src.url, title=src.title, read_at=src.read_at))

    async def _race(self, coro: Awaitable[Any]) -> Any:
        """Run ``coro`` unless Submit now arrives first (then cancel it and raise _Submit)."""
        task = asyncio.ensure_future(coro)
        if self._submit.is_set():
            task.cancel()
            raise _Submit()
        waiter = asyncio.ensure_future(self._submit.wait())
        try:
            done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            waiter.cancel()
            raise
        if task in done:
            waiter.cancel()
            return task.result()
        task.cancel()
        try:
            await task
        except BaseException:  # noqa: BLE001 - the cancelled call's outcome is irrelevant now
            pass
        raise _Submit()

    async def _human(self, coro: Awaitable[Any]) -> Any:
        """Await a human; the wait does not count against the time gate."""
        t0 = self.clock()
        try:
            return await self._race(coro)
        finally:
            self._waiting += self.clock() - t0

    # -- the loop -----------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        self._loop = asyncio.get_running_loop()
        self._start = self.clock()
        self.emit(RunStarted(question=self.question, model=self.model, settings=self.settings.summary(),
                             resumed=self.resumed, system_prompt=self.messages[0]["content"]))
        try:
            termination = await self._loop_body()
        except ModelError as exc:
            self.emit(Notice(text=f"Model error: {exc}", level="error"))
            return self._end("model_error", str(exc))
        except asyncio.CancelledError:
            self._end("cancelled", "the run was cancelled")
            raise
        return self._end(termination, "")

    async def _finish_interrupted(self) -> str | None:
        """Continue a resumed run where the killed process stopped inside a step."""
        st = self.state
        if st.answered is not None:
            self.answer = st.answered
            return (st.pending_forced or "answer") if st.answered.tagged else "format_error"
        if st.pending_forced:
            return await self._forced(st.pending_forced, emit_forced=False)
        if st.pending_calls is not None and self.messages[-1]["role"] == "assistant":
            parsed = protocol.parse_reply(self.messages[-1]["content"])
            recorded, st.pending_calls = st.pending_calls, None
            try:
                await self._run_calls(parsed, recorded)
            except _Submit:
                return await self._forced("user_submit")
        elif self.messages[-1]["role"] == "assistant":
            # The reply was stored but neither a correction nor an observation followed it.
            parsed = protocol.parse_reply(self.messages[-1]["content"])
            if parsed.calls:
                try:
                    await self._run_calls(parsed)
                except _Submit:
                    return await self._forced("user_submit")
            else:
                self._correct(protocol.CORRECTION, "no_action")
        return None

    async def _loop_body(self) -> str:
        s = self.settings
        if self.resumed:
            done = await self._finish_interrupted()
            if done:
                return done
        while True:
            if self._submit.is_set():
                return await self._forced("user_submit")
            gate = self._gate()
            if gate:
                return await self._forced(gate)
            try:
                reply = await self._model_call("research")
            except _Submit:
                return await self._forced("user_submit")
            if reply is None:  # breakpoint returned after a submit
                return await self._forced("user_submit")
            text, _ = protocol.cut_reply(reply.text)
            self.messages.append({"role": "assistant", "content": text})
            parsed = protocol.parse_reply(text, reply.reasoning)

            if parsed.answer is not None and not parsed.calls:
                if not self.state.tool_ran and s.require_evidence and not self.state.evidence_refused:
                    self.state.evidence_refused = True
                    self._correct(protocol.EVIDENCE_REMINDER, "answer_without_evidence")
                    continue
                self.answer = AnswerEvent(text=parsed.answer, tagged=True, unsupported=not self.state.tool_ran)
                self.emit(self.answer)
                return "answer"

            if not parsed.calls:
                self.state.format_errors += 1
                if self.state.format_errors >= s.max_format_errors:
                    return await self._forced("format_error")
                self._correct(protocol.CORRECTION, "no_action")
                continue
            self.state.format_errors = 0
            try:
                await self._run_calls(parsed)
            except _Submit:
                return await self._forced("user_submit")

    def _gate(self) -> str | None:
        s = self.settings
        if self.state.model_calls >= s.max_calls:
            return "call_limit"
        if self.elapsed() >= s.max_minutes * 60:
            return "time_limit"
        if s.budget_usd is not None and (self.state.cost_usd or 0.0) >= s.budget_usd:
            return "budget_limit"
        total, _ = self.counter.messages(self.messages)
        if total > self.threshold():
            return "token_limit"
        return None

    def _correct(self, content: str, reason: str) -> None:
        self.messages.append({"role": "user", "content": content})
        self.state.last_observation_index = None
        self.emit(Correction(content=content, reason=reason))

    # -- model calls ----------------------------------------------------------------------
    async def _model_call(self, purpose: str, messages: list[dict[str, str]] | None = None) -> Reply | None:
        msgs = self.messages if messages is None else messages
        self.state.step += 1
        total, per = self.counter.messages(msgs)
        started = ModelCallStarted(
            messages=[dict(m) for m in msgs], message_tokens=per, prompt_tokens=total,
            threshold=self.threshold(), context_window=self.context_window(), purpose=purpose, model=self.model,
        )
        if self.before_call is not None and purpose == "research":
            edited = await self._human(self.before_call([dict(m) for m in msgs], started))
            if edited is not None:
                self._apply_edits(msgs, edited)
                total, per = self.counter.messages(msgs)
                started.messages, started.message_tokens, started.prompt_tokens = [dict(m) for m in msgs], per, total
        self.emit(started)
        if purpose == "research":
            self.state.model_calls += 1
        parts: list[str] = []
        rparts: list[str] = []
        t0 = self.clock()

        def on_delta(text: str, reasoning: bool) -> None:
            (rparts if reasoning else parts).append(text)
            self.emit(ModelDelta(text=text, reasoning=reasoning, purpose=purpose))

        def on_retry(info: RetryInfo) -> None:
            parts.clear()
            rparts.clear()
            self.emit(Retry(attempt=info.attempt, delay_s=info.delay_s, reason=info.reason, purpose=purpose))

        call = self.llm.complete(msgs, purpose=purpose, stop=protocol.STOP_SEQUENCES, on_delta=on_delta, on_retry=on_retry)
        try:
            reply = await (self._race(call) if purpose == "research" else call)
        except _Submit:
            self.emit(ModelCallEnded(text="".join(parts), reasoning="".join(rparts), cancelled=True, purpose=purpose,
                                     prompt_tokens_estimate=total, duration_s=self.clock() - t0))
            raise
        except ModelError:
            self.emit(ModelCallEnded(text="".join(parts), reasoning="".join(rparts), cancelled=True, purpose=purpose,
                                     prompt_tokens_estimate=total, duration_s=self.clock() - t0))
            raise
        text, cut = protocol.cut_reply(reply.text)
        thought = protocol.parse_reply(text, reply.reasoning).thought
        self._account(reply.prompt_tokens if reply.prompt_tokens is not None else total,
                      reply.completion_tokens or 0, reply.cost_usd)
        self.emit(ModelCallEnded(
            text=text, thought=thought, reasoning=reply.reasoning, cut=cut, purpose=purpose,
            prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
            prompt_tokens_estimate=total, cost_usd=reply.cost_usd, duration_s=self.clock() - t0,
        ))
        return reply

    def _account(self, prompt: int, completion: int, cost: float | None) -> None:
        self.state.prompt_tokens += prompt
        self.state.completion_tokens += completion
        if cost is not None:
            self.state.cost_usd = (self.state.cost_usd or 0.0) + cost

    def _apply_edits(self, msgs: list[dict[str, str]], edited: list[dict[str, str]]) -> None:
        for i, new in enumerate(edited):
            if i < len(msgs) and msgs[i].get("content") != new.get("content"):
                msgs[i] = {"role": msgs[i]["role"], "content": new.get("content", "")}
                self.emit(PromptEdited(index=i, role=msgs[i]["role"], content=msgs[i]["content"]))

    async def _sub_complete(self, messages: list[dict[str, str]], *, purpose: str = "extract", model: str | None = None,
                            **_: Any) -> Reply:
        """Model calls made by tools (extraction): retried, not counted against max_calls."""
        def on_retry(info: RetryInfo) -> None:
            self.emit(Retry(attempt=info.attempt, delay_s=info.delay_s, reason=info.reason, purpose=purpose))

        return await self.llm.complete(messages, purpose=purpose, model=model or self.settings.extract_model or self.model,
                                       stream=False, on_retry=on_retry)

    # -- tool calls -----------------------------------------------------------------------
    async def _run_calls(self, parsed: protocol.ParsedReply, recorded: list["RecordedCall"] | None = None) -> None:
        """Run the calls of one reply in order; ``recorded`` holds what a killed run had done already."""
        blocks: list[str] = []
        recorded = recorded or []
        try:
            for i, call in enumerate(parsed.calls):
                blocks.append(await self._one_call(call, recorded[i] if i < len(recorded) else None))
        except _Submit:
            done = len(blocks)
            for _ in parsed.calls[done:]:
                blocks.append("Not run: the user asked for the answer now.")
            self._observation_message(blocks)
            raise
        if parsed.answer is not None:
            blocks[-1] += ("\n\nNote: your <answer> in the same reply was ignored because it was written before "
                           "these results; answer again after reading them.")
        self._observation_message(blocks)

    def _observation_message(self, blocks: list[str]) -> None:
        content = protocol.observation_message(blocks)
        self.messages.append({"role": "user", "content": content})
        self.state.last_observation_index = len(self.messages) - 1
        self.emit(ObservationMessage(content=content))

    def _new_call_id(self) -> str:
        self.state.call_seq += 1
        return f"c{self.state.call_seq}"

    def _observe(self, call_id: str, tool: str, arguments: Any, text: str, status: str, duration: float = 0.0,
                 sources: list[int] | None = None, executed: bool = False) -> str:
        clean = hygiene.clean_observation(text, self.settings.observation_max_tokens)
        self.emit(Observation(call_id=call_id, tool=tool, arguments=arguments, text=clean, status=status,
                              duration_s=duration, sources=sources or [], executed=executed))
        return clean

    async def _one_call(self, call: protocol.ParsedCall, rec: "RecordedCall | None" = None) -> str:
        if rec is not None and rec.observation is not None:
            return rec.observation  # finished before the process died: never run again
        if rec is not None:
            call_id = rec.call_id
            error = rec.error
        else:
            call_id = self._new_call_id()
            error = call.error or self.tools.validate(call.name, call.arguments)
            self.emit(ActionProposed(call_id=call_id, tool=call.name, arguments=call.arguments, error=error))
        if error:
            hint = "" if self.tools.get(call.name) else "\nAvailable tools:\n" + self.tools.prompt_block()
            return self._observe(call_id, call.name, call.arguments, f"Error: {error}{hint}", INVALID)
        if call.name in self.state.disabled:
            return self._observe(call_id, call.name, call.arguments,
                                 f"The tool {call.name} is disabled for the rest of this session after "
                                 f"{self.settings.tool_failure_limit} failures in a row. Use another tool or answer.",
                                 "disabled")
        dup = self._duplicate(call.name, call.arguments)
        if dup is not None:
            return self._observe(call_id, call.name, call.arguments, dup, "duplicate")

        tool = self.tools.get(call.name)
        assert tool is not None
        if rec is not None and rec.decision is not None:
            decision = rec.decision  # decided before the process died: not asked again
        else:
            request = ApprovalRequest(call_id=call_id, step=self.state.step, tool=call.name,
                                      arguments=call.arguments, schema=tool.parameters)
            decision = await self._human(self.approver.decide(request))
            self._emit_decision(call_id, decision)
        if isinstance(decision, SubmitNow):
            self._submit.set()
            raise _Submit()
        if isinstance(decision, Reject):
            text = f"The user rejected this call. Reason: {decision.reason or 'none given'}"
            return self._observe(call_id, call.name, call.arguments, text, "rejected")
        assert isinstance(decision, Approve)
        args = decision.arguments
        if decision.edited:
            error = self.tools.validate(call.name, args)
            if error:
                return self._observe(call_id, call.name, args, f"Error: {error}", INVALID)
            dup = self._duplicate(call.name, args)
            if dup is not None:
                return self._observe(call_id, call.name, args, dup, "duplicate")
        return await self._execute(call_id, tool, args)

    def _emit_decision(self, call_id: str, decision: Any) -> None:
        if isinstance(decision, SubmitNow):
            self.emit(Decision(call_id=call_id, kind="submit"))
        elif isinstance(decision, Reject):
            self.emit(Decision(call_id=call_id, kind="rejected", reason=decision.reason))
        else:
            kind = "edited" if decision.edited else ("auto" if decision.auto else "approved")
            self.emit(Decision(call_id=call_id, kind=kind, arguments=decision.arguments))

    def _duplicate(self, name: str, arguments: Any) -> str | None:
        step = self.state.seen_calls.get(protocol.canonical_call(name, arguments))
        if step is None:
            return None
        return (f"This exact call ({name} with the same arguments) was already made at step {step}; "
                f"its result is in the <tool_response> of that step above. Use it, or try different arguments.")

    async def _execute(self, call_id: str, tool: Any, args: Any) -> str:
        key = protocol.canonical_call(tool.name, args)
        t0 = self.clock()
        self.state.tool_calls += 1
        replayed = self.replay(tool.name, args) if self.replay else None
        if replayed is not None:
            self.state.seen_calls[key] = self.state.step
            self.state.tool_ran = True
            return self._observe(call_id, tool.name, args, replayed.text, "replayed", 0.0, replayed.sources, True)
        ctx = ToolContext(settings=self.settings, http=self.http, sources=self.sources,
                          progress=lambda text, **kw: self._progress(call_id, text, **kw),
                          complete=self._sub_complete, call_id=call_id)
        timeout = tool.timeout_s(self.settings)
        try:
            result = await self._race(asyncio.wait_for(tool.run(args, ctx), timeout=timeout))
            text, status, sources = result.text, result.status, result.sources
        except _Submit:
            raise
        except (asyncio.TimeoutError, TimeoutError):
            text, status, sources = f"Error: {tool.name} timed out after {timeout:g} s.", FAILED, []
        except Exception as exc:  # noqa: BLE001 - a tool bug must become an observation, not a crash
            text, status, sources = f"Error: {tool.name} failed: {type(exc).__name__}: {exc}", FAILED, []
        self.state.seen_calls[key] = self.state.step
        self.state.tool_ran = True
        if status == FAILED:
            n = self.state.failures.get(tool.name, 0) + 1
            self.state.failures[tool.name] = n
            if n >= self.settings.tool_failure_limit:
                self.state.disabled.add(tool.name)
                text += (f"\n\nThe tool {tool.name} failed {n} times in a row and is now disabled for the rest of "
                         f"this session.")
        elif status in (OK,):
            self.state.failures[tool.name] = 0
        return self._observe(call_id, tool.name, args, text, status, self.clock() - t0, sources, True)

    def _progress(self, call_id: str, text: str, cost_usd: float | None = None, prompt_tokens: int | None = None,
                  completion_tokens: int | None = None, **_: Any) -> None:
        if prompt_tokens is not None or completion_tokens is not None or cost_usd is not None:
            self._account(prompt_tokens or 0, completion_tokens or 0, cost_usd)
        self.emit(ToolProgress(call_id=call_id, text=hygiene.strip_controls(text), cost_usd=cost_usd,
                               prompt_tokens=prompt_tokens, completion_tokens=completion_tokens))

    # -- the forced answer ---------------------------------------------------------------------
    def forced_messages(self, reason: str) -> list[dict[str, str]]:
        """Same system prompt and history; the last user message keeps the latest observation
        (trimmed to fit) and then tells the model to answer now."""
        msgs = [dict(m) for m in self.messages]
        latest = None
        idx = self.state.last_observation_index
        if idx is not None and idx == len(msgs) - 1:
            latest = msgs.pop()["content"]
        elif msgs and msgs[-1]["role"] == "user" and len(msgs) > 2:
            msgs.pop()  # a correction: pointless now
        instruction = protocol.forced_message(None, reason)
        if latest is not None:
            base, _ = self.counter.messages(msgs + [{"role": "user", "content": instruction}])
            budget = self.context_window() - base - self.settings.forced_answer_tokens
            total = self.counter.message({"role": "user", "content": latest})
            if total > budget:
                kept, cut = truncate(latest, max(0, budget - TRIM_NOTE_TOKENS))
                latest = kept + f"\n[… latest observation trimmed by {cut} tokens to leave room for the answer]"
        msgs.append({"role": "user", "content": protocol.forced_message(latest, reason)})
        return msgs

    async def _forced(self, reason: str, emit_forced: bool = True) -> str:
        msgs = self.forced_messages(reason)
        if emit_forced:
            self.emit(ForcedAnswer(reason=reason, content=msgs[-1]["content"]))
        reply = await self._model_call("forced", msgs)
        assert reply is not None
        text, _ = protocol.cut_reply(reply.text)
        parsed = protocol.parse_reply(text, reply.reasoning)
        if parsed.answer is not None:
            self.answer = AnswerEvent(text=parsed.answer, tagged=True, unsupported=not self.state.tool_ran)
            self.emit(self.answer)
            return reason
        # No <answer>: keep the whole reply (minus thinking) so nothing is lost.
        _, rest, _ = protocol.split_thought(text)
        kept = (rest.strip() or text.strip())
        self.answer = AnswerEvent(text=kept, tagged=False, unsupported=not self.state.tool_ran)
        self.emit(self.answer)
        return "format_error"

    # -- the end ---------------------------------------------------------------------------------
    def result(self, termination: str) -> dict[str, Any]:
        st = self.state
        return {
            "session_id": self.session_id,
            "question": self.question,
            "answer": self.answer.text if self.answer else None,
            "answer_tagged": bool(self.answer and self.answer.tagged),
            "unsupported": bool(self.answer and self.answer.unsupported),
            "termination": termination,
            "model_calls": st.model_calls,
            "tool_calls": st.tool_calls,
            "prompt_tokens": st.prompt_tokens,
            "total_tokens": st.prompt_tokens + st.completion_tokens,
            "cost_usd": st.cost_usd,
            "elapsed_s": round(self.elapsed(), 3),
            "sources": self.sources.urls(),
        }

    def _end(self, termination: str, message: str) -> dict[str, Any]:
        result = self.result(termination)
        self.ended = RunEnded(termination=termination, message=message, result=result)
        self.emit(self.ended)
        return result


def pretty_arguments(arguments: Any) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False)
