"""The app served in a browser (``tui-agent serve``): Textual's web driver, told when the tab closed.

textual-serve starts each visit's app with ``TEXTUAL_DRIVER`` naming Textual's web driver; the
command line swaps in :class:`ServedDriver` (``cli.serve.use_served_driver``, before Textual is
imported: Textual reads the variable once). When the browser tab
closes, the server sends the app a ``quit`` packet: the driver first lets the app mark its live run
interrupted (resumable, never left *running*), then Textual's own handling closes the app.
"""

from __future__ import annotations

from typing import Any

from textual.drivers.web_driver import WebDriver

# How the app says why its run stopped (``interrupted_by``), as a signal's name is said.
TAB_CLOSED = "the browser tab closing"


class ServedDriver(WebDriver):
    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":
            # This is the input thread: the app's own loop marks the run.
            self._app.call_from_thread(tab_closed, self._app)
        super().on_meta(packet_type, payload)


def tab_closed(app: Any) -> None:
    """The app's browser tab closed: every live run (each of the app's own tabs) is marked
    interrupted (resumable) before the app closes, as a signal does in a terminal
    (``ResearchApp._stopped_by``)."""
    live = [tab.handle for tab in app.tabs if tab.handle.active]
    if live:
        app.interrupted_by = TAB_CLOSED
    for handle in live:
        handle.interrupt(TAB_CLOSED, app.store)


def is_served_driver(driver_class: type) -> bool:
    """The app draws in a browser (Textual's web driver or ours)."""
    return issubclass(driver_class, WebDriver)
