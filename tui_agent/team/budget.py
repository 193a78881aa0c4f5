"""One budget for the whole team (seed §4.3): calls, time, tokens and cost charged across the
parent (plan, facts, sections, finished agents, folded into its state) and every running agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

from tui_agent.kinds import Termination

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.core.state import SessionState


class TeamBudget:
    """``settings``: the run's limits (the plan's budget already applied); ``parent``: the team's
    session state; ``running``: the live states of the agents under way; ``elapsed``: the team's time."""

    def __init__(self, settings: Settings, parent: SessionState, running: Callable[[], Iterable[SessionState]],
                 elapsed: Callable[[], float]) -> None:
        self.settings, self.parent, self.running, self.elapsed = settings, parent, running, elapsed

    def totals(self) -> tuple[int, int, float | None]:
        """Model calls, tokens and cost of the team so far."""
        calls, tokens, cost = self.parent.model_calls, self.parent.total_tokens, self.parent.cost_usd
        for st in self.running():
            calls += st.model_calls
            tokens += st.total_tokens
            if st.cost_usd is not None:
                cost = (cost or 0.0) + st.cost_usd
        return calls, tokens, cost

    def spent(self) -> Termination | None:
        """The limit the team has reached (None: there is room left)."""
        s = self.settings
        calls, tokens, cost = self.totals()
        if calls >= s.max_calls:
            return Termination.CALL_LIMIT
        if self.elapsed() >= s.max_minutes * 60:
            return Termination.TIME_LIMIT
        if s.budget_usd is not None and (cost or 0.0) >= s.budget_usd:
            return Termination.BUDGET_LIMIT
        if s.budget_tokens is not None and tokens >= s.budget_tokens:
            return Termination.BUDGET_LIMIT
        return None
