"""What a team research's events add up to (``SessionState.team``): each sub-agent with its
status and figures, the facts by agent and page, and each sub-question's section."""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_agent.kinds import AgentStatus, SectionStatus


@dataclass
class AgentRecord:
    number: int
    question: str
    child_id: str = ""
    status: AgentStatus = AgentStatus.QUEUED
    termination: str = ""
    reason: str = ""
    model_calls: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    peak_prompt_tokens: int = 0
    sources: list[str] = field(default_factory=list)
    ended: bool = False


@dataclass
class FactRecord:
    agent: int
    url: str
    text: str


@dataclass
class SectionRecord:
    number: int
    question: str
    text: str
    status: SectionStatus
    note: str = ""
    sources: list[str] = field(default_factory=list)


@dataclass
class TeamState:
    agents: dict[int, AgentRecord] = field(default_factory=dict)
    facts: list[FactRecord] = field(default_factory=list)
    pages: dict[int, set[str]] = field(default_factory=dict)  # the URLs each agent's facts were pressed from
    sections: dict[int, SectionRecord] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return bool(self.agents)

    def facts_of(self, agent: int) -> dict[str, list[str]]:
        """An agent's facts grouped by source URL, in the order the pages were read."""
        out: dict[str, list[str]] = {}
        for f in self.facts:
            if f.agent == agent:
                out.setdefault(f.url, []).append(f.text)
        return out

    def facts_by_url(self) -> dict[str, list[str]]:
        """Every agent's facts by source URL (what ``sessions verify`` checks a report's claims against)."""
        out: dict[str, list[str]] = {}
        for f in self.facts:
            if f.text not in out.setdefault(f.url, []):
                out[f.url].append(f.text)
        return out
