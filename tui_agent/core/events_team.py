"""The events of a team research (``tui_agent/team``), kept in the parent session's log: each
sub-agent's start and end, the facts pressed from each page it read (with the page's URL), each
sub-question's section. The report itself is the run's ``AnswerEvent``; each sub-agent's own steps
are the events of its child session."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tui_agent.core.event_base import Event
from tui_agent.kinds import AgentStatus, SectionStatus


@dataclass(kw_only=True)
class AgentStarted(Event):
    """Sub-agent ``agent`` (1-based, the sub-question's number) starts, or resumes, researching its
    sub-question in the child session ``child_id``."""

    type: ClassVar[str] = "agent_started"
    agent: int
    question: str
    child_id: str
    resumed: bool = False


@dataclass(kw_only=True)
class FactsExtracted(Event):
    """The facts one page holds for one agent's sub-question (none: the page was unrelated, or the
    call failed: ``error``), each keeping the page's ``url``."""

    type: ClassVar[str] = "facts_extracted"
    agent: int
    url: str
    facts: list[str] = field(default_factory=list)
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


@dataclass(kw_only=True)
class AgentEnded(Event):
    """Sub-agent ``agent`` ended: done (it answered, forced or not) or failed (``reason``), with its figures."""

    type: ClassVar[str] = "agent_ended"
    agent: int
    status: AgentStatus
    question: str = ""
    termination: str = ""
    reason: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    peak_prompt_tokens: int = 0
    sources: list[str] = field(default_factory=list)  # the URLs it read


@dataclass(kw_only=True)
class SectionWritten(Event):
    """The section of sub-question ``agent``: its prose (written by one model call from its facts,
    or by code when no call could be made), its status and the URLs of the facts it was written from."""

    type: ClassVar[str] = "section_written"
    agent: int
    question: str
    text: str
    status: SectionStatus
    note: str = ""
    sources: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


TEAM_EVENTS: tuple[type[Event], ...] = (AgentStarted, FactsExtracted, AgentEnded, SectionWritten)
