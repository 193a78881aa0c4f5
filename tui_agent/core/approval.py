"""Approval of tool calls: typed decisions, the request, and the seam front ends implement.

The engine applies the run's policy itself (auto mode and always-allowed tools are session
state, see ``core.state.ApprovalPolicy``) and asks an :class:`Approver` only when a person must
decide: ``await approver.decide(request)`` returns one of :class:`Approve`, :class:`Reject` or
:class:`SubmitNow`. Event-driven front ends answer by resolving ``request.future`` (toad's
habit): :class:`FutureApprover`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable, Protocol, Union

from tui_agent.core.events import DecisionKind

JSON = Union[dict[str, "JSON"], list["JSON"], str, int, float, bool, None]
"""A JSON value: a tool call's arguments as the model wrote them (validated against the schema later)."""
Schema = dict[str, JSON]
"""A tool's JSON schema."""


@dataclass
class Approve:
    arguments: JSON
    edited: bool = False
    auto: bool = False
    always: bool = False  # also approve this tool for the rest of the run
    policy: bool = False  # allowed by a tool policy in the configuration (agent.tool_policy), not by a person


@dataclass
class Reject:
    reason: str = "rejected by the user"
    policy: bool = False  # denied by a tool policy in the configuration (agent.tool_policy), not by a person


@dataclass
class SubmitNow:
    pass


DecisionT = Union[Approve, Reject, SubmitNow]


@dataclass
class ApprovalRequest:
    call_id: str
    step: int
    tool: str
    arguments: JSON
    schema: Schema
    future: "asyncio.Future[DecisionT] | None" = field(default=None, repr=False)
    outside_plan: bool = False  # an approved plan is in force and does not cover this call
    agent: str = ""  # a team research's sub-agent that asks (its number and sub-question), "" for the run's own


class Approver(Protocol):
    """What the engine asks when a person must decide on a tool call (or, in plan mode, on the plan
    or clarifying questions: ``plan.requests``, answered with its typed answers)."""

    async def decide(self, request: ApprovalRequest) -> DecisionT: ...


class FutureApprover:
    """For event-driven front ends: each request carries a future the UI resolves."""

    def __init__(self, notify: Callable[[ApprovalRequest], None]) -> None:
        self.notify = notify
        self.pending: ApprovalRequest | None = None

    async def decide(self, request: ApprovalRequest) -> DecisionT:
        future: asyncio.Future[DecisionT] = asyncio.get_running_loop().create_future()
        request.future = future
        self.pending = request
        self.notify(request)
        try:
            return await future
        finally:
            self.pending = None


def decision_kind(decision: DecisionT) -> DecisionKind:
    match decision:
        case SubmitNow():
            return DecisionKind.SUBMIT
        case Reject():
            return DecisionKind.REJECTED
        case Approve(edited=True):
            return DecisionKind.EDITED
        case Approve(policy=True):
            return DecisionKind.POLICY
        case Approve(auto=True):
            return DecisionKind.AUTO
        case _:
            return DecisionKind.APPROVED


def recorded_decision(kind: DecisionKind | None, arguments: JSON, reason: str) -> DecisionT | None:
    """The typed decision a stored Decision event stands for (None when there was none)."""
    match kind:
        case None:
            return None
        case DecisionKind.SUBMIT:
            return SubmitNow()
        case DecisionKind.REJECTED:
            return Reject(reason)
        case _:
            return Approve(arguments, edited=kind == DecisionKind.EDITED,
                           auto=kind in (DecisionKind.AUTO, DecisionKind.POLICY), policy=kind == DecisionKind.POLICY)
