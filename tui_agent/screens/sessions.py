"""The session browser: list, filter, open read-only and step through, resume, fork, export,
save or copy the answer, delete. Its keys act on the session it shows (the selected row, or the
one opened), never on the live run.

The screens read the store directly (a thousand sessions list in milliseconds), show a session
through the one fold, and hand the actions that start a run back to the app:
``app.resume_session(id)`` and ``app.fork_session(id, step, system_prompt)``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any, Iterable

from rich.cells import cell_len

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Markdown, Static, TextArea

from tui_agent.widgets.actions import UiAction, bindings, palette_commands, table
from tui_agent.screens.files import copy_answer, export_report, save_answer
from tui_agent.core.events import Purpose
from tui_agent.safety.hygiene import for_terminal as clean
from tui_agent.widgets.shown_links import parser
from tui_agent.core.fold import SessionState, fold
from tui_agent.screens.confirm import ConfirmScreen
from tui_agent.widgets.plan_pane import PlanPane

# The question column is never narrower than this (the table scrolls sideways then).
QUESTION_MIN_CHARS = 20
SCROLLBAR_CELLS = 2
COLUMNS = ("id", "created", "model", "status", "steps", "tools", "cost")
FORK_MARK = "↳"
CREATED_FORMAT = "%m-%d %H:%M"  # the year is in the id and in the session view
# A model name longer than this loses its provider prefix, then its end (the view shows it whole).
MODEL_CHARS = 16


def short_model(model: str) -> str:
    if len(model) > MODEL_CHARS:
        model = model.rsplit("/", 1)[-1]
    return model if len(model) <= MODEL_CHARS else model[: MODEL_CHARS - 1] + "…"

LIST_ACTIONS = table(
    UiAction("back", "escape", "Back", "Back", "clear the filter, then leave the browser", priority=True),
    UiAction("open", "enter", "Open", "Open session", "open the selected session: step through it read-only"),
    UiAction("focus_filter", "slash", "Filter", "Filter sessions", "type to filter by question, model, or the start or end of an id",
             key_display="/"),
    UiAction("resume", "R", "Resume", "Resume session", "continue the selected unfinished session here"),
    UiAction("export", "x", "Export", "Export report", "write the selected session's Markdown report (asks where)"),
    UiAction("save_answer", "W", "Save answer", "Save its answer", "save the selected session's answer (asks where)"),
    UiAction("copy_answer", "C", "Copy answer", "Copy its answer", "copy the selected session's answer"),
    UiAction("delete", "d", "Delete", "Delete session", "delete the selected session (asks first)"),
)

VIEW_ACTIONS = table(
    UiAction("back", "escape", "Back", "Back", "back to the list"),
    UiAction("step(-1)", "left", "Previous step", "Previous step", "the previous step", key_display="←"),
    UiAction("step(1)", "right", "Next step", "Next step", "the next step", key_display="→"),
    UiAction("fork", "f", "Fork here", "Fork at this step", "make this step again in a new session (edit the prompt)"),
    UiAction("resume", "R", "Resume", "Resume session", "continue this session here, if unfinished"),
    UiAction("export", "x", "Export", "Export report", "write this session's Markdown report (asks where)"),
    UiAction("save_answer", "W", "Save answer", "Save its answer", "save this session's answer (asks where)"),
    UiAction("copy_answer", "C", "Copy answer", "Copy its answer", "copy this session's answer"),
    UiAction("context_view", "c", "Context", "Context view",
             "what the session's next model call would have held: tokens per item and per category (read-only)"),
)


def load_state(store: Any, session_id: str) -> SessionState:
    return fold(store.events(session_id))


def resume_from_browser(screen: Screen, store: Any, sid: str) -> None:
    row = store.get_session(sid)
    if not row.resumable:
        screen.notify(f"Session {sid} is {row.shown_status}; fork it at a step instead (open it, f).",
                      severity="warning")
        return
    screen.app.resume_session(sid)  # type: ignore[attr-defined]


class SessionsScreen(Screen):
    """Every stored session, newest first; type to filter."""

    ACTIONS = LIST_ACTIONS
    BINDINGS = bindings(LIST_ACTIONS.values())

    def __init__(self, store: Any) -> None:
        super().__init__()
        self.store = store
        self.rows: list[Any] = []

    def commands(self) -> Iterable[Any]:
        return palette_commands(self, self.ACTIONS.values())

    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="sessions-title", classes="screen-title")
        yield Input(placeholder="filter by question, model or id (/ to focus; Esc clears, then goes back)", id="filter")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Static("", id="sessions-status")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()
        self.query_one(DataTable).focus()

    def reload(self) -> None:
        from tui_agent.session.store import StoreError

        try:
            self.store.reap()
            self.rows = self.store.list_sessions()
        except StoreError as exc:
            self.rows = []
            self.notify(str(exc), severity="error")
        self.fill(self.query_one("#filter", Input).value)

    def fill(self, text: str) -> None:
        """The rows matching ``text``; the question column takes the width the others leave."""
        table_ = self.query_one(DataTable)
        needle = text.strip().lower()
        shorts = Counter(r.short_id for r in self.rows)
        rows: list[tuple[str, list[str], str]] = []
        for r in self.rows:
            sid = r.id.lower()
            if needle and needle not in f"{r.question} {r.model}".lower() and not (sid.startswith(needle)
                                                                               or sid.endswith(needle)):
                continue
            question = clean(r.question).replace("\n", " ")
            if r.parent_id:  # a fork: marked, with its parent's random part and the step it was made at
                question = f"{FORK_MARK}{r.parent_id.rsplit('-', 1)[-1]}@{r.fork_step} {question}"
            cells = [r.short_id if shorts[r.short_id] == 1 else r.id, time.strftime(CREATED_FORMAT, time.localtime(r.created)), short_model(clean(r.model)),
                     r.shown_status, str(r.steps), str(r.tool_calls),
                     f"${r.cost_usd:.4f}" if r.cost_usd is not None else ""]
            rows.append((r.id, cells, question))
        width = self._question_width([cells for _, cells, _ in rows])
        table_.clear(columns=True)
        table_.add_columns(*COLUMNS)
        table_.add_column("question", width=width)
        for key, cells, question in rows:
            if cell_len(question) > width:
                question = question[: max(1, width - 1)] + "…"
            table_.add_row(*cells, question, key=key)
        where = getattr(self.store, "path", "")
        self.query_one("#sessions-status", Static).update(f"{len(rows)} of {len(self.rows)} sessions · {where}")

    def _question_width(self, rows: list[list[str]]) -> int:
        """What is left of the table's width for the question (cell padding and scrollbar counted)."""
        table_ = self.query_one(DataTable)
        others = sum(max([cell_len(name)] + [cell_len(c[i]) for c in rows]) + 2 * table_.cell_padding
                     for i, name in enumerate(COLUMNS))
        total = table_.size.width or self.app.size.width
        return max(QUESTION_MIN_CHARS, total - others - 2 * table_.cell_padding - SCROLLBAR_CELLS)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fill, self.query_one("#filter", Input).value)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def selected(self) -> str | None:
        table_ = self.query_one(DataTable)
        if table_.row_count == 0:
            return None
        key, _ = table_.coordinate_to_cell_key(table_.cursor_coordinate)
        return key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_back(self) -> None:
        """Esc: clear the filter first, then leave the filter, then leave the browser."""
        box = self.query_one("#filter", Input)
        if box.value:
            box.value = ""
            self.fill("")
            self.query_one(DataTable).focus()  # ↑/↓ move in the list again
        elif self.focused is box:
            self.query_one(DataTable).focus()
        else:
            self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_open(self) -> None:
        sid = self.selected()
        if sid:
            self.app.push_screen(SessionViewScreen(self.store, sid))

    def action_resume(self) -> None:
        sid = self.selected()
        if sid:
            resume_from_browser(self, self.store, sid)

    def action_export(self) -> None:
        sid = self.selected()
        if sid:
            export_report(self, self.store, sid)

    def action_save_answer(self) -> None:
        sid = self.selected()
        if sid:
            save_answer(self, load_state(self.store, sid))

    def action_copy_answer(self) -> None:
        sid = self.selected()
        if sid:
            copy_answer(self, load_state(self.store, sid))

    def action_delete(self) -> None:
        sid = self.selected()
        if not sid:
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.store.delete_session(sid)
                self.notify(f"Deleted session {sid}")
                self.reload()

        self.app.push_screen(ConfirmScreen("Delete session?", f"{sid}\nIts events are removed for good.",
                                           yes="Delete"), done)


