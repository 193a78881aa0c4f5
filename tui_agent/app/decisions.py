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
    from tui_agent.app.tabs import Tab


class Decisions:
    def __init__(self, app: AppHost, write: Callable[[str], None], clock: Callable[[], float] | None = None,
                 tab: Tab | None = None, *, served: bool = False) -> None:
        self.app = app
        self.tab = tab  # the tab whose run's decisions these are (None: the app's shown run)
        self.served = served  # in a browser: the call is Textual's notification, not terminal bytes
        self.write = write  # writes to the terminal (the bell, the desktop notification)
        settings = tab.settings if tab is not None else app.settings
        self.watch = DecisionWatch(settings.notify_after_s, clock or time.monotonic)
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
        if app.main is None or (self.tab is not None and self.tab is not app.tabs.shown):
            return  # a hidden tab's screen catches up when shown
        app.main.clear_pending()
        app.main.update_waiting()
        app.set_focus(None)
        app.refresh_bindings()

    def waited(self) -> str:
        """Follow the decision that waits: how long it has waited (what the header shows), and the
        bell and desktop notification once it has waited ``notify_after_s`` (once per decision)."""
        settings = self.tab.settings if self.tab is not None else self.app.settings
        waiting = (self.tab.handle if self.tab is not None else self.app.handle).waiting_on()
        self.watch.after_s = settings.notify_after_s
        self.watch.observe(*waiting) if waiting else self.watch.observe(None)
        due = self.watch.due()
        if due is not None and settings.notify != "off":
            # which research waits, once there are several to tell apart
            name = self.app.tabs_ui.name(self.tab) if self.tab is not None and len(self.app.tabs) > 1 else ""
            title = f"tui-agent · {name}" if name else "tui-agent"
            body = f"{due.kind} waiting: {due.detail}"
            if self.served:  # a browser shows no terminal bell or OSC 9: a toast on the page instead
                self.written.append(body)
                self.app.notify(body, title=title, severity="warning", timeout=30)
            else:
                sequence = attention_sequence(settings.notify, title, body)
                self.written.append(sequence)
                self.write(sequence)
                if name:
                    self.app.notify(body[:200], title=f"{name} waits for you", severity="warning", timeout=8)
        return waited_label(self.watch.waited())

    def waited_text(self) -> str:
        """How long the decision seen last has waited (the tab strip; nothing rings here)."""
        return waited_label(self.watch.waited())

    def since(self) -> float | None:
        """When the decision that waits began to wait (None: none, or not seen by a tick yet)."""
        return None if self.watch.current is None else self.watch.current.since
