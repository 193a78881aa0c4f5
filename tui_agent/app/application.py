"""The Textual app: one research run at a time, watched and steered live.

Design (harlequin's rule): the app holds its run through a ``RunHandle`` (``self.handle``,
``agent/handle.py``): the run goes in a Textual thread worker, on an asyncio loop of its own
(``RunHandle.thread``), and never touches a widget. Its events reach the UI only as messages posted
to the app (``bridge.EventBridge``, the handle's follower and sink: stream deltas batched every
``STREAM_FLUSH_S``); approvals arrive as ``ApprovalAsked`` with the request the handle decides;
the breakpoint posts ``BreakpointHit`` with the pause the handle releases.

The handle keeps the session as the one fold makes it (``core.fold``): every event the app receives
is folded into ``handle.state`` and published on the main screen's region bus
(``widgets.effects``): each view redraws what the event changes. A resumed or forked session
is its stored events folded first, so it shows exactly what the screen showed before it stopped.

Nothing on the way to the first frame imports litellm (its import takes seconds): the engine
modules and litellm are imported in a thread after the first frame, while the question and the
header are already on screen (the header says "loading model library…" meanwhile).
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
from functools import partial
from typing import TYPE_CHECKING, Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen

from tui_agent.app import themes as theme_files
from tui_agent.app.bridge import (
    STREAM_FLUSH_S, ApprovalAsked, BreakpointHit, BreakpointReleased, EngineEvent, RunFinished, SettingsResumed,
    StartingNote, StreamText,
)
from tui_agent.app.flows import Flows
from tui_agent.app.model_choice import ModelSetup
from tui_agent.app.phases import Phase, status_label, warm_up  # noqa: F401 - warm_up: the benchmarks import it from here
from tui_agent.app.run_events import RunEvents
from tui_agent.app.runs import Runs
from tui_agent.app.tab_control import TabControl, shown_tab_only
from tui_agent.app.tabs import ShownTab, Tabs
from tui_agent.app.team_front import TeamMessage
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.config import Settings
from tui_agent.screens.main import MainScreen
from tui_agent.core.fold import SessionState
from tui_agent.widgets.token_gauge import GaugeFigures, gauge_figures

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from tui_agent.model import Model
    from textual.theme import Theme

    from tui_agent.agent.run_sink import Request
    from tui_agent.session.store import Store
    from tui_agent.tools.base import ToolRegistry

# How often the elapsed time on the gauge is refreshed (seconds).
CLOCK_TICK_S = 1.0
# Exit status after a stopping signal, as shells report it (128 + the signal number).
SIGNAL_EXIT_BASE = 128


class ResearchApp(App[int]):
    """The app: its run is held through ``self.handle`` (``RunHandle``), finding or changing the
    model is ``self.models`` (``ModelSetup``), the flows around runs are ``self.flows``."""

    CSS_PATH = "app.tcss"
    TITLE = "tui-agent"
    # The shown tab's (``app.tabs``): every pane, dialog and key acts on the shown research.
    settings, handle, question, resume, fixed_session_id = ShownTab(), ShownTab(), ShownTab(), ShownTab(), ShownTab()
    breakpoint, decisions, starting_note, last_result = ShownTab(), ShownTab(), ShownTab(), ShownTab()
    team = ShownTab()  # app/team_front.py: the shown tab's team research (its pane, agents' views)
    BINDINGS = [Binding("ctrl+q", "quit_app", "Quit", show=False, priority=True),
                # Before any widget: Textual's own hint names only a visible "quit" key, so in a dialog or a
                # text box (where ctrl+c copies) it said nothing. Selected text is still copied.
                Binding("ctrl+c", "ctrl_c", show=False, priority=True)]

    def __init__(
        self,
        settings: Settings,
        question: str | None = None,
        *,
        resume: str | None = None,
        tools: ToolRegistry | None = None,
        session_id: str | None = None,
        store: Store | None = None,
        elapsed: Callable[[], float] | None = None,
        clock: Callable[[], float] | None = None,
        detect: Callable[[], tuple[str | None, str | None]] | None = None,
        theme_dirs: list | None = None,
        handle_signals: bool = False,
        llm: "Model | None" = None,
    ) -> None:
        super().__init__()
        self.llm = llm  # the model every run of the app calls (tests: the in-memory ScriptedModel); None: the settings'
        self.tools = tools
        self.store = store
        self.elapsed_reader = elapsed
        self.clock = clock  # the main screen's clock for "running for m:ss" (None: time.monotonic)
        self.detect = detect
        self.handle_signals = handle_signals
        self.config_file: str | None = None  # the --config given, repeated in printed commands
        self.cli_auto = settings.auto_approve  # --yes on this command line: the only auto mode a run starts with
        from tui_agent.app.served import is_served_driver

        self.served = is_served_driver(self.driver_class)  # in a browser tab (tui-agent serve, app/served.py)
        # The app's runs, each through its handle, one per tab (``app.tabs``; the first is shown).
        self.runs = Runs(self.post_message)
        self.tabs = Tabs(lambda: self.settings.max_tabs)
        self.tabs_ui = TabControl(self)
        # The first session's id is known (and shown) from the first frame on.
        self.tabs_ui.open(settings, (question or "").strip() or None, session_id=session_id, resume=resume)
        # What the app does around the fold's status (never written into the session).
        self.handle.phase = Phase.STARTING if resume or (settings.model and self.question) else Phase.NONE
        self.flows = Flows(self)
        self.models = ModelSetup(self, self.flows)
        self.events = RunEvents(self)
        self.verifying = False  # a citation check runs
        self._store_opened = store is not None
        self._theme_ready = False
        self._begun = False
        self.interrupted_by: str | None = None
        self.first_frame_litellm: bool | None = None
        self.main: MainScreen | None = None
        self.theme_errors: list[str] = []
        self.theme_errors = theme_files.install(self, self.settings.theme, theme_dirs)

    # -- the run's state, read through its handle -------------------------------------------------------
    @property
    def session(self) -> SessionState:
        return self.handle.state

    @property
    def phase(self) -> Phase:
        return self.handle.phase

    @phase.setter
    def phase(self, phase: Phase) -> None:
        self.handle.phase = phase

    @property
    def pending(self) -> Request | None:
        return self.handle.pending

    # -- what outside text can reach: links and notifications ---------------------------------------
    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Open only http(s) URLs (a link's target is shown beside it, widgets.shown_links); any
        other scheme (``vscode://``, ``file:``, ``javascript:``) is refused with a notification."""
        from tui_agent.widgets.shown_links import safe_url

        if safe_url(url):
            super().open_url(url, new_tab=new_tab)
        else:
            self.notify(f"Not opened: only http(s) links open ({url[:200]})", severity="warning")

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Textual's notification, with its text never read as markup: notices quote servers, pages
        and models, whose ``[link=…]`` or ``[@click=…]`` must stay text."""
        from tui_agent.safety.hygiene import terminal_safe

        super().notify(terminal_safe(message), title=terminal_safe(title), severity=severity, timeout=timeout,
                       markup=False)

    # -- themes ---------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(theme_files.APP_VARIABLES)

    def _on_theme_changed(self, theme: Theme) -> None:
        if self._theme_ready:
            self.settings.theme = theme_files.remember(self.settings.theme, theme, self.notify)

    # -- start-up ------------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen:
        shown = self.question or ("resuming session " + self.resume if self.resume else None)
        self.main = MainScreen(self.handle, shown, self.settings.model or "", self.fixed_session_id or "", auto=self.cli_auto,
                               breakpoint=self.breakpoint, gauge=self._figures(),
                               lean_compositor=self.settings.lean_compositor,
                               **({"clock": self.clock} if self.clock is not None else {}))
        self.events.subscribe()  # the gauge and the keys follow the run's events too
        return self.main

    def on_mount(self) -> None:
        self.set_interval(STREAM_FLUSH_S, self.runs.flush, name="stream-flush")
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
        gc.enable()  # off while the app loaded (cli.cmd_tui)
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
        self.next_setup_step()

    def next_setup_step(self) -> None:
        """A resumed session brings its own model; else model first (setup screen when none), then
        the question, then the run."""
        if self.resume:
            self.start_run("", self.settings, resume_id=self.resume)
            return
        if not self.settings.model:
            self.phase = Phase.STARTING
            self.starting_note = "looking for a model"
            self.main.update_header()
            self.run_worker(self.models.detect, thread=True, group="setup", exit_on_error=False)
            return
        if not self.question:
            self.flows.ask_question()
        else:
            self.start_run(self.question, self.settings)

    # -- a run -----------------------------------------------------------------------------------
    def start_run(self, question: str, settings: Settings, *, resume_id: str | None = None) -> None:
        """A new session for ``question``, or the stored session ``resume_id`` continued."""
        self.flows.start_run(question, settings, resume_id=resume_id)

    @shown_tab_only
    def on_settings_resumed(self, message: SettingsResumed) -> None:
        """A resumed session's own settings."""
        self.settings = message.settings

    @shown_tab_only
    def on_starting_note(self, message: StartingNote) -> None:
        """What the header says while a run starts."""
        self.starting_note = message.text
        if self.main is not None and self.main.is_mounted:
            try:
                self.main.update_header()
            except NoMatches:  # the app is closing and its header is gone
                pass

    async def on_unmount(self) -> None:
        # Never leave the run going behind a closed app: it records its cancellation first.
        await self.runs.stop()

    def _stopped_by(self, name: str) -> None:
        """SIGTERM or SIGHUP (the terminal closed): mark the session interrupted, stop, leave."""
        self.interrupted_by = name
        for tab in self.tabs:  # every tab's run: each session interrupted, resumable
            tab.handle.interrupt(name, self.store)
        code = SIGNAL_EXIT_BASE + getattr(signal, name)
        self.exit(code, return_code=code)
        from tui_agent.app import exit_watchdog

        exit_watchdog.start(code, name, self.settings.signal_exit_grace_s)  # Textual's close may hang

    def open_store(self, settings: Settings) -> Store | None:
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
        waiting = self.handle.waiting_on()
        return status_label(self.phase, self.session, waiting=waiting[1] if waiting else None, note=self.starting_note)

    def run_active(self) -> bool:
        """A run is starting (the handle's phase) or under way (the fold's status)."""
        return self.handle.active

    def retrying(self) -> bool:
        return self.handle.retrying and self.handle.active

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # tab entries: screens/tab_keys.py
        commands = getattr(screen, "commands", None)
        if commands is not None:
            yield from commands()
        yield from super().get_system_commands(screen)

    # -- messages from the engine -------------------------------------------------------------------
    @shown_tab_only
    def on_engine_event(self, message: EngineEvent) -> None:
        e = message.event
        self.handle.apply(e)
        try:
            self.events.show(e)
        except NoMatches:  # the app is closing and its widgets are gone; the state is kept
            pass

    @shown_tab_only
    def on_stream_text(self, message: StreamText) -> None:
        before = self.session.status
        pieces = self.handle.stream(message.step, message.text, message.reasoning)
        try:
            self.main.on_stream(message.step, pieces)
            if self.session.status != before:
                self.main.update_header()
        except NoMatches:  # the app is closing and its widgets are gone; the state is kept
            pass

    @shown_tab_only
    def on_approval_asked(self, message: ApprovalAsked) -> None:
        self.decisions.ask(message.request)
        self.team.asked(message.request)

    def on_team_message(self, message: TeamMessage) -> None:
        message.front.on_message(message)  # the team of the tab whose run it came from, shown or not

    @shown_tab_only
    def on_run_finished(self, message: RunFinished) -> None:
        if message.error:
            self.handle.failed()
            self.main.header.state = str(Phase.FAILED)
            self.notify(message.error, title="The run could not start", severity="error", timeout=15)
        self.refresh_bindings()

    # -- decisions and control (called by the main screen's actions) --------------------------------
    @shown_tab_only
    def on_breakpoint_hit(self, message: BreakpointHit) -> None:
        self.flows.paused(message.pause)

    @shown_tab_only
    def on_breakpoint_released(self, message: BreakpointReleased) -> None:
        self.flows.close_paused_inspector()

    async def action_quit_app(self) -> None:
        await self.flows.quit_asking()

    def action_ctrl_c(self) -> None:
        """Copy what is selected (a text box's selection, else the screen's) and say so; either way
        say how to quit, as Textual apps do: ctrl+c never quits here."""
        how = "ctrl+q quits (it asks first while a run is active); q too on the main screen."
        if getattr(self.focused, "selected_text", ""):  # a box selects its text when focused
            self.focused.action_copy()  # type: ignore[union-attr]
            self.notify(f"Copied the selected text. {how}", title="ctrl+c copies")
        elif self.screen.get_selected_text():
            self.screen.action_copy_text()
            self.notify(f"Copied the selected text. {how}", title="ctrl+c copies")
        else:
            self.notify(how, title="Quit?")

    # -- what the session browser calls (``screens/sessions.py``) ---------------------------------
    def resume_session(self, session_id: str) -> None:
        self.flows.resume_session(session_id)

    def fork_session(self, session_id: str, step: int, system_prompt: str | None) -> None:
        self.flows.fork_session(session_id, step, system_prompt)

    # -- figures -----------------------------------------------------------------------------------
    def _read_elapsed(self) -> float:
        if self.elapsed_reader is not None:
            return self.elapsed_reader()
        return self.handle.read_elapsed()

    def _tick(self) -> None:
        if self.run_active():
            self.refresh_gauge()
        if self.main is not None and self.main.is_mounted:
            self.main.update_waiting()
        self.tabs_ui.tick()

    def _write_terminal(self, sequence: str) -> None:
        """Bytes for the terminal itself (the bell): not in a headless test app."""
        if not self.is_headless and self._driver is not None:
            self._driver.write(sequence)

    def _figures(self) -> GaugeFigures:
        from tui_agent.plan.policy import gated  # an approved plan's budget is the run's gates

        return gauge_figures(self.session, gated(self.settings, self.session), self._read_elapsed())

    def refresh_gauge(self) -> None:
        self.main.set_gauge(self._figures())

    def exit_code(self) -> int:
        return EXIT_OK if self.session.answer is not None else EXIT_NO_ANSWER
