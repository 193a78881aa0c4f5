"""The context view: what the next model call holds, and the person's hand on it.

Per-category totals first, a bar of the window with the token gate marked, then one row per item
of the prompt (``context.view.context_rows`` on the app's folded state) with its tokens, its share
of the window and its marks (pinned, dropped, summarised, cut by a policy). It follows the run
live: it subscribes to the ``CONTEXT`` region on the main screen's region bus (published after the
app folded an event), which marks it stale, and it rebuilds from the fold's state shortly after;
nothing polls and no thread touches it.

Its actions (``screens/context_keys.py``) act on the selected row through the run's handle
(``RunHandle.edit_context``, ``RunHandle.propose_summary``): each edit is a ``ContextEdited`` event,
so the store, resume, fork, the inspector, ``sessions show`` and the exports see it. Without a live
run (the run ended, or a loaded session) the view is read-only and says so: an edit only means
something to a run that sends the context, and a resumed run is that run (resume, then edit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TextArea

from tui_agent.widgets.actions import bindings, palette_commands
from tui_agent.context.view import ContextRow, ContextView, context_rows, refusal
from tui_agent.kinds import ContextEditKind, ContextItemKind
from tui_agent.model.tokens import TokenCounter
from tui_agent.screens.context_keys import CONTEXT_ACTIONS
from tui_agent.widgets.context_bar import ContextBar
from tui_agent.widgets.effects import Region

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle
    from tui_agent.core.fold import SessionState
    from tui_agent.widgets.effects import RegionBus

REBUILD_DELAY_S = 0.1
"""Events that arrive together (a step's end) are shown in one rebuild this long after the first."""
LABEL_WIDTH = 38
"""The item column's width (the whole label is above the item's text on the right)."""
STORED = "read-only: a stored session, as its next call would have been sent. Resume it (R) to edit its context."
READ_ONLY = ("read-only: no run is live. An edit changes what a run sends next, so resume the session "
             "(o, then R) and edit its context while it runs.")


def marks(row: ContextRow) -> str:
    """The row's marks: pinned, dropped, summarised (with the policy that did it)."""
    parts = ["pinned"] if row.pinned else []
    if row.dropped or row.summarised:
        what = "dropped" if row.dropped else "summarised"
        if row.by_policy:
            what = f"{'cut' if row.dropped else 'summarised'} by {row.by_policy}"
        parts.append(what)
    return " · ".join(parts)


def _cells(row: ContextRow) -> tuple[Text, str, str, Text]:
    refs = " " + " ".join(f"[{n}]" for n in row.sources) if row.sources else ""
    edited = row.dropped or row.summarised
    mark_style = "bold yellow" if row.dropped else "bold cyan" if row.summarised else "bold green"
    room = LABEL_WIDTH - len(refs)
    label = (row.label if len(row.label) <= room else row.label[: room - 1] + "…") + refs
    return (Text(label, style="dim" if edited else ""), f"{row.tokens:,}", f"{row.share:.1%}",
            Text(marks(row), style=mark_style))


class ContextViewScreen(Screen[None]):
    ACTIONS = CONTEXT_ACTIONS
    BINDINGS = bindings(CONTEXT_ACTIONS.values())
    AUTO_FOCUS = "#context-rows"
    DEFAULT_CSS = """
    #context-title { background: $panel; padding: 0 1; }
    #context-bar { background: $surface; }
    #context-body { height: 1fr; }
    #context-rows { width: 2fr; min-width: 50; border-top: solid $panel-lighten-2; }
    #context-side { width: 1fr; }
    #context-item-title { padding: 0 1; background: $panel; height: auto; }
    #context-text { height: 1fr; border: none; }
    """

    def __init__(self, stored: SessionState | None = None, *, handle: RunHandle | None = None,
                 regions: RegionBus | None = None) -> None:
        """The run of ``handle``, followed on ``regions``; or ``stored`` (a session opened in the browser:
        read-only)."""
        super().__init__(id="context-view")
        self.stored = stored
        self.handle = handle if stored is None else None
        self.regions = regions
        self.view: ContextView | None = None
        self.rows: dict[str, ContextRow] = {}
        self.selected: str | None = None
        self.proposing: str | None = None  # a summary is being asked for this target
        self.summarising: str | None = None  # the proposed summary of this target is being edited
        self.loaded = False
        self._stale = False
        self._counter = TokenCounter()

    def compose(self) -> ComposeResult:
        yield Static("", id="context-title")
        yield ContextBar(id="context-bar")
        with Horizontal(id="context-body"):
            yield DataTable(id="context-rows", cursor_type="row")
            with Vertical(id="context-side"):
                yield Static("", id="context-item-title")
                yield TextArea("", id="context-text", read_only=True, soft_wrap=True, tab_behavior="focus")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#context-rows", DataTable)
        table.add_column("item", key="item")
        table.add_column("tokens", key="tokens", width=8)
        table.add_column("share", key="share", width=6)
        table.add_column("marks", key="marks")
        if self.handle is not None and self.regions is not None:
            self.regions.subscribe({Region.CONTEXT}, self._changed, node=self)
        self.rebuild()
        self.loaded = True

    def on_unmount(self) -> None:
        if self.regions is not None:
            self.regions.unsubscribe(self)

    # -- the state ----------------------------------------------------------------------------
    @property
    def live(self) -> RunHandle | None:
        """The run's handle while its context can be edited (a run under way), else None."""
        return self.handle if self.handle is not None and self.handle.context_live else None

    def _changed(self, _event: object = None) -> None:
        if not self._stale:
            self._stale = True
            self.set_timer(REBUILD_DELAY_S, self.rebuild)

    def rebuild(self) -> None:
        """Derive the view from the app's folded state and show it (keeps the selected row)."""
        self._stale = False
        session = self.stored if self.stored is not None else self.handle.state if self.handle is not None else None
        if session is None:
            return
        self.view = view = context_rows(session, self.app.settings, self._counter)  # type: ignore[attr-defined]
        self.rows = {r.target: r for r in view.rows}
        live = self.live is not None
        title = Content.assemble(("Context", "bold"), " · what the next model call holds · ",
                                 ("live: d drop · p pin · s summarise · r restore", "$success") if live
                                 else (READ_ONLY if self.stored is None else STORED, "$warning"))
        self.query_one("#context-title", Static).update(title)
        self.query_one(ContextBar).show(view)
        table = self.query_one("#context-rows", DataTable)
        keep = self.selected
        # A reply that was only its calls leaves an empty thought: no row for it.
        cells = {r.target: _cells(r) for r in view.rows if r.tokens or r.kind != ContextItemKind.THOUGHT}
        if [k.value for k in table.rows] == list(cells):  # the same items: change the cells in place
            for target, values in cells.items():
                for column, value in zip(("item", "tokens", "share", "marks"), values):
                    table.update_cell(target, column, value, update_width=True)
        else:
            table.clear()
            for target, values in cells.items():
                table.add_row(*values, key=target)
            if keep in cells:
                table.move_cursor(row=table.get_row_index(keep), animate=False)
        if keep not in cells:
            self.selected = next(iter(cells), None)
        self._show(self.selected)

    def _show(self, target: str | None) -> None:
        if self.summarising is not None or self.proposing is not None:
            return  # the side pane holds the summary being written
        row = self.rows.get(target or "")
        title = self.query_one("#context-item-title", Static)
        area = self.query_one("#context-text", TextArea)
        area.read_only = True
        if row is None:
            title.update("")
            area.load_text("")
            return
        was = f" (was {row.original_tokens:,})" if row.tokens != row.original_tokens else ""
        title.update(Content.assemble((row.target, "bold"), f" {row.label} · {row.tokens:,} tokens{was} · as sent",
                                      (f" · {marks(row)}" if marks(row) else "", "bold $warning")))
        if area.text != row.text:
            area.load_text(row.text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.selected = event.row_key.value
            self._show(self.selected)

    @property
    def row(self) -> ContextRow | None:
        return self.rows.get(self.selected or "")

    def commands(self) -> Iterable[SystemCommand]:
        return palette_commands(self, self.ACTIONS.values())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply_summary":
            return self.summarising is not None
        return True

    # -- edits --------------------------------------------------------------------------------
    def _can(self, kind: ContextEditKind) -> RunHandle | None:
        """The run's handle when ``kind`` may be done to the selected row; else says why and None."""
        if self.summarising is not None or self.proposing is not None:
            self.notify("A summary is being written: ctrl+s applies it, Esc cancels it.", severity="warning")
            return None
        problem = refusal(self.row, kind)
        handle = self.live
        if problem is None and handle is None:
            problem = "The context is " + READ_ONLY
        if problem is not None:
            self.notify(problem, title=f"Cannot {kind}", severity="warning")
            return None
        return handle

    def _edit(self, run: RunHandle, kind: ContextEditKind, target: str, text: str | None = None) -> bool:
        try:
            run.edit_context(kind, target, text)
        except ValueError as exc:
            self.notify(str(exc), title=f"Cannot {kind}", severity="error")
            return False
        self._changed()
        return True

    def action_drop(self) -> None:
        run, row = self._can(ContextEditKind.DROP), self.row
        if run is not None and row is not None and self._edit(run, ContextEditKind.DROP, row.target):
            self.notify(f"Dropped {row.label}: {row.tokens:,} tokens leave the next prompt (r restores it).")

    def action_pin(self) -> None:
        row = self.row
        kind = ContextEditKind.UNPIN if row is not None and row.pinned else ContextEditKind.PIN
        run = self._can(kind)
        if run is not None and row is not None and self._edit(run, kind, row.target):
            self.notify(f"Pinned {row.label}: no policy will cut or summarise it." if kind == ContextEditKind.PIN
                        else f"Unpinned {row.label}.")

    def action_restore(self) -> None:
        run, row = self._can(ContextEditKind.RESTORE), self.row
        if run is not None and row is not None and self._edit(run, ContextEditKind.RESTORE, row.target):
            self.notify(f"Restored {row.label}: {row.original_tokens:,} tokens, as it was said.")

    def action_summarise(self) -> None:
        run, row = self._can(ContextEditKind.SUMMARISE), self.row
        if run is None or row is None:
            return
        self.proposing = row.target
        self.query_one("#context-item-title", Static).update(Content.assemble(
            ("Asking the model for a summary", "bold $accent"), f" of {row.label}… (Esc cancels)"))
        self.run_worker(self._propose(run, row), group="context-summary", exclusive=True, exit_on_error=False)
        self.refresh_bindings()

    async def _propose(self, run: RunHandle, row: ContextRow) -> None:
        """An async worker on the app's loop: it may touch the widgets; the model call runs on the run's loop."""
        try:
            text = await run.propose_summary(row.target)
        except Exception as exc:  # noqa: BLE001 - a model error or a vanished item: said, nothing changes
            if self.proposing == row.target:
                self.proposing = None
                self.notify(f"No summary: {exc}", title="Summarise", severity="error")
                self._show(self.selected)
                self.refresh_bindings()
            return
        if self.proposing != row.target:
            return  # cancelled meanwhile
        self.proposing, self.summarising = None, row.target
        area = self.query_one("#context-text", TextArea)
        area.read_only = False
        area.load_text(text)
        area.focus()
        self.query_one("#context-item-title", Static).update(Content.assemble(
            ("Proposed summary", "bold $accent"), f" of {row.label} ({row.tokens:,} tokens now) · edit it; ",
            ("ctrl+s", "bold"), " replaces the item's text with it, ", ("Esc", "bold"), " cancels"))
        self.refresh_bindings()

    def action_apply_summary(self) -> None:
        target = self.summarising
        if target is None:
            return
        text = self.query_one("#context-text", TextArea).text.strip()
        if not text:
            self.notify("An empty summary cannot replace the item: write one, or Esc cancels.", severity="warning")
            return
        run = self.live
        if run is None:
            self.notify("The run ended before the summary was applied; the context is unchanged.",
                        severity="warning")
        elif self._edit(run, ContextEditKind.SUMMARISE, target, text):
            row = self.rows.get(target)
            self.notify(f"Summarised {row.label if row else target} (r restores the original).")
        self._end_summary()

    def _end_summary(self) -> None:
        self.summarising = self.proposing = None
        self.workers.cancel_group(self, "context-summary")
        self.query_one("#context-rows", DataTable).focus()
        self._show(self.selected)
        self.refresh_bindings()

    # -- leaving ------------------------------------------------------------------------------
    def action_cancel(self) -> None:
        if self.summarising is not None or self.proposing is not None:
            self._end_summary()
            self.notify("Summary discarded: the context is unchanged.")
            return
        self.dismiss(None)

    def action_close(self) -> None:
        if self.summarising is not None or self.proposing is not None:
            self.notify("A summary is being written: ctrl+s applies it, Esc cancels it.", severity="warning")
            return
        self.dismiss(None)
