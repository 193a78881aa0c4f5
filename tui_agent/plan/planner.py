"""The engine's step before the research loop in plan mode: clarifying questions (``plan =
clarify``), then the plan, proposed by one model call and decided by the person (or approved
without asking under ``--yes`` / auto mode / no approver), replanned with their feedback until
approved, edited or skipped. Everything is an event; a resumed run picks up where the stored one
stopped (a proposal that waited is asked again, never made again).

Questions go through the run's ``Approver`` (``PlanRequest``, ``ClarifyRequest``) inside the run
control's human wait, like a tool call's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

from tui_agent.kinds import NoticeLevel, PlanDecisionKind, PlanMode, Purpose
from tui_agent.model.jsonreply import json_object
from tui_agent.plan import prompts
from tui_agent.plan.policy import gated
from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanDecision, PlanRequest
from tui_agent.core.plan_schema import Plan, read_plan
from tui_agent.core.events import ClarifyAnswered, ClarifyAsked, Event, Notice, PlanDecided, PlanProposed

if TYPE_CHECKING:
    from tui_agent.core.approval import Approver
    from tui_agent.core.run_control import RunControl
    from tui_agent.config import Settings
    from tui_agent.model import Reply
    from tui_agent.core.state import SessionState

MAX_QUESTIONS = 3


class PlanSkipped(Exception):
    """Submit now while planning: the run goes on to the forced answer."""


class Planner:
    """Declared inputs: the settings (``plan``, ``max_format_errors``), the session ``state`` it
    reads, ``emit`` (its only way to change anything), the ``approver`` (None: approved unasked),
    the run ``control`` (human waits, Submit now), ``complete`` (a retried model call, purpose
    plan), ``auto`` (whether this run approves without asking) and ``use_gates`` (takes the settings
    with the plan's budget as the run's gates). The engine wires them (``Engine._planner``)."""

    def __init__(self, *, settings: Settings, state: SessionState, emit: Callable[[Event], None],
                 approver: Approver | None, control: RunControl,
                 complete: Callable[..., Awaitable[Reply]], auto: Callable[[], bool],
                 use_gates: Callable[[Settings], None] = lambda s: None) -> None:
        self.settings, self.state, self.emit = settings, state, emit
        self.approver, self.control, self.complete, self.auto = approver, control, complete, auto
        self.use_gates = use_gates  # takes the settings with the plan's budget as the run's gates

    @property
    def wanted(self) -> bool:
        """Plan mode applies: on, and nothing researched yet (or a plan under way to finish)."""
        p = self.state.plan
        if p.decided:
            return False
        if p.active:
            return True
        return self.settings.plan != PlanMode.OFF and self.state.model_calls == 0 and not self.state.tool_ran

    async def prepare(self) -> None:
        """Clarify (if asked for), then plan, until the plan is decided. Submit now skips the rest."""
        from tui_agent.core.run_control import SubmitRequested

        try:
            if self.wanted and not self.control.submitted:
                await self._plan()
        except (SubmitRequested, PlanSkipped):
            if not self.state.plan.decided:
                self.emit(PlanDecided(kind=PlanDecisionKind.SKIPPED, feedback="Submit now"))
            self.control.request_submit()
        self.use_gates(gated(self.settings, self.state))

    async def _plan(self) -> None:
        p = self.state.plan
        if self.settings.plan == PlanMode.CLARIFY and p.answers is None:
            await self._clarify()
        while not p.decided:
            if p.pending is None:
                if p.unreadable >= self.settings.max_format_errors:
                    self.emit(Notice(level=NoticeLevel.WARNING, text=(
                        f"No usable plan after {p.unreadable} replies; the research goes on without one.")))
                    self.emit(PlanDecided(kind=PlanDecisionKind.SKIPPED, feedback="no usable plan", auto=True))
                    return
                await self._propose()
                continue
            await self._decide()

    # -- clarify ---------------------------------------------------------------------------------
    async def _clarify(self) -> None:
        p = self.state.plan
        if not p.asked:
            reply = await self.complete(prompts.clarifier_messages(self.state.question), purpose=Purpose.PLAN)
            obj = json_object(reply.text) or {}
            raw = obj.get("questions")
            questions = [" ".join(str(q).split()) for q in (raw if isinstance(raw, list) else []) if str(q).strip()]
            self.emit(ClarifyAsked(questions=questions[:MAX_QUESTIONS], raw=reply.text, **_usage(reply)))
        if not p.questions:
            self.emit(ClarifyAnswered(answers=[], text=""))
            return
        answers: list[str] = []
        if self.approver is not None:
            got = await self.control.human(self.approver.decide(ClarifyRequest(list(p.questions))))  # type: ignore[arg-type]
            answers = self._answers(got)
        self.emit(ClarifyAnswered(answers=answers, text=prompts.clarifications(p.questions, answers)))

    def _answers(self, got: Any) -> list[str]:
        from tui_agent.core.approval import SubmitNow

        if isinstance(got, SubmitNow):
            raise PlanSkipped()
        if isinstance(got, ClarifyAnswers):
            n = len(self.state.plan.questions)
            return ([" ".join(str(a).split()) for a in got.answers] + [""] * n)[:n] if got.answers else []
        return []

    # -- the plan ---------------------------------------------------------------------------------
    async def _propose(self) -> None:
        p = self.state.plan
        feedback = p.next_feedback
        previous = next((x.plan for x in reversed(p.proposals) if x.plan is not None), None)
        error = p.proposals[-1].error if p.proposals and p.unreadable else ""
        msgs = prompts.planner_messages(self.state.messages[1]["content"] if len(self.state.messages) > 1
                                        else self.state.question, feedback, previous, error)
        reply = await self.complete(msgs, purpose=Purpose.PLAN)
        plan, error = read_plan(reply.text)
        self.emit(PlanProposed(plan=plan.to_dict() if plan is not None else None, raw=reply.text,
                               attempt=len(p.proposals) + 1, feedback=feedback, error=error, **_usage(reply)))

    async def _decide(self) -> None:
        from tui_agent.core.approval import Approve, SubmitNow

        proposal = self.state.plan.pending
        assert proposal is not None and proposal.plan is not None
        if self.approver is None or self.auto():
            self.emit(_approved(PlanDecisionKind.APPROVED, proposal.plan, auto=True))
            return
        request = PlanRequest(proposal.plan, proposal.attempt, step=self.state.step)
        got = await self.control.human(self.approver.decide(request))  # type: ignore[arg-type]
        if isinstance(got, SubmitNow):
            raise PlanSkipped()
        if isinstance(got, Approve):  # auto mode came on while it waited
            got = PlanDecision(PlanDecisionKind.APPROVED, auto=True)
        if not isinstance(got, PlanDecision):
            got = PlanDecision(PlanDecisionKind.SKIPPED, feedback="no decision")
        match got.kind:
            case PlanDecisionKind.APPROVED | PlanDecisionKind.EDITED:
                plan = got.plan or proposal.plan
                self.emit(_approved(got.kind, plan, auto=got.auto))
            case PlanDecisionKind.REPLAN:
                self.emit(PlanDecided(kind=got.kind, feedback=got.feedback.strip() or "another plan, please"))
            case _:
                self.emit(PlanDecided(kind=PlanDecisionKind.SKIPPED, feedback=got.feedback))


def _approved(kind: PlanDecisionKind, plan: Plan, *, auto: bool) -> PlanDecided:
    """The decision that puts ``plan`` in force, with the text the research model reads after the
    question (written from the plan as the event stores it, as the fold reads it back)."""
    stored = plan.to_dict()
    return PlanDecided(kind=kind, plan=stored, auto=auto, plan_text=prompts.plan_block(Plan.from_dict(stored)))


def _usage(reply: Reply) -> dict[str, Any]:
    return {"prompt_tokens": reply.prompt_tokens or 0, "completion_tokens": reply.completion_tokens or 0,
            "cost_usd": reply.cost_usd}
