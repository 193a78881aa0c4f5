"""The session browser: list, filter, open read-only and step through, resume, fork, export, delete.

The screens read the store directly (it is fast: a thousand sessions list in milliseconds) and
hand the actions that start a run back to the app: ``app.resume_session(id)`` and
``app.fork_session(id, step, system_prompt)``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Markdown, Static, TextArea

from tui_agent.hygiene import strip_controls
from tui_agent.session.exports import StepView, export, step_views
from tui_agent.screens.confirm import ConfirmScreen

QUESTION_CHARS = 90


def _clean(text: Any) -> str:
    return strip_controls(str(text))


def export_path(session_id: str, directory: Path | None = None) -> Path:
    return (directory or Path.cwd()) / f"tui-agent-session-{session_id}.md"


class SessionsScreen(Screen):
    """Every stored session, newest first; type to filter."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("enter", "open", "Open", show=True),
        Binding("slash", "focus_filter", "Filter"),
        Binding("R", "resume", "Resume"),
        Binding("x", "export", "Export"),
        Binding("d", "delete", "Delete"),
    ]

    def __init__(self, store: Any, export_dir: Path | None = None) -> None:
        super().__init__()
        self.store = store
        self.export_dir = export_dir
        self.rows: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("Sessions", id="sessions-title", classes="screen-title")
        yield Input(placeholder="filter by question, model or id (/ to focus, Esc to go back)", id="filter")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Static("", id="sessions-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("id", "created", "model", "termination", "steps", "tools", "cost", "question")
        self.reload()
        table.focus()

    def reload(self) -> None:
        from tui_agent.session.store import StoreError

        try:
            self.rows = self.store.list_sessions() if self.store is not None else []
        except StoreError as exc:
            self.rows = []
            self.notify(str(exc), severity="error")
        self.fill(self.query_one("#filter", Input).value)

    def fill(self, text: str) -> None:
        table = self.query_one(DataTable)
        table.clear()
        needle = text.strip().lower()
        shown = 0
        for r in self.rows:
            if needle and needle not in f"{r.question} {r.model} {r.id}".lower():
                continue
            question = _clean(r.question).replace("\n", " ")
            if len(question) > QUESTION_CHARS:
                question = question[: QUESTION_CHARS - 1] + "…"
            table.add_row(
                r.id,
                time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created)),
                _clean(r.model),
                r.termination or r.status,
                str(r.steps),
                str(r.tool_calls),
                f"${r.cost_usd:.4f}" if r.cost_usd is not None else "",
                question,
                key=r.id,
            )
            shown += 1
        where = getattr(self.store, "path", "")
        self.query_one("#sessions-status", Static).update(f"{shown} of {len(self.rows)} sessions · {where}")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_open(self) -> None:
        sid = self.selected()
        if sid:
            self.app.push_screen(SessionViewScreen(self.store, sid, self.export_dir))

    def action_resume(self) -> None:
        sid = self.selected()
        if sid:
            resume_from_browser(self, self.store, sid)

    def action_export(self) -> None:
        sid = self.selected()
        if sid:
            export_session(self, self.store, sid, self.export_dir)

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


def export_session(screen: Screen, store: Any, sid: str, directory: Path | None) -> None:
    path = export_path(sid, directory)
    try:
        path.write_text(export(store.events(sid), "md"), encoding="utf-8")
    except OSError as exc:
        screen.notify(f"Could not write {path}: {exc}", severity="error")
        return
    screen.notify(f"Exported to {path}")


def resume_from_browser(screen: Screen, store: Any, sid: str) -> None:
    row = store.get_session(sid)
    if row.status == "ended":
        screen.notify(f"Session {sid} is finished ({row.termination}); fork it at a step instead (open it, f).",
                      severity="warning")
        return
    hook = getattr(screen.app, "resume_session", None)
    if hook is None:
        screen.notify("Resuming is not available here.", severity="warning")
        return
    hook(sid)


class SessionViewScreen(Screen):
    """One stored session, read-only: step through thought, action, observation and tokens."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("left", "step(-1)", "Previous step"),
        Binding("right", "step(1)", "Next step"),
        Binding("f", "fork", "Fork here"),
        Binding("R", "resume", "Resume"),
        Binding("x", "export", "Export"),
    ]

    def __init__(self, store: Any, session_id: str, export_dir: Path | None = None) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.export_dir = export_dir
        self.events = store.events(session_id)
        self.steps: list[StepView] = step_views(self.events)
        self.index = 0
        started = next((e for e in self.events if e.type == "run_started"), None)
        self.question = started.question if started else store.get_session(session_id).question
        self.system_prompt = started.system_prompt if started else ""
        for e in self.events:  # the prompt in force: later edits of message 0 win
            if e.type == "prompt_edited" and e.index == 0:
                self.system_prompt = e.content

    def compose(self) -> ComposeResult:
        row = self.store.get_session(self.session_id)
        yield Static(f"Session {self.session_id} · {_clean(row.model)} · {row.termination or row.status}",
                     classes="screen-title")
        yield Static(_clean(self.question), id="view-question")
        yield Static("", id="view-step")
        with VerticalScroll(id="view-body"):
            yield Static("", id="view-thought")
            yield Static("", id="view-actions")
            yield Markdown("", id="view-observation")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        if not self.steps:
            self.query_one("#view-step", Static).update("This session has no steps yet.")
            return
        sv = self.steps[self.index]
        tokens = sv.prompt_tokens if sv.prompt_tokens is not None else sv.prompt_tokens_estimate
        kind = " · forced answer" if sv.purpose == "forced" else ""
        measured = "measured" if sv.prompt_tokens is not None else "estimated"
        cost = f" · ${sv.cost_usd:.5f}" if sv.cost_usd is not None else ""
        self.query_one("#view-step", Static).update(
            f"Step {sv.number} ({self.index + 1} of {len(self.steps)}){kind} · prompt {tokens:,} tokens ({measured})"
            f"{cost}   ←/→ steps · f fork here")
        self.query_one("#view-thought", Static).update("Thought\n" + (_clean(sv.thought) or "(none)"))
        lines = []
        for av in sv.actions:
            args = _clean(json.dumps(av.arguments, ensure_ascii=False))
            lines.append(f"{av.call_id} {_clean(av.tool)} {args} — {av.decision or 'not run'} · {av.status}"
                         + (f" ({_clean(av.reason)})" if av.reason else ""))
        if not sv.actions and sv.reply:
            lines.append(_clean(sv.reply))
        self.query_one("#view-actions", Static).update("Actions\n" + ("\n".join(lines) or "(none)"))
        obs = "\n\n---\n\n".join(f"**{av.call_id}**\n\n{_clean(av.observation)}" for av in sv.actions if av.observation)
        self.query_one("#view-observation", Markdown).update(obs or "*No observation in this step.*")

    def action_step(self, delta: int) -> None:
        if self.steps:
            self.index = max(0, min(len(self.steps) - 1, self.index + delta))
            self.show()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_export(self) -> None:
        export_session(self, self.store, self.session_id, self.export_dir)

    def action_resume(self) -> None:
        resume_from_browser(self, self.store, self.session_id)

    def action_fork(self) -> None:
        step = self.steps[self.index].number if self.steps else 1

        def done(prompt: str | None) -> None:
            if prompt is None:
                return
            hook = getattr(self.app, "fork_session", None)
            if hook is None:
                self.notify("Forking is not available here.", severity="warning")
                return
            hook(self.session_id, step, None if prompt == self.system_prompt else prompt)

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
