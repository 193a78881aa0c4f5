"""The Textual app: one research run at a time, watched and steered live.

Design (harlequin's rule): the engine runs in a Textual worker (async, on the app's loop) and
never touches a widget. Its events reach the UI only as messages posted to the app
(``bridge.EventBridge``: stream deltas batched every ``STREAM_FLUSH_S``); approvals arrive as
``ApprovalAsked`` carrying the request whose future the UI resolves; the breakpoint hook posts
``BreakpointHit`` with a future the prompt inspector resolves.

The app keeps the session as the one fold makes it (``session.fold``): every event it receives is
folded into ``self.session`` and the main screen renders that state. A resumed or forked session
is its stored events folded first, so it shows exactly what the screen showed before it stopped.

Nothing on the way to the first frame imports litellm (its import takes seconds): the engine
modules and litellm are imported in a thread after the first frame, while the question and the
header are already on screen (the header says "loading model library…" meanwhile).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import signal
import sys
from functools import partial
from typing import Any, Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen

from tui_agent.app import themes as theme_files
from tui_agent.app.bridge import (
    STREAM_FLUSH_S, ApprovalAsked, BreakpointHit, EngineEvent, EventBridge, RunFinished,
    StreamText, resolve,
)
from tui_agent.app.breakpoints import Breakpoints
from tui_agent.app.model_flow import ModelFlow
from tui_agent.app.phases import Phase, warm_up
from tui_agent.cli.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.config import Settings
from tui_agent.screens.main import MainScreen
from tui_agent.session import fold
from tui_agent.session.events import (
    AnswerEvent, Decision, Event, ModelCallEnded, ModelCallStarted, Notice, Retry, RunEnded, RunStarted, Termination,
    ToolProgress,
)
from tui_agent.session.fold import SessionState, Status
from tui_agent.widgets.token_gauge import GaugeFigures

# How often the elapsed time on the gauge is refreshed (seconds).
CLOCK_TICK_S = 1.0
LOADING = "loading model library…"
# Exit status after a stopping signal, as shells report it (128 + the signal number).
SIGNAL_EXIT_BASE = 128


class ResearchApp(ModelFlow, Breakpoints, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "tui-agent"
    BINDINGS = [Binding("ctrl+q", "quit_app", "Quit", show=False, priority=True)]

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
        clock: Callable[[], float] | None = None,
        detect: Callable[[], tuple[str | None, str | None]] | None = None,
        theme_dirs: list | None = None,
        handle_signals: bool = False,
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
        self.clock = clock  # the main screen's clock for "running for m:ss" (None: time.monotonic)
        self.detect = detect
        self.handle_signals = handle_signals
        self.breakpoint = settings.breakpoint
        self.cli_auto = settings.auto_approve  # --yes on this command line: the only auto mode a run starts with
        self.bridge = EventBridge(self.post_message)
        self.session: SessionState = fold.new_state(self.fixed_session_id, self.question or "", settings.model or "")
        # What the app does around the fold's status (never written into the session).
        self.phase = Phase.STARTING if resume or (settings.model and self.question) else Phase.NONE
        self.research: Any = None  # the current runner.Run
        self.approver: Any = None
        self.pending: Any = None  # the ApprovalRequest waiting for a decision
        self.paused: BreakpointHit | None = None
        self.starting_note: str | None = None
        self.last_result: dict[str, Any] | None = None
        self._retrying = False
        self.verifying = False  # a citation check runs
        self._pause_next = False
        self._auto_wanted: bool | None = None  # y pressed before the engine existed
        self._run_begun = False  # this app's current run has started (its policy is in the state)
        self._elapsed = 0.0
        self._store_opened = store is not None
        self._theme_ready = False
        self._begun = False
        self._engine_loop: asyncio.AbstractEventLoop | None = None
        self._engine_task: asyncio.Task | None = None
        self.interrupted_by: str | None = None
        self.first_frame_litellm: bool | None = None
        self.main: MainScreen | None = None
        self.theme_errors: list[str] = []
        self.theme_errors = theme_files.install(self, self.settings.theme, theme_dirs)

    # -- themes ---------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(theme_files.APP_VARIABLES)

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
        shown = self.question or ("resuming session " + self.resume if self.resume else None)
        self.main = MainScreen(shown, self.settings.model or "", self.fixed_session_id or "", auto=self.cli_auto,
                               breakpoint=self.breakpoint, gauge=self._figures(),
                               **({"clock": self.clock} if self.clock is not None else {}))
        return self.main

    def on_mount(self) -> None:
        self.set_interval(STREAM_FLUSH_S, self.bridge.flush, name="stream-flush")
        self.set_interval(CLOCK_TICK_S, self._tick, name="clock")
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        if self.theme_errors:
            self.notify("\n".join(self.theme_errors), title="Theme problem — using the default theme",
                        severity="error", timeout=10)
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                try:
                    loop.add_signal_handler(sig, partial(self._stopped_by, sig.name))
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
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
        self.main.update_header()
        self._next_setup_step()

    def _next_setup_step(self) -> None:
        """A resumed session brings its own model; else model first (setup screen when none), then
        the question, then the run."""
        if self.resume:
            self.start_run("", self.settings, resume_id=self.resume)
            return
        if not self.settings.model:
            self.phase = Phase.STARTING
            self.starting_note = "looking for a model"
            self.main.update_header()
            self.run_worker(self._detect_model, thread=True, group="setup", exit_on_error=False)
            return
        if not self.question:
            self._ask_question()
        else:
            self.start_run(self.question, self.settings)

    # -- a run -----------------------------------------------------------------------------------
    def start_run(self, question: str, settings: Settings, *, resume_id: str | None = None) -> None:
        """A new session for ``question``, or the stored session ``resume_id`` continued."""
        from tui_agent.approval import FutureApprover
        from tui_agent.session.store import new_session_id

        # Approval policy never carries over: a run starts with the command line's --yes or asks.
        self.settings = settings = dataclasses.replace(settings, auto_approve=self.cli_auto)
        session_id = resume_id or self.fixed_session_id or new_session_id()
        self.fixed_session_id = None
        self.resume = None
        if resume_id:
            session = self._load_session(resume_id)
            if session is None:
                return
            resume_id = session_id = session.session_id  # a unique prefix was enough
        else:
            session = fold.new_state(session_id, question, settings.model or "")
        self.phase = Phase.STARTING
        self.session = session
        self.question = question or session.question or None
        self.pending = self.paused = self.last_result = self.research = None
        self._pause_next = self._retrying = self._run_begun = False
        self._elapsed = session.elapsed_s
        self.approver = FutureApprover(lambda req: self.post_message(ApprovalAsked(req)))
        self.main.reset(session)
        self._refresh_gauge()
        self.refresh_bindings()
        self.run_worker(self._drive(question, settings, session_id, resume_id), name="engine", group="run",
                        exclusive=True, exit_on_error=False)

    def _load_session(self, session_id: str) -> SessionState | None:
        from tui_agent.session.resume import ResumeError, load

        from tui_agent.session.store import StoreError

        store = self._open_store(self.settings)
        try:
            return load(store, store.resolve_id(session_id)) if store is not None else None
        except (ResumeError, StoreError) as exc:
            self.notify(str(exc), title="The session cannot be opened", severity="error", timeout=15)
            return None

    async def _drive(self, question: str, settings: Settings, session_id: str, resume_id: str | None) -> None:
        """The engine's worker (an async worker on the app loop). It talks to the UI only by
        posting messages; the imports that take seconds (litellm) happen in a thread."""
        self._engine_loop, self._engine_task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            self._note(LOADING)
            await asyncio.to_thread(warm_up)
            self._note(None)
            # litellm's module graph is huge and lives forever: keep it out of the cyclic GC's
            # full collections, which otherwise stall the UI for hundreds of milliseconds.
            gc.freeze()
            from tui_agent.runner import Run

            store = self._open_store(settings)
            kwargs = dict(self.run_kwargs)
            if resume_id:
                from tui_agent.session.resume import prepare_resume

                # The session's own settings, overridden by what differs from the defaults now.
                defaults = Settings().summary()
                flags = {k: v for k, v in settings.summary().items() if v != defaults.get(k)}
                resumed = prepare_resume(store, resume_id, flags)
                kwargs.update(resumed.run_kwargs())
                question, settings = resumed.question, resumed.settings
                self.settings = settings
            if self.tools is not None:
                kwargs["tools"] = self.tools
            kwargs.setdefault("session_id", session_id)
            if self.clock is not None:
                kwargs["clock"] = self.clock  # one injected clock for the panes and the engine's durations
            run = Run(settings, question, store=store, approver=self.approver, listeners=[self.bridge],
                      before_call=self._before_call, **kwargs)
            if self._auto_wanted is not None:
                run.set_auto(self._auto_wanted)
            self.research = run
            result = await run.start()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the user, the app stays open
            self.post_message(RunFinished(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            self._engine_task = None
            self._note(None)
        self.post_message(RunFinished(result))

    def _note(self, text: str | None) -> None:
        """What the header says while a run starts (posted: safe from the worker)."""
        self.starting_note = text
        self.call_later(self._update_header)

    def _update_header(self) -> None:
        if self.main is not None and self.main.is_mounted:
            self.main.update_header()

    def cancel_engine(self) -> None:
        """Cancel the running engine (thread-safe); it records the ``cancelled`` termination."""
        loop, task = self._engine_loop, self._engine_task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def on_unmount(self) -> None:
        self.cancel_engine()  # never leave the engine running behind a closed app

    def _stopped_by(self, name: str) -> None:
        """SIGTERM or SIGHUP (the terminal closed): mark the session interrupted, stop, leave."""
        self.interrupted_by = name
        if self.research is not None:
            self.research.interrupt(name)
        elif self.store is not None and self.session.session_id:
            self.store.mark_interrupted(self.session.session_id, only_if_running=True)
        code = SIGNAL_EXIT_BASE + getattr(signal, name)
        self.exit(code, return_code=code)

    def _open_store(self, settings: Settings) -> Any:
        if self._store_opened:
            return self.store
        self._store_opened = True
        from tui_agent.session.store import Store, StoreError

        try:
            self.store = Store(settings.resolved_data_dir())
        except StoreError as exc:
            self.notify(f"Sessions will not be saved: {exc}", severity="warning")
            self.store = None
        return self.store

    # -- what the header and the footer show ------------------------------------------------------
    def status_label(self) -> str:
        s = self.session
        if self.paused is not None:
            return str(Phase.PAUSED)
        if self.phase is Phase.FAILED:
            return str(Phase.FAILED)
        if s.ended is not None:
            return f"ended: {s.ended.termination}"
        if self.pending is not None:
            return str(Status.AWAITING)
        if self.phase is Phase.STARTING:
            return self.starting_note or str(Phase.STARTING)
        if s.status == Status.IDLE and self.starting_note:
            return self.starting_note
        if s.status == Status.AWAITING:  # asked, but the request has not reached the screen yet
            return str(Status.RUNNING)
        return str(s.status)

    def auto_on(self) -> bool:
        """Auto mode as it applies now: the run's policy while one runs (the engine's state is ahead of
        the events still in the queue), else what the run will start with."""
        decided = self.research.auto_approving() if self.research is not None else None
        if decided is not None and self.session.ended is None:
            return decided
        if self._auto_wanted is not None:
            return self._auto_wanted
        # A resumed or forked session's stored policy is its last run's: never this run's until it starts.
        return self.session.approval.auto if self._run_begun and not self.session.ended else self.cli_auto

    def run_active(self) -> bool:
        """A run is starting (the app's phase) or under way (the fold's status)."""
        if self.phase is Phase.FAILED:
            return False
        return self.phase is Phase.STARTING or self.session.active

    def retrying(self) -> bool:
        return self._retrying and self.run_active()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        commands = getattr(screen, "commands", None)
        if commands is not None:
            yield from commands()
        yield from super().get_system_commands(screen)

    # -- messages from the engine -------------------------------------------------------------------
    def on_engine_event(self, message: EngineEvent) -> None:
        e = message.event
        fold.apply(self.session, e)
        try:
            self._show_event(e)
        except NoMatches:  # the app is closing and its widgets are gone; the state is kept
            pass

    def _show_event(self, e: Event) -> None:
        match e:
            case RunStarted():
                self.phase = Phase.NONE  # the fold's status says where the run stands from here on
                self._auto_wanted = None  # the run's policy is in the state from here on
                self._run_begun = True
            case Retry():
                self._retrying = True
                self.notify(f"Retrying in {e.delay_s:.1f} s: {e.reason}" + (" · m changes the model" if e.attempt == 1
                                                                             else ""), severity="warning", timeout=4)
            case ModelCallEnded() | ModelCallStarted() | RunEnded():
                self._retrying = False
            case Decision() if self.pending is not None and self.pending.call_id == e.call_id:
                self.pending = None
                self.main.clear_pending()
        self.main.show_event(e)
        match e:
            case Notice() if not e.text.startswith("Model error:"):
                self.notify(e.text, severity={"error": "error", "warning": "warning"}.get(e.level, "information"))
            case RunEnded():
                self._run_ended(e)
        if isinstance(e, (RunStarted, ModelCallStarted, ModelCallEnded, RunEnded, ToolProgress)):
            self._refresh_gauge()
        if isinstance(e, (RunStarted, AnswerEvent, RunEnded, ModelCallStarted, Retry)):
            self.refresh_bindings()

    def _run_ended(self, e: RunEnded) -> None:
        self.last_result = e.result
        self.pending = None
        if self.paused is not None:
            self._close_paused_inspector()
        if e.termination == Termination.MODEL_ERROR:
            self.notify(f"Model error: {e.message}\nPress m to change the model (or its API key) and run the "
                        "question again.", title="The model could not answer", severity="error", timeout=15)
        elif e.termination == Termination.ANSWER or self.session.answer is not None:
            self.notify("The answer is ready: C copies it, W saves it as Markdown.", title=f"Ended: {e.termination}")
        else:
            self.notify(e.message or "The run ended without an answer.", title=f"Ended: {e.termination}",
                        severity="warning")
        self._elapsed = float(e.result.get("elapsed_s") or self._elapsed)

    def on_stream_text(self, message: StreamText) -> None:
        self._retrying = False
        before = self.session.status
        pieces = fold.stream(self.session, message.step, message.text, message.reasoning)
        self.main.on_stream(message.step, pieces)
        if self.session.status != before:
            self.main.update_header()

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        req = message.request
        if self.research is not None and self.research.auto_approving():  # auto came on after the request left
            resolve(req.future, _approve(req.arguments, auto=True))
            return
        self.pending = req
        self.main.show_pending(req)
        self.refresh_bindings()

    def on_run_finished(self, message: RunFinished) -> None:
        if message.error:
            self.phase = Phase.FAILED
            self.main.header.state = str(Phase.FAILED)
            self.notify(message.error, title="The run could not start", severity="error", timeout=15)
        self.refresh_bindings()

    # -- decisions and control (called by the main screen's actions) --------------------------------
    def decide(self, decision: Any) -> None:
        req = self.pending
        if req is None:
            return
        self.pending = None
        resolve(req.future, decision)
        self.main.clear_pending()
        self.set_focus(None)
        self.refresh_bindings()

    def toggle_auto(self) -> None:
        """Auto mode on/off for this run only (the next run, a resume or a fork asks again)."""
        on = not self.auto_on()
        if self.research is not None and self.session.ended is None:
            self.research.set_auto(on)
        elif self.run_active():
            self._auto_wanted = on  # the engine is still starting: it starts with this
        else:
            self.notify("Auto mode holds for a running session only; a new run asks again unless started with "
                        "--yes.", severity="warning")
            return
        if on and self.pending is not None:
            self.decide(_approve(self.pending.arguments, auto=True))
        self.main.header.auto = on

    def submit_now(self) -> None:
        from tui_agent.approval import SubmitNow

        if self.pending is not None:
            self.decide(SubmitNow())
        self.research.request_submit()
        self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")

    # -- figures -----------------------------------------------------------------------------------
    def _read_elapsed(self) -> float:
        if self.elapsed_reader is not None:
            return self.elapsed_reader()
        waiting = self.pending is not None or self.paused is not None
        engine = self.research.engine if self.research is not None else None
        if self.run_active() and not waiting and engine is not None and engine._loop is not None:
            self._elapsed = engine.elapsed()  # a human decision does not count; nothing runs otherwise
        return self._elapsed

    def _tick(self) -> None:
        if self.run_active():
            self._refresh_gauge()

    def _figures(self) -> GaugeFigures:
        s, cfg = self.session, self.settings
        prompt = s.last_prompt
        measured = s.steps[prompt.step].prompt_tokens if prompt is not None and prompt.step in s.steps else None
        return GaugeFigures(
            prompt_tokens=prompt.prompt_tokens if prompt else 0, threshold=s.threshold, window=s.context_window,
            measured=measured, calls=s.shown_calls, max_calls=cfg.max_calls, elapsed_s=self._read_elapsed(),
            max_s=cfg.max_minutes * 60, cost_usd=s.cost_usd, budget_usd=cfg.budget_usd,
        )

    def _refresh_gauge(self) -> None:
        self.main.set_gauge(self._figures())

    def exit_code(self) -> int:
        return EXIT_OK if self.session.answer is not None else EXIT_NO_ANSWER


def _approve(arguments: Any, **kw: Any) -> Any:
    from tui_agent.approval import Approve

    return Approve(arguments, **kw)
