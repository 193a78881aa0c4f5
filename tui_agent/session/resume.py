"""Rebuilding a session from its stored events: resume, fork and replay of recorded observations.

The messages are rebuilt exactly from the events: the system prompt (RunStarted), prompt edits
at breakpoints, each research reply after cutting (ModelCallEnded), corrections and observation
messages. Counters, sources, seen calls and failures are rebuilt from the same events.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from tui_agent import protocol
from tui_agent.approval import Approve, Reject, SubmitNow
from tui_agent.config import ConfigError, Settings, apply, validate
from tui_agent.engine import RecordedCall, RunState
from tui_agent.session.events import (
    ActionProposed, AnswerEvent, Correction, Decision, Event, ForcedAnswer, ModelCallEnded,
    ModelCallStarted, Observation, ObservationMessage, PromptEdited, RunEnded, RunStarted,
    SourceAdded, ToolProgress,
)
from tui_agent.session.store import Store, StoreError, new_session_id
from tui_agent.tools.base import FAILED, OK, Source, SourceRegistry


class ResumeError(Exception):
    """The session cannot be continued (finished, unknown, damaged)."""


@dataclass
class Rebuilt:
    question: str
    state: RunState
    sources: SourceRegistry
    settings: dict[str, Any]
    ended: RunEnded | None = None
    system_prompt: str = ""
    observations: list[Observation] = field(default_factory=list)


def rebuild(events: list[Event], failure_limit: int = 3) -> Rebuilt:
    st = RunState()
    sources = SourceRegistry()
    question = ""
    settings: dict[str, Any] = {}
    ended: RunEnded | None = None
    system = ""
    observations: list[Observation] = []
    step_calls: dict[str, RecordedCall] = {}
    step_order: list[str] = []
    reply_step = -1
    research_started: dict[int, bool] = {}
    for e in events:
        st.step = max(st.step, e.step)
        st.elapsed_before_s = max(st.elapsed_before_s, e.elapsed_s)
        if isinstance(e, RunStarted):
            if not st.messages:
                question = e.question
                settings = dict(e.settings)
                system = e.system_prompt
                st.messages = [{"role": "system", "content": e.system_prompt}, {"role": "user", "content": e.question}]
            ended = None
        elif isinstance(e, PromptEdited):
            if e.index < len(st.messages):
                st.messages[e.index] = {"role": st.messages[e.index]["role"], "content": e.content}
            if e.index == 0:
                system = e.content
        elif isinstance(e, ModelCallStarted):
            research_started[e.step] = e.purpose == "research"
        elif isinstance(e, ModelCallEnded):
            if e.purpose in ("research", "forced") and not e.cancelled:
                st.prompt_tokens += e.prompt_tokens if e.prompt_tokens is not None else e.prompt_tokens_estimate
                st.completion_tokens += e.completion_tokens or 0
                if e.cost_usd is not None:
                    st.cost_usd = (st.cost_usd or 0.0) + e.cost_usd
            if e.purpose == "research" and not e.cancelled:
                st.model_calls += 1
                st.messages.append({"role": "assistant", "content": e.text})
                st.last_observation_index = None
                step_calls, step_order, reply_step = {}, [], e.step
                st.pending_calls = []
        elif isinstance(e, ToolProgress):
            st.prompt_tokens += e.prompt_tokens or 0
            st.completion_tokens += e.completion_tokens or 0
            if e.cost_usd is not None:
                st.cost_usd = (st.cost_usd or 0.0) + e.cost_usd
        elif isinstance(e, Correction):
            st.messages.append({"role": "user", "content": e.content})
            st.last_observation_index = None
            st.pending_calls = None
            if e.reason == "answer_without_evidence":
                st.evidence_refused = True
            elif e.reason == "no_action":
                st.format_errors += 1
        elif isinstance(e, ActionProposed):
            st.call_seq += 1
            rec = RecordedCall(call_id=e.call_id, error=e.error)
            step_calls[e.call_id] = rec
            step_order.append(e.call_id)
        elif isinstance(e, Decision):
            rec = step_calls.get(e.call_id)
            if rec is not None:
                rec.decision = _decision(e)
        elif isinstance(e, Observation):
            observations.append(e)
            rec = step_calls.get(e.call_id)
            if rec is not None:
                rec.observation = e.text
            if e.executed:
                st.tool_calls += 1
                st.tool_ran = True
                st.seen_calls[protocol.canonical_call(e.tool, e.arguments)] = e.step
                if e.status == FAILED:
                    st.failures[e.tool] = st.failures.get(e.tool, 0) + 1
                    if st.failures[e.tool] >= failure_limit:
                        st.disabled.add(e.tool)
                elif e.status in (OK, "replayed"):
                    st.failures[e.tool] = 0
        elif isinstance(e, ObservationMessage):
            st.messages.append({"role": "user", "content": e.content})
            st.last_observation_index = len(st.messages) - 1
            st.format_errors = 0
            st.pending_calls = None
        elif isinstance(e, SourceAdded):
            sources.restore(Source(number=e.number, url=e.url, title=e.title, read_at=e.read_at))
        elif isinstance(e, ForcedAnswer):
            st.pending_forced = e.reason
        elif isinstance(e, AnswerEvent):
            st.answered = e
        elif isinstance(e, RunEnded):
            ended = e
    if st.pending_calls is not None:
        st.pending_calls = [step_calls[c] for c in step_order]
    return Rebuilt(question, st, sources, settings, ended, system, observations)


def _decision(e: Decision) -> Any:
    if e.kind == "submit":
        return SubmitNow()
    if e.kind == "rejected":
        return Reject(e.reason)
    return Approve(e.arguments, edited=e.kind == "edited", auto=e.kind == "auto")


def _settings(stored: dict[str, Any], flags: dict[str, Any]) -> Settings:
    """The session's own settings, overridden by the flags given now."""
    s = Settings()
    known = {k: v for k, v in stored.items() if hasattr(s, k) and k != "api_key"}
    try:
        apply(s, known, "stored session settings")
        apply(s, {k: v for k, v in flags.items() if v is not None}, "command line")
        return validate(s, "settings")
    except ConfigError as exc:
        raise ResumeError(str(exc)) from None


