"""What the app does with its tabs (``app.tabs``, ``app.tabs_ui``): open one (a new research, a
stored session), show one, close one, and keep hidden tabs' runs going without drawing them.

A message from a run names its handle (``bridge.RunMessage.origin``). The shown tab's messages go
the app's usual way (its panes redraw); a hidden tab's are folded into its handle's state and kept
(the request that waits, the breakpoint's pause), and the tab is marked ``stale``: its panes catch
up from the folded state when it is shown (``MainScreen.reset``), so a hidden run costs the shown
tab's keys no redraw. Its list of calls is its run's own, kept hidden and caught up by the calls
that changed (``widgets/step_list.py``); the Answer pane keeps the last long answers rendered. The
bell and the notifications name the tab they come from.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Callable, TypeVar

from tui_agent.app.bridge import (
    ApprovalAsked, BreakpointHit, BreakpointReleased, EngineEvent, RunFinished, RunMessage, SettingsResumed,
    StartingNote, StreamText,
)
from tui_agent.app.tabs import Tab, TabMark
from tui_agent.core.events import (
    Decision, Event, ModelCallEnded, ModelCallStarted, Notice, Retry, RunEnded, RunStarted, Termination,
)

if TYPE_CHECKING:
    from tui_agent.app.application import ResearchApp
    from tui_agent.config import Settings

M = TypeVar("M", bound=RunMessage)


def shown_tab_only(handler: Callable[[ResearchApp, M], None]) -> Callable[[ResearchApp, M], None]:
    """An app's handler of a run's message, for the shown tab's run only: a hidden (or closed)
    tab's message is kept for it here (``TabControl.elsewhere``)."""

    @functools.wraps(handler)
    def handle(app: ResearchApp, message: M) -> None:
        if not app.tabs_ui.elsewhere(message):
            handler(app, message)

    return handle


