"""One model call of the run, as events: ``ModelCallStarted`` (after the breakpoint, where the
person may edit the prompt or the context), a ``ModelDelta`` per streamed piece (redacted as it
streams, :mod:`tui_agent.safety.stream_redaction`: what could still be a secret waits), ``Retry``, and
``ModelCallEnded`` (also for a call stopped by Submit now, an error or the process). And the
calls that tools and the context steward make: retried, their retries shown, never counted
against ``max_calls``.

Its inputs are declared: the model, the wire (the protocol's request extras and reply reading),
the run's control (clock, the Submit-now race, human waits), ``emit``, the next prompt
(``CountedPrompt``, built once between events), and the breakpoint hook (read at each call: a
front end may set it while the run goes on)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Awaitable, Callable

from tui_agent.core.run_control import RunControl, SubmitRequested
from tui_agent.kinds import Purpose
from tui_agent.model import Model, ModelError, Reply, RetryInfo
from tui_agent.model.tokens import CountedPrompt
from tui_agent.safety.stream_redaction import StreamRedactor
from tui_agent.protocol.stream_cut import VisibleText
from tui_agent.core.events import Event, ModelCallEnded, ModelCallStarted, ModelDelta, PromptEdited, Retry

if TYPE_CHECKING:
    from tui_agent.agent.native_calls import Wire

BreakpointHook = Callable[[list[dict[str, str]], ModelCallStarted], Awaitable[list[dict[str, str]] | None]]


class ModelCalls:
    def __init__(self, llm: Model, wire: Wire, control: RunControl, emit: Callable[[Event], None],
                 prompt: CountedPrompt, hook: Callable[[], BreakpointHook | None], model: str,
                 extract_model: str | None) -> None:
        self.llm, self.wire, self.control, self.emit, self.prompt = llm, wire, control, emit, prompt
        self.hook = hook
        self.model = model
        self.extract_model = extract_model

    async def call(self, purpose: Purpose, messages: list[dict[str, str]] | None, *, threshold: int,
                   context_window: int) -> Reply:
        """The run's own call: the next prompt (or ``messages``: the forced answer's)."""
        counted = self.prompt.current() if messages is None else (messages, *self.prompt.count(messages))
        msgs, total, per = counted
        request = self.wire.request(purpose)  # tags: stop sequences; native: tools (and tool_choice)
        started = ModelCallStarted(
            messages=[dict(m) for m in msgs], message_tokens=per, prompt_tokens=total,
            threshold=threshold, context_window=context_window, purpose=purpose, model=self.model,
            tools=request.get("tools", []), tool_choice=request.get("tool_choice"),
        )
        hook = self.hook()
        if hook is not None and purpose == Purpose.RESEARCH:
            edited = await self.control.human(hook([dict(m) for m in msgs], started))
            if edited is not None:
                for i, new in enumerate(edited):
                    if i < len(msgs) and msgs[i].get("content") != new.get("content"):
                        self.emit(PromptEdited(index=i, role=msgs[i]["role"], content=new.get("content", "")))
            if edited is not None or self.prompt.current()[0] is not msgs:  # prompt or context edited meanwhile
                msgs, total, per = self.prompt.current()
                started.messages, started.message_tokens, started.prompt_tokens = [dict(m) for m in msgs], per, total
        self.emit(started)
        parts: list[str] = []
        rparts: list[str] = []
        t0 = self.control.clock()
        # One redactor per stream (text, reasoning): a secret split across pieces is never shown; the
        # text stream ends where the wire cuts the reply (an observation the model wrote is never shown).
        shown = {False: StreamRedactor(), True: StreamRedactor()}
        visible = VisibleText(self.wire.cut)

        def on_delta(text: str, reasoning: bool) -> None:
            (rparts if reasoning else parts).append(text)
            safe = shown[reasoning].feed(text if reasoning else visible.feed(text))
            if safe:
                self.emit(ModelDelta(text=safe, reasoning=reasoning, purpose=purpose))

        def on_retry(info: RetryInfo) -> None:
            parts.clear()
            rparts.clear()
            shown[False], shown[True] = StreamRedactor(), StreamRedactor()  # the retry streams anew
            visible.__init__(self.wire.cut)
            self.emit(Retry(attempt=info.attempt, delay_s=info.delay_s, reason=info.reason, purpose=purpose))

        call = self.llm.complete(msgs, purpose=purpose, on_delta=on_delta, on_retry=on_retry, **request)
        try:
            reply = await (self.control.race(call) if purpose == Purpose.RESEARCH else call)
        except (SubmitRequested, ModelError, asyncio.CancelledError) as exc:
            # Stopped with the process (a signal): the resumed run makes this call again, under
            # this step's number, as after kill -9.
            self.emit(ModelCallEnded(text="".join(parts), reasoning="".join(rparts), cancelled=True, purpose=purpose,
                                     prompt_tokens_estimate=total, duration_s=self.control.clock() - t0,
                                     interrupted=isinstance(exc, asyncio.CancelledError)))
            raise
        for reasoning in (True, False):  # what waited for the end of the stream, redacted
            rest = (shown[reasoning].feed(visible.flush()) if not reasoning else "") + shown[reasoning].flush()
            if rest:
                self.emit(ModelDelta(text=rest, reasoning=reasoning, purpose=purpose))
        text, cut = self.wire.cut(reply.text)
        self.emit(ModelCallEnded(
            text=text, thought=self.wire.read(text, reply.reasoning, reply.tool_calls).thought,
            reasoning=reply.reasoning, tool_calls=list(reply.tool_calls),
            cut=cut, purpose=purpose, prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
            prompt_tokens_estimate=total, cost_usd=reply.cost_usd, duration_s=self.control.clock() - t0,
            finish_reason=reply.finish_reason,
        ))
        return reply

    async def sub_complete(self, messages: list[dict[str, str]], *, purpose: Purpose = Purpose.EXTRACT,
                           model: str | None = None, **_: object) -> Reply:
        """Model calls made by tools (extraction): retried, not counted against max_calls."""
        def on_retry(info: RetryInfo) -> None:
            self.emit(Retry(attempt=info.attempt, delay_s=info.delay_s, reason=info.reason, purpose=purpose))

        return await self.llm.complete(messages, purpose=purpose, model=model or self.extract_model or self.model,
                                       stream=False, on_retry=on_retry)

    async def compact_complete(self, messages: list[dict[str, str]], *, purpose: Purpose = Purpose.COMPACT,
                               model: str | None = None) -> Reply:  # retried; its usage rides on its event
        return await self.sub_complete(messages, purpose=purpose, model=model or self.model)
