"""The header line (model, full session id, run state, modes) and the question bar."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

STATE_STYLES = {
    "running": "bold $success",
    "answering": "bold $accent",
    "awaiting approval": "bold reverse $warning",
    "paused": "bold reverse $secondary",
    "starting": "$text-muted",
    "idle": "$text-muted",
}


class StatusHeader(Widget):
    """``tui-agent · model · session · state`` on one line (two when narrow)."""

    DEFAULT_CSS = """
    StatusHeader { height: auto; max-height: 2; background: $panel; color: $foreground; padding: 0 1; }
    """

    model: reactive[str] = reactive("")
    session_id: reactive[str] = reactive("")
    # layout=True: the header's height is auto, and a longer line may wrap to a second one (80 columns)
    state: reactive[str] = reactive("idle", layout=True)
    auto: reactive[bool] = reactive(False, layout=True)
    breakpoint: reactive[bool] = reactive(False, layout=True)
    waited: reactive[str] = reactive("", layout=True)  # how long the decision waiting for the user has waited

    def render(self) -> Content:
        state_style = STATE_STYLES.get(self.state, "bold $error" if "error" in self.state else "bold $primary")
        if self.state.startswith("ended: answer"):
            state_style = "bold $success"
        parts: list = [("tui-agent", "bold $primary"), "  model ", (self.model or "—", "bold"),
                       "  session ", (self.session_id or "—", "bold")]
        waited = f" {self.waited}" if self.waited else ""  # how long the decision has waited, in its pill
        parts += ["  ", (f" {self.state}{waited} ", state_style)]
        if self.auto:
            parts += ["  ", (" auto ", "bold reverse $warning")]
        if self.breakpoint:
            parts += ["  ", (" breakpoint ", "bold reverse $secondary")]
        return Content.assemble(*parts)


class QuestionBar(Static):
    """The question, visible from the first frame on."""

    DEFAULT_CSS = """
    QuestionBar { height: auto; max-height: 3; padding: 0 1; background: $surface; }
    """

    def set_question(self, question: str | None) -> None:
        if question:
            self.update(Content.assemble(("Q ", "bold $accent"), question))
        else:
            self.update(Content.assemble(("Q ", "bold $accent"), ("no question yet", "italic $text-muted")))
