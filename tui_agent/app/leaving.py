"""Running the TUI from the command line, and what it leaves in the terminal when it closes."""

from __future__ import annotations

import sys

from tui_agent.app.application import ResearchApp
from tui_agent.exit_codes import EXIT_NO_ANSWER
from tui_agent.settings.where import where_flags
from tui_agent.config import Settings


def run_app(settings: Settings, question: str | None, resume: str | None = None,
            config_file: str | None = None) -> int:
    """Run the TUI; on leaving, print the session, how it ended and how to continue it.
    Returns the exit code (0 when the last run produced an answer)."""
    app = ResearchApp(settings, question, resume=resume, handle_signals=True)
    app.config_file = config_file
    code = app.run()
    # Served in a browser, standard output is the web driver's channel: the note goes to the server's log.
    out = sys.stderr if app.served else sys.stdout
    out.write(leaving_notes(app, config_file))
    out.flush()
    return EXIT_NO_ANSWER if code is None else int(code)


def leaving_notes(app: ResearchApp, config_file: str | None = None) -> str:
    """``leaving_note`` for every tab's session (the shown tab's last, nearest the prompt)."""
    shown = app.tabs.shown
    notes = []
    for tab in [t for t in app.tabs if t is not shown] + [shown]:
        app.tabs.shown = tab
        notes.append(leaving_note(app, config_file))
    app.tabs.shown = shown
    return "".join(notes)


def leaving_note(app: ResearchApp, config_file: str | None = None) -> str:
    """What stays in the terminal after the TUI closes: the session id, its termination and the
    command that continues (or shows) it, naming the data directory (and the --config) the app
    used so the command finds the session. No command when the session was not saved."""
    s = app.session
    if not s.session_id or not s.runs:
        return ""
    sid = s.session_id
    if s.ended is not None and s.ended.termination != "cancelled":
        how = f"ended: {s.ended.termination}"
    else:
        how = f"interrupted by {app.interrupted_by}" if app.interrupted_by else "not finished (cancelled)"
    store_error = app.handle.store_error
    if app.store is None or store_error:
        why = store_error or "sessions were not being saved"
        return f"tui-agent: session {sid} · {how}\n  not saved ({why}): it cannot be resumed or shown later\n"
    where = where_flags(app.store.path.parent, config_file)
    if s.ended is not None and s.ended.termination != "cancelled":
        then = (f"  show it:   tui-agent sessions show {sid}{where}\n"
                f"  fork it:   tui-agent sessions fork {sid} --at STEP{where}\n")
    else:
        then = f"  resume it: tui-agent --resume {sid}{where}\n"
    return f"tui-agent: session {sid} · {how}\n{then}"
