"""Approval of tool calls: typed decisions and the policies around a front end's asker.

The engine asks ``await approver.decide(request)`` and gets one of ``Approve``, ``Reject`` or
``SubmitNow``. A front end answers by resolving ``request.future`` (toad's habit); policies
(auto mode, always-allow per tool) answer before the user is asked.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Union


@dataclass
class Approve:
    arguments: Any
    edited: bool = False
    auto: bool = False
    always: bool = False  # also approve this tool for the rest of the session


@dataclass
class Reject:
    reason: str = "rejected by the user"


@dataclass
class SubmitNow:
    pass


DecisionT = Union[Approve, Reject, SubmitNow]


@dataclass
class ApprovalRequest:
    call_id: str
    step: int
    tool: str
    arguments: Any
    schema: dict[str, Any]
    future: asyncio.Future | None = field(default=None, repr=False)


class AutoApprover:
    """Approves everything (``--yes``)."""

    async def decide(self, request: ApprovalRequest) -> DecisionT:
        return Approve(request.arguments, auto=True)


class PolicyApprover:
    """Asks ``ask(request)`` unless auto mode is on or the tool is always allowed."""

    def __init__(self, ask: Callable[[ApprovalRequest], Awaitable[DecisionT]], *, auto: bool = False) -> None:
        self.ask = ask
        self.auto = auto
        self.always: set[str] = set()

    async def decide(self, request: ApprovalRequest) -> DecisionT:
        if self.auto or request.tool in self.always:
            return Approve(request.arguments, auto=True)
        decision = await self.ask(request)
        if isinstance(decision, Approve) and decision.always:
            self.always.add(request.tool)
        return decision


class FutureApprover(PolicyApprover):
    """For event-driven front ends: each request carries a future the UI resolves."""

    def __init__(self, notify: Callable[[ApprovalRequest], None], *, auto: bool = False) -> None:
        super().__init__(self._ask, auto=auto)
        self.notify = notify
        self.pending: ApprovalRequest | None = None

    async def _ask(self, request: ApprovalRequest) -> DecisionT:
        loop = asyncio.get_running_loop()
        request.future = loop.create_future()
        self.pending = request
        self.notify(request)
        try:
            return await request.future
        finally:
            self.pending = None
