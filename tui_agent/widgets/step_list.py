"""The list of tool calls so far: step, tool, status, duration, arguments. Selecting a row
shows that step in the panes.

The main screen keeps one list per run it has shown (``StepLists``): the list of a hidden tab is
neither drawn nor updated, and when its tab is shown again it catches up from the folded state
(``StepList.sync``: only the calls that changed), its rows already laid out and drawn. Filling a
table of a hundred calls anew and drawing it was most of what a switch of tabs cost."""

from __future__ import annotations

from rich.cells import cell_len
from typing import Iterable

from textual import events
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable

from tui_agent.core.fold import CallState

# The tool column's width (cells); a longer name is cut in its middle, an MCP tool's server prefix dropped.
TOOL_CELLS = 12
# An MCP tool's name is ``mcp__SERVER__TOOL`` (``tools.mcp``); the list shows TOOL (the Action pane all of it).
MCP_PREFIX = "mcp__"

STATUS_STYLES = {
    "approved": "$success", "auto": "$success", "policy": "$success", "edited": "$accent", "rejected": "$error", "failed": "$error",
    "duplicate": "$warning", "invalid": "$warning", "disabled": "$error", "refused": "$warning",
    "http_error": "$warning",
    "pending": "bold reverse $warning", "not run": "$text-muted", "replayed": "$secondary",
}


def status_cell(label: str) -> Content:
    return Content.styled(label, STATUS_STYLES.get(label, ""))


def tool_cell(name: str, width: int = TOOL_CELLS) -> str:
    """The tool's name in ``width`` cells: an MCP tool's own name without ``mcp__SERVER__``, and a
    name still too long cut in the middle, where names differ least (``read_t…_file``)."""
    if name.startswith(MCP_PREFIX) and name.count("__") >= 2:
        name = name.split("__", 2)[2] or name
    if cell_len(name) <= width:
        return name
    tail = (width - 1) // 2
    head = width - 1 - tail
    return name[:head] + "…" + name[-tail:]


def duration_cell(call: CallState) -> str:
    return "" if call.duration_s is None else f"{call.duration_s:.1f}s"


class StepList(DataTable):
    """One row per tool call; the row cursor marks the step being viewed."""

    DEFAULT_CSS = """
    StepList { height: 1fr; overflow-x: hidden; }
    """

    class StepChosen(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kw) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, show_cursor=True, **kw)
        self._steps: dict[str, int] = {}
        self._shown: dict[str, tuple[str, ...]] = {}  # each row's cells as text: what changed
        self._drawn_width = -1
        # The columns from the start (not on mount): rows may come before the table is mounted.
        self.add_column("#", key="step", width=3)
        self.add_column("tool", key="tool", width=TOOL_CELLS)
        self.add_column("status", key="status", width=9)
        self.add_column("time", key="time", width=5)
        self.add_column("arguments", key="args")

    def _on_resize(self, event: events.Resize) -> None:
        # Textual's table draws every row anew after any resize (its caches are keyed by a count of
        # updates that a resize moves on), but a row's lines depend on the table's width alone: a
        # list shown again (a Resize) at the width it had keeps the rows it drew.
        if event.size.width == self._drawn_width:
            event.prevent_default()
        self._drawn_width = event.size.width

    def reset(self) -> None:
        self.clear()
        self._steps.clear()
        self._shown.clear()

    def sync(self, calls: Iterable[CallState]) -> None:
        """Show ``calls`` (a folded state's, in their order): the rows that changed are updated and
        the new ones added; a table whose rows are not the first of ``calls`` is filled anew. What
        it shows is what a new list filled with ``calls`` shows."""
        calls = list(calls)
        if list(self._steps) != [c.call_id for c in calls[:len(self._steps)]]:
            self.reset()
        for call in calls:
            self.upsert(call)

    def upsert(self, call: CallState) -> None:
        text = (str(call.step), tool_cell(call.tool or "?"), call.label, duration_cell(call), call.short_arguments(48))
        before = self._shown.get(call.call_id)
        if before == text:
            return
        self._shown[call.call_id] = text
        self._steps[call.call_id] = call.step
        cells = (*text[:2], status_cell(call.label), *text[3:])
        if before is not None:
            for key, value, old, new in zip(("step", "tool", "status", "time", "args"), cells, before, text):
                if old != new:
                    self.update_cell(call.call_id, key, value)
        else:
            self.add_row(*cells, key=call.call_id)

    def show_step(self, step: int | None) -> None:
        """Move the row cursor to the first call of ``step`` (or the last row when None)."""
        if not self.row_count:
            return
        if step is None:
            target = self.row_count - 1
        else:
            rows = [i for i, key in enumerate(self._steps) if self._steps[key] == step]
            if not rows:
                return
            target = rows[0]
        if self.cursor_row != target:
            self.move_cursor(row=target, animate=False, scroll=True)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        step = self._steps.get(str(event.row_key.value))
        if step is not None:
            self.post_message(self.StepChosen(step))


class StepLists(Vertical):
    """The calls pane: one ``StepList`` per run (``for_run``), the shown run's displayed. A hidden
    run's list keeps its rows (and the table its drawn lines) until its run is shown again or
    dropped (``drop``)."""

    DEFAULT_CSS = """
    StepLists { height: 1fr; min-height: 4; }
    """

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._lists: dict[int, tuple[object, StepList]] = {}  # id(run) -> (run, its list)
        self._shown: StepList | None = None

    def for_run(self, run: object) -> StepList:
        """``run``'s list, displayed (the list shown before is hidden; it hands focus on)."""
        entry = self._lists.get(id(run))
        if entry is None or entry[0] is not run:
            entry = self._lists[id(run)] = (run, StepList())
            self.mount(entry[1])
        steps = entry[1]
        if steps is not self._shown:
            before, self._shown = self._shown, steps
            steps.display = True
            if before is not None:
                before.display = False
                if before.has_focus:
                    steps.focus()
        return steps

    def drop(self, run: object) -> None:
        """Forget ``run``'s list (its tab closed)."""
        entry = self._lists.get(id(run))
        if entry is not None and entry[0] is run:
            del self._lists[id(run)]
            if entry[1] is self._shown:
                self._shown = None
            entry[1].remove()
