"""The team pane: one line per sub-agent of a team research (issue 29 item 7): its number, its
sub-question (short), its status (queued, running, waiting for you with seconds, done, needs
review, failed) and its tokens. The agent whose call waits is marked. Enter (or a click) on a line
posts ``TeamPane.AgentChosen``; the app opens that agent's view. It renders what it is given
(``AgentLine``) and nothing else: the app reads the agents' handles and folded states."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_agent.kinds import AgentStatus

# How many characters of a sub-question a pane line shows.
QUESTION_CHARS = 28
STYLES = {AgentStatus.QUEUED: "$text-muted", AgentStatus.RUNNING: "$accent", AgentStatus.WAITING: "bold $warning",
          AgentStatus.DONE: "$success", AgentStatus.NEEDS_REVIEW: "$warning", AgentStatus.FAILED: "$error"}
WAITING_MARK = "▶"


@dataclass(frozen=True)
class AgentLine:
    number: int
    question: str
    status: AgentStatus
    tokens: int = 0
    waited_s: float | None = None  # seconds its call has waited for you (status waiting)
    reason: str = ""  # why it failed


def short(text: str, limit: int = QUESTION_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def tokens_label(n: int) -> str:
    return f"{n / 1000:.1f}k tok" if n >= 1000 else f"{n} tok"


def status_label(line: AgentLine) -> str:
    if line.status == AgentStatus.WAITING:
        return f"waiting for you {int(line.waited_s or 0)}s"
    if line.status == AgentStatus.FAILED and line.reason:
        return f"failed: {short(line.reason, 30)}"
    return str(line.status)


def line_text(line: AgentLine) -> str:
    """The line as plain text (what tests and the benchmark read)."""
    mark = WAITING_MARK if line.status == AgentStatus.WAITING else " "
    return f"{mark} {line.number}. {short(line.question)} · {status_label(line)} · {tokens_label(line.tokens)}"


def line_content(line: AgentLine) -> Content:
    mark = (WAITING_MARK, "bold $warning") if line.status == AgentStatus.WAITING else " "
    return Content.assemble(mark, f" {line.number}. {short(line.question)} · ",
                            (status_label(line), STYLES.get(line.status, "")), (" · " + tokens_label(line.tokens), "$text-muted"))


class TeamPane(OptionList):
    """The agents of the team research shown, one option each (its id: the agent's number)."""

    DEFAULT_CSS = """
    TeamPane { height: auto; max-height: 9; border: none; border-top: solid $accent; border-title-style: bold;
               padding: 0 1; }
    """

    class AgentChosen(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.lines: list[AgentLine] = []
        self.border_title = "Team"

    def show(self, lines: list[AgentLine]) -> None:
        """Redraw when the lines changed (a status, tokens, seconds waited); keeps the highlight."""
        if lines == self.lines:
            return
        highlighted = self.highlighted
        same_agents = [a.number for a in lines] == [a.number for a in self.lines]
        self.lines = list(lines)
        if same_agents:
            for i, line in enumerate(lines):
                self.replace_option_prompt_at_index(i, line_content(line))
        else:
            self.clear_options()
            self.add_options([Option(line_content(a), id=str(a.number)) for a in lines])
            if lines:
                self.highlighted = min(highlighted or 0, len(lines) - 1)
        waiting = sum(1 for a in lines if a.status == AgentStatus.WAITING)
        done = sum(1 for a in lines if a.status in (AgentStatus.DONE, AgentStatus.NEEDS_REVIEW, AgentStatus.FAILED))
        self.border_title = f"Team · {done}/{len(lines)} ended" + (f" · {waiting} waiting for you" if waiting else "")

    @property
    def focused_agent(self) -> int | None:
        """The highlighted agent's number (None: no agent)."""
        if self.highlighted is None or not self.lines:
            return None
        return self.lines[min(self.highlighted, len(self.lines) - 1)].number

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.AgentChosen(int(event.option.id or 0)))
