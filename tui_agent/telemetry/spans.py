"""The one fold from events to spans (OpenTelemetry GenAI conventions), live or after the fact.

Each event is folded by :meth:`SpanFold.apply`; spans are started and ended on a
:class:`SpanSink` with the events' own times (``Event.ts``), so a stored session exported later
shows where the time went as it did live. Sessions are told apart by ``session_id``: a team
research's sub-agents are child sessions whose ``AgentStarted`` (in the parent's log) opens
their ``invoke_agent`` span under the parent's root.

Content (messages, replies, tool arguments and results) is added only with ``content`` on, and
always through ``redact``; otherwise only sizes, names, ids and figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from tui_agent.core.events import (
    ActionProposed, AgentEnded, AgentStarted, AnswerEvent, ApprovalRequested, ClarifyAnswered, ClarifyAsked,
    ContextCompacted, Decision, Event, FactsExtracted, ForcedAnswer, ModelCallEnded, ModelCallStarted, Notice,
    Observation, PlanDecided, PlanProposed, Retry, RunEnded, RunStarted, SectionWritten, ToolProgress,
)
from tui_agent.kinds import DecisionKind, NoticeLevel, ObservationStatus, PlanDecisionKind, Purpose, Termination
from tui_agent.telemetry.attributes import json_text as _json, messages as _messages, provider_of, usage as _usage

AGENT_NAME = "tui-agent"
FAILED_TERMINATIONS = frozenset({Termination.MODEL_ERROR, Termination.FORMAT_ERROR, Termination.CANCELLED})
"""Terminations that set the root span's status to error (a limit or Submit now still answers)."""
FAILED_TOOL_STATUSES = frozenset({
    ObservationStatus.FAILED, ObservationStatus.HTTP_ERROR, ObservationStatus.REFUSED, ObservationStatus.INVALID,
    ObservationStatus.DISABLED, ObservationStatus.CANCELLED, ObservationStatus.INTERRUPTED, ObservationStatus.UNSAVED,
})
DECIDED_BY = {DecisionKind.AUTO: "auto", DecisionKind.PLAN: "plan", DecisionKind.POLICY: "policy"}
"""Who made a decision nobody was asked for; every other decision is a person's."""


class SpanSink(Protocol):
    """Where spans go (``otlp.SdkSink``; tests keep them in a list). Times are epoch seconds."""

    def start(self, name: str, parent: Any, start_s: float, attributes: dict[str, Any]) -> Any:
        """Open a span under ``parent`` (None: a root, itself a child of TRACEPARENT if given)."""
        ...

    def end(self, span: Any, end_s: float, attributes: dict[str, Any], error: str | None) -> None:
        """Close it, adding ``attributes``; ``error`` sets the status to error with that description."""
        ...

    def event(self, span: Any, name: str, ts: float, attributes: dict[str, Any]) -> None:
        ...


@dataclass
class _Open:
    span: Any
    start_s: float
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Agent:
    """What is open for one session: its agent span, its model call, its tool calls, its plan."""

    span: Any
    session_id: str
    model: str = ""
    root: bool = True  # the run's own root (False: a team sub-agent, ended by the parent's AgentEnded)
    chat: _Open | None = None
    plan: _Open | None = None
    plan_mark: float = 0.0  # where the next plan call's time starts (no event marks its start)
    tools: dict[str, _Open] = field(default_factory=dict)
    asked: dict[str, float] = field(default_factory=dict)  # call id → when a person was asked
    marks: dict[str, float] = field(default_factory=dict)  # call id → its last progress (an extraction's start)
    ended: dict[str, Any] = field(default_factory=dict)  # the root's closing attributes (RunEnded)
    error: str | None = None
    last_s: float = 0.0


