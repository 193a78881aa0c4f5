"""The app's actions (keys, buttons, command palette) and when each is available.

Mixed into ``ResearchApp``; kept apart so the app module holds the wiring (engine, messages,
start-up) and this one what the user can do. Actions only change the UI and resolve futures
the engine awaits (approval requests, the breakpoint); they never call into a running engine
except ``Run.request_submit``, which is thread-safe.
"""

from __future__ import annotations

import asyncio
import importlib.util
from functools import partial
from typing import TYPE_CHECKING, Any, Iterable

from textual.actions import SkipAction
from textual.app import SystemCommand
from textual.screen import Screen

if TYPE_CHECKING:
    from textual.widgets import Button, Input

from tui_agent.app.bridge import resolve

from tui_agent.cli.exit_codes import EXIT_NO_ANSWER, EXIT_OK

# (title, help, action) for the command palette; shown only when the action is available.
PALETTE: list[tuple[str, str, str]] = [
    ("Approve tool call", "Approve the call that waits (a)", "approve"),
    ("Edit tool call arguments", "Edit the arguments as JSON, checked against the schema (e)", "edit"),
    ("Reject tool call", "Reject the call with a reason the model reads (r)", "reject"),
    ("Always approve this tool", "Approve now and for the rest of the session (A)", "always"),
    ("Approve edited arguments", "Run the call with the edited arguments (ctrl+s)", "approve_edit"),
    ("Auto mode on/off", "Approve every tool call without asking (y)", "toggle_auto"),
    ("Submit now", "Make the model answer now from the evidence so far (s)", "submit_now"),
    ("Breakpoint on/off", "Pause before every model call (b)", "toggle_breakpoint"),
    ("Prompt inspector", "The exact messages of the latest model call (i)", "inspect"),
    ("Previous step", "Show the previous step's thought, action and observation (←)", "step_prev"),
    ("Next step", "Show the next step, or go back to live (→)", "step_next"),
    ("Copy answer", "Copy the answer with its sources to the clipboard (C)", "copy_answer"),
    ("Save answer as Markdown", "Write the answer to a .md file (W)", "save_answer"),
    ("Change model and run again", "Pick another model; the question runs again as a new session (m)", "change_model"),
    ("New question", "Research another question in a new session (N)", "new_question"),
    ("Sessions", "Browse saved sessions", "sessions"),
    ("Help", "All keys explained (?)", "help"),
]


