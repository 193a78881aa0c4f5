"""The tab strip: one line naming each open research by its number, its status mark and its short
question; the one that waits for you stands out (its own mark and colour, with how long it has
waited). Hidden while a single tab is open, so the one-research screen is as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from tui_agent.app.tabs import TabMark

# The style of each mark's tab (by the mark's name): waiting for you stands out.
MARK_STYLES = {
    "NEW": "$text-muted", "RUNNING": "$accent", "WAITING": "bold $text on $warning",
    "ANSWERED": "$success", "FAILED": "$error", "INTERRUPTED": "$text-muted",
}


def strip_content(tabs: list[tuple[int, TabMark, str, str, bool]]) -> Content:
    """``tabs``: (number, mark, label, waited, shown) for each tab, in order."""
    parts: list[Content] = []
    for number, mark, label, waited, shown in tabs:
        wait = f" {waited}" if mark.name == "WAITING" and waited else ""
        text = Content.styled(f" {number} {mark.value}{wait} {label} ", MARK_STYLES.get(mark.name, ""))
        if shown:
            text = text.stylize("reverse" if mark.name != "WAITING" else "underline")
        parts.append(text)
    return Content("│").join(parts)


class TabStrip(Static):
    DEFAULT_CSS = """
    TabStrip { height: 1; width: 1fr; display: none; }
    TabStrip.-several { display: block; }
    """

    def __init__(self, **kw) -> None:
        super().__init__("", markup=False, **kw)
        self._key = ""
        self.shown_text = ""  # what the strip says (plain text), for tests and the pty test

    def show_tabs(self, tabs: list[tuple[int, TabMark, str, str, bool]]) -> None:
        self.set_class(len(tabs) > 1, "-several")
        key = repr(tabs)
        if key != self._key:  # the clock ticks every second: draw only what changed
            self._key = key
            content = strip_content(tabs)
            self.shown_text = content.plain
            self.update(content)