class SpanFold:
    """Events in, spans out. ``content``: also the conventions' content attributes, redacted by
    ``redact``. ``messages_of``: the messages a stored model call sent (the store leaves them
    out; content mode folds the state to rebuild them), given the session id and the event."""

    def __init__(self, sink: SpanSink, *, content: bool = False, redact: Callable[[str], str] | None = None,
                 messages_of: Callable[[ModelCallStarted], list[dict[str, Any]]] | None = None) -> None:
        self.sink = sink
        self.content = content
        self.redact = redact or (lambda text: text)
        self.messages_of = messages_of
        self.agents: dict[str, _Agent] = {}
        self.children: dict[str, tuple[str, int]] = {}  # child session → (parent session, agent number)

    # ------------------------------------------------------------------ the fold
    def apply(self, e: Event) -> None:
        if isinstance(e, RunStarted):
            self._run_started(e)
            return
        a = self.agents.get(e.session_id)
        if a is None:
            return  # a run's events before its RunStarted (none are), or a session never started here
        a.last_s = max(a.last_s, e.ts)
        match e:
            case ModelCallStarted():
                self._chat_started(a, e)
            case ModelCallEnded():
                self._chat_ended(a, e)
            case Retry():
                target = a.chat or a.plan
                self.sink.event(target.span if target else a.span, "retry", e.ts,
                                {"tui_agent.retry.attempt": e.attempt, "tui_agent.retry.reason": e.reason})
            case ActionProposed():
                self._tool_proposed(a, e)
            case ApprovalRequested():
                a.asked[e.call_id] = e.ts
                if e.call_id in a.tools:
                    self.sink.event(a.tools[e.call_id].span, "approval_requested", e.ts, {})
            case Decision():
                self._decision(a, e)
            case ToolProgress():
                self._tool_progress(a, e)
            case Observation():
                self._tool_ended(a, e)
            case PlanProposed() | ClarifyAsked():
                self._plan_call(a, e)
            case PlanDecided() | ClarifyAnswered():
                self._plan_decided(a, e)
            case ForcedAnswer():
                self.sink.event(a.span, "forced_answer", e.ts, {"tui_agent.forced.reason": str(e.reason)})
            case ContextCompacted():
                self.sink.event(a.span, "context_compacted", e.ts, {
                    "tui_agent.context.policy": e.policy, "tui_agent.context.tokens_before": e.tokens_before,
                    "tui_agent.context.tokens_after": e.tokens_after, **_usage(e.prompt_tokens, e.completion_tokens,
                                                                               e.cost_usd)})
            case AnswerEvent():
                a.ended["tui_agent.answer.size"] = len(e.text)
                if self.content:
                    a.ended["gen_ai.output.messages"] = _messages([{"role": "assistant", "content": e.text}],
                                                                  self.redact)
            case Notice(level=NoticeLevel.ERROR):
                self.sink.event(a.span, "error_notice", e.ts, {"tui_agent.notice": self.redact(e.text)})
            case AgentStarted():
                self._agent_started(a, e)
            case FactsExtracted() | SectionWritten():
                self._team_call(a, e)
            case AgentEnded():
                self._agent_ended(e)
            case RunEnded():
                self._run_ended(a, e)
            case _:
                pass

    def close(self) -> None:
        """End what is still open (a run stopped mid-way, a stored session that never ended) at
        the last time seen: children first, then the roots."""
        for sid, a in sorted(self.agents.items(), key=lambda kv: kv[1].root):
            self._close_agent(a, a.last_s, error=a.error or "the run did not end")
        self.agents.clear()

    # ------------------------------------------------------------------ runs and agents
    def _run_started(self, e: RunStarted) -> None:
        earlier = self.agents.get(e.session_id)
        if earlier is not None and not earlier.root:  # a team sub-agent's run: its span is open already
            earlier.model = e.model or earlier.model
            earlier.last_s = e.ts
            return
        if earlier is not None:  # a resumed run in the same stream: the earlier run's trace ends
            self._close_children(earlier, earlier.last_s)
            self._close_agent(earlier, earlier.last_s, error=earlier.error or "the run did not end")
        attrs = {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.conversation.id": e.session_id, "session.id": e.session_id, "gen_ai.request.model": e.model,
            "gen_ai.provider.name": provider_of(e.model), "tui_agent.resumed": e.resumed,
            "tui_agent.question.size": len(e.question),
        }
        if self.content:
            attrs["gen_ai.input.messages"] = _messages([{"role": "user", "content": e.question}], self.redact)
        span = self.sink.start(f"invoke_agent {AGENT_NAME}", None, e.ts, attrs)
        self.agents[e.session_id] = _Agent(span, e.session_id, model=e.model, plan_mark=e.ts, last_s=e.ts)

    def _run_ended(self, a: _Agent, e: RunEnded) -> None:
        a.ended["tui_agent.termination"] = str(e.termination)
        for key in ("model_calls", "prompt_tokens", "completion_tokens", "cost_usd", "sources"):
            value = e.result.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                a.ended[f"tui_agent.{key}"] = value
            elif isinstance(value, list):
                a.ended[f"tui_agent.{key}"] = len(value)
        if e.termination in FAILED_TERMINATIONS:
            a.error = f"{e.termination}: {self.redact(e.message)}" if e.message else str(e.termination)
        if a.root:
            self._close_children(a, e.ts)
            self._close_agent(a, e.ts, error=a.error)

    def _close_children(self, a: _Agent, end_s: float) -> None:
        for child_sid, (parent, _) in list(self.children.items()):
            if parent == a.session_id and child_sid in self.agents:
                child = self.agents[child_sid]
                self._close_agent(child, max(end_s, child.last_s), error=child.error or "the sub-agent did not end")

    def _close_agent(self, a: _Agent, end_s: float, *, error: str | None) -> None:
        if a.chat is not None:
            self.sink.end(a.chat.span, end_s, {}, "the model call did not end")
        for call in a.tools.values():
            self.sink.end(call.span, end_s, {}, "the tool call did not end")
        if a.plan is not None:
            self.sink.end(a.plan.span, end_s, {}, None)
        a.chat, a.plan, a.tools = None, None, {}
        self.sink.end(a.span, end_s, a.ended, error)
        self.agents.pop(a.session_id, None)

    def _agent_started(self, a: _Agent, e: AgentStarted) -> None:
        attrs = {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"{AGENT_NAME} agent {e.agent}",
            "gen_ai.agent.id": str(e.agent), "gen_ai.conversation.id": e.child_id,
            "tui_agent.parent_session": a.session_id, "tui_agent.resumed": e.resumed,
            "tui_agent.question.size": len(e.question),
        }
        if self.content:
            attrs["gen_ai.input.messages"] = _messages([{"role": "user", "content": e.question}], self.redact)
        if e.child_id in self.agents:  # resumed again within this run: the earlier span ends here
            self._close_agent(self.agents[e.child_id], e.ts, error="the sub-agent did not end")
        span = self.sink.start(f"invoke_agent {AGENT_NAME} agent {e.agent}", a.span, e.ts, attrs)
        self.agents[e.child_id] = _Agent(span, e.child_id, model=a.model, root=False, plan_mark=e.ts, last_s=e.ts)
        self.children[e.child_id] = (a.session_id, e.agent)

    def _agent_ended(self, e: AgentEnded) -> None:
        for child_sid, (parent, number) in list(self.children.items()):
            if parent == e.session_id and number == e.agent and child_sid in self.agents:
                child = self.agents[child_sid]
                child.ended.update({"tui_agent.agent.status": str(e.status), "tui_agent.model_calls": e.model_calls,
                                    "tui_agent.sources": len(e.sources), "tui_agent.termination": e.termination,
                                    **_usage(e.prompt_tokens, e.completion_tokens, e.cost_usd)})
                self._close_agent(child, e.ts, error=f"{e.status}: {self.redact(e.reason)}" if e.reason else child.error)

    def _team_call(self, a: _Agent, e: FactsExtracted | SectionWritten) -> None:
        """The team's facts and section calls carry only their end and usage: span events on the
        sub-agent's span (the parent's when the agent is gone)."""
        target = next((self.agents[c].span for c, (p, n) in self.children.items()
                       if p == a.session_id and n == e.agent and c in self.agents), a.span)
        if isinstance(e, FactsExtracted):
            attrs = {"tui_agent.purpose": str(Purpose.FACTS), "tui_agent.facts": len(e.facts),
                     "tui_agent.url.size": len(e.url)}
            if e.error:
                attrs["tui_agent.error"] = self.redact(e.error)
        else:
            attrs = {"tui_agent.purpose": str(Purpose.SECTION), "tui_agent.section.status": str(e.status),
                     "tui_agent.section.size": len(e.text), "tui_agent.sources": len(e.sources)}
        attrs.update(_usage(e.prompt_tokens, e.completion_tokens, e.cost_usd))
        self.sink.event(target, e.type, e.ts, attrs)

    # ------------------------------------------------------------------ model calls
    def _chat_started(self, a: _Agent, e: ModelCallStarted) -> None:
        model = e.model or a.model
        attrs = {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": model, "gen_ai.provider.name": provider_of(model),
            "gen_ai.conversation.id": a.session_id, "tui_agent.purpose": str(e.purpose),
            "tui_agent.step": e.step, "tui_agent.prompt_tokens_estimate": e.prompt_tokens,
            "tui_agent.messages": len(e.messages),
        }
        if self.content:
            messages = e.messages or (self.messages_of(e) if self.messages_of else [])
            attrs["tui_agent.messages"] = len(messages)
            attrs["gen_ai.input.messages"] = _messages(messages, self.redact)
        if a.chat is not None:  # a call that never ended (a stored crash): it ends where the next starts
            self.sink.end(a.chat.span, e.ts, {}, "the model call did not end")
        parent = a.plan.span if a.plan is not None and e.purpose == Purpose.PLAN else a.span
        a.chat = _Open(self.sink.start(f"chat {model}", parent, e.ts, attrs), e.ts, {"model": model})

    def _chat_ended(self, a: _Agent, e: ModelCallEnded) -> None:
        if a.chat is None:
            return
        attrs: dict[str, Any] = {"gen_ai.response.model": a.chat.attributes["model"],
                                 "tui_agent.reply.size": len(e.text), "tui_agent.tool_calls": len(e.tool_calls),
                                 "tui_agent.duration_s": e.duration_s}
        if e.prompt_tokens is not None:
            attrs["gen_ai.usage.input_tokens"] = e.prompt_tokens
        if e.completion_tokens is not None:
            attrs["gen_ai.usage.output_tokens"] = e.completion_tokens
        if e.cost_usd is not None:
            attrs["tui_agent.cost_usd"] = e.cost_usd
        if e.finish_reason:
            attrs["gen_ai.response.finish_reasons"] = [e.finish_reason]
        if self.content:
            out: dict[str, Any] = {"role": "assistant", "content": e.text}
            if e.tool_calls:
                out["tool_calls"] = e.tool_calls
            attrs["gen_ai.output.messages"] = _messages([out], self.redact)
        error = ("interrupted" if e.interrupted else "cancelled") if e.cancelled else None
        self.sink.end(a.chat.span, e.ts, attrs, error)
        a.chat = None

    # ------------------------------------------------------------------ tool calls
    def _tool_proposed(self, a: _Agent, e: ActionProposed) -> None:
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e.tool, "gen_ai.tool.type": "function",
                 "gen_ai.tool.call.id": e.call_id, "gen_ai.conversation.id": a.session_id, "tui_agent.step": e.step,
                 "tui_agent.tool.arguments.size": len(_json(e.arguments))}
        if self.content:
            attrs["gen_ai.tool.call.arguments"] = self.redact(_json(e.arguments))
        call = _Open(self.sink.start(f"execute_tool {e.tool}", a.span, e.ts, attrs), e.ts)
        if e.error:
            call.attributes["error"] = self.redact(e.error)
        a.tools[e.call_id] = call

    def _decision(self, a: _Agent, e: Decision) -> None:
        call = a.tools.get(e.call_id)
        if call is None:
            return
        asked = a.asked.pop(e.call_id, None)
        by = "person" if asked is not None else DECIDED_BY.get(e.kind, "person")
        call.attributes.update({"tui_agent.decision": str(e.kind), "tui_agent.decision.by": by})
        if e.kind == DecisionKind.EDITED and self.content:
            call.attributes["gen_ai.tool.call.arguments"] = self.redact(_json(e.arguments))
        attrs: dict[str, Any] = {"tui_agent.decision": str(e.kind), "tui_agent.decision.by": by}
        if asked is not None:
            attrs["tui_agent.wait_s"] = round(max(0.0, e.ts - asked), 3)
        self.sink.event(call.span, "decision", e.ts, attrs)

    def _tool_progress(self, a: _Agent, e: ToolProgress) -> None:
        call = a.tools.get(e.call_id)
        if call is None:
            return
        if e.prompt_tokens or e.completion_tokens or e.cost_usd:  # a model call inside the tool (extraction)
            start = a.marks.get(e.call_id, call.start_s)
            span = self.sink.start(f"chat {a.model}", call.span, start, {
                "gen_ai.operation.name": "chat", "gen_ai.request.model": a.model,
                "gen_ai.provider.name": provider_of(a.model), "tui_agent.purpose": str(Purpose.EXTRACT)})
            self.sink.end(span, e.ts, _usage(e.prompt_tokens or 0, e.completion_tokens or 0, e.cost_usd), None)
        a.marks[e.call_id] = e.ts

    def _tool_ended(self, a: _Agent, e: Observation) -> None:
        call = a.tools.pop(e.call_id, None)
        a.marks.pop(e.call_id, None)
        if call is None:
            return
        error = call.attributes.pop("error", None)
        attrs = {**call.attributes, "tui_agent.tool.status": str(e.status), "tui_agent.tool.result.size": len(e.text),
                 "tui_agent.tool.executed": e.executed, "tui_agent.tool.sources": len(e.sources)}
        if self.content:
            attrs["gen_ai.tool.call.result"] = self.redact(e.text)
        if e.status in FAILED_TOOL_STATUSES:
            error = f"{e.status}: {error}" if error else str(e.status)
        self.sink.end(call.span, e.ts, attrs, error)

    # ------------------------------------------------------------------ the plan
    def _plan_call(self, a: _Agent, e: PlanProposed | ClarifyAsked) -> None:
        if a.plan is None:
            a.plan = _Open(self.sink.start("plan", a.span, a.plan_mark, {
                "gen_ai.operation.name": "plan", "gen_ai.conversation.id": a.session_id}), a.plan_mark)
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": a.model,
                 "gen_ai.provider.name": provider_of(a.model), "tui_agent.purpose": str(Purpose.PLAN),
                 **_usage(e.prompt_tokens, e.completion_tokens, e.cost_usd)}
        if isinstance(e, PlanProposed):
            attrs.update({"tui_agent.plan.attempt": e.attempt, "tui_agent.reply.size": len(e.raw)})
            if e.plan is not None:
                attrs["tui_agent.plan.sub_questions"] = len(e.plan.get("sub_questions") or [])
            error = self.redact(e.error) if e.error else None
        else:
            attrs["tui_agent.clarify.questions"] = len(e.questions)
            error = None
        if self.content:
            raw = e.raw
            attrs["gen_ai.output.messages"] = _messages([{"role": "assistant", "content": raw}], self.redact)
        span = self.sink.start(f"chat {a.model}", a.plan.span, a.plan_mark, attrs)
        self.sink.end(span, e.ts, {}, error)
        self.sink.event(a.plan.span, "awaiting_person", e.ts, {"tui_agent.waits_for": e.type})
        a.plan_mark = e.ts

    def _plan_decided(self, a: _Agent, e: PlanDecided | ClarifyAnswered) -> None:
        if a.plan is None:
            return
        attrs: dict[str, Any] = {"tui_agent.wait_s": round(max(0.0, e.ts - a.plan_mark), 3)}
        if isinstance(e, PlanDecided):
            attrs.update({"tui_agent.decision": str(e.kind), "tui_agent.decision.by": "auto" if e.auto else "person"})
        else:
            attrs["tui_agent.clarify.answers"] = sum(1 for x in e.answers if x)
        self.sink.event(a.plan.span, e.type, e.ts, attrs)
        a.plan_mark = e.ts
        if isinstance(e, PlanDecided) and e.kind != PlanDecisionKind.REPLAN:
            self.sink.end(a.plan.span, e.ts, {"tui_agent.plan.decision": str(e.kind)}, None)
            a.plan = None
