"""The list of tool calls so far: step, tool, status, duration, arguments. Selecting a row
shows that step in the panes."""

from __future__ import annotations

from rich.cells import cell_len
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
    StepList { height: 1fr; min-height: 4; overflow-x: hidden; }
    """

    class StepChosen(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kw) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, show_cursor=True, **kw)
        self._steps: dict[str, int] = {}

    def on_mount(self) -> None:
        self.add_column("#", key="step", width=3)
        self.add_column("tool", key="tool", width=TOOL_CELLS)
        self.add_column("status", key="status", width=9)
        self.add_column("time", key="time", width=5)
        self.add_column("arguments", key="args")

    def reset(self) -> None:
        self.clear()
        self._steps.clear()

    def upsert(self, call: CallState) -> None:
        cells = (str(call.step), tool_cell(call.tool or "?"), status_cell(call.label), duration_cell(call),
                 call.short_arguments(48))
        if call.call_id in self._steps:
            for key, value in zip(("step", "tool", "status", "time", "args"), cells):
                self.update_cell(call.call_id, key, value)
        else:
            self._steps[call.call_id] = call.step
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
