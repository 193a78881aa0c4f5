"""The main screen's tab keys: a new research in a new tab, the next, previous or numbered tab, the
tab that waits longest for you, closing the shown tab. One table feeds their keys, the palette
and the help screen (``widgets.actions``); the actions themselves are the app's ``tabs_ui``
(``app.tab_control.TabControl``)."""

from __future__ import annotations

from textual.binding import Binding

from tui_agent.widgets.actions import UiAction, bindings, table

TAB_ACTIONS = table(
    UiAction("new_research", "ctrl+t", "New tab", "New research",
             "a new research in a new tab (its question box asks for the question)", footer=False),
    UiAction("next_tab", "right_square_bracket", "Next tab", "Next tab", "show the next tab", footer=False,
             key_display="]"),
    UiAction("previous_tab", "left_square_bracket", "Previous tab", "Previous tab", "show the previous tab",
             footer=False, key_display="["),
    UiAction("waiting_tab", "w", "Waiting tab", "Tab that waits longest",
             "show the tab whose decision has waited longest for you", footer=False),
    UiAction("close_tab", "ctrl+w", "Close tab", "Close tab",
             "close the shown tab (a live run is asked first, then stopped and marked interrupted: resumable)",
             footer=False),
)
# 1…9 show that tab (not in the palette: "Next tab" and "Previous tab" are).
NUMBER_KEYS = [Binding(str(n), f"go_tab({n})", f"Tab {n}", show=False) for n in range(1, 10)]
TAB_BINDINGS = bindings(TAB_ACTIONS.values()) + NUMBER_KEYS


class TabActions:
    """The main screen's tab actions (a mixin: ``MainScreen`` has the app)."""

    def tab_available(self, action: str) -> bool:
        tabs = self.app.tabs  # type: ignore[attr-defined]
        if action in ("next_tab", "previous_tab", "close_tab", "go_tab"):
            return len(tabs) > 1
        if action == "waiting_tab":
            return tabs.longest_waiting() is not None
        return True

    def action_new_research(self) -> None:
        self.app.tabs_ui.new_research()  # type: ignore[attr-defined]

    def action_next_tab(self) -> None:
        self.app.tabs_ui.step(+1)  # type: ignore[attr-defined]

    def action_previous_tab(self) -> None:
        self.app.tabs_ui.step(-1)  # type: ignore[attr-defined]

    def action_go_tab(self, number: int) -> None:
        self.app.tabs_ui.go(number)  # type: ignore[attr-defined]

    def action_waiting_tab(self) -> None:
        self.app.tabs_ui.longest_waiting()  # type: ignore[attr-defined]

    async def action_close_tab(self) -> None:
        await self.app.tabs_ui.close_shown()  # type: ignore[attr-defined]