class TabControl:
    def __init__(self, app: ResearchApp) -> None:
        self.app = app

    def name(self, tab: Tab) -> str:
        """How notifications and the bell name a tab: its number and short question."""
        return f"tab {self.app.tabs.number(tab)} ({tab.label()})" if tab in self.app.tabs.tabs else tab.label()

    # -- opening ------------------------------------------------------------------------------------------
    def open(self, settings: Settings, question: str | None = None, *, session_id: str | None = None,
             resume: str | None = None) -> Tab:
        """A tab with a handle of its own (not shown yet unless it is the first)."""
        from tui_agent.agent import handle as run_handle
        from tui_agent.app.decisions import Decisions
        from tui_agent.core import fold
        from tui_agent.session.session_rows import new_session_id

        app = self.app
        sid = resume or session_id or new_session_id()
        holder: list[Tab] = []
        handle = app.runs.open(fold.new_state(sid, question or "", settings.model or ""),
                               breakpoint_on=lambda: holder[0].breakpoint, cli_auto=app.cli_auto,
                               prepare=lambda s: run_handle.warm_up(s))
        tab = Tab(handle, settings, question, breakpoint=settings.breakpoint, fixed_session_id=sid, resume=resume)
        holder.append(tab)
        tab.decisions = Decisions(app, app._write_terminal, app.clock, tab=tab, served=app.served)
        handle.on_decided(tab.decisions.decided)
        from tui_agent.app.team_front import TeamFront

        tab.team = TeamFront(app, handle)
        return app.tabs.add(tab)

    def _room(self) -> bool:
        app = self.app
        if app.tabs.full():
            app.notify(f"{len(app.tabs)} tabs are open, the most max_tabs allows: close one first (ctrl+w).",
                       title="No room for another tab", severity="warning")
            return False
        return True

    def _fresh_settings(self) -> Settings:
        """A new tab's settings: the shown tab's as they are now (its model, plan mode, team mode,
        context policy), then its own: changing them in one tab never changes another."""
        return dataclasses.replace(self.app.settings)

    def new_research(self) -> None:
        """A new tab whose question box asks for the question (the palette's "New research")."""
        if not self._room():
            return
        app = self.app
        tab = self.open(self._fresh_settings())
        self.show(tab)
        if not app.settings.model:
            app.models.change()
            return
        app.flows.ask_question()

    def open_session(self, session_id: str) -> bool:
        """Show the tab of ``session_id`` if one holds it, else open a new tab that continues it
        (the browser's resume and fork). False when no tab could be opened."""
        app = self.app
        if (tab := app.tabs.with_session(session_id)) is not None:
            self.show(tab)
            app.notify(f"Session {tab.session_id} is open in {self.name(tab)}: switched to it.", title="Sessions")
            return False
        shown = app.tabs.shown
        if shown.handle.active or shown.handle.state.runs or shown.handle.phase.name == "FAILED":
            if not self._room():
                return False
            self.show(self.open(self._fresh_settings(), resume=session_id))
        return True

    # -- showing ------------------------------------------------------------------------------------------
    def show(self, tab: Tab) -> None:
        """Show ``tab``: the main screen points at its run and draws its folded state."""
        app = self.app
        if tab is app.tabs.shown and not tab.stale:
            self.redraw_strip()
            return
        app.tabs.shown = tab
        main = app.main
        main.handle = tab.handle
        tab.stale = False
        if main.is_mounted and main.ready.is_set():
            main.reset(tab.handle.state)
            main.set_question(tab.handle.state.question or tab.question)
            if tab.handle.pending is not None:
                self._ask_shown(tab)
            app.refresh_gauge()
            main.update_header()
            tab.team.refresh_pane()  # its team's pane, or none when it has no team
            if tab.handle.paused is not None:
                app.flows.paused(tab.handle.paused)
        else:
            app.refresh_bindings()  # else the reset did (the keys' region): one footer redraw, not two
        self.redraw_strip()

    def _ask_shown(self, tab: Tab) -> None:
        """The request that waited while the tab was hidden, on screen now."""
        from tui_agent.plan.requests import ClarifyRequest, PlanRequest

        req = tab.handle.pending
        tab.handle.pending = None
        if isinstance(req, (PlanRequest, ClarifyRequest)) or not tab.handle.auto_approves(req):
            tab.decisions.ask(req)

    def step(self, delta: int) -> None:
        if len(self.app.tabs) > 1:
            self.show(self.app.tabs.step(delta))

    def go(self, number: int) -> None:
        if (tab := self.app.tabs.at(number)) is not None:
            self.show(tab)

    def longest_waiting(self) -> None:
        tab = self.app.tabs.longest_waiting()
        if tab is None:
            self.app.notify("No tab waits for you.")
            return
        self.show(tab)

    # -- closing ------------------------------------------------------------------------------------------
    async def close_shown(self) -> None:
        """Close the shown tab; a live run's is asked first, then stopped and marked interrupted."""
        app = self.app
        tab = app.tabs.shown
        if len(app.tabs) == 1:
            app.notify("This is the only tab: q quits.", title="Close tab")
            return
        if not tab.handle.active:
            self._drop(tab)
            return
        from tui_agent.screens.confirm import ConfirmScreen

        sid = tab.session_id
        app.push_screen(ConfirmScreen("Close this tab while its run is active?",
                                      f"Its run stops now; session {sid} is marked interrupted and can be resumed "
                                      f"(tui-agent --resume {sid}).", "Close", "Stay"),
                        lambda yes: self._close_confirmed(tab, yes))

    async def _close_confirmed(self, tab: Tab, yes: bool | None) -> None:
        if not yes or tab not in self.app.tabs.tabs:
            return
        await self.stop(tab)
        self._drop(tab)

    def quit_asking(self, live: list[Tab]) -> None:
        """Quitting with live tabs asks once, for all of them; yes stops each (resumable)."""
        from tui_agent.screens.confirm import ConfirmScreen

        app = self.app
        sessions = "\n".join(f"  {self.name(t)}: tui-agent --resume {t.session_id}" for t in live)
        app.push_screen(ConfirmScreen(f"Quit while {len(live)} runs are active?",
                                      f"Every run stops now; each session stays resumable:\n{sessions}", "Quit",
                                      "Stay"), lambda yes: self._quit_confirmed(live, yes))

    async def _quit_confirmed(self, live: list[Tab], yes: bool | None) -> None:
        if not yes:
            return
        for tab in live:
            await self.stop(tab)
        self.app.exit(self.app.exit_code(), return_code=self.app.exit_code())

    async def stop(self, tab: Tab) -> None:
        """Stop ``tab``'s run; its session is marked interrupted (resumable)."""
        app = self.app
        tab.handle.interrupt("closing its tab", app.store)
        await tab.handle.stop()
        if app.store is not None and tab.session_id:
            try:
                app.store.mark_interrupted(tab.session_id, only_if_running=True)
            except Exception:  # noqa: BLE001 - the session stays as the run left it
                pass

    def _drop(self, tab: Tab) -> None:
        app = self.app
        app.runs.close(tab.handle)
        was_shown = app.tabs.shown is tab
        after = app.tabs.remove(tab)
        if was_shown:
            after.stale = True  # the screen showed the closed tab: draw this one anew
            self.show(after)
        if app.main is not None and app.main.is_mounted:
            app.main.forget_run(tab.handle)  # its list of calls
        self.redraw_strip()

    # -- a hidden tab's messages --------------------------------------------------------------------------
    def elsewhere(self, message: RunMessage) -> bool:
        """True when ``message`` is not the shown tab's: then it was handled here (kept for the
        hidden tab, or dropped for a closed one)."""
        app = self.app
        tab = app.tabs.of(message.origin) if message.origin is not None else app.tabs.shown
        if tab is app.tabs.shown:
            return False
        if tab is None:  # a closed tab's run, stopping: its state still records how it ended
            if isinstance(message, EngineEvent) and message.origin is not None:
                message.origin.apply(message.event)
            return True
        h = tab.handle
        match message:
            case StreamText():
                h.stream(message.step, message.text, message.reasoning)
                return True  # no strip redraw: a stream changes no mark
            case EngineEvent():
                h.apply(message.event)
                self._hidden_event(tab, message.event)
            case ApprovalAsked():
                if not h.auto_approves(message.request):
                    h.pending = message.request
            case BreakpointHit():
                h.paused = message.pause
            case BreakpointReleased():
                h.paused = None
            case RunFinished() if message.error:
                h.failed()
                app.notify(message.error, title=f"{self.name(tab)}: the run could not start", severity="error")
            case StartingNote():
                tab.starting_note = message.text
            case SettingsResumed():
                tab.settings = message.settings
        tab.stale = True
        self.redraw_strip()
        return True

    def _hidden_event(self, tab: Tab, e: Event) -> None:
        app, h, name = self.app, tab.handle, self.name(tab)
        match e:
            case RunStarted():
                h.started()
            case Retry():
                h.retrying = True
            case ModelCallEnded() | ModelCallStarted():
                h.retrying = False
            case Decision() if h.pending is not None and getattr(h.pending, "call_id", None) == e.call_id:
                h.pending = None
            case Notice() if e.level in ("error", "warning"):
                app.notify(e.text, title=name, severity="error" if e.level == "error" else "warning")
            case RunEnded():
                h.retrying = False
                tab.last_result = e.result
                h.pending = h.paused = None
                h.elapsed = float(e.result.get("elapsed_s") or h.elapsed)
                answered = e.termination == Termination.ANSWER or h.state.answer is not None
                app.notify(f"{name}: {TabMark.ANSWERED.word if answered else 'ended'} ({e.termination})",
                           title="A research in another tab ended",
                           severity="information" if answered else "warning")

    # -- the clock and the strip --------------------------------------------------------------------------
    def tick(self) -> None:
        """Hidden tabs' decisions: how long they waited, and their bell (naming the tab)."""
        for tab in self.app.tabs.hidden():
            tab.decisions.waited()
        self.redraw_strip()

    def redraw_strip(self) -> None:
        from tui_agent.widgets.tab_strip import TabStrip

        app = self.app
        main = app.main
        if main is None or not main.is_mounted:
            return
        if (strip := main.query_one_optional(TabStrip)) is not None:
            strip.show_tabs([(app.tabs.number(t), t.mark(), t.label(),
                              t.decisions.waited_text() if t.decisions is not None else "", t is app.tabs.shown)
                             for t in app.tabs])
