"""The app's flows around runs: starting one, asking the question, new runs, the session browser's resume and
fork, the citation check, the breakpoint's inspector, and quitting. Held by the app
(``app.flows``); what it needs from the app is ``host.AppHost``, the run is ``app.handle``."""

from __future__ import annotations

import asyncio
from functools import partial
import dataclasses
from typing import TYPE_CHECKING, Any, Callable

from tui_agent.agent.handle import RunSpec
from tui_agent.core import fold

if TYPE_CHECKING:
    from tui_agent.agent.handle import Pause
    from tui_agent.app.host import AppHost
    from tui_agent.screens.inspector import InspectorResult
    from tui_agent.session.store import Store
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState


def _closing(run: Callable[[], None], tracing: Any) -> Callable[[], None]:
    """``run`` (a run's thread), then the tracing closed: what is left is sent, waiting at most the
    exporter's timeout, on the run's thread, never the app's."""

    def traced() -> None:
        try:
            run()
        finally:
            tracing.close()

    return traced


class Flows:
    def __init__(self, app: AppHost) -> None:
        self.app = app

    # -- a run ---------------------------------------------------------------------------------------
    def start_run(self, question: str, settings: Settings, *, resume_id: str | None = None) -> None:
        """A new session for ``question``, or the stored session ``resume_id`` continued."""
        app = self.app
        from tui_agent.session.store import new_session_id

        # Approval policy never carries over: a run starts with the command line's --yes or asks.
        app.settings = settings = dataclasses.replace(settings, auto_approve=app.cli_auto)
        session_id = resume_id or app.fixed_session_id or new_session_id()
        app.fixed_session_id = None
        app.resume = None
        if resume_id:
            session = self._load_session(resume_id)
            if session is None:
                return
            resume_id = session_id = session.session_id  # a unique prefix was enough
        else:
            session = fold.new_state(session_id, question, settings.model or "")
        app.handle.reset(session)  # the handle's phase: starting
        app.question = question or session.question or None
        app.last_result = None
        app.main.reset(session)
        app.refresh_gauge()
        app.refresh_bindings()
        store = app.open_store(settings)  # here, on the app's thread: the store is the app's too
        # one injected clock for the panes and the engine's durations
        prepare_resume = None
        if resume_id:
            from tui_agent.session.resume import prepare_resume
        # team mode (or a team's session resumed): the team's executor (app/team_front.py)
        tracing = self._tracing(settings)  # otel = true: the run's spans, as `run --otel` sends them
        research = app.team.research(settings, session if resume_id else None, tracing)
        spec = RunSpec(session_id=session_id, resume_id=resume_id, store=store, tools=app.tools, clock=app.clock,
                       prepare_resume=prepare_resume, llm=app.llm, research=research,
                       listeners=[tracing.listener] if tracing is not None else [])
        # The run's own thread and loop: its stream never holds up the keys or the screen.
        run = app.handle.thread(question, settings, spec)
        if tracing is not None:
            run = _closing(run, tracing)
        app.run_worker(run, name="engine", group=f"run-{app.tabs.shown.key}", exclusive=True, exit_on_error=False,
                       thread=True)  # a group per tab: exclusive within its tab only

    def _tracing(self, settings: Settings) -> Any:
        """The run's tracing when the setting ``otel`` is on (``telemetry.open_tracing``); without the
        ``otel`` extra a notice says what to install and the run goes on untraced."""
        if not settings.otel:
            return None
        from tui_agent.telemetry import TracingUnavailable, open_tracing

        app = self.app
        try:
            # warn is called on the run's thread too: notify only posts a message (thread-safe)
            return open_tracing(settings, lambda text: app.notify(text, title="Traces", severity="warning"))
        except TracingUnavailable as exc:
            app.notify(f"otel is on but the OpenTelemetry SDK is missing ({exc.missing}): "
                       "pip install 'tui-agent[otel]'. This run is not traced.", title="Traces", severity="warning")
            return None

    def _load_session(self, session_id: str) -> SessionState | None:
        app = self.app
        from tui_agent.session.resume import ResumeError, load

        from tui_agent.session.store import StoreError

        store = app.open_store(app.settings)
        try:
            return load(store, store.resolve_id(session_id)) if store is not None else None
        except (ResumeError, StoreError) as exc:
            app.notify(str(exc), title="The session cannot be opened", severity="error", timeout=15)
            return None

    # -- questions and runs ------------------------------------------------------------------------
    def ask_question(self) -> None:
        from tui_agent.screens.question import QuestionScreen

        self.app.push_screen(QuestionScreen(), self._question_given)

    def _question_given(self, question: str | None) -> None:
        app = self.app
        if not question:
            app.main.set_question(app.question)
            return
        app.question = question
        app.start_run(question, app.settings)

    def new_question(self, change_model: Callable[[], None]) -> None:
        app = self.app
        if app.run_active():
            return
        if not app.settings.model:
            change_model()
            return
        self.ask_question()

    # -- the session browser ------------------------------------------------------------------------
    def open_sessions(self) -> None:
        from tui_agent.screens.sessions import SessionsScreen

        store = self.app.open_store(self.app.settings)
        if store is None:
            self.app.notify("The session database cannot be opened.", severity="error")
            return
        self.app.push_screen(SessionsScreen(store))

    def resume_session(self, session_id: str) -> None:
        """Continue a stored, unfinished session here (the browser's resume)."""
        app = self.app
        while app.screen is not app.main and len(app.screen_stack) > 1:
            app.pop_screen()
        # In a new tab (the shown one if it holds no run yet); a session open in a tab is switched to.
        if app.tabs_ui.open_session(session_id):
            app.start_run("", app.settings, resume_id=session_id)

    def fork_session(self, session_id: str, step: int, system_prompt: str | None) -> None:
        """Fork a stored session at ``step`` (optionally with a new system prompt) and run the fork."""
        app = self.app
        from tui_agent.session.resume import fork

        try:
            new_id = fork(app.open_store(app.settings), session_id, step, system_prompt)
        except Exception as exc:  # noqa: BLE001 - shown; the app stays open
            app.notify(f"Could not fork: {exc}", severity="error")
            return
        app.notify(f"Forked {session_id} at step {step} as {new_id}.", title="Fork")
        self.resume_session(new_id)

    # -- the citation check ----------------------------------------------------------------------
    def verify_answer(self) -> None:
        """Check the answer's citations (``sessions verify``) in a worker; the results are events of
        the session, folded into the screen's state when the check is done."""
        app = self.app
        store = app.open_store(app.settings)
        if store is None or app.session.answer is None or app.verifying:
            return
        app.verifying = True
        app.notify("Checking the answer's citations against their sources…", title="Verify")
        app.run_worker(self._verify(store, app.session.session_id), name="verify", group="verify",
                       exit_on_error=False)

    async def _verify(self, store: Store, session_id: str) -> None:
        from tui_agent.app.phases import warm_up
        from tui_agent.core import fold
        from tui_agent.core.events import Verdict
        from tui_agent.verify.check import verify_session

        app = self.app
        try:
            await asyncio.to_thread(warm_up)
            # Each stored result is folded into the screen's state as it comes (same loop, in order).
            await verify_session(store, session_id, app.settings, on_event=lambda e: fold.apply(app.session, e))
        except Exception as exc:  # noqa: BLE001 - shown; the session stays as it was
            app.notify(f"The citation check failed: {exc}", severity="error", timeout=10)
            return
        finally:
            app.verifying = False
            app.main.refresh_view()
            app.refresh_bindings()
        v = app.session.verification
        if v is not None:
            summary = (f"{v.count(Verdict.SUPPORTED)} supported · {v.count(Verdict.UNSUPPORTED)} unsupported · "
                       f"{v.count(Verdict.UNCLEAR)} unclear of {len(v.claims)} claims")
            app.notify(summary + (" — needs review" if v.needs_review else ""), title="Citations checked",
                       severity="warning" if v.needs_review else "information", timeout=10)

    # -- breakpoints: the prompt inspector -----------------------------------------------------------
    def paused(self, pause: Pause) -> None:
        from tui_agent.screens.inspector import InspectorScreen

        app = self.app
        app.handle.paused = pause
        app.main.update_header()
        if isinstance(app.screen, InspectorScreen):
            app.pop_screen()
        s = pause.started
        screen = InspectorScreen.of_call(s, paused=True, messages=pause.messages, step=s.step or (app.session.step + 1),
                                         handle=app.handle, regions=app.main.regions)
        app.push_screen(screen, partial(self._inspector_done, pause))
        app.refresh_bindings()

    def _inspector_done(self, pause: Pause, result: InspectorResult | None) -> None:
        if result is None or not self.app.handle.release(pause, result.messages, step=result.mode == "step"):
            return
        self.app.main.update_header()
        self.app.refresh_bindings()

    def close_paused_inspector(self) -> None:
        from tui_agent.screens.inspector import InspectorScreen

        app = self.app
        app.handle.paused = None
        for screen in list(app.screen_stack):
            if isinstance(screen, InspectorScreen) and screen.paused and screen is app.screen:
                app.pop_screen()
        app.main.update_header()
        app.refresh_bindings()

    # -- stopping and quitting ----------------------------------------------------------------------
    async def stop_run(self) -> None:
        """Cancel the engine and wait (a little) for its worker to record the cancellation."""
        await self.app.handle.stop()  # timed out: we go on anyway

    async def quit_asking(self) -> None:
        app = self.app
        live = app.tabs.live()
        if len(live) > 1 or (live and live[0] is not app.tabs.shown):
            app.tabs_ui.quit_asking(live)  # asks once, for every live tab
            return
        if not app.run_active():
            app.exit(app.exit_code(), return_code=app.exit_code())
            return
        from tui_agent.screens.confirm import ConfirmScreen

        from tui_agent.settings.where import where_flags

        sid = app.session.session_id
        store_path = getattr(app.store, "path", None)
        if store_path is None:  # nothing is being saved: there is nothing to continue later
            later = "It is not being saved, so it cannot be continued later."
        else:
            later = (f"Session {sid} stays in the store; continue it later with\n"
                     f"  tui-agent --resume {sid}{where_flags(store_path.parent, app.config_file)}")
        app.push_screen(ConfirmScreen("Quit while the run is active?", f"The run stops now. {later}", "Quit", "Stay"),
                        self._quit_confirmed)

    async def _quit_confirmed(self, yes: bool | None) -> None:
        if not yes:
            return
        await self.stop_run()
        self.app.exit(self.app.exit_code(), return_code=self.app.exit_code())
