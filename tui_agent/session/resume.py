"""Continuing a stored session: resume, fork, and replay of recorded observations.

All three read the session through the one fold (``core.fold``): the message list, the
counters, the sources and what an interrupted step had done already are the folded state, so a
resumed run continues exactly where the stopped process was.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui_agent.config import ConfigError, Settings, apply, validate
from tui_agent.settings.fields import MACHINE_SETTINGS
from tui_agent.protocol import canonical_call
from tui_agent.core.events import (
    AnswerEvent, ClaimChecked, ForcedAnswer, Observation, ObservationStatus, PromptEdited, RunEnded, RunStarted,
    Termination, VerificationEnded, VerificationStarted,
)
from tui_agent.core.fold import SessionState, SourceState, fold
from tui_agent.session.store import SessionStatus, Store, StoreError, new_session_id

if TYPE_CHECKING:
    from tui_agent.agent.tool_runner import Replay
    from tui_agent.tools.base import SourceRegistry

# Settings that belong to one command line, never to a session: approval policy is asked anew on
# every run unless that run's command line says --yes; the API key is never stored.
PER_RUN_SETTINGS = ("auto_approve", "api_key")


class ResumeError(Exception):
    """The session cannot be continued (finished, unknown, damaged)."""


@dataclass
class Resumed:
    """What ``runner.Run`` needs to continue a session."""

    session_id: str
    question: str
    settings: Settings
    state: SessionState
    replay: "Replay | None" = None  # a Replayer for a fork (unless live tools were asked for)
    seen_events: int | None = None  # the stored events ``state`` folds: the run claims the session at that count

    def run_kwargs(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "state": self.state, "replay": self.replay,
                "claim_events": self.seen_events}


def session_settings(stored: dict[str, Any], flags: dict[str, Any], here: Settings | None = None) -> Settings:
    """The session's own settings, overridden by the flags given now; the machine's own settings
    (MCP servers, tool policies) are ``here``'s, the settings in force now (none without it)."""
    s = Settings()
    known = {k: v for k, v in stored.items()
             if hasattr(s, k) and k not in PER_RUN_SETTINGS and k not in MACHINE_SETTINGS}
    try:
        apply(s, known, "stored session settings")
        if here is not None:
            apply(s, {k: getattr(here, k) for k in MACHINE_SETTINGS}, "settings in force now")
        apply(s, {k: v for k, v in flags.items() if v is not None}, "command line")
        return validate(s, "settings")
    except ConfigError as exc:
        raise ResumeError(str(exc)) from None


def load(store: Store, session_id: str) -> SessionState:
    """The folded state of a stored session."""
    try:
        store.get_session(session_id)
        return fold(store.events(session_id))
    except StoreError as exc:
        raise ResumeError(str(exc)) from None


def prepare_resume(store: Store, session_id: str, flags: dict[str, Any], *, live_tools: bool = False,
                   here: Settings | None = None) -> Resumed:
    """Everything needed to continue ``session_id`` (an id or a unique prefix of one); ``here``:
    the settings in force now, whose MCP servers and tool policies the continued run uses."""
    try:
        session_id = store.resolve_id(session_id)
        row = store.get_session(session_id)
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    if store.held_elsewhere(session_id):
        raise ResumeError(f"session {session_id} is running in another process; stop that one first (or wait "
                          f"for it to end)")
    try:
        events = store.events(session_id)
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    state = fold(events)
    if not state.messages:
        raise ResumeError(f"session {session_id} has no events to resume from")
    if state.ended is not None and state.ended.termination != Termination.CANCELLED:
        raise ResumeError(f"session {session_id} is finished ({state.ended.termination}); "
                          f"fork it to continue: tui-agent sessions fork {session_id} --at STEP")
    settings = session_settings(store.session_settings(session_id), flags, here)
    try:
        replay = Replayer.from_store(store, row.parent_id) if row.parent_id and not live_tools else None
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    return Resumed(session_id, state.question, settings, state, replay, seen_events=len(events))


# -- fork -------------------------------------------------------------------------------------
def fork(store: Store, session_id: str, at_step: int, system_prompt: str | None = None) -> str:
    """A new session holding the parent's events of steps before ``at_step``; returns its id.

    The fork then makes step ``at_step``'s model call again (with the new system prompt, if any).
    """
    try:
        session_id = store.resolve_id(session_id)
        row = store.get_session(session_id)
        events = store.events(session_id)
    except StoreError as exc:
        raise ResumeError(str(exc)) from None
    max_step = max((e.step for e in events), default=0)
    if at_step < 1 or at_step > max(1, max_step):
        raise ResumeError(f"session {session_id} has steps 1 to {max_step}; --at {at_step} is outside them")
    ending = (RunEnded, AnswerEvent, ForcedAnswer, VerificationStarted, ClaimChecked, VerificationEnded)
    keep = [e for e in events if e.step < at_step and not isinstance(e, ending)]
    if not keep or not isinstance(keep[0], RunStarted):
        keep = [e for e in events if isinstance(e, RunStarted)][:1] + [e for e in keep if not isinstance(e, RunStarted)]
    new_id = new_session_id()
    while store.has_session(new_id):
        time.sleep(0.001)
        new_id = new_session_id()
    store.create_session(new_id, row.question, row.model, store.session_settings(session_id), session_id, at_step,
                         status=SessionStatus.NEW)
    for e in keep:
        e.session_id = new_id
        if isinstance(e, RunStarted) and system_prompt is not None and e is keep[0]:
            e.system_prompt = system_prompt
        store.append(e)
    if system_prompt is not None:
        # Later prompt edits of the system message would override the new prompt: keep it.
        store.append(PromptEdited(session_id=new_id, step=max(at_step - 1, 0), index=0, role="system",
                                  content=system_prompt))
    store.release(new_id, SessionStatus.NEW)  # nobody runs it yet: whoever continues it resumes it
    return new_id


# -- replay -----------------------------------------------------------------------------------
_HEADER = re.compile(r"^\[(\d+)\]", re.M)


class Replayer:
    """Answers a tool call identical to one recorded in the parent with the recorded observation."""

    def __init__(self, parent: SessionState) -> None:
        self.recorded = {}
        for call in parent.observations():
            if call.executed and call.status in (ObservationStatus.OK, ObservationStatus.HTTP_ERROR,
                                                 ObservationStatus.REPLAYED):
                self.recorded.setdefault(canonical_call(call.tool, call.arguments), call)
        self.parent_sources = {s.number: s for s in parent.sources.values()}

    @classmethod
    def from_store(cls, store: Store, parent_id: str) -> "Replayer":
        return cls(fold(store.events(parent_id)))

    def __call__(self, tool: str, arguments: Any, sources: "SourceRegistry") -> Observation | None:
        """The recorded observation of this call, its sources registered in ``sources`` (the
        fork's SourceRegistry) and its citation numbers renumbered to match; None when the
        parent never made the call."""
        call = self.recorded.get(canonical_call(tool, arguments))
        if call is None or call.observation is None:
            return None
        # Register the sources it cites in this session, renumbering citations if they differ.
        mapping: dict[int, int] = {}
        for n in call.sources:
            src: SourceState | None = self.parent_sources.get(n)
            if src is not None:
                mapping[n] = sources.register(src.url, src.title).number
        text = call.observation
        if any(a != b for a, b in mapping.items()):
            text = _HEADER.sub(lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", text)
        return Observation(call_id=call.call_id, tool=tool, arguments=arguments, text=text,
                           status=ObservationStatus.REPLAYED, sources=[mapping.get(n, n) for n in call.sources],
                           executed=True)
