"""The Textual app: one research run at a time, watched and steered live.

Design (harlequin's rule): the engine runs in a Textual worker (async, on the app's loop) and
never touches a widget. Its events reach the UI only as messages posted to the app
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
import gc
import sys
from functools import partial
from typing import Any, Callable

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from tui_agent.app import themes as theme_files
from tui_agent.app.actions import ActionsMixin, _approve
from tui_agent.cli.exit_codes import EXIT_NO_ANSWER
from tui_agent.app.bridge import (
    STREAM_FLUSH_S, ApprovalAsked, BreakpointHit, BreakpointReleased, EngineEvent, EventBridge, RunFinished,
    StreamText, resolve,
)
from tui_agent.config import Settings
from tui_agent.screens.main import MainScreen
from tui_agent.trace_model import ENDED, IDLE, PAUSED, RUNNING, STARTING, AWAITING, Trace
from tui_agent.widgets.token_gauge import GaugeFigures

# How often the elapsed time on the gauge is refreshed (seconds).
CLOCK_TICK_S = 1.0

_STEP_GROUP = Binding.Group("Step", compact=True)


def warm_up() -> None:
    """Imports the engine needs, done in a thread after the first frame (litellm takes seconds)."""
    from tui_agent import llm, runner, tokens  # noqa: F401

    llm.litellm()
    tokens.encoder()
    for name in ("tui_agent.tools", "tui_agent.web.net"):
        try:
            __import__(name)
        except ImportError:
            pass


class ResearchApp(ActionsMixin, App[int]):
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
        from tui_agent.session.store import new_session_id

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
        self._begun = False
        self._engine_loop: asyncio.AbstractEventLoop | None = None
        self._engine_task: asyncio.Task | None = None
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
        from tui_agent.config import ConfigError, save_setting

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
        self.panes_ready()

    def panes_ready(self) -> None:
        """Called after the first frame and when the main screen's panes are mounted (just after
        it); the run starts once both happened. Never awaits: the app's queue must keep going."""
        if self._begun or self.first_frame_litellm is None or not self.main.ready.is_set():
            return
        self._begun = True
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
        from tui_agent import model_setup

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
        from tui_agent.config import config_path
        from tui_agent.screens.setup import SetupScreen

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
            from tui_agent.config import ConfigError, save_setting

            try:
                save_setting("model", choice.model)
                if choice.api_base:
                    save_setting("api_base", choice.api_base)
            except (OSError, ConfigError) as exc:
                self.notify(f"Could not save the model: {exc}", severity="warning")

    def _ask_question(self) -> None:
        from tui_agent.screens.question import QuestionScreen

        self.push_screen(QuestionScreen(), self._question_given)

    def _question_given(self, question: str | None) -> None:
        if not question:
            self.main.set_question(self.question)
            return
        self.question = question
        self.start_run(question, self.settings)

    # -- a run -----------------------------------------------------------------------------------
    def start_run(self, question: str, settings: Settings) -> None:
        from tui_agent.approval import FutureApprover
        from tui_agent.session.store import new_session_id

        self.settings = settings
        session_id, self.fixed_session_id = self.fixed_session_id or new_session_id(), None
        shown = question or (f"(resuming session {self.resume})" if self.resume else "")
        self.trace = Trace(shown, settings.model or "", session_id)
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
        """The engine's worker (an async worker on the app loop). It talks to the UI only by
        posting messages; the imports that take seconds (litellm) happen in a thread."""
        self._engine_loop, self._engine_task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            await asyncio.to_thread(warm_up)
            # litellm's module graph is huge and lives forever: keep it out of the cyclic GC's
            # full collections, which otherwise stall the UI for hundreds of milliseconds.
            gc.freeze()
            from tui_agent.runner import Run

            store = self._open_store(settings)
            kwargs = dict(self.run_kwargs)
            if self.resume:
                from tui_agent.session.resume import prepare_resume

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
        finally:
            self._engine_task = None
        self.post_message(RunFinished(result))

    def cancel_engine(self) -> None:
        """Cancel the running engine (thread-safe); it records the ``cancelled`` termination."""
        loop, task = self._engine_loop, self._engine_task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def on_unmount(self) -> None:
        self.cancel_engine()  # never leave the engine thread running behind a closed app

    def _open_store(self, settings: Settings) -> Any:
        if self._store_opened:
            return self.store
        self._store_opened = True
        from tui_agent.session.store import Store, StoreError

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
        if e.type == "run_started" and not self.question:
            self.question = e.question  # a resumed session's question, for "run again"
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
        from tui_agent.screens.inspector import InspectorScreen

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
        from tui_agent.screens.inspector import InspectorScreen

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

def _notice(text: str, level: str) -> Any:
    from tui_agent.session.events import Notice

    return Notice(text=text, level=level)


def run_app(settings: Settings, question: str | None, resume: str | None = None) -> int:
    """Run the TUI; returns the exit code (0 when the last run produced an answer)."""
    app = ResearchApp(settings, question, resume=resume)
    code = app.run()
    return EXIT_NO_ANSWER if code is None else int(code)
