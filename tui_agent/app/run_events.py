"""What the app does with each event of its run, after the fold took it: its own state (the
phase, the run controller), notifications, the main screen, the gauge and the keys. Held by the
app (``app.events``); it dispatches with ``match`` on the event classes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.app.phases import Phase
from tui_agent.core.events import (
    AnswerEvent, Decision, Event, ModelCallEnded, ModelCallStarted, Notice, Retry, RunEnded, RunStarted, Termination,
    ToolProgress,
)

if TYPE_CHECKING:
    from tui_agent.app.host import AppHost


class RunEvents:
    def __init__(self, app: AppHost) -> None:
        self.app = app

    def show(self, e: Event) -> None:
        """After the fold took ``e``: the app's own state, notifications, the gauge and the keys."""
        app = self.app
        match e:
            case RunStarted():
                app.phase = Phase.NONE  # the fold's status says where the run stands from here on
                app.control.auto_wanted = None  # the run's policy is in the state from here on
                app.control.begun = True
            case Retry():
                app.control.retrying = True
                hint = " · m changes the model" if e.attempt == 1 else ""
                app.notify(f"Retrying in {e.delay_s:.1f} s: {e.reason}{hint}", severity="warning", timeout=4)
            case ModelCallEnded() | ModelCallStarted() | RunEnded():
                app.control.retrying = False
            case Decision() if app.pending is not None and app.pending.call_id == e.call_id:
                app.pending = None
                app.main.clear_pending()
        app.main.show_event(e)
        match e:
            case Notice() if not e.text.startswith("Model error:"):
                app.notify(e.text, severity={"error": "error", "warning": "warning"}.get(e.level, "information"))
            case RunEnded():
                self._ended(e)
        if isinstance(e, (RunStarted, ModelCallStarted, ModelCallEnded, RunEnded, ToolProgress)):
            app.refresh_gauge()
        if isinstance(e, (RunStarted, AnswerEvent, RunEnded, ModelCallStarted, Retry)):
            app.refresh_bindings()

    def _ended(self, e: RunEnded) -> None:
        app = self.app
        app.last_result = e.result
        app.pending = None
        if app.paused is not None:
            app.flows.close_paused_inspector()
        if e.termination == Termination.MODEL_ERROR:
            app.notify(f"Model error: {e.message}\nPress m to change the model (or its API key) and run the "
                       "question again.", title="The model could not answer", severity="error", timeout=15)
        elif e.termination == Termination.ANSWER or app.session.answer is not None:
            app.notify("The answer is ready: C copies it, W saves it as Markdown.", title=f"Ended: {e.termination}")
        else:
            app.notify(e.message or "The run ended without an answer.", title=f"Ended: {e.termination}",
                       severity="warning")
        app.control.elapsed = float(e.result.get("elapsed_s") or app.control.elapsed)
