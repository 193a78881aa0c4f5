"""What the main screen's approval keys do with the call that waits (``handle.pending``):
approve, always, edit the arguments (checked against the tool's schema), reject with a reason,
or step back out of the editor. The decision goes to the run's handle (``RunHandle.decide``);
held by the main screen (``screen.approvals``), whose actions table binds the keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_agent.agent.handle import Request, RunHandle
    from tui_agent.screens.main import MainScreen


class ApprovalInput:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    @property
    def gate(self) -> RunHandle:
        """The handle that holds the request and takes the decision (an agent's view: the team's)."""
        return self.screen.handle

    @property
    def pending(self) -> Request | None:
        return self.gate.pending

    def approve(self, *, always: bool = False) -> None:
        if self.pending is not None:
            self.gate.approve(always=always)

    async def edit(self) -> None:
        req, screen = self.pending, self.screen
        if req is None:
            return
        await screen.action.ensure("edit")
        screen.action.set_mode("edit")
        screen.editor.start(req.tool, req.schema, req.arguments)
        screen.refresh_bindings()

    def approve_edit(self) -> None:
        req, screen = self.pending, self.screen
        if req is None:
            return
        args, error = screen.editor.parsed()
        if error:
            screen.app.bell()
            screen.editor.validate()
            return
        self.gate.approve(args, edited=args != req.arguments)

    async def reject(self) -> None:
        screen = self.screen
        if self.pending is None:
            return
        await screen.action.ensure("reject")
        screen.action.set_mode("reject")
        box = screen.query_one("#reject-reason")
        box.value = ""  # type: ignore[attr-defined]
        box.focus()
        screen.refresh_bindings()

    def rejected(self, reason: str) -> None:
        if self.pending is not None:
            self.gate.reject(reason)

    def cancel_input(self, mode: str) -> None:
        screen = self.screen
        if mode in ("edit", "reject"):
            screen.action.set_mode("pending" if self.pending is not None else "none")
            screen.set_focus(None)
            screen.refresh_bindings()
