"""What the app does with each event of its run, after the handle folded it: the handle's phase,
notifications, and the regions the app itself draws (the gauge and the keys), subscribed on the
main screen's region bus (``widgets.effects``). Held by the app (``app.events``); it dispatches with
``match`` on the event classes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.core.events import (
    Decision, Event, ModelCallEnded, ModelCallStarted, Notice, Retry, RunEnded, RunStarted, Termination,
)
from tui_agent.widgets.effects import Region

if TYPE_CHECKING:
    from tui_agent.app.host import AppHost


class RunEvents:
    def __init__(self, app: AppHost) -> None:
        self.app = app

    def subscribe(self) -> None:
        """The app's own regions on the main screen's bus (called once the main screen exists)."""
        app = self.app
        bus = app.main.regions
        bus.subscribe({Region.GAUGE}, lambda _e: app.refresh_gauge())
        bus.subscribe({Region.KEYS}, lambda _e: app.refresh_bindings())

    def show(self, e: Event) -> None:
        """After the handle folded ``e``: the run's phase, notifications, then every view of a region
        it changes (the main screen publishes it)."""
        app, handle = self.app, self.app.handle
        match e:
            case RunStarted():
                handle.started()
            case Retry():
                handle.retrying = True
                hint = " · m changes the model" if e.attempt == 1 else ""
                app.notify(f"Retrying in {e.delay_s:.1f} s: {e.reason}{hint}", severity="warning", timeout=4)
            case ModelCallEnded() | ModelCallStarted() | RunEnded():
                handle.retrying = False
            case Decision() if handle.pending is not None and getattr(handle.pending, "call_id", None) == e.call_id:
                handle.pending = None
                app.main.clear_pending()
        match e:
            case Notice() if not e.text.startswith("Model error:"):
                app.notify(e.text, severity={"error": "error", "warning": "warning"}.get(e.level, "information"))
            case RunEnded():
                self._ended(e)
        app.main.show_event(e)

    def _ended(self, e: RunEnded) -> None:
        app, handle = self.app, self.app.handle
        app.last_result = e.result
        handle.pending = None
        if handle.paused is not None:
            app.flows.close_paused_inspector()
        if e.termination == Termination.MODEL_ERROR:
            app.notify(f"Model error: {e.message}\nPress m to change the model (or its API key) and run the "
                       "question again.", title="The model could not answer", severity="error", timeout=15)
        elif e.termination == Termination.ANSWER or app.session.answer is not None:
            app.notify("The answer is ready: C copies it, W saves it as Markdown.", title=f"Ended: {e.termination}")
        else:
            app.notify(e.message or "The run ended without an answer.", title=f"Ended: {e.termination}",
                       severity="warning")
        handle.elapsed = float(e.result.get("elapsed_s") or handle.elapsed)
