"""The Textual app: one research run at a time, watched and steered live.

Design (harlequin's rule): the engine runs in a Textual worker (an async worker on the app's
loop) and never touches a widget. Its events reach the UI only as messages posted to the app
(``bridge.EventBridge``: stream deltas batched every ``STREAM_FLUSH_S``); approvals arrive as
``ApprovalAsked`` carrying the request whose future the UI resolves; the breakpoint hook posts
``BreakpointHit`` with a future the prompt inspector resolves. The app folds events into a
``Trace`` and the main screen renders it.

Nothing on the way to the first frame imports litellm (its import takes seconds): the engine
modules and litellm are imported in a thread after the first frame, while the question and
the header are already on screen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import sys
from functools import partial
from typing import Any, Callable, Iterable

from textual.actions import SkipAction
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Button, Input, TextArea

from . import themes as theme_files
from .bridge import (
    STREAM_FLUSH_S, ApprovalAsked, BreakpointHit, BreakpointReleased, EngineEvent, EventBridge, RunFinished,
    StreamText, resolve,
)
from .config import Settings
from .screens.main import MainScreen
from .trace_model import ENDED, IDLE, PAUSED, RUNNING, STARTING, AWAITING, Trace
from .widgets.token_gauge import GaugeFigures

EXIT_OK, EXIT_NO_ANSWER = 0, 1
# How often the elapsed time on the gauge is refreshed (seconds).
CLOCK_TICK_S = 1.0

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


_STEP_GROUP = Binding.Group("Step", compact=True)


def warm_up() -> None:
    """Imports the engine needs, done in a thread after the first frame (litellm takes seconds)."""
    from . import llm, runner, tokens  # noqa: F401

    llm.litellm()
    tokens.encoder()
    for name in ("tui_agent.tools", "tui_agent.tools.net"):
        try:
            __import__(name)
        except ImportError:
            pass


class ResearchApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "tui-agent"

    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("enter", "approve", "Approve", show=False),
        Binding("e", "edit", "Edit"),
        Binding("r", "reject", "Reject"),
        Binding("A", "always", "Always"),
        Binding("ctrl+s", "approve_edit", "Approve edited"),
        Binding("escape", "cancel_input", "Cancel", show=False),
        Binding("s", "submit_now", "Submit now"),
        Binding("y", "toggle_auto", "Auto"),
        Binding("b", "toggle_breakpoint", "Breakpoint"),
        Binding("i", "inspect", "Inspect"),
        Binding("left", "step_prev", "Prev step", priority=True, key_display="←", group=_STEP_GROUP),
        Binding("right", "step_next", "Next step", priority=True, key_display="→", group=_STEP_GROUP),
        Binding("C", "copy_answer", "Copy"),
        Binding("W", "save_answer", "Save"),
        Binding("m", "change_model", "Model"),
        Binding("N", "new_question", "New"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        settings: Settings,
        question: str | None = None,
        *,
        resume: str | None = None,
        tools: Any = None,
        session_id: str | None = None,
        store: Any = None,
        run_kwargs: dict[str, Any] | None = None,
        elapsed: Callable[[], float] | None = None,
        detect: Callable[[], tuple[str | None, str | None]] | None = None,
        theme_dirs: list | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.question = (question or "").strip() or None
        self.resume = resume
        self.tools = tools
        from .store import new_session_id

        # The first session's id is known (and shown) from the first frame on.
        self.fixed_session_id = resume or session_id or new_session_id()
        self.store = store
        self.run_kwargs = dict(run_kwargs or {})
        self.elapsed_reader = elapsed
        self.detect = detect
        self.breakpoint = settings.breakpoint
        self.auto = settings.auto_approve
        self.bridge = EventBridge(self.post_message)
        self.trace = Trace(self.question or "", settings.model or "", "")
        if settings.model and (self.question or resume):
            self.trace.state = STARTING
        self.research: Any = None  # the current runner.Run
        self.approver: Any = None
        self.pending: Any = None  # the ApprovalRequest waiting for a decision
        self.paused: BreakpointHit | None = None
        self.last_result: dict[str, Any] | None = None
        self._pause_next = False
        self._elapsed = 0.0
        self._store_opened = store is not None
        self._theme_ready = False
        self.first_frame_litellm: bool | None = None
        self.main: MainScreen | None = None
        self.theme_errors: list[str] = []
        self._setup_themes(theme_dirs)

    # -- themes ---------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(theme_files.APP_VARIABLES)

    def _setup_themes(self, dirs: list | None) -> None:
        loaded = theme_files.load_themes(dirs)
        self.theme_errors = list(loaded.errors)
        for theme in loaded.themes.values():
            self.register_theme(theme)
        wanted = self.settings.theme or theme_files.DEFAULT_THEME
        default = theme_files.DEFAULT_THEME if theme_files.DEFAULT_THEME in self.available_themes else theme_files.FALLBACK_THEME
        if wanted not in self.available_themes:
            self.theme_errors.append(f"theme {wanted!r} is not available (shipped: "
                                     f"{', '.join(sorted(loaded.themes)) or 'none'}); using {default}")
            wanted = default
        try:
            self.theme = wanted
        except Exception as exc:  # noqa: BLE001 - a theme must never stop the app
            self.theme_errors.append(f"theme {wanted!r} cannot be used: {exc}; using {default}")
            self.theme = default

    def _on_theme_changed(self, theme: Any) -> None:
        if not self._theme_ready or getattr(theme, "name", None) == self.settings.theme:
            return
        from .config import ConfigError, save_setting

        self.settings.theme = theme.name
        try:
            save_setting("theme", theme.name)
        except (OSError, ConfigError) as exc:
            self.notify(f"Could not remember the theme: {exc}", severity="warning")

    # -- start-up ------------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen:
        sid = self.fixed_session_id or ""
        self.trace.session_id = sid
        self.main = MainScreen(self.question or ("resuming session " + self.resume if self.resume else None),
                               self.settings.model or "", sid, auto=self.auto, breakpoint=self.breakpoint,
                               gauge=self._figures())
        return self.main

    def on_mount(self) -> None:
        self.set_interval(STREAM_FLUSH_S, self.bridge.flush, name="stream-flush")
        self.set_interval(CLOCK_TICK_S, self._tick, name="clock")
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        if self.theme_errors:
            self.notify("\n".join(self.theme_errors), title="Theme problem — using the default theme",
                        severity="error", timeout=10)
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.first_frame_litellm = "litellm" in sys.modules
        self._theme_ready = True
        self.main.update_header(auto=self.auto, breakpoint=self.breakpoint)
        self._next_setup_step()

    def _next_setup_step(self) -> None:
        """Model first (setup screen when none), then the question, then the run."""
        if not self.settings.model:
            self.trace.state = STARTING
            self.main.header.state = "looking for a model"
            self.run_worker(self._detect_model, thread=True, group="setup", exit_on_error=False)
            return
        if not self.question and not self.resume:
            self._ask_question()
            return
        self.start_run(self.question or "", self.settings)

    def _detect_model(self) -> None:
        from . import model_setup

        model, base = (self.detect or model_setup.detect)()
        self.call_from_thread(self._model_detected, model, base)

    def _model_detected(self, model: str | None, base: str | None) -> None:
        if model:
            self.settings.model = model
            if base and not self.settings.api_base:
                self.settings.api_base = base
            self.notify(f"Using {model}" + (f" at {base}" if base else ""), title="Model found")
            self._next_setup_step()
            return
        from .config import config_path
        from .screens.setup import SetupScreen

        self.trace.state = IDLE
        self.main.update_header()
        self.push_screen(SetupScreen(str(config_path())), self._setup_done)

    def _setup_done(self, choice: Any) -> None:
        if choice is None:
            self.notify("No model: the app stays idle. Press m to pick one.", severity="warning")
            return
        self._apply_model_choice(choice)
        self._next_setup_step()

    def _apply_model_choice(self, choice: Any) -> None:
        self.settings = dataclasses.replace(self.settings, model=choice.model, api_base=choice.api_base)
        if choice.remember:
            from .config import ConfigError, save_setting

            try:
                save_setting("model", choice.model)
                if choice.api_base:
                    save_setting("api_base", choice.api_base)
            except (OSError, ConfigError) as exc:
                self.notify(f"Could not save the model: {exc}", severity="warning")

    def _ask_question(self) -> None:
        from .screens.question import QuestionScreen

        self.push_screen(QuestionScreen(), self._question_given)

    def _question_given(self, question: str | None) -> None:
        if not question:
            self.main.set_question(self.question)
            return
        self.question = question
        self.start_run(question, self.settings)

    # -- a run -----------------------------------------------------------------------------------
    def start_run(self, question: str, settings: Settings) -> None:
        from .approval import FutureApprover
        from .store import new_session_id

        self.settings = settings
        session_id, self.fixed_session_id = self.fixed_session_id or new_session_id(), None
        self.trace = Trace(question, settings.model or "", session_id)
        self.trace.state = STARTING
        self.pending = None
        self.paused = None
        self._pause_next = False
        self._elapsed = 0.0
        self.last_result = None
        self.approver = FutureApprover(lambda req: self.post_message(ApprovalAsked(req)), auto=self.auto)
        self.research = None
        self.main.reset(self.trace)
        self._refresh_gauge()
        self.refresh_bindings()
        self.run_worker(self._drive(question, settings, session_id), name="engine", group="run",
                        exclusive=True, exit_on_error=False)

    async def _drive(self, question: str, settings: Settings, session_id: str) -> None:
        try:
            await asyncio.to_thread(warm_up)
            from .runner import Run

            store = self._open_store(settings)
            kwargs = dict(self.run_kwargs)
            if self.resume:
                from .resume import prepare_resume

                # The session's own settings, overridden by what differs from the defaults now.
                defaults = Settings().summary()
                flags = {k: v for k, v in settings.summary().items() if v != defaults.get(k)}
                kwargs_r, question, settings = prepare_resume(store, self.resume, flags)
                kwargs.update(kwargs_r)
                session_id = kwargs.pop("session_id", None) or self.resume
                self.resume = None
                self.settings = settings
            if self.tools is not None:
                kwargs["tools"] = self.tools
            run = Run(settings, question, store=store, approver=self.approver, listeners=[self.bridge],
                      session_id=session_id, before_call=self._before_call, **kwargs)
            self.research = run
            result = await run.start()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the user, the app stays open
            self.post_message(RunFinished(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(RunFinished(result))

    def _open_store(self, settings: Settings) -> Any:
        if self._store_opened:
            return self.store
        self._store_opened = True
        from .store import Store, StoreError

        try:
            self.store = Store(settings.resolved_data_dir())
        except StoreError as exc:
            self.post_message(EngineEvent(_notice(f"Sessions will not be saved: {exc}", "warning")))
            self.store = None
        return self.store

    async def _before_call(self, messages: list[dict[str, str]], started: Any) -> list[dict[str, str]] | None:
        """The engine's breakpoint hook: pause when asked, until the inspector answers."""
        if not (self.breakpoint or self._pause_next):
            return None
        self._pause_next = False
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.post_message(BreakpointHit(messages, started, future))
        try:
            return await future
        except asyncio.CancelledError:
            self.post_message(BreakpointReleased())
            raise

    # -- messages from the engine -------------------------------------------------------------------
    def on_engine_event(self, message: EngineEvent) -> None:
        e = message.event
        self.trace.apply(e)
        if e.type == "decision" and self.pending is not None and self.pending.call_id == e.call_id:
            self.pending = None
            self.main.clear_pending()
        self.main.on_engine_event(e)
        if e.type == "notice":
            if not e.text.startswith("Model error:"):
                self.notify(e.text, severity={"error": "error", "warning": "warning"}.get(e.level, "information"))
        elif e.type == "retry":
            self.notify(f"Retrying in {e.delay_s:.1f} s: {e.reason}", severity="warning", timeout=4)
        elif e.type == "run_ended":
            self._run_ended(e)
        if e.type in ("run_started", "model_call_started", "model_call_ended", "run_ended", "tool_progress"):
            self._refresh_gauge()
        if e.type in ("run_started", "answer", "run_ended", "model_call_started"):
            self.refresh_bindings()

    def _run_ended(self, e: Any) -> None:
        self.last_result = e.result
        self.pending = None
        if self.paused is not None:
            self._close_paused_inspector()
        if e.termination == "model_error":
            self.notify(f"Model error: {e.message}\nPress m to change the model and run the question again.",
                        title="The model could not answer", severity="error", timeout=15)
        elif e.termination == "answer" or self.trace.answer is not None:
            self.notify("The answer is ready: C copies it, W saves it as Markdown.", title=f"Ended: {e.termination}")
        else:
            self.notify(e.message or "The run ended without an answer.", title=f"Ended: {e.termination}",
                        severity="warning")
        self._elapsed = float(e.result.get("elapsed_s") or self._elapsed)

    def on_stream_text(self, message: StreamText) -> None:
        before = self.trace.state
        pieces = self.trace.stream(message.step, message.text, message.reasoning)
        self.main.on_stream(message.step, pieces)
        if self.trace.state != before:
            self.main.update_header()

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        req = message.request
        if self.auto:  # auto mode was switched on after the request left the engine
            resolve(req.future, _approve(req.arguments, auto=True))
            return
        self.pending = req
        self.trace.approval_pending(req.call_id)
        call = self.trace.calls.get(req.call_id)
        if call is not None:
            self.main.steps.upsert(call)
        self.main.show_pending(req)
        self.refresh_bindings()

    def on_breakpoint_hit(self, message: BreakpointHit) -> None:
        from .screens.inspector import InspectorScreen

        self.paused = message
        self.trace.state = PAUSED
        self.main.update_header()
        if isinstance(self.screen, InspectorScreen):
            self.pop_screen()
        s = message.started
        screen = InspectorScreen(message.messages, s.message_tokens, total=s.prompt_tokens, threshold=s.threshold,
                                 window=s.context_window, step=s.step or (self.trace.model_calls + 1), paused=True)
        self.push_screen(screen, partial(self._inspector_done, message))
        self.refresh_bindings()

    def _inspector_done(self, hit: BreakpointHit, result: Any) -> None:
        if result is None or self.paused is not hit:
            return
        if result.mode == "step":
            self._pause_next = True
        self.paused = None
        if self.trace.state == PAUSED:
            self.trace.state = RUNNING
        resolve(hit.future, result.messages)
        self.main.update_header()
        self.refresh_bindings()

    def on_breakpoint_released(self, message: BreakpointReleased) -> None:
        self._close_paused_inspector()

    def _close_paused_inspector(self) -> None:
        from .screens.inspector import InspectorScreen

        self.paused = None
        if self.trace.state == PAUSED:
            self.trace.state = RUNNING
        for screen in list(self.screen_stack):
            if isinstance(screen, InspectorScreen) and screen.paused and screen is self.screen:
                self.pop_screen()
        self.main.update_header()
        self.refresh_bindings()

    def on_run_finished(self, message: RunFinished) -> None:
        if message.error:
            self.trace.state = ENDED
            self.main.header.state = "ended: error"
            self.notify(message.error, title="The run could not start", severity="error", timeout=15)
        self.refresh_bindings()

    # -- figures -----------------------------------------------------------------------------------
    def _read_elapsed(self) -> float:
        if self.elapsed_reader is not None:
            return self.elapsed_reader()
        if self.trace.state in (AWAITING, PAUSED, ENDED, IDLE, STARTING):
            return self._elapsed  # a human decision does not count; nothing runs
        engine = self.research.engine if self.research is not None else None
        if engine is not None and engine._loop is not None:
            self._elapsed = engine.elapsed()
        return self._elapsed

    def _tick(self) -> None:
        if self.trace.active:
            self._refresh_gauge()

    def _figures(self) -> GaugeFigures:
        t, s = self.trace, self.settings
        return GaugeFigures(
            prompt_tokens=t.prompt_tokens, threshold=t.threshold, window=t.context_window,
            measured=t.measured_prompt_tokens, calls=t.model_calls, max_calls=s.max_calls,
            elapsed_s=self._read_elapsed(), max_s=s.max_minutes * 60, cost_usd=t.cost_usd, budget_usd=s.budget_usd,
        )

    def _refresh_gauge(self) -> None:
        self.main.set_gauge(self._figures())

    # -- availability of actions (footer, palette) ------------------------------------------------
    def _mode(self) -> str:
        if self.main is None or not self.main.is_mounted:
            return "none"
        editor = self.main.query_one("#arg-editor")
        if editor.display:
            return "edit"
        if self.main.query_one("#reject-reason").display:
            return "reject"
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

    def action_edit(self) -> None:
        if self.pending is None:
            return
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

    def action_reject(self) -> None:
        if self.pending is None:
            return
        self.main.action.set_mode("reject")
        box = self.main.query_one("#reject-reason", Input)
        box.value = ""
        box.focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "reject-reason":
            event.stop()
            from .approval import Reject

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
        self.notify("Auto mode on: every tool call is approved." if self.auto else "Auto mode off: each call is asked.")
        if self.auto and self.pending is not None:
            self._decide(_approve(self.pending.arguments, auto=True))
        self.main.update_header(auto=self.auto)

    def action_submit_now(self) -> None:
        if not self._enabled("submit_now"):
            return
        from .approval import SubmitNow

        if self.pending is not None:
            self._decide(SubmitNow())
        self.research.request_submit()
        self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")

    def action_toggle_breakpoint(self) -> None:
        self.breakpoint = not self.breakpoint
        self.notify("Breakpoint on: pausing before every model call." if self.breakpoint else "Breakpoint off.")
        self.main.update_header(breakpoint=self.breakpoint)

    def action_inspect(self) -> None:
        started = self.trace.last_prompt
        if started is None:
            self.notify("No model call yet.")
            return
        from .screens.inspector import InspectorScreen

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
        from .answer_file import answer_document

        t = self.trace
        return answer_document(t.question, t.answer.text if t.answer else "", t.sources, session_id=t.session_id,
                               model=t.model, termination=t.ended.termination if t.ended else None)

    def action_copy_answer(self) -> None:
        if self.trace.answer is None:
            return
        from .trace_model import answer_markdown

        self.copy_to_clipboard(answer_markdown(self.trace.answer.text, self.trace.sources))
        self.notify("The answer and its sources are on the clipboard.", title="Copied")

    def action_save_answer(self) -> None:
        if self.trace.answer is None:
            return
        from .answer_file import save_answer

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
        from .screens.setup import ModelScreen

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
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        """Hook for the sessions browser (``tui_agent.screens.sessions.SessionsScreen``)."""
        if importlib.util.find_spec("tui_agent.screens.sessions") is None:
            self.notify("The sessions browser is not available yet: use tui-agent sessions list.")
            return
        from .screens.sessions import SessionsScreen  # type: ignore[import-not-found]

        self.push_screen(SessionsScreen())

    async def action_quit(self) -> None:
        if not self.trace.active:
            self.exit(self._exit_code(), return_code=self._exit_code())
            return
        from .screens.confirm import ConfirmScreen

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
        for worker in list(self.workers):
            if worker.group == "run":
                worker.cancel()
                try:
                    await asyncio.wait_for(worker.wait(), 2.0)
                except Exception:  # noqa: BLE001 - cancelled or timed out: we are leaving anyway
                    pass
        self.exit(self._exit_code(), return_code=self._exit_code())

    def _exit_code(self) -> int:
        return EXIT_OK if self.last_result and self.last_result.get("answer") is not None else EXIT_NO_ANSWER


def _approve(arguments: Any, **kw: Any) -> Any:
    from .approval import Approve

    return Approve(arguments, **kw)


def _notice(text: str, level: str) -> Any:
    from .events import Notice

    return Notice(text=text, level=level)


def _inspector_cls() -> type:
    from .screens.inspector import InspectorScreen

    return InspectorScreen


def run_app(settings: Settings, question: str | None, resume: str | None = None) -> int:
    """Run the TUI; returns the exit code (0 when the last run produced an answer)."""
    app = ResearchApp(settings, question, resume=resume)
    code = app.run()
    return EXIT_NO_ANSWER if code is None else int(code)
