"""The fold's share for a team research (see ``tui_agent.team``): what ``AgentStarted``,
``FactsExtracted``, ``AgentEnded`` and ``SectionWritten`` do to ``SessionState.team``, and the
``agents`` and ``sections`` of the result. Called by ``core.fold`` only."""

from __future__ import annotations

from typing import Any, Callable

from tui_agent.core.events_team import AgentEnded, AgentStarted, FactsExtracted, SectionWritten
from tui_agent.core.state import SessionState
from tui_agent.core.team_state import AgentRecord, FactRecord, SectionRecord
from tui_agent.kinds import AgentStatus, SectionStatus

Usage = Callable[[SessionState, int, int, "float | None"], None]


def apply(s: SessionState, e: AgentStarted | FactsExtracted | AgentEnded | SectionWritten,
          research: Usage, auxiliary: Usage) -> None:
    """Fold one team event and count its usage: an agent's calls as research (they are the team's
    research steps), the facts and section calls as auxiliary."""
    match e:
        case AgentStarted():
            agent_started(s, e)
        case FactsExtracted():
            facts_extracted(s, e)
            auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case AgentEnded():
            agent_ended(s, e)
            research(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)
        case SectionWritten():
            section_written(s, e)
            auxiliary(s, e.prompt_tokens, e.completion_tokens, e.cost_usd)


def agent_started(s: SessionState, e: AgentStarted) -> None:
    rec = s.team.agents.get(e.agent)
    if rec is None:
        rec = s.team.agents[e.agent] = AgentRecord(e.agent, e.question)
    rec.child_id = e.child_id
    rec.status = AgentStatus.RUNNING
    rec.ended = False


def facts_extracted(s: SessionState, e: FactsExtracted) -> None:
    s.team.pages.setdefault(e.agent, set()).add(e.url)
    for text in e.facts:
        s.team.facts.append(FactRecord(e.agent, e.url, text))


def agent_ended(s: SessionState, e: AgentEnded) -> None:
    rec = s.team.agents.get(e.agent)
    if rec is None:
        rec = s.team.agents[e.agent] = AgentRecord(e.agent, e.question)
    rec.status, rec.termination, rec.reason = e.status, e.termination, e.reason
    rec.model_calls, rec.tokens, rec.cost_usd = e.model_calls, e.prompt_tokens + e.completion_tokens, e.cost_usd
    rec.peak_prompt_tokens, rec.sources, rec.ended = e.peak_prompt_tokens, list(e.sources), True
    s.model_calls += e.model_calls  # the team's figures are the session's


def section_written(s: SessionState, e: SectionWritten) -> None:
    s.team.sections[e.agent] = SectionRecord(e.agent, e.question, e.text, e.status, e.note, list(e.sources))
    rec = s.team.agents.get(e.agent)
    if rec is not None and rec.status == AgentStatus.DONE and e.status == SectionStatus.NEEDS_REVIEW:
        rec.status = AgentStatus.NEEDS_REVIEW


def team_result(s: SessionState) -> dict[str, Any]:
    """``agents`` and ``sections`` of ``run --json`` and the JSON export (nothing for a plain run)."""
    t = s.team
    if not t.active:
        return {}
    agents = [{"agent": a.number, "question": a.question, "status": str(a.status), "termination": a.termination or None,
               "reason": a.reason, "model_calls": a.model_calls, "tokens": a.tokens, "cost_usd": a.cost_usd,
               "peak_prompt_tokens": a.peak_prompt_tokens, "sources": list(a.sources), "child_id": a.child_id}
              for a in sorted(t.agents.values(), key=lambda a: a.number)]
    sections = [{"number": x.number, "question": x.question, "status": str(x.status), "note": x.note,
                 "sources": list(x.sources)} for x in sorted(t.sections.values(), key=lambda x: x.number)]
    return {"agents": agents, "sections": sections}
