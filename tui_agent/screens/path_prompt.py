"""Asking where to write a file: a path, pre-filled with the default folder and name."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class PathScreen(ModalScreen[Path | None]):
    """Returns the path typed (``~`` expanded), or None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str, default: Path) -> None:
        super().__init__(classes="dialog-screen")
        self._title = title
        self._default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._title, classes="dialog-title")
            yield Static("Enter writes the file (folders are made as needed); Esc cancels.", classes="dialog-text")
            yield Input(str(self._default), id="path-input")

    def on_mount(self) -> None:
        box = self.query_one("#path-input", Input)
        box.focus()
        box.cursor_position = len(box.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.notify("Type a file path.", severity="warning")
            return
        self.dismiss(Path(text).expanduser())