class ActionsMixin:
    """Actions of ``ResearchApp`` (see app.py for the state they use)."""

    # -- availability of actions (footer, palette) ------------------------------------------------
    def _mode(self) -> str:
        if self.main is None or not self.main.is_mounted or not self.main.query("#action"):
            return "none"
        mode = self.main.action.mode()
        if mode in ("edit", "reject"):
            return mode
        return "pending" if self.pending is not None else "none"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        on_main = self.screen is self.main
        mode = self._mode()
        if action in ("approve", "edit", "reject", "always"):
            return on_main and mode == "pending"
        if action in ("approve_edit",):
            return on_main and mode == "edit"
        if action == "cancel_input":
            return mode in ("edit", "reject")
        if action == "submit_now":
            return self.trace.active and self.research is not None and self.research.engine is not None
        if action in ("step_prev", "step_next"):
            return on_main and bool(self.trace.steps)
        if action in ("copy_answer", "save_answer"):
            return self.trace.answer is not None
        if action in ("change_model", "new_question"):
            return not self.trace.active and self.main is not None
        if action == "inspect":
            return self.trace.last_prompt is not None and not isinstance(self.screen, _inspector_cls())
        if action == "sessions":
            return importlib.util.find_spec("tui_agent.screens.sessions") is not None
        return True

    def _enabled(self, action: str) -> bool:
        return bool(self.check_action(action, ()))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for title, help_text, action in PALETTE:
            if self._enabled(action):
                yield SystemCommand(title, help_text, partial(self.run_action, action))
        yield from super().get_system_commands(screen)

    # -- actions: approvals ------------------------------------------------------------------------
    def _typing(self) -> bool:
        from textual.widgets import Input, TextArea

        return isinstance(self.focused, (Input, TextArea))

    def _decide(self, decision: Any) -> None:
        req = self.pending
        if req is None:
            return
        self.pending = None
        resolve(req.future, decision)
        self.trace.approval_done()
        self.main.clear_pending()
        self.set_focus(None)
        self.refresh_bindings()

    def action_approve(self) -> None:
        if self.pending is not None:
            self._decide(_approve(self.pending.arguments))

    def action_always(self) -> None:
        if self.pending is not None:
            self._decide(_approve(self.pending.arguments, always=True))

    async def action_edit(self) -> None:
        if self.pending is None:
            return
        await self.main.action.ensure("edit")
        self.main.action.set_mode("edit")
        self.main.editor.start(self.pending.tool, self.pending.schema, self.pending.arguments)
        self.refresh_bindings()

    def action_approve_edit(self) -> None:
        if self.pending is None:
            return
        args, error = self.main.editor.parsed()
        if error:
            self.bell()
            self.main.editor._validate()
            return
        self._decide(_approve(args, edited=args != self.pending.arguments))

    async def action_reject(self) -> None:
        if self.pending is None:
            return
        await self.main.action.ensure("reject")
        self.main.action.set_mode("reject")
        box = self.main.query_one("#reject-reason")
        box.value = ""
        box.focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "reject-reason":
            event.stop()
            from tui_agent.approval import Reject

            self._decide(Reject(event.value.strip() or "rejected by the user"))

    def action_cancel_input(self) -> None:
        if self._mode() in ("edit", "reject"):
            self.main.action.set_mode("pending" if self.pending is not None else "none")
            self.set_focus(None)
            self.refresh_bindings()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {"approve": "approve", "edit": "edit", "reject": "reject", "always": "always",
                   "approve-edit": "approve_edit", "cancel-edit": "cancel_input", "submit": "submit_now"}
        action = actions.get(event.button.id or "")
        if action:
            event.stop()
            self.call_later(self.run_action, action)

    # -- actions: control --------------------------------------------------------------------------
    def action_toggle_auto(self) -> None:
        self.auto = not self.auto
        if self.approver is not None:
            self.approver.auto = self.auto
        # The header shows the mode; a toast per press would only add work while a stream runs.
        if self.auto and self.pending is not None:
            self._decide(_approve(self.pending.arguments, auto=True))
        self.main.update_header(auto=self.auto)

    def action_submit_now(self) -> None:
        if not self._enabled("submit_now"):
            return
        from tui_agent.approval import SubmitNow

        if self.pending is not None:
            self._decide(SubmitNow())
        self.research.request_submit()
        self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")

    def action_toggle_breakpoint(self) -> None:
        self.breakpoint = not self.breakpoint
        self.main.update_header(breakpoint=self.breakpoint)

    def action_inspect(self) -> None:
        started = self.trace.last_prompt
        if started is None:
            self.notify("No model call yet.")
            return
        from tui_agent.screens.inspector import InspectorScreen

        self.push_screen(InspectorScreen(started.messages, started.message_tokens, total=started.prompt_tokens,
                                         threshold=started.threshold, window=started.context_window,
                                         step=started.step, paused=False, purpose=started.purpose))

    def action_step_prev(self) -> None:
        if self._typing() or self.screen is not self.main:
            raise SkipAction()
        self.main.move(-1)

    def action_step_next(self) -> None:
        if self._typing() or self.screen is not self.main:
            raise SkipAction()
        self.main.move(+1)

    def on_step_list_step_chosen(self, message: Any) -> None:
        self.main.go_to(message.step)

    # -- actions: the answer ----------------------------------------------------------------------
    def _answer_document(self) -> str:
        from tui_agent.answer_file import answer_document

        t = self.trace
        return answer_document(t.question, t.answer.text if t.answer else "", t.sources, session_id=t.session_id,
                               model=t.model, termination=t.ended.termination if t.ended else None)

    def action_copy_answer(self) -> None:
        if self.trace.answer is None:
            return
        from tui_agent.trace_model import answer_markdown

        self.copy_to_clipboard(answer_markdown(self.trace.answer.text, self.trace.sources))
        self.notify("The answer and its sources are on the clipboard.", title="Copied")

    def action_save_answer(self) -> None:
        if self.trace.answer is None:
            return
        from tui_agent.answer_file import save_answer

        try:
            path = save_answer(self._answer_document(), self.trace.session_id, self.settings.resolved_data_dir())
        except OSError as exc:
            self.notify(f"Could not save the answer: {exc}", severity="error")
            return
        self.notify(str(path), title="Answer saved")

    # -- actions: new runs, screens, quitting ------------------------------------------------------
    def action_change_model(self) -> None:
        if self.trace.active:
            return
        from tui_agent.screens.setup import ModelScreen

        ended = self.trace.ended
        note = (f"The last run ended with {ended.termination}. " if ended else "") + \
            "The question runs again as a new session."
        self.push_screen(ModelScreen(self.settings.model or "", self.settings.api_base, note), self._model_changed)

    def _model_changed(self, choice: Any) -> None:
        if choice is None:
            return
        self._apply_model_choice(choice)
        if self.question:
            self.start_run(self.question, self.settings)
        else:
            self._ask_question()

    def action_new_question(self) -> None:
        if self.trace.active:
            return
        if not self.settings.model:
            self.action_change_model()
            return
        self._ask_question()

    def action_help(self) -> None:
        from tui_agent.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        """Hook for the sessions browser (``tui_agent.screens.sessions.SessionsScreen``)."""
        if importlib.util.find_spec("tui_agent.screens.sessions") is None:
            self.notify("The sessions browser is not available yet: use tui-agent sessions list.")
            return
        from tui_agent.screens.sessions import SessionsScreen  # type: ignore[import-not-found]

        store = self._open_store(self.settings)
        if store is None:
            self.notify("The session database cannot be opened.", severity="error")
            return
        self.push_screen(SessionsScreen(store))

    # -- hooks the sessions browser calls -------------------------------------------------------
    def resume_session(self, session_id: str) -> None:
        """Continue a stored, unfinished session here (the browser's resume)."""
        if self.trace.active:
            self.notify("A run is active: finish it, or quit it, before resuming another session.",
                        severity="warning")
            return
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()
        self.resume = session_id
        self.fixed_session_id = session_id
        self.question = None
        self.start_run("", self.settings)

    def fork_session(self, session_id: str, step: int, system_prompt: str | None) -> None:
        """Fork a stored session at ``step`` (optionally with a new system prompt) and run the fork."""
        if self.trace.active:
            self.notify("A run is active: finish it, or quit it, before forking a session.", severity="warning")
            return
        from tui_agent.session.resume import fork

        try:
            new_id = fork(self._open_store(self.settings), session_id, step, system_prompt)
        except Exception as exc:  # noqa: BLE001 - shown; the app stays open
            self.notify(f"Could not fork: {exc}", severity="error")
            return
        self.notify(f"Forked {session_id} at step {step} as {new_id}.", title="Fork")
        self.resume_session(new_id)

    async def action_quit(self) -> None:
        if not self.trace.active:
            self.exit(self._exit_code(), return_code=self._exit_code())
            return
        from tui_agent.screens.confirm import ConfirmScreen

        sid = self.trace.session_id
        self.push_screen(ConfirmScreen(
            "Quit while the run is active?",
            f"The run stops now. Session {sid} stays in the store; continue it later with\n"
            f"  tui-agent --resume {sid}", "Quit", "Stay"), self._quit_confirmed)

    async def _quit_confirmed(self, yes: bool | None) -> None:
        if not yes:
            return
        if self.pending is not None:
            self.pending = None
        self.cancel_engine()
        for worker in list(self.workers):
            if worker.group == "run":
                try:
                    await asyncio.wait_for(worker.wait(), 2.0)
                except Exception:  # noqa: BLE001 - cancelled or timed out: we are leaving anyway
                    pass
        self.exit(self._exit_code(), return_code=self._exit_code())

    def _exit_code(self) -> int:
        return EXIT_OK if self.last_result and self.last_result.get("answer") is not None else EXIT_NO_ANSWER


def _approve(arguments: Any, **kw: Any) -> Any:
    from tui_agent.approval import Approve

    return Approve(arguments, **kw)


def _inspector_cls() -> type:
    from tui_agent.screens.inspector import InspectorScreen

    return InspectorScreen
