"""The one fold of the event log: ``apply(state, event)``.

A session is its events; :class:`SessionState` is what they add up to, for every reader:

- the engine's working state (the exact message list, counters, the gates' inputs, seen calls,
  tool failures, the approval policy of this run, what an interrupted step had done already);
- what every view shows (steps with their thought, calls and notes; sources; the answer; the
  status; the last prompt for the inspector).

The engine advances only by emitting events, which pass through :func:`apply` before anything
else sees them; resume and fork fold the stored events with the same function; the TUI folds the
events it receives (and a resumed session's stored events first) into its own copy; the session
browser, the exports and the headless trace read the folded state. No other module derives
state from events.

Events are dispatched once, by type, in :func:`apply`.
"""

from __future__ import annotations

from typing import Any, Iterable

from tui_agent.core.events import (
    FORMAT_ERROR_REASONS, ActionProposed, AnswerEvent, ApprovalModeChanged, ApprovalRequested, Correction,
    CorrectionReason, Decision, DecisionKind, Event, ForcedAnswer, ModelCallEnded, ModelCallStarted, ModelDelta,
    Notice, Observation, ObservationMessage, ObservationStatus, PromptEdited, Purpose, Retry, RunEnded, RunStarted,
    SourceAdded, Termination, ToolProgress, ToolStarted, VerificationStarted, ClaimChecked, VerificationEnded, ContextEdited,
    ContextCompacted, SummaryProposed, PlanProposed, PlanDecided, ClarifyAsked, ClarifyAnswered,
)
from tui_agent.core import context_items as ctxitems
from tui_agent.core.context_items import ContextItem
from tui_agent.kinds import ContextItemKind
from tui_agent.core.fold_context import call_item, context_compacted, context_edited, observation_items
from tui_agent.core.fold_edit import edited_call
from tui_agent.core.fold_native import assistant_message, tool_results
from tui_agent.core import fold_plan, fold_team
from tui_agent.core.events_team import AgentEnded, AgentStarted, FactsExtracted, SectionWritten
from tui_agent.core.plan_progress import plan_result
from tui_agent.core.live import ANSWER, CALL, THOUGHT, Part, StreamSplitter
from tui_agent.core.state import (  # noqa: F401 - the state's types are the fold's vocabulary
    ACTIVE, ApprovalPolicy, CallState, ClaimState, PromptView, SessionState, SourceState, StepState, Status,
    Verification, canonical_call,
)

# -- the fold ---------------------------------------------------------------------------------


def new_state(session_id: str = "", question: str = "", model: str = "") -> SessionState:
    return SessionState(session_id=session_id, question=question, model=model)


def fold(events: Iterable[Event], state: SessionState | None = None) -> SessionState:
    """The state the events add up to (folded onto ``state`` when given)."""
    state = state if state is not None else SessionState()
    for e in events:
        apply(state, e)
    return state


