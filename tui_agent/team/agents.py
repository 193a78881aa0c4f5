"""A sub-agent as front ends see it: its number, sub-question, status, tokens, its own state and
event stream, and the controls a person has over it (Submit now, stop, auto mode). Typed and safe
to read from the run's loop; the controls are safe from any thread (they go through the run)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from tui_agent.core.approval import ApprovalRequest, Approver, DecisionT
from tui_agent.core.events import Event
from tui_agent.kinds import AgentStatus

if TYPE_CHECKING:
    from tui_agent.agent.runner import Run
    from tui_agent.core.plan_schema import SubQuestion
    from tui_agent.core.state import SessionState


@dataclass
class AgentHandle:
    number: int
    sub: SubQuestion
    status: AgentStatus = AgentStatus.QUEUED
    child_id: str = ""
    reason: str = ""  # why it failed
    run: Run | None = None
    final_state: SessionState | None = None  # once it has ended (or was finished before a resume)
    waiting_since: float | None = None  # loop time its approval request was made
    listeners: list[Callable[[Event], None]] = field(default_factory=list)
    stop_requested: bool = False
    _task: asyncio.Task | None = field(default=None, repr=False)

    @property
    def question(self) -> str:
        return self.sub.question

    @property
    def label(self) -> str:
        """How an approval request names it."""
        return f"agent {self.number}: {self.sub.question}"

    @property
    def state(self) -> SessionState | None:
        """Its session state (live while it runs)."""
        if self.run is not None and self.run.engine is not None:
            return self.run.engine.state
        return self.final_state

    @property
    def tokens(self) -> int:
        st = self.state
        return st.total_tokens if st is not None else 0

    def follow(self, listener: Callable[[Event], None]) -> None:
        """Receive its events from now on (its stored ones: ``state``)."""
        self.listeners.append(listener)

    def emit(self, event: Event) -> None:
        for listener in list(self.listeners):
            listener(event)

    def submit_now(self) -> None:
        """This agent answers now from what it has."""
        if self.run is not None:
            self.run.request_submit()

    def stop(self) -> None:
        """This agent stops (its section is incomplete: stopped by you); the others go on."""
        self.stop_requested = True
        if self._task is not None and not self._task.done():
            self._task.get_loop().call_soon_threadsafe(self._task.cancel)

    def set_auto(self, on: bool) -> None:
        if self.run is not None:
            self.run.set_auto(on)


class AgentApprover:
    """The team's one approval gate, seen from one agent: each request names the agent, and its
    status is *waiting* while a person decides."""

    def __init__(self, inner: Approver, handle: AgentHandle, changed: Callable[[AgentHandle], None],
                 one_at_a_time: asyncio.Lock | None = None) -> None:
        self.inner, self.handle, self.changed = inner, handle, changed
        self.lock = one_at_a_time  # a terminal asks one question at a time

    async def decide(self, request: ApprovalRequest) -> DecisionT:
        request.agent = self.handle.label
        h = self.handle
        h.status, h.waiting_since = AgentStatus.WAITING, asyncio.get_running_loop().time()
        self.changed(h)
        try:
            if self.lock is None:
                return await self.inner.decide(request)
            async with self.lock:
                return await self.inner.decide(request)
        finally:
            h.status, h.waiting_since = AgentStatus.RUNNING, None
            self.changed(h)
