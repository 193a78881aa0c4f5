"""The decisions a person makes while a run goes on, as the app shows them (``app.decisions``): the
request that waits (a tool call, a plan, clarifying questions) put on screen, the screen tidied
after the run's handle resolved one, and calling the person when a decision has waited
``notify_after_s``. Deciding itself is the handle's (``RunHandle.decide``, ``set_auto``, ``submit_now``).

Its input is declared: ``app``, the ``AppHost`` it shows things through (the main screen, the
header, notifications) and whose run's handle holds the waiting request."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from tui_agent.app.attention import DecisionWatch, attention_sequence, waited_label

if TYPE_CHECKING:
    from tui_agent.agent.handle import Request
    from tui_agent.app.host import AppHost


class Decisions:
    def __init__(self, app: AppHost, write: Callable[[str], None], clock: Callable[[], float] | None = None,
                 *, served: bool = False) -> None:
        self.app = app
        self.served = served  # in a browser: the call is Textual's notification, not terminal bytes
        self.write = write  # writes to the terminal (the bell, the desktop notification)
        self.watch = DecisionWatch(app.settings.notify_after_s, clock or time.monotonic)
        self.written: list[str] = []  # what was written to call the person, newest last

    def ask(self, req: Request) -> None:
        """A request came from the run: show it and wait (auto mode that came on after the
        request left approves it at once)."""
        from tui_agent.plan.requests import ClarifyRequest, PlanRequest

        app, handle = self.app, self.app.handle
        match req:
            case PlanRequest() | ClarifyRequest():  # plan mode: the plan or the questions, in a dialog
                from tui_agent.screens.plan import plan_dialog

                handle.pending = req
                app.push_screen(plan_dialog(req, handle))
                app.main.update_header()  # the header says what waits
                return
        # auto_on, not the engine's own flag: a y the engine's loop has not taken yet counts too
        if handle.auto_approves(req):
            return
        handle.pending = req
        app.main.show_pending(req)
        app.main.update_waiting()
        app.refresh_bindings()

    def decided(self) -> None:
        """The handle resolved the waiting request: the screen stops showing it."""
        app = self.app
        if app.main is None:
            return
        app.main.clear_pending()
        app.main.update_waiting()
        app.set_focus(None)
        app.refresh_bindings()

    def waited(self) -> str:
        """Follow the decision that waits: how long it has waited (what the header shows), and the
        bell and desktop notification once it has waited ``notify_after_s`` (once per decision)."""
        settings = self.app.settings
        waiting = self.app.handle.waiting_on()
        self.watch.after_s = settings.notify_after_s
        self.watch.observe(*waiting) if waiting else self.watch.observe(None)
        due = self.watch.due()
        if due is not None and settings.notify != "off":
            body = f"{due.kind} waiting: {due.detail}"
            if self.served:  # a browser shows no terminal bell or OSC 9: a toast on the page instead
                self.written.append(body)
                self.app.notify(body, title="tui-agent", severity="warning", timeout=30)
            else:
                sequence = attention_sequence(settings.notify, "tui-agent", body)
                self.written.append(sequence)
                self.write(sequence)
        return waited_label(self.watch.waited())
