"""The engine's tool calls: one reply's calls in order, each validated, checked against the
run's policy and earlier calls, approved (or not) and run with a time limit. Mixed into
``engine.Engine``; like the engine, it changes state only by emitting events.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tui_agent import hygiene, protocol
from tui_agent.approval import Approve, ApprovalRequest, DecisionT, Reject, SubmitNow, decision_kind, recorded_decision
from tui_agent.session.events import (
    ActionProposed, ApprovalRequested, Decision, Observation, ObservationMessage, ObservationStatus, ToolProgress,
)
from tui_agent.session.state import CallState
from tui_agent.tools.base import ToolContext


class SubmitRequested(Exception):
    """Submit now was requested while something was in flight."""


class ToolCalls:
    """Tool-call handling of ``Engine`` (see engine.py for the state it uses)."""

    async def _run_calls(self, parsed: protocol.ParsedReply, recorded: list[CallState] | None = None) -> None:
        """Run the calls of one reply in order; ``recorded`` holds what a stopped run had done already."""
        blocks: list[str] = []
        recorded = recorded or []
        try:
            for i, call in enumerate(parsed.calls):
                blocks.append(await self._one_call(call, recorded[i] if i < len(recorded) else None))
        except SubmitRequested:
            blocks += ["Not run: the user asked for the answer now."] * (len(parsed.calls) - len(blocks))
            self._observation_message(blocks)
            raise
        if parsed.answer is not None:
            blocks[-1] += ("\n\nNote: your <answer> in the same reply was ignored because it was written before "
                           "these results; answer again after reading them.")
        self._observation_message(blocks)

    def _observation_message(self, blocks: list[str]) -> None:
        self.emit(ObservationMessage(content=protocol.observation_message(blocks)))

    def _observe(self, call_id: str, tool: str, arguments: Any, text: str, status: ObservationStatus,
                 duration: float = 0.0, sources: list[int] | None = None, executed: bool = False) -> str:
        clean = hygiene.clean_observation(text, self.settings.observation_max_tokens)
        self.emit(Observation(call_id=call_id, tool=tool, arguments=arguments, text=clean, status=status,
                              duration_s=duration, sources=sources or [], executed=executed))
        return clean

    async def _one_call(self, call: protocol.ParsedCall, rec: CallState | None = None) -> str:
        if rec is not None and rec.observation is not None:
            return rec.observation  # finished before the process stopped: never run again
        if rec is not None:
            call_id, error = rec.call_id, rec.error
        else:
            call_id = f"c{self.state.call_seq + 1}"
            error = call.error or self.tools.validate(call.name, call.arguments)
            self.emit(ActionProposed(call_id=call_id, tool=call.name, arguments=call.arguments, error=error))
        if error:
            hint = "" if self.tools.get(call.name) else "\nTheir schemas:\n" + self.tools.prompt_block()
            return self._observe(call_id, call.name, call.arguments, f"Error: {error}{hint}", ObservationStatus.INVALID)
        if call.name in self.state.disabled:
            return self._observe(call_id, call.name, call.arguments,
                                 f"The tool {call.name} is disabled for the rest of this session after "
                                 f"{self.settings.tool_failure_limit} failures in a row. Use another tool or answer.",
                                 ObservationStatus.DISABLED)
        dup = self._duplicate(call.name, call.arguments)
        if dup is not None:
            return self._observe(call_id, call.name, call.arguments, dup, ObservationStatus.DUPLICATE)
        tool = self.tools.get(call.name)
        assert tool is not None
        decision = recorded_decision(rec.decision, rec.decided_arguments, rec.reason) if rec is not None else None
        if decision is None:  # not decided before the process stopped: decide now
            decision = await self._decide(call_id, call.name, call.arguments, tool.parameters)
        if isinstance(decision, SubmitNow):
            self._submit.set()
            raise SubmitRequested()
        if isinstance(decision, Reject):
            text = f"The user rejected this call. Reason: {decision.reason or 'none given'}"
            return self._observe(call_id, call.name, call.arguments, text, ObservationStatus.REJECTED)
        args = decision.arguments
        if decision.edited:
            error = self.tools.validate(call.name, args)
            if error:
                return self._observe(call_id, call.name, args, f"Error: {error}", ObservationStatus.INVALID)
            dup = self._duplicate(call.name, args)
            if dup is not None:
                return self._observe(call_id, call.name, args, dup, ObservationStatus.DUPLICATE)
        return await self._execute(call_id, tool, args)

    async def _decide(self, call_id: str, name: str, arguments: Any, schema: dict[str, Any]) -> DecisionT:
        """The run's policy first (auto mode, always-allowed tools), else ask a person."""
        policy = self.state.approval
        if policy.auto or name in policy.always or self.approver is None:
            decision: DecisionT = Approve(arguments, auto=True)
        else:
            self.emit(ApprovalRequested(call_id=call_id))
            request = ApprovalRequest(call_id=call_id, step=self.state.step, tool=name, arguments=arguments,
                                      schema=schema)
            decision = await self._human(self.approver.decide(request))
        kind = decision_kind(decision)
        self.emit(Decision(call_id=call_id, kind=kind, reason=decision.reason if isinstance(decision, Reject) else "",
                           arguments=decision.arguments if isinstance(decision, Approve) else None,
                           always=isinstance(decision, Approve) and decision.always))
        return decision

    def _duplicate(self, name: str, arguments: Any) -> str | None:
        step = self.state.seen_calls.get(protocol.canonical_call(name, arguments))
        if step is None:
            return None
        return (f"This exact call ({name} with the same arguments) was already made at step {step}; "
                f"its result is in the <tool_response> of that step above. Use it, or try different arguments.")

    async def _execute(self, call_id: str, tool: Any, args: Any) -> str:
        t0 = self.clock()
        replayed = self.replay(tool.name, args, self.sources) if self.replay else None
        if replayed is not None:
            return self._observe(call_id, tool.name, args, replayed.text, ObservationStatus.REPLAYED, 0.0,
                                 replayed.sources, True)
        ctx = ToolContext(settings=self.settings, http=self.http, sources=self.sources,
                          progress=lambda text, **kw: self._progress(call_id, text, **kw),
                          complete=self._sub_complete, call_id=call_id)
        timeout = tool.timeout_s(self.settings)
        try:
            result = await self._race(asyncio.wait_for(tool.run(args, ctx), timeout=timeout))
            text, status, sources = result.text, result.status, result.sources
        except SubmitRequested:
            raise
        except (asyncio.TimeoutError, TimeoutError):
            text, status, sources = f"Error: {tool.name} timed out after {timeout:g} s.", ObservationStatus.FAILED, []
        except Exception as exc:  # noqa: BLE001 - a tool bug must become an observation, not a crash
            text, status = f"Error: {tool.name} failed: {type(exc).__name__}: {exc}", ObservationStatus.FAILED
            sources = []
        if status == ObservationStatus.FAILED:
            n = self.state.failures.get(tool.name, 0) + 1
            if n >= self.settings.tool_failure_limit:
                text += (f"\n\nThe tool {tool.name} failed {n} times in a row and is now disabled for the rest of "
                         f"this session.")
        return self._observe(call_id, tool.name, args, text, status, self.clock() - t0, sources, True)

    def _progress(self, call_id: str, text: str, cost_usd: float | None = None, prompt_tokens: int | None = None,
                  completion_tokens: int | None = None, **_: Any) -> None:
        self.emit(ToolProgress(call_id=call_id, text=hygiene.strip_controls(text), cost_usd=cost_usd,
                               prompt_tokens=prompt_tokens, completion_tokens=completion_tokens))