def apply(s: SessionState, e: Event) -> None:
    """Fold one event into the state. The only place state follows from events."""
    if e.step > s.step:
        s.step = e.step
    if e.elapsed_s > s.elapsed_s:
        s.elapsed_s = e.elapsed_s
    if e.ts > s.last_ts:
        s.last_ts = e.ts
    match e:
        case RunStarted():
            _run_started(s, e)
        case ModelCallStarted():
            _call_started(s, e)
        case ModelDelta():
            stream(s, e.step, e.text, e.reasoning)
        case ModelCallEnded():
            _call_ended(s, e)
        case Retry():
            rec = s.step_state(e.step)
            rec.live_thought = rec.live_call = rec.live_answer = ""
            s._splitter = StreamSplitter()
            rec.notes.append(f"retry {e.attempt} in {e.delay_s:.1f} s: {e.reason}")
        case ActionProposed():
            s.call_seq += 1
            call = CallState(call_id=e.call_id, step=e.step, tool=e.tool, arguments=e.arguments, error=e.error)
            s.calls[e.call_id] = call
            s.step_state(e.step).calls.append(call)
            if s.open_calls is not None:
                s.open_calls.append(e.call_id)
            call_item(s, call)
        case ApprovalRequested():
            s.pending_approval = e.call_id
            s.status = Status.AWAITING
            if e.call_id in s.calls:
                s.calls[e.call_id].awaiting = True
        case ApprovalModeChanged():
            s.approval.auto = e.auto
        case Decision():
            _decision(s, e)
        case ToolStarted():
            if e.call_id in s.calls:
                s.calls[e.call_id].started = True
        case ToolProgress():
            _auxiliary(s, e.prompt_tokens or 0, e.completion_tokens or 0, e.cost_usd)
            if e.call_id in s.calls:
                s.calls[e.call_id].progress.append(e.text)
        case Observation():
            _observation(s, e)
        case ObservationMessage() if e.results:  # native protocol: one role "tool" message per call
            tool_results(s, e)
            s.format_errors = 0
            s.open_calls = None
        case ObservationMessage():
            s.messages.append({"role": "user", "content": e.content})
            observation_items(s, e.content)
            s.last_observation_index = len(s.messages) - 1
            s.format_errors = 0
            s.open_calls = None
        case Correction():
            s.messages.append({"role": "user", "content": e.content})
            s.last_observation_index = None
            s.open_calls = None
            s.step_state(e.step).corrections.append((e.reason, e.content))
            s.context.add(ContextItem(f"correction:{e.step}", ContextItemKind.CORRECTION, len(s.messages) - 1,
                                      e.content, f"correction ({e.reason})", e.step))
            if e.reason == CorrectionReason.ANSWER_WITHOUT_EVIDENCE:
                s.evidence_refused = True
            elif e.reason in FORMAT_ERROR_REASONS:
                s.format_errors += 1
        case SourceAdded():
            s.sources[e.url] = SourceState(e.number, e.url, e.title, e.read_at)
        case PromptEdited():
            if e.index < len(s.messages):
                s.messages[e.index] = {**s.messages[e.index], "content": e.content}  # (native: keeps tool_calls)
            if e.index == 0:
                s.system_prompt = e.content
            s.step_state(e.step).notes.append(f"prompt edited before this call: message {e.index} ({e.role})")
        case ForcedAnswer():
            s.forced_reason = e.reason
            s.forced_content = e.content
            s.status = Status.ANSWERING
        case AnswerEvent():
            s.answer = e
        case Notice():
            s.notices.append(e)
        case RunEnded():
            s.ended = e
            s.status = Status.ENDED
            _nothing_under_way(s)
        case ContextEdited():
            context_edited(s, e)
            _auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case ContextCompacted():
            context_compacted(s, e)
            _auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case PlanProposed():
            fold_plan.plan_proposed(s, e)
            _auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case PlanDecided():
            fold_plan.plan_decided(s, e)
        case ClarifyAsked():
            fold_plan.clarify_asked(s, e)
            _auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case ClarifyAnswered():
            fold_plan.clarify_answered(s, e)
        case SummaryProposed():
            _auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case AgentStarted() | FactsExtracted() | AgentEnded() | SectionWritten():
            fold_team.apply(s, e, _account, _auxiliary)  # the team's calls count in the session's totals
        case VerificationStarted():
            s.verification = Verification(model=e.model, sample=e.sample)
        case ClaimChecked():
            if s.verification is None:
                s.verification = Verification(model="", sample=0)
            s.verification.claims.append(ClaimState(e.claim, list(e.sources), e.verdict, e.evidence, e.note))
        case VerificationEnded():
            if s.verification is not None:
                s.verification.ended = True
                s.verification.needs_review = e.needs_review


def _run_started(s: SessionState, e: RunStarted) -> None:
    s.runs += 1
    if not s.messages:
        s.question = e.question
        s.system_prompt = e.system_prompt
        s.messages = [{"role": "system", "content": e.system_prompt}, {"role": "user", "content": e.question}]
        s.context.add(ContextItem(ctxitems.SYSTEM, ContextItemKind.SYSTEM, 0, e.system_prompt, "system prompt"))
        s.context.add(ContextItem(ctxitems.QUESTION, ContextItemKind.QUESTION, 1, e.question, "question"))
        s.protocol = str(e.settings.get("protocol") or "tags")
    s.session_id = e.session_id or s.session_id
    s.model = e.model or s.model
    s.settings = dict(e.settings)
    s.approval = ApprovalPolicy(auto=e.auto_approve)
    s.request_tools = list(e.tools)
    s.ended = None
    s.status = Status.RUNNING
    _nothing_under_way(s)


def _nothing_under_way(s: SessionState) -> None:
    """A run starts or ends: no call in flight, nobody asked."""
    s.pending_approval = None
    s.in_flight = False
    for call in s.calls.values():
        call.awaiting = False


