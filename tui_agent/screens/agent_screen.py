"""One sub-agent of a team research, opened from the team pane (Enter on its line): the main
screen's thought, action and observation panes, calls, gauge, prompt inspector and context view,
driven by that agent's ``RunHandle`` (its events folded on the app's thread, its own ``Run``:
Submit now, auto mode and context edits act on this agent only). **g** (or **Esc** outside an
editor) returns to the team view.

Approvals stay the app's run handle's (the team's one gate, one request at a time): a request of
this agent shows here too, named by its agent, and the approval keys decide it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from tui_agent.screens.main import MainScreen
from tui_agent.screens.main_approvals import ApprovalInput
from tui_agent.screens.team_keys import AGENT_ACTIONS
from tui_agent.widgets.actions import bindings, palette_commands
from tui_agent.widgets.effects import Region
from tui_agent.widgets.token_gauge import gauge_figures

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle
    from tui_agent.agent.run_sink import Request

# The main screen's actions that act on the app's session rather than on the agent shown.
NOT_HERE = frozenset({"new_question", "change_model", "sessions", "verify", "plan_mode", "team_mode", "team_pane",
                      "stop_agent", "save_answer"})


class AgentApprovals(ApprovalInput):
    """The approval keys on an agent's view: the app's handle holds the request (when it is this agent's)."""

    @property
    def gate(self) -> RunHandle:
        return self.screen.app.handle  # type: ignore[attr-defined]

    @property
    def pending(self) -> Request | None:
        req = self.gate.pending
        return req if req is not None and getattr(req, "agent", "") == self.screen.label else None  # type: ignore[attr-defined]


class AgentScreen(MainScreen):
    BINDINGS = bindings(AGENT_ACTIONS.values())

    def __init__(self, number: int, label: str, handle: RunHandle, model: str = "", *,
                 clock: Callable[[], float] | None = None, lean_compositor: bool = True) -> None:
        kw: dict[str, Any] = {"clock": clock} if clock is not None else {}
        super().__init__(handle, label, model, handle.state.session_id, lean_compositor=lean_compositor,
                         id=f"agent-{number}", **kw)
        self.number, self.label = number, label
        self.view.session = handle.state  # the agent's folded state, shown from its first frame
        self.approvals = AgentApprovals(self)
        self.regions.subscribe({Region.GAUGE}, lambda _e: self.refresh_gauge())

    def on_mount(self) -> None:  # Textual calls MainScreen.on_mount too (handlers run along the MRO)
        self.call_after_refresh(self.refresh_gauge)

    def refresh_gauge(self) -> None:
        from tui_agent.plan.policy import gated

        settings = self.app.settings  # type: ignore[attr-defined]
        self.set_gauge(gauge_figures(self.session, gated(settings, self.session), self.handle.read_elapsed()))

    def update_header(self) -> None:
        super().update_header()
        self.header.session_id = f"{self.label[:40]} · {self.session.session_id}"

    # -- approvals: the app's handle's request, when it is this agent's ---------------------------------
    def show_asked(self, req: Request) -> None:
        if self.ready.is_set() and self.approvals.pending is req:
            self.show_pending(req)
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in NOT_HERE:
            return False
        if action in AGENT_ACTIONS or action == "cancel_input":
            return True  # Esc leaves an editor, else goes back to the team
        return super().check_action(action, parameters)

    def commands(self) -> Iterable[Any]:
        yield from palette_commands(self, AGENT_ACTIONS.values())
        yield from super().commands()

    # -- the team --------------------------------------------------------------------------------------
    def action_team_view(self) -> None:
        self.app.team.back()  # type: ignore[attr-defined]

    def action_cancel_input(self) -> None:
        if self._mode() in ("edit", "reject"):
            super().action_cancel_input()
        else:
            self.action_team_view()

    def action_submit_now(self) -> None:
        if self.check_action("submit_now", ()) and not self.app.team.choose("submit"):  # type: ignore[attr-defined]
            self.handle.submit_now()