class SessionViewScreen(Screen):
    """One stored session, read-only: step through thought, action, observation and tokens."""

    ACTIONS = VIEW_ACTIONS
    BINDINGS = bindings(VIEW_ACTIONS.values())

    def __init__(self, store: Any, session_id: str) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.state = load_state(store, session_id)
        self.steps = self.state.step_numbers
        self.index = 0

    def commands(self) -> Iterable[Any]:
        return palette_commands(self, self.ACTIONS.values())

    @property
    def system_prompt(self) -> str:
        return self.state.system_prompt  # the prompt in force: later edits of message 0 win

    def compose(self) -> ComposeResult:
        row = self.store.get_session(self.session_id)
        # Outside text is never read as markup (a [link=…] or [@click=…] in it stays text).
        yield Static(f"Session {self.session_id} · {clean(row.model)} · {row.shown_status}", classes="screen-title",
                     markup=False)
        yield Static(clean(self.state.question), id="view-question", markup=False)
        yield Static("", id="view-step", markup=False)
        with VerticalScroll(id="view-body"):
            yield PlanPane(id="view-plan")
            yield Static("", id="view-thought", markup=False)
            yield Static("", id="view-actions", markup=False)
            yield Markdown("", id="view-observation", parser_factory=parser)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#view-plan", PlanPane).show(self.state)  # the plan and how far each sub-question got
        self.show()

    def show(self) -> None:
        if not self.steps:
            self.query_one("#view-step", Static).update("This session has no steps yet.")
            return
        sv = self.state.steps[self.steps[self.index]]
        tokens = sv.prompt_tokens if sv.prompt_tokens is not None else sv.prompt_tokens_estimate
        kind = " · forced answer" if sv.purpose == Purpose.FORCED else ""
        measured = "measured" if sv.prompt_tokens is not None else "estimated"
        cost = f" · ${sv.cost_usd:.5f}" if sv.cost_usd is not None else ""
        self.query_one("#view-step", Static).update(
            f"Step {sv.number} ({self.index + 1} of {len(self.steps)}){kind} · prompt {tokens:,} tokens ({measured})"
            f"{cost}   ←/→ steps · f fork here")
        self.query_one("#view-thought", Static).update("Thought\n" + (clean(sv.thought) or "(none)"))
        lines = []
        for av in sv.calls:
            args = clean(json.dumps(av.arguments, ensure_ascii=False))
            lines.append(f"{av.call_id} {clean(av.tool)} {args} — {av.label}" + (f" ({clean(av.reason)})" if av.reason
                                                                               else ""))
        if not sv.calls and sv.reply:
            lines.append(clean(sv.reply))
        self.query_one("#view-actions", Static).update("Actions\n" + ("\n".join(lines) or "(none)"))
        obs = "\n\n---\n\n".join(f"**{av.call_id}**\n\n{clean(av.observation)}" for av in sv.calls if av.observation)
        self.query_one("#view-observation", Markdown).update(obs or "*No observation in this step.*")

    def action_step(self, delta: int) -> None:
        if self.steps:
            self.index = max(0, min(len(self.steps) - 1, self.index + delta))
            self.show()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_export(self) -> None:
        export_report(self, self.store, self.session_id)

    def action_save_answer(self) -> None:
        save_answer(self, self.state)

    def action_copy_answer(self) -> None:
        copy_answer(self, self.state)

    def action_resume(self) -> None:
        resume_from_browser(self, self.store, self.session_id)

    def action_context_view(self) -> None:
        from tui_agent.screens.context_view import ContextViewScreen

        self.app.push_screen(ContextViewScreen(self.state))

    def action_fork(self) -> None:
        step = self.steps[self.index] if self.steps else 1

        def done(prompt: str | None) -> None:
            if prompt is not None:
                self.app.fork_session(self.session_id, step,  # type: ignore[attr-defined]
                                      None if prompt == self.system_prompt else prompt)

        self.app.push_screen(ForkScreen(step, self.system_prompt), done)


class ForkScreen(ModalScreen[str | None]):
    """Edit the system prompt for a fork at STEP; returns the prompt, or None when cancelled."""

    BINDINGS = [
        Binding("ctrl+s", "fork", "Fork", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, step: int, system_prompt: str) -> None:
        super().__init__(classes="dialog-screen")
        self.step = step
        self.system_prompt = system_prompt

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog fork-dialog"):
            yield Static(f"Fork at step {self.step}: step {self.step} is made again with this system prompt.",
                         classes="dialog-title")
            yield TextArea(self.system_prompt, id="fork-prompt", soft_wrap=True, show_line_numbers=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Fork ctrl+s", id="fork", variant="primary", compact=True)
                yield Button("Cancel esc", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "fork":
            self.action_fork()
        else:
            self.action_cancel()

    def action_fork(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
