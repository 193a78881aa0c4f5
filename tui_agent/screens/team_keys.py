"""The team's keys (issue 29 item 7): on the main screen, team mode for the next question, the
team pane and stopping agents; in an agent's view, back to the team. A table only (no screen
code): the main screen's table, the agent's view and the help screen import it."""

from __future__ import annotations

from tui_agent.widgets.actions import UiAction, table

TEAM_MAIN_ACTIONS = (
    UiAction("team_mode", "t", "Team", "Team mode on/off",
             "team mode for the next question: the plan's sub-questions researched side by side by sub-agents",
             footer=False),
    UiAction("team_pane", "g", "Team", "Team pane",
             "focus the team pane (one line per agent); Enter opens the agent's view", footer=False),
    UiAction("stop_agent", "k", "Stop agent", "Stop agent",
             "stop the focused agent or all agents (a stopped agent's section is incomplete)", footer=False),
)

AGENT_ACTIONS = table(
    UiAction("team_view", "g", "Team", "Back to the team", "back to the team view (the main screen)"),
)