def _call_started(s: SessionState, e: ModelCallStarted) -> None:
    rec = s.steps.get(e.step)
    if rec is not None and rec.unfinished:  # a new call in the place of one that never completed
        rec = s.steps[e.step] = StepState(e.step)
    rec = s.step_state(e.step)
    rec.purpose = e.purpose
    rec.prompt_tokens_estimate = e.prompt_tokens
    if e.purpose in (Purpose.RESEARCH, Purpose.FORCED):
        s.threshold, s.context_window = e.threshold, e.context_window
        messages = e.messages or _sent_messages(s, e.purpose)
        s.last_prompt = PromptView(e.step, e.purpose, messages, list(e.message_tokens), e.prompt_tokens,
                                   e.threshold, e.context_window, list(e.tools or s.request_tools), e.tool_choice)
    if e.purpose == Purpose.RESEARCH:
        s.peak_prompt_tokens = max(s.peak_prompt_tokens, e.prompt_tokens)
        s.in_flight = True
        s.open_calls = None
        if s.status != Status.ANSWERING:
            s.status = Status.RUNNING
    elif e.purpose == Purpose.FORCED:
        s.status = Status.ANSWERING


def _sent_messages(s: SessionState, purpose: Purpose) -> list[dict[str, str]]:
    """The request of a stored call (stored events leave its messages out: they follow from the fold)."""
    if purpose == Purpose.FORCED and s.forced_content is not None:
        base, _ = forced_base(s)
        return base + [{"role": "user", "content": s.forced_content}]
    return prompt(s)


def prompt(s: SessionState) -> list[dict[str, str]]:
    """The messages the next model call sends: the raw messages with the context's overrides
    (drops, summaries) applied and the state note at the top (``context.items.build_prompt``)."""
    return ctxitems.build_prompt(s.messages, s.context)


def forced_base(s: SessionState) -> tuple[list[dict[str, str]], str | None]:
    """The forced answer's history and the latest observation it keeps: the same system prompt
    and messages, minus a trailing observation (it moves into the final user message) or a
    trailing correction (pointless now)."""
    msgs = prompt(s)
    latest = None
    if s.last_observation_index is not None and s.last_observation_index == len(msgs) - 1:
        latest = msgs.pop()["content"]
    elif msgs and msgs[-1]["role"] == "user" and len(msgs) > 2:
        msgs.pop()
    return msgs, latest


def _call_ended(s: SessionState, e: ModelCallEnded) -> None:
    rec = s.step_state(e.step)
    rec.ended = True
    rec.cancelled = e.cancelled
    rec.interrupted = e.interrupted
    rec.reply = e.text
    rec.reasoning = e.reasoning
    rec.cut = e.cut
    rec.finish_reason = e.finish_reason
    rec.thought = e.thought or ((e.reasoning or rec.live_thought) if e.cancelled else "")
    rec.prompt_tokens, rec.completion_tokens = e.prompt_tokens, e.completion_tokens
    rec.cost_usd, rec.duration_s = e.cost_usd, e.duration_s
    if e.cancelled:
        rec.notes.append("model call cancelled")
    if e.purpose == Purpose.RESEARCH:
        s.in_flight = False
    if e.purpose in (Purpose.RESEARCH, Purpose.FORCED) and not e.cancelled:
        _account(s, e.prompt_tokens if e.prompt_tokens is not None else e.prompt_tokens_estimate,
                 e.completion_tokens or 0, e.cost_usd)
    if e.purpose == Purpose.RESEARCH and not e.cancelled:
        s.model_calls += 1
        s.messages.append(assistant_message(e))
        s.last_observation_index = None
        s.open_calls = []
        thought, blocks = ctxitems.split_reply(e.text)
        s.context.add(ContextItem(f"thought:{e.step}", ContextItemKind.THOUGHT, len(s.messages) - 1, thought,
                                  f"thought of step {e.step}", e.step))
        s.context.call_blocks[e.step] = blocks


def _account(s: SessionState, prompt: int, completion: int, cost: float | None) -> None:
    s.prompt_tokens += prompt
    s.completion_tokens += completion
    if cost is not None:
        s.cost_usd = (s.cost_usd or 0.0) + cost


def _auxiliary(s: SessionState, prompt: int, completion: int, cost: float | None) -> None:
    """A model call that is not a research step (a compaction): counted in the totals, as auxiliary."""
    _account(s, prompt, completion, cost)
    s.auxiliary_tokens += prompt + completion


