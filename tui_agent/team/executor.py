"""The executor of a team research (seed §2.2–2.4): once the plan is approved, one sub-agent per
sub-question, at most ``team_concurrency`` at once (the others queued), each a :class:`Run` of its
own in a child session; then a section per sub-question and the report.

It is the engine's research hook (``Engine(research=…)``): it emits the team's events through the
parent engine (so they are folded and stored in the parent session) and returns the termination.
A resumed team runs again only the agents that had not ended; the ended ones' facts are reused.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any, Callable

from tui_agent.agent.runner import Run
from tui_agent.core import fold
from tui_agent.core.events import AnswerEvent, Event, ModelCallEnded, Notice, NoticeLevel, Observation, SourceAdded
from tui_agent.core.events_team import AgentEnded, AgentStarted, FactsExtracted
from tui_agent.core.plan_schema import Plan, SubQuestion
from tui_agent.kinds import AgentStatus, SectionStatus, Termination
from tui_agent.team import facts as team_facts
from tui_agent.team import prompts, sections
from tui_agent.team.agents import AgentApprover, AgentHandle
from tui_agent.team.budget import TeamBudget

if TYPE_CHECKING:
    import httpx

    from tui_agent.agent.engine import Engine
    from tui_agent.config import Settings
    from tui_agent.core.approval import Approver
    from tui_agent.core.state import SessionState
    from tui_agent.model import Model
    from tui_agent.tools.base import ToolRegistry

DONE_TERMINATIONS = frozenset({Termination.ANSWER, Termination.TOKEN_LIMIT, Termination.CALL_LIMIT,
                               Termination.TIME_LIMIT, Termination.BUDGET_LIMIT, Termination.USER_SUBMIT})


class TeamResearch:
    """``store``: where the child sessions go (None: not saved); ``approver``: the one gate (None:
    every call approved); ``llm``: the model every agent and call shares (None: one for the
    settings); ``tools``: a registry factory per agent (None: the built-in tools); ``listeners``:
    per agent number, extra listeners of its events (the headless trace); ``changed``: called when
    an agent's status changes (a front end's pane)."""

    def __init__(self, settings: Settings, *, store: Any = None, approver: Approver | None = None,
                 llm: Model | None = None, tools: Callable[[], ToolRegistry] | None = None,
                 http: "httpx.AsyncClient | None" = None,
                 listeners: Callable[[int], list[Callable[[Event], None]]] | None = None,
                 changed: Callable[[AgentHandle], None] | None = None, serial_approvals: bool = False) -> None:
        self.settings, self.store, self.approver, self.llm = settings, store, approver, llm
        self.tools, self.http = tools, http
        self.listeners = listeners or (lambda n: [])
        self.changed = changed or (lambda h: None)
        self.agents: list[AgentHandle] = []
        self._approval_lock = asyncio.Lock() if serial_approvals else None
        self._engine: Engine | None = None
        self._spent_said = False
        self._fact_tasks: dict[int, list[asyncio.Task[None]]] = {}
        self._pressing: set[tuple[int, str]] = set()  # (agent, URL) whose facts call is under way or done

    # -- controls (front ends) -------------------------------------------------------------------
    def submit_all(self) -> None:
        """Every running agent answers now; queued ones do not start."""
        for h in self.agents:
            if h.status == AgentStatus.QUEUED:
                h.stop_requested = True
            h.submit_now()

    def stop_all(self) -> None:
        for h in self.agents:
            h.stop()

    def set_auto(self, on: bool) -> None:
        for h in self.agents:
            h.set_auto(on)

    # -- the hook --------------------------------------------------------------------------------
    async def __call__(self, engine: Engine) -> Termination:
        self._engine = engine
        plan = engine.state.plan.approved
        assert plan is not None
        if self.llm is None:
            from tui_agent.model.llm import LLM

            self.llm = LLM(self.settings)
        self.budget = TeamBudget(engine.settings, engine.state, self._running_states, engine.elapsed)
        self.agents = [AgentHandle(i, sq) for i, sq in enumerate(plan.sub_questions, 1)]
        slots = asyncio.Semaphore(max(1, self.settings.team_concurrency))
        watcher = asyncio.ensure_future(self._watch_submit(engine))
        tasks = [asyncio.ensure_future(self._agent(engine, plan, h, slots)) for h in self.agents]
        for h, t in zip(self.agents, tasks):
            h._task = t
        try:
            for h, t in zip(self.agents, tasks):
                await self._settle(engine, plan, h, t)
        except asyncio.CancelledError:  # the team's run is cancelled: so is every agent (each stays resumable)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            watcher.cancel()
        have_facts = bool(engine.state.team.facts)
        engine.emit(AnswerEvent(text=sections.report(engine.state, plan.sub_questions), tagged=True,
                                unsupported=not have_facts))
        return Termination.ANSWER

    async def _watch_submit(self, engine: Engine) -> None:
        await engine.control.submit.wait()  # Submit now on the team's run: every agent answers
        self.submit_all()

    def _running_states(self) -> list[SessionState]:
        return [h.run.engine.state for h in self.agents
                if h.run is not None and h.run.engine is not None and h.final_state is None]

    async def _settle(self, engine: Engine, plan: Plan, h: AgentHandle, task: asyncio.Task[None]) -> None:
        """Wait for one agent's task; a stop of that agent alone ends it as failed, never the team."""
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if not h.stop_requested or not task.done():
                raise
            if engine.state.team.agents.get(h.number) is None or not engine.state.team.agents[h.number].ended:
                await self._end_agent(engine, plan, h, AgentStatus.FAILED, Termination.CANCELLED, "stopped by you")

    # -- one agent -------------------------------------------------------------------------------
    async def _agent(self, engine: Engine, plan: Plan, h: AgentHandle, slots: asyncio.Semaphore) -> None:
        rec = engine.state.team.agents.get(h.number)
        if rec is not None and rec.ended:  # finished before a resume: its facts stand
            h.status, h.child_id, h.reason = rec.status, rec.child_id, rec.reason
            if h.number not in engine.state.team.sections:
                await self._write_section(engine, h, rec.reason if rec.status == AgentStatus.FAILED else "")
            return
        async with slots:
            if h.stop_requested:
                return await self._end_agent(engine, plan, h, AgentStatus.FAILED, Termination.USER_SUBMIT,
                                             "not started: Submit now came first")
            spent = self.budget.spent()
            if spent is not None:
                return await self._end_agent(engine, plan, h, AgentStatus.FAILED, spent,
                                             f"not started: the team budget was spent ({spent})")
            run = self._child_run(engine, plan, h, rec.child_id if rec is not None else "")
            h.status = AgentStatus.RUNNING
            self.changed(h)
            status, termination, reason = AgentStatus.DONE, "", ""
            if run is None:  # its child session had ended before the resume
                assert h.final_state is not None
                termination = str(h.final_state.ended.termination) if h.final_state.ended else ""
            else:
                try:
                    result = await run.start()
                    termination = str(result.get("termination") or "")
                except asyncio.CancelledError:
                    if not h.stop_requested:
                        raise
                    status, termination, reason = AgentStatus.FAILED, Termination.CANCELLED, "stopped by you"
                except Exception as exc:  # noqa: BLE001 - one agent's failure ends that agent only
                    status, termination, reason = AgentStatus.FAILED, Termination.MODEL_ERROR, f"{type(exc).__name__}: {exc}"
                h.final_state = run.engine.state if run.engine is not None else None
            st = h.final_state
            if status == AgentStatus.DONE and termination not in DONE_TERMINATIONS:
                status = AgentStatus.FAILED
                reason = (st.ended.message if st is not None and st.ended and st.ended.message else "") or termination
            await self._end_agent(engine, plan, h, status, termination, reason)

    def _child_run(self, engine: Engine, plan: Plan, h: AgentHandle, child_id: str) -> Run | None:
        """The agent's run: a new child session, or its stored one resumed (None: it had ended)."""
        from tui_agent.core.sink import new_session_id

        s = dataclasses.replace(engine.settings, plan="off", team=False)
        question = prompts.first_message(h.sub, engine.state.question)
        state = _child_state(plan, h.sub)
        claim: int | None = None
        resumed = False
        if child_id and self.store is not None and self._own_child(engine, child_id):
            events = self.store.events(child_id)
            fold.fold(events, state)
            if state.ended is not None and state.ended.termination != Termination.CANCELLED:
                h.final_state, h.child_id = state, child_id
                return None
            claim, resumed = len(events), True
        else:
            child_id = new_session_id()
            if self.store is not None:
                self.store.create_session(child_id, question, s.model or "", s.summary(), team_parent=engine.session_id,
                                          team_agent=h.number)
        h.child_id = child_id
        engine.emit(AgentStarted(agent=h.number, question=h.sub.question, child_id=child_id, resumed=resumed))
        approver = AgentApprover(self.approver, h, self.changed, self._approval_lock) if self.approver else None
        run = Run(s, question, store=self.store, approver=approver, session_id=child_id, llm=self.llm, state=state,
                  system_prompt=None if resumed else prompts.collector_template(s.protocol),
                  tools=self.tools() if self.tools is not None else None, http=self.http, claim_events=claim,
                  listeners=[lambda e, h=h: self._on_child_event(engine, h, e), h.emit, *self.listeners(h.number)],
                  agent=h.label)
        h.run = run
        return run

    def _own_child(self, engine: Engine, child_id: str) -> bool:
        """A stored child session of this team's session (a fork's copied events name the
        original's children: the fork researches those agents afresh)."""
        if not self.store.has_session(child_id):
            return False
        return self.store.get_session(child_id).team_parent == engine.session_id

    def _on_child_event(self, engine: Engine, h: AgentHandle, e: Event) -> None:
        match e:
            case ModelCallEnded():
                spent = self.budget.spent()
                if spent is not None:
                    if not self._spent_said:
                        self._spent_said = True
                        engine.emit(Notice(level=NoticeLevel.WARNING,
                                           text=f"The team budget is spent ({spent}): every agent answers now."))
                    self.submit_all()
            case Observation(executed=True) if e.tool in team_facts.PAGE_TOOLS and h.run and h.run.engine:
                state = h.run.engine.state
                call = state.calls.get(e.call_id)
                if call is not None:
                    for url, text in team_facts.pages(call, state).items():
                        self._fact_tasks.setdefault(h.number, []).append(
                            asyncio.ensure_future(self._facts(engine, h, url, text)))

    async def _facts(self, engine: Engine, h: AgentHandle, url: str, text: str) -> None:
        key = (h.number, url)
        if key in self._pressing or url in engine.state.team.pages.get(h.number, set()) or self.budget.spent():
            return
        self._pressing.add(key)  # a second reading of the page is not pressed again
        model = self.settings.extract_model or engine.model
        event = await team_facts.extract(self.llm, model, h.number, h.sub.question, url, text)  # type: ignore[arg-type]
        self._emit_facts(engine, event)

    def _emit_facts(self, engine: Engine, event: FactsExtracted) -> None:
        if event.facts and event.url not in engine.state.sources:
            engine.emit(SourceAdded(number=len(engine.state.sources) + 1, url=event.url))
        engine.emit(event)

    async def _end_agent(self, engine: Engine, plan: Plan, h: AgentHandle, status: AgentStatus,
                         termination: str, reason: str) -> None:
        """Its facts (the pages not yet pressed: a resumed agent's), its end, its section."""
        await asyncio.gather(*self._fact_tasks.pop(h.number, []), return_exceptions=True)
        st = h.final_state
        if st is not None:
            for url, text in team_facts.pages_read(st).items():
                await self._facts(engine, h, url, text)
        h.status, h.reason = status, reason
        engine.emit(AgentEnded(
            agent=h.number, question=h.sub.question, status=status, termination=str(termination), reason=reason,
            model_calls=st.model_calls if st else 0, prompt_tokens=st.prompt_tokens if st else 0,
            completion_tokens=st.completion_tokens if st else 0, cost_usd=st.cost_usd if st else None,
            peak_prompt_tokens=st.peak_prompt_tokens if st else 0,
            sources=[s.url for s in st.source_list()] if st else []))
        await self._write_section(engine, h, reason if status == AgentStatus.FAILED else "")
        self.changed(h)

    async def _write_section(self, engine: Engine, h: AgentHandle, failure: str) -> None:
        numbers = {s.url: s.number for s in engine.state.sources.values()}
        facts = engine.state.team.facts_of(h.number)
        spent = self.budget.spent()
        section = await sections.write(self.llm, engine.model, h.number, h.sub, facts, numbers, failure,
                                       no_call=f"the team budget is spent ({spent})" if spent else "")
        engine.emit(section)
        if section.status == SectionStatus.NEEDS_REVIEW and h.status == AgentStatus.DONE:
            h.status = AgentStatus.NEEDS_REVIEW


def _child_state(plan: Plan, sub: SubQuestion) -> SessionState:
    """A sub-agent's starting state: the plan in force for it is its own sub-question (its queries
    and the plan's domains approve its calls unasked, as the plan does for a plain run)."""
    state = fold.new_state()
    state.plan.approved = Plan(sub_questions=[sub], domains=list(plan.domains))
    return state
