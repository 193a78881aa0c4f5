"""Asking for the question (when none was given, or for a new session)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class QuestionScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, default: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self._default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("What should the model research?", classes="dialog-title")
            yield Static("Type the question and press Enter. Esc cancels.", classes="dialog-text")
            yield Input(self._default, placeholder="e.g. Which Python web frameworks support HTTP/3 today?",
                        id="question-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.dismiss(text)
        else:
            self.notify("Please type a question.", severity="warning")
