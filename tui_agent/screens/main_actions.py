"""The main screen's actions.

``MAIN_ACTIONS`` (``screens/main_keys.py``) is the one table behind the main screen's key bindings, its command palette
entries, its buttons (approval bar, Submit now) and the help screen. The actions change the UI
and hand decisions to the app (``ResearchApp.decide``, ``submit_now``, …), which resolves the
futures the engine awaits; they never call into a running engine themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from textual.actions import SkipAction

from tui_agent.app.actions import palette_commands
from tui_agent.screens.main_keys import APPROVAL_ACTIONS, MAIN_ACTIONS

if TYPE_CHECKING:
    from textual.widgets import Button, Input



class MainActions:
    """Mixed into ``MainScreen``: its bindings and actions, from ``MAIN_ACTIONS``."""

    ACTIONS = MAIN_ACTIONS

    # -- availability (footer, palette, buttons) ------------------------------------------------
    def _mode(self) -> str:
        if not self.ready.is_set() or not self.query("#action"):
            return "none"
        mode = self.action.mode()
        if mode in ("edit", "reject"):
            return mode
        return "pending" if self.app.pending is not None else "none"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        app = self.app
        session = self.session
        mode = self._mode()
        if action in APPROVAL_ACTIONS:
            return mode == "pending"
        if action == "approve_edit":
            return mode == "edit"
        if action == "cancel_input":
            return mode in ("edit", "reject")
        if action == "submit_now":
            return app.run_active() and app.research is not None and app.research.engine is not None
        if action in ("step_prev", "step_next"):
            return bool(session.step_numbers)
        if action in ("copy_answer", "save_answer"):
            return session.answer is not None
        if action == "change_model":
            return not app.run_active() or app.retrying()
        if action == "new_question":
            return not app.run_active()
        if action == "toggle_auto":
            return app.run_active()  # auto mode belongs to a run
        if action == "verify":
            return session.answer is not None and not app.run_active() and not app.verifying
        if action == "inspect":
            return session.last_prompt is not None
        return True

    def commands(self) -> Iterable[Any]:
        return palette_commands(self, self.ACTIONS.values())

    # -- approvals -------------------------------------------------------------------------------
    def _typing(self) -> bool:
        from textual.widgets import Input, TextArea

        return isinstance(self.focused, (Input, TextArea))

    def action_approve(self) -> None:
        req = self.app.pending
        if req is not None:
            self.app.decide(_approve(req.arguments))

    def action_always(self) -> None:
        req = self.app.pending
        if req is not None:
            self.app.decide(_approve(req.arguments, always=True))

    async def action_edit(self) -> None:
        req = self.app.pending
        if req is None:
            return
        await self.action.ensure("edit")
        self.action.set_mode("edit")
        self.editor.start(req.tool, req.schema, req.arguments)
        self.refresh_bindings()

    def action_approve_edit(self) -> None:
        req = self.app.pending
        if req is None:
            return
        args, error = self.editor.parsed()
        if error:
            self.app.bell()
            self.editor.validate()
            return
        self.app.decide(_approve(args, edited=args != req.arguments))

    async def action_reject(self) -> None:
        if self.app.pending is None:
            return
        await self.action.ensure("reject")
        self.action.set_mode("reject")
        box = self.query_one("#reject-reason")
        box.value = ""
        box.focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: "Input.Submitted") -> None:
        if event.input.id == "reject-reason":
            event.stop()
            from tui_agent.approval import Reject

            self.app.decide(Reject(event.value.strip() or "rejected by the user"))

    def action_cancel_input(self) -> None:
        if self._mode() in ("edit", "reject"):
            self.action.set_mode("pending" if self.app.pending is not None else "none")
            self.set_focus(None)
            self.refresh_bindings()

    def on_button_pressed(self, event: "Button.Pressed") -> None:
        ids = {"approve-edit": "approve_edit", "cancel-edit": "cancel_input"}
        name = ids.get(event.button.id or "", event.button.id or "")
        if name in self.ACTIONS:
            event.stop()
            self.call_later(self.run_action, name)

    # -- control ---------------------------------------------------------------------------------
    def action_toggle_auto(self) -> None:
        self.app.toggle_auto()

    def action_submit_now(self) -> None:
        if self.check_action("submit_now", ()):
            self.app.submit_now()

    def action_toggle_breakpoint(self) -> None:
        self.app.breakpoint = not self.app.breakpoint
        self.update_header()

    def action_inspect(self) -> None:
        prompt = self.session.last_prompt
        if prompt is None:
            self.notify("No model call yet.")
            return
        from tui_agent.screens.inspector import InspectorScreen

        self.app.push_screen(InspectorScreen(prompt.messages, prompt.message_tokens, total=prompt.prompt_tokens,
                                             threshold=prompt.threshold, window=prompt.context_window,
                                             step=prompt.step, paused=False, purpose=prompt.purpose))

    def action_step_prev(self) -> None:
        if self._typing():
            raise SkipAction()
        self.move(-1)

    def action_step_next(self) -> None:
        if self._typing():
            raise SkipAction()
        self.move(+1)

    def on_step_list_step_chosen(self, message: Any) -> None:
        self.go_to(message.step)

    # -- the answer --------------------------------------------------------------------------------
    def action_copy_answer(self) -> None:
        from tui_agent.app.files import copy_answer

        copy_answer(self, self.session)

    def action_verify(self) -> None:
        self.app.verify_answer()

    def action_save_answer(self) -> None:
        from tui_agent.app.files import save_answer

        save_answer(self, self.session)

    # -- new runs, screens, quitting ------------------------------------------------------------
    def action_change_model(self) -> None:
        self.app.change_model()

    def action_new_question(self) -> None:
        self.app.new_question()

    def action_sessions(self) -> None:
        self.app.open_sessions()

    def action_help(self) -> None:
        from tui_agent.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        await self.app.quit_asking()


def _approve(arguments: Any, **kw: Any) -> Any:
    from tui_agent.approval import Approve

    return Approve(arguments, **kw)