def _decision(s: SessionState, e: Decision) -> None:
    call = s.calls.get(e.call_id)
    if call is not None:
        call.decision = e.kind
        call.decided_arguments = e.arguments
        call.reason = e.reason
        call.awaiting = False
        if e.kind == DecisionKind.EDITED and e.arguments is not None:
            edited_call(s, call, e.arguments)
        if e.always:
            s.approval.always.add(call.tool)
    if s.pending_approval == e.call_id:
        s.pending_approval = None
        if s.status == Status.AWAITING:
            s.status = Status.RUNNING


def _observation(s: SessionState, e: Observation) -> None:
    if e.call_id not in s.context.pending_obs:
        s.context.pending_obs.append(e.call_id)
    call = s.calls.get(e.call_id)
    if call is None:
        call = s.calls[e.call_id] = CallState(call_id=e.call_id, step=e.step, tool=e.tool, arguments=e.arguments)
        s.step_state(e.step).calls.append(call)
    call.status = e.status
    call.observation = e.text
    call.duration_s = e.duration_s
    call.arguments = e.arguments
    call.sources = list(e.sources)
    call.executed = e.executed
    call.awaiting = False
    if not e.executed:
        return
    s.tool_calls += 1
    s.tool_ran = True
    s.seen_calls[canonical_call(e.tool, e.arguments)] = e.step
    # Consecutive real failures disable a tool; a replayed (recorded) result says nothing about it.
    if e.status == ObservationStatus.FAILED:
        if disables(s, e.tool, e.status):
            s.disabled.add(e.tool)
        s.failures[e.tool] = s.failures.get(e.tool, 0) + 1
    elif e.status in (ObservationStatus.OK, ObservationStatus.HTTP_ERROR):  # the tool worked; the server said no
        s.failures[e.tool] = 0


def disables(s: SessionState, tool: str, status: ObservationStatus) -> bool:
    """Whether a run (executed) observation of ``tool`` with ``status`` disables the tool: its
    ``failure_limit``-th real failure in a row. The one rule and the one counter (``s.failures``);
    the engine asks it to tell the model, the fold applies it."""
    return status == ObservationStatus.FAILED and s.failures.get(tool, 0) + 1 >= s.failure_limit


# -- streaming --------------------------------------------------------------------------------


def stream(s: SessionState, step: int, text: str, reasoning: bool) -> list[tuple[Part, str]]:
    """Fold streamed text into the step's live parts; returns the (part, text) pieces added."""
    rec = s.step_state(step)
    if step != s._stream_step:
        s._splitter = StreamSplitter()
        s._stream_step = step
    pieces = [(THOUGHT, text)] if reasoning else s._splitter.feed(text)
    for kind, piece in pieces:
        if kind == THOUGHT:
            rec.live_thought += piece
        elif kind == CALL:
            rec.live_call += piece
        elif kind == ANSWER:
            rec.live_answer += piece
            if s.status == Status.RUNNING:
                s.status = Status.ANSWERING
    return pieces


# -- the result of a run ------------------------------------------------------------------------


def result(s: SessionState, termination: Termination | str | None, elapsed_s: float | None = None) -> dict[str, Any]:
    """The run's result object (``run --json``, ``RunEnded.result``, the JSON export)."""
    answer = s.answer
    plan = plan_result(s)
    return {
        "session_id": s.session_id,
        "question": s.question,
        "answer": answer.text if answer else None,
        "answer_tagged": bool(answer and answer.tagged),
        "answer_truncated": bool(answer and answer.truncated),
        "unsupported": bool(answer and answer.unsupported),
        "termination": str(termination) if termination is not None else None,
        "model_calls": s.model_calls,
        "tool_calls": s.tool_calls,
        "prompt_tokens": s.prompt_tokens,
        "total_tokens": s.total_tokens,
        "cost_usd": s.cost_usd,
        "elapsed_s": round(s.elapsed_s if elapsed_s is None else elapsed_s, 3),
        "sources": [src.url for src in s.source_list()],
        "compactions": s.context.compacted(),
        "peak_prompt_tokens": s.peak_prompt_tokens,
        **({"plan": plan} if plan is not None else {}),  # plan mode: the plan with each sub-question's status
        **fold_team.team_result(s),  # team research: its agents and sections
    }
