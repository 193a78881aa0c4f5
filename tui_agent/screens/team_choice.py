"""Submit now or stop on a team research: a choice between the focused agent and all agents."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

TITLES = {"submit": "Submit now: which agents answer now?", "stop": "Stop: which agents stop?"}


class TeamChoiceScreen(ModalScreen[str | None]):
    """Dismissed with "one" (the focused agent), "all" or None (cancelled)."""

    BINDINGS = [
        Binding("f", "choose('one')", "This agent"),
        Binding("a", "choose('all')", "All agents"),
        Binding("escape", "choose(None)", "Cancel"),
    ]

    def __init__(self, what: str, agent: str | None) -> None:
        super().__init__(classes="dialog-screen")
        self.what, self.agent = what, agent

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(TITLES.get(self.what, self.what), classes="dialog-title")
            text = (f"The focused agent is {self.agent}." if self.agent else "No agent is focused: only all agents.")
            if self.what == "stop":
                text += " A stopped agent's section is incomplete; the others go on."
            yield Static(text, classes="dialog-text", markup=False)  # quotes the sub-question
            with Horizontal(classes="dialog-buttons"):
                yield Button("This agent f", id="one", variant="warning", compact=True, disabled=self.agent is None)
                yield Button("All agents a", id="all", variant="error", compact=True)
                yield Button("Cancel Esc", id="cancel", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(None if event.button.id == "cancel" else event.button.id)

    def action_choose(self, choice: str | None) -> None:
        if choice == "one" and self.agent is None:
            return
        self.dismiss(choice)
