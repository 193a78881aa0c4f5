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
    "awaiting plan approval": "bold reverse $warning",
    "awaiting your answers": "bold reverse $warning",
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
    state: reactive[str] = reactive("idle")
    auto: reactive[bool] = reactive(False)
    breakpoint: reactive[bool] = reactive(False)
    waited: reactive[str] = reactive("")  # how long the decision waiting for the user has waited

    # The height is auto: a longer line may wrap to a second one (80 columns). A change lays the
    # screen out again only when the line count changes; otherwise it repaints this line alone (a
    # layout of the whole screen is most of what a key like ``y`` costs while an answer streams).
    def _fit(self) -> None:
        width = self.content_region.width
        if width <= 0 or not self.is_mounted:
            return
        lines = 1 if self.render().cell_length <= width else 2
        if lines != self.content_region.height:
            self.refresh(layout=True)

    watch_model = watch_session_id = watch_state = watch_auto = watch_breakpoint = watch_waited = _fit

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
