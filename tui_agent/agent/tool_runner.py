"""The engine's tool calls: one reply's calls in order, each validated, checked against the
run's policy and earlier calls, approved (or not) and run with a time limit.

A :class:`ToolRunner` is held by ``engine.Engine``. It reads the session state and changes it only
by emitting events (the fold counts failures and disables tools, records sources and decisions).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Awaitable, Callable, Protocol

from tui_agent import protocol

from tui_agent.safety import hygiene
from tui_agent.core.approval import (
    JSON, Approve, ApprovalRequest, Approver, DecisionT, Reject, Schema, SubmitNow, decision_kind, recorded_decision,
)
from tui_agent.config import Settings
from tui_agent.model import Reply
from tui_agent.agent import tool_policy
from tui_agent.core.run_control import RunControl, SubmitRequested
from tui_agent.plan import policy as plan_policy
from tui_agent.core import budgets, fold
from tui_agent.core.events import (
    ActionProposed, ApprovalRequested, Decision, DecisionKind, Event, Notice, NoticeLevel, Observation,
    ObservationMessage, ObservationStatus, Purpose, SourceAdded, ToolProgress, ToolStarted,
)
from tui_agent.core.sink import NotSaved
from tui_agent.core.state import CallState, SessionState, SourceState
from tui_agent.tools.base import SourceRegistry, Tool, ToolContext, ToolRegistry

if TYPE_CHECKING:
    import httpx

__all__ = ["FoldedSources", "Replay", "SubComplete", "SubmitRequested", "ToolRunner"]

NOT_RUN = "Not run: the user asked for the answer now."
CANCELLED = "Cancelled: the user asked for the answer now, so this call was stopped before it finished."
INTERRUPTED = ("Not run again: this call had started when the session stopped, and its result was never saved, "
               "so it may have run (with any effect it has). Call it again only if you need its result.")
UNSAVED = ("Not run: the session can no longer be saved ({why}), and a call runs only once its start is saved. "
           "Answer from what you have.")


class Replay(Protocol):
    """A fork's recorded observations: the observation of an identical earlier call (its sources
    registered in ``sources``), or None."""

    def __call__(self, tool: str, arguments: JSON, sources: SourceRegistry) -> Observation | None: ...


class SubComplete(Protocol):
    """Model calls made by tools (extraction): ``await complete(messages, purpose=…, model=…)``."""

    def __call__(self, messages: list[dict[str, str]], *, purpose: Purpose = Purpose.EXTRACT,
                 model: str | None = None, **_: object) -> Awaitable[Reply]: ...


class FoldedSources(SourceRegistry):
    """The run's sources as the fold records them: a new URL is announced with ``SourceAdded``
    (numbered after the session's sources) and read back from the state the fold made."""

    def __init__(self, state: SessionState, emit: Callable[[Event], None], clock: Callable[[], float]) -> None:
        super().__init__(state.sources)
        self._state, self._emit_event, self._clock = state, emit, clock

    def register(self, url: str, title: str = "") -> SourceState:
        if url not in self._state.sources:
            self._emit_event(SourceAdded(number=len(self._state.sources) + 1, url=url, title=title,
                                         read_at=self._clock()))
        return self._state.sources[url]


class ToolRunner:
    """Runs one reply's tool calls. Declared inputs: the tools, the settings (time limits, observation
    size), the session ``state`` it reads, ``emit`` (its only way to change anything), the
    ``approver`` (None: every call approved), the run ``control`` (Submit now, human waits, the
    clock), the HTTP client and sub-call function tools use, and a fork's ``replay``."""

    def __init__(self, *, tools: ToolRegistry, settings: Settings, state: SessionState,
                 emit: Callable[[Event], None], approver: Approver | None, control: RunControl,
                 complete: SubComplete, http: "httpx.AsyncClient | None" = None, replay: Replay | None = None,
                 sources: SourceRegistry | None = None) -> None:
        self.tools, self.settings, self.state, self.emit = tools, settings, state, emit
        self.approver, self.control, self.complete, self.http, self.replay = approver, control, complete, http, replay
        self.sources = sources if sources is not None else FoldedSources(state, emit, control.timestamp)

    async def run_calls(self, parsed: protocol.ParsedReply, recorded: list[CallState] | None = None) -> None:
        """Run the calls of one reply in order; ``recorded`` holds what a stopped run had done already."""
        blocks: list[str] = []
        recorded = recorded or []
        try:
            for i, call in enumerate(parsed.calls):
                blocks.append(await self._one_call(call, recorded[i] if i < len(recorded) else None))
        except SubmitRequested as stop:
            if stop.args:  # the call that was running: its cancel record's text
                blocks.append(str(stop.args[0]))
            blocks += [NOT_RUN] * (len(parsed.calls) - len(blocks))
            self._observation_message(blocks)
            raise
        if parsed.answer is not None:
            blocks[-1] += ("\n\nNote: your <answer> in the same reply was ignored because it was written before "
                           "these results; answer again after reading them.")
        self._observation_message(blocks)

    def _observation_message(self, blocks: list[str]) -> None:
        self.emit(ObservationMessage(content=protocol.observation_message(blocks)))

    def _observe(self, call_id: str, tool: str, arguments: JSON, text: str, status: ObservationStatus,
                 duration: float = 0.0, sources: list[int] | None = None, executed: bool = False) -> str:
        clean = budgets.clean_observation(text, self.settings.observation_max_tokens)
        self.emit(Observation(call_id=call_id, tool=tool, arguments=arguments, text=clean, status=status,
                              duration_s=duration, sources=sources or [], executed=executed))
        return clean

    async def _one_call(self, call: protocol.ParsedCall, rec: CallState | None = None) -> str:
        if rec is not None and rec.observation is not None:
            return self._noted(rec.call_id, rec.observation)  # finished before the process stopped: never run again
        if rec is not None and rec.started and not self._rerun_safe(call.name) \
                and not tool_policy.denies(call.name, self.settings.tool_policies):
            # it may have run: said, never run again silently (a deny in force now says so instead)
            self.emit(Notice(level=NoticeLevel.WARNING, text=f"{rec.call_id} ({rec.tool}) had started when the "
                             "session stopped and its result was not saved: it may have run; it is not run again"))
            return self._observe(rec.call_id, call.name, rec.decided_arguments or call.arguments, INTERRUPTED,
                                 ObservationStatus.INTERRUPTED)
        if rec is not None:
            call_id, error = rec.call_id, rec.error
        else:
            call_id = f"c{self.state.call_seq + 1}"
            error = call.error or self._check(call.name, call.arguments)
            self.emit(ActionProposed(call_id=call_id, tool=call.name, arguments=call.arguments, error=error))
        if error:
            hint = "" if self.tools.get(call.name) else "\nTheir schemas:\n" + self.tools.prompt_block()
            return self._observe(call_id, call.name, call.arguments, f"Error: {error}{hint}", ObservationStatus.INVALID)
        if call.name in self.state.disabled:
            return self._observe(call_id, call.name, call.arguments,
                                 f"The tool {call.name} is disabled for the rest of this session after "
                                 f"{self.state.failure_limit} failures in a row. Use another tool or answer.",
                                 ObservationStatus.DISABLED)
        dup = self._duplicate(call.name, call.arguments)
        if dup is not None:
            return self._observe(call_id, call.name, call.arguments, dup, ObservationStatus.DUPLICATE)
        tool = self.tools.get(call.name)
        assert tool is not None
        decision = recorded_decision(rec.decision, rec.decided_arguments, rec.reason) if rec is not None else None
        denied_now = isinstance(decision, Approve) and tool_policy.denies(call.name, self.settings.tool_policies)
        if decision is None or denied_now:  # not decided before the process stopped (or denied by the config now)
            decision = await self._decide(call_id, call.name, call.arguments, tool.parameters)
        if isinstance(decision, SubmitNow):
            self.control.request_submit()
            raise SubmitRequested()
        if isinstance(decision, Reject):
            text = (f"Denied: {decision.reason}. Use another tool or answer." if decision.policy else
                    f"The user rejected this call. Reason: {decision.reason or 'none given'}")
            return self._observe(call_id, call.name, call.arguments, text, ObservationStatus.REJECTED)
        if decision.edited:
            return self._noted(call_id, await self._run_edited(call_id, tool, decision.arguments))
        return await self._execute(call_id, tool, decision.arguments)

    async def _run_edited(self, call_id: str, tool: Tool, args: JSON) -> str:
        """A call whose arguments a person edited: checked again (schema, earlier calls), then run."""
        error = self.tools.validate(tool.name, args)
        if error:
            return self._observe(call_id, tool.name, args, f"Error: {error}", ObservationStatus.INVALID)
        dup = self._duplicate(tool.name, args)
        if dup is not None:
            return self._observe(call_id, tool.name, args, dup, ObservationStatus.DUPLICATE)
        return await self._execute(call_id, tool, args)

    def _noted(self, call_id: str, text: str) -> str:
        """The result as the model reads it: after an edit at approval, the note that a person changed the call
        (the transcript's call, rewritten by the fold, shows the arguments that ran)."""
        call = self.state.calls.get(call_id)
        if call is None or call.decision != DecisionKind.EDITED or call.proposed is None:
            return text
        return protocol.edited_note(call.proposed) + "\n" + text

    def _rerun_safe(self, name: str) -> bool:
        tool = self.tools.get(name)
        return tool is not None and tool.rerun_safe

    def _check(self, name: str, arguments: JSON) -> str | None:
        """The call's error before it is decided: an unknown tool, or arguments its schema refuses
        (tools.schema_check: local $refs only, bounded). A tool the configuration denies is not
        validated at all: the deny wins before its schema is touched."""
        if self.tools.get(name) is not None and tool_policy.denies(name, self.settings.tool_policies):
            return None
        return self.tools.validate(name, arguments)

    async def _decide(self, call_id: str, name: str, arguments: JSON, schema: Schema) -> DecisionT:
        """In order: a deny of the configuration's tool policies (wins over everything), the run's
        policy (auto mode, always-allowed tools), the approved plan (never a call rejected before),
        an allow of the tool policies, else ask a person."""
        policy = self.state.approval
        configured = tool_policy.policy_decision(name, arguments, self.settings.tool_policies)
        planned = plan_policy.approves(self.state, name, arguments)  # the approved plan covers it, never rejected
        if isinstance(configured, Reject):  # a deny in the configuration wins over everything
            decision: DecisionT = configured
        elif policy.auto or name in policy.always or self.approver is None:
            decision = Approve(arguments, auto=True)
        elif planned is not None:
            decision = planned
        elif configured is not None:  # allow
            decision = configured
        else:
            self.emit(ApprovalRequested(call_id=call_id))
            request = ApprovalRequest(call_id=call_id, step=self.state.step, tool=name, arguments=arguments,
                                      schema=schema, outside_plan=plan_policy.outside(self.state, name, arguments))
            decision = await self.control.human(self.approver.decide(request))
        kind = DecisionKind.PLAN if decision is planned else decision_kind(decision)
        self.emit(Decision(call_id=call_id, kind=kind, reason=decision.reason if isinstance(decision, Reject) else "",
                           arguments=decision.arguments if isinstance(decision, Approve) else None,
                           always=isinstance(decision, Approve) and decision.always))
        return decision

    def _duplicate(self, name: str, arguments: JSON) -> str | None:
        step = self.state.seen_calls.get(protocol.canonical_call(name, arguments))
        if step is None:
            return None
        return (f"This exact call ({name} with the same arguments) was already made at step {step}; "
                f"its result is in the <tool_response> of that step above. Use it, or try different arguments.")

    async def _execute(self, call_id: str, tool: Tool, args: JSON) -> str:
        t0 = self.control.clock()
        replayed = self.replay(tool.name, args, self.sources) if self.replay else None
        if replayed is not None:
            return self._observe(call_id, tool.name, args, replayed.text, ObservationStatus.REPLAYED, 0.0,
                                 replayed.sources, True)
        try:
            self.emit(ToolStarted(call_id=call_id, tool=tool.name))  # saved before the call runs
        except NotSaved as why:
            return self._observe(call_id, tool.name, args, UNSAVED.format(why=why), ObservationStatus.UNSAVED)
        ctx = ToolContext(settings=self.settings, http=self.http, sources=self.sources,
                          progress=lambda text, **kw: self._progress(call_id, text, **kw),
                          complete=self.complete, call_id=call_id,
                          observation_tokens=self.settings.observation_max_tokens)
        timeout = tool.timeout_s(self.settings)
        try:
            result = await self.control.race(asyncio.wait_for(tool.run(args, ctx), timeout=timeout))
            text, status, sources = result.text, ObservationStatus(result.status), result.sources
        except SubmitRequested:
            # Cut by Submit now: recorded as cancelled (not left "approved"), and never run again.
            text = self._observe(call_id, tool.name, args, CANCELLED, ObservationStatus.CANCELLED,
                                 self.control.clock() - t0)
            raise SubmitRequested(text) from None
        except (asyncio.TimeoutError, TimeoutError):
            text, status, sources = f"Error: {tool.name} timed out after {timeout:g} s.", ObservationStatus.FAILED, []
        except Exception as exc:  # noqa: BLE001 - a tool bug must become an observation, not a crash
            text, status = f"Error: {tool.name} failed: {type(exc).__name__}: {exc}", ObservationStatus.FAILED
            sources = []
        if fold.disables(self.state, tool.name, status):
            n = self.state.failures.get(tool.name, 0) + 1
            text += (f"\n\nThe tool {tool.name} failed {n} times in a row and is now disabled for the rest of "
                     f"this session.")
        return self._observe(call_id, tool.name, args, text, status, self.control.clock() - t0, sources, True)

    def _progress(self, call_id: str, text: str, cost_usd: float | None = None, prompt_tokens: int | None = None,
                  completion_tokens: int | None = None, **_: object) -> None:
        self.emit(ToolProgress(call_id=call_id, text=hygiene.strip_controls(text), cost_usd=cost_usd,
                               prompt_tokens=prompt_tokens, completion_tokens=completion_tokens))
