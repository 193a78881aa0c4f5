"""Team research (issue 29; seed §2.2–2.4, §3.4–3.6, §4.3): after the plan is approved, one
sub-agent per sub-question (``executor``), facts per page read (``facts``), a section per
sub-question and the report assembled by code (``sections``), one budget for the team (``budget``).
The engine side only: no front-end imports. Front ends follow the agents through
:class:`~tui_agent.team.agents.AgentHandle`."""

from tui_agent.team.agents import AgentHandle
from tui_agent.team.executor import TeamResearch

__all__ = ["AgentHandle", "TeamResearch"]
