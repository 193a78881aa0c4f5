"""The decisions a person makes while a run goes on, held by the app (``app.decisions``): the
request that waits (a tool call, a plan, clarifying questions), approving or rejecting it, auto
mode, Submit now, and calling the person when a decision has waited ``notify_after_s``.

Its input is declared: ``app``, the ``AppHost`` it shows things through (the main screen, the
header, notifications); the waiting request itself is the run controller's (``app.control``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from tui_agent.app.attention import DecisionWatch, attention_sequence, waited_label
from tui_agent.app.bridge import resolve
from tui_agent.app.controller import approve

if TYPE_CHECKING:
    from tui_agent.app.host import AppHost


class Decisions:
    def __init__(self, app: AppHost, write: Callable[[str], None], clock: Callable[[], float] | None = None) -> None:
        self.app = app
        self.write = write  # writes to the terminal (the bell, the desktop notification)
        self.watch = DecisionWatch(app.settings.notify_after_s, clock or time.monotonic)
        self.written: list[str] = []  # what was written to call the person, newest last

    def ask(self, req: Any) -> None:
        """A request came from the engine: show it and wait (auto mode that came on after the
        request left approves it at once)."""
        from tui_agent.plan.requests import is_plan_request

        app = self.app
        if is_plan_request(req):  # plan mode: the plan or clarifying questions, in their own dialog
            from tui_agent.screens.plan import ask

            app.control.pending = req
            ask(app, req)
            app.main.update_header()  # the header says what waits
            return
        # auto_on, not the engine's own flag: a y the engine's loop has not taken yet counts too
        if app.control.research is not None and app.auto_on():
            resolve(req.future, approve(req.arguments, auto=True))
            return
        app.control.pending = req
        app.main.show_pending(req)
        app.main.update_waiting()
        app.refresh_bindings()

    def decide(self, decision: Any) -> None:
        """Resolve the waiting request with ``decision`` (nothing when none waits)."""
        app = self.app
        if not app.control.decide(decision):
            return
        app.main.clear_pending()
        app.main.update_waiting()
        app.set_focus(None)
        app.refresh_bindings()

    def toggle_auto(self) -> None:
        """Auto mode on/off for this run only (the next run, a resume or a fork asks again)."""
        app = self.app
        on = not app.auto_on()
        if not app.control.set_auto(on, app.session, app.run_active()):
            app.notify("Auto mode holds for a running session only; a new run asks again unless started with "
                       "--yes.", severity="warning")
            return
        if on and app.control.pending is not None:
            self.decide(approve(app.control.pending.arguments, auto=True))
        app.main.header.auto = on

    def submit_now(self) -> None:
        from tui_agent.core.approval import SubmitNow

        app = self.app
        if app.control.pending is not None:
            self.decide(SubmitNow())
        app.control.research.request_submit()
        app.notify("Submit now: the model answers from the evidence so far.", title="Submit now")

    def waited(self) -> str:
        """Follow the decision that waits: how long it has waited (what the header shows), and the
        bell and desktop notification once it has waited ``notify_after_s`` (once per decision)."""
        settings = self.app.settings
        waiting = self.app.control.waiting_on()
        self.watch.after_s = settings.notify_after_s
        self.watch.observe(*waiting) if waiting else self.watch.observe(None)
        due = self.watch.due()
        if due is not None and settings.notify != "off":
            sequence = attention_sequence(settings.notify, "tui-agent", f"{due.kind} waiting: {due.detail}")
            self.written.append(sequence)
            self.write(sequence)
        return waited_label(self.watch.waited())
