"""Save, export and copy from the TUI: each asks for a path (pre-filled in the export folder,
``Settings.export_dir``) or says plainly what it did. Shared by the main screen and the session
browser, which act on the session they show."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from textual.screen import Screen

from tui_agent.session.exports import answer_document, answer_markdown, default_answer_path, default_report_path
from tui_agent.session.exports import export, write_file
from tui_agent.core.fold import SessionState


def _ask_and_write(screen: Screen, title: str, default: Path, make_text: Callable[[], str], done: str) -> None:
    from tui_agent.screens.path_prompt import PathScreen

    def write(path: Path | None) -> None:
        if path is None:
            return
        try:
            written = write_file(path, make_text())
        except OSError as exc:
            screen.notify(f"Could not write {path}: {exc}", severity="error", timeout=10)
            return
        screen.notify(str(written), title=done)

    screen.app.push_screen(PathScreen(title, default), write)


def export_folder(screen: Screen) -> Path:
    return screen.app.settings.resolved_export_dir()  # type: ignore[attr-defined]


def save_answer(screen: Screen, state: SessionState) -> None:
    """Ask where, then write the answer (question, answer with sources, run facts) as Markdown."""
    if state.answer is None:
        screen.notify("This session has no answer to save.", severity="warning")
        return
    _ask_and_write(screen, "Save the answer as Markdown", default_answer_path(export_folder(screen), state.session_id),
                   lambda: answer_document(state), "Answer saved")


def export_report(screen: Screen, store: Any, session_id: str) -> None:
    """Ask where, then write the session's cited Markdown report."""
    _ask_and_write(screen, f"Export session {session_id} as a Markdown report",
                   default_report_path(export_folder(screen), session_id),
                   lambda: export(store.events(session_id), "md"), "Report exported")


def copy_answer(screen: Screen, state: SessionState) -> None:
    """Send the answer to the terminal's clipboard (OSC 52) and say what that can and cannot do."""
    if state.answer is None:
        screen.notify("This session has no answer to copy.", severity="warning")
        return
    text = answer_markdown(state.answer.text, state.source_list())
    screen.app.copy_to_clipboard(text)
    screen.notify(f"Sent {len(text):,} characters to the terminal's clipboard (OSC 52). A terminal that does not "
                  "allow it ignores the request without telling; W saves the answer to a file instead.",
                  title="Copy requested", timeout=8)