def prepare_resume(store: Store, session_id: str, flags: dict[str, Any], *, live_tools: bool = False,
                   ) -> tuple[dict[str, Any], str, Settings]:
    """Everything ``runner.Run`` needs to continue ``session_id``: (run kwargs, question, settings)."""
    try:
        row = store.get_session(session_id)
        events = store.events(session_id)
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    if not events:
        raise ResumeError(f"session {session_id} has no events to resume from")
    settings = _settings(store.session_settings(session_id), flags)
    rb = rebuild(events, settings.tool_failure_limit)
    if rb.ended is not None and rb.ended.termination != "cancelled":
        raise ResumeError(f"session {session_id} is finished ({rb.ended.termination}); "
                          f"fork it to continue: tui-agent sessions fork {session_id} --at STEP")
    kwargs: dict[str, Any] = {"session_id": session_id, "state": rb.state, "sources": rb.sources}
    if row.parent_id and not live_tools:
        kwargs["replay"] = Replayer.from_store(store, row.parent_id, rb.sources)
    return kwargs, rb.question, settings


# -- fork -------------------------------------------------------------------------------------
def fork(store: Store, session_id: str, at_step: int, system_prompt: str | None = None) -> str:
    """A new session holding the parent's events of steps before ``at_step``; returns its id.

    The fork then makes step ``at_step``'s model call again (with the new system prompt, if any).
    """
    try:
        row = store.get_session(session_id)
        events = store.events(session_id)
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    max_step = max((e.step for e in events), default=0)
    if at_step < 1 or at_step > max(1, max_step):
        raise ResumeError(f"session {session_id} has steps 1 to {max_step}; --at {at_step} is outside them")
    keep = [e for e in events if e.step < at_step and not isinstance(e, (RunEnded, AnswerEvent, ForcedAnswer))]
    if not keep or not isinstance(keep[0], RunStarted):
        keep = [e for e in events if isinstance(e, RunStarted)][:1] + [e for e in keep if not isinstance(e, RunStarted)]
    new_id = new_session_id()
    while True:
        try:
            store.get_session(new_id)
        except StoreError:
            break
        time.sleep(0.001)
        new_id = new_session_id()
    store.create_session(new_id, row.question, row.model, store.session_settings(session_id), session_id, at_step)
    for e in keep:
        e.session_id = new_id
        if isinstance(e, RunStarted) and system_prompt is not None and e is keep[0]:
            e.system_prompt = system_prompt
        store.append(e)
    if system_prompt is not None:
        # Later prompt edits of the system message would override the new prompt: keep it.
        edit = PromptEdited(session_id=new_id, step=max(at_step - 1, 0), index=0, role="system", content=system_prompt)
        store.append(edit)
    return new_id


# -- replay -----------------------------------------------------------------------------------
_HEADER = re.compile(r"^\[(\d+)\]", re.M)


class Replayer:
    """Answers a tool call identical to one recorded in the parent with the recorded observation."""

    def __init__(self, recorded: dict[str, Observation], parent_sources: dict[int, Source], sources: SourceRegistry):
        self.recorded = recorded
        self.parent_sources = parent_sources
        self.sources = sources

    @classmethod
    def from_store(cls, store: Store, parent_id: str, sources: SourceRegistry) -> "Replayer":
        recorded: dict[str, Observation] = {}
        parent_sources: dict[int, Source] = {}
        for e in store.events(parent_id):
            if isinstance(e, Observation) and e.executed and e.status in (OK, "replayed"):
                recorded.setdefault(protocol.canonical_call(e.tool, e.arguments), e)
            elif isinstance(e, SourceAdded):
                parent_sources[e.number] = Source(e.number, e.url, e.title, e.read_at)
        return cls(recorded, parent_sources, sources)

    def __call__(self, tool: str, arguments: Any) -> Observation | None:
        obs = self.recorded.get(protocol.canonical_call(tool, arguments))
        if obs is None:
            return None
        # Register the sources it cites in this session, renumbering citations if they differ.
        mapping: dict[int, int] = {}
        for n in obs.sources:
            src = self.parent_sources.get(n)
            if src is not None:
                mapping[n] = self.sources.register(src.url, src.title).number
        text = obs.text
        if any(a != b for a, b in mapping.items()):
            text = _HEADER.sub(lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", text)
        return Observation(call_id=obs.call_id, tool=tool, arguments=arguments, text=text, status="replayed",
                           sources=[mapping.get(n, n) for n in obs.sources], executed=True)


def session_json(store: Store, session_id: str) -> dict[str, Any]:
    events = store.events(session_id)
    return {"session": store.get_session(session_id).__dict__, "events": [e.to_dict() for e in events]}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2)
