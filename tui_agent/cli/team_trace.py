"""The headless trace of a team research: each sub-agent's steps through its own trace printer,
every line prefixed by the agent's number, and the team's own events (an agent's start and end,
facts, sections) as lines of the parent's trace."""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

from tui_agent.cli.headless import TracePrinter, clean
from tui_agent.core.events import Event
from tui_agent.core.events_team import AgentEnded, AgentStarted, FactsExtracted, SectionWritten


class Prefixed:
    """A text stream that starts every line with ``prefix``."""

    def __init__(self, out: TextIO, prefix: str) -> None:
        self.out, self.prefix, self._at_start = out, prefix, True

    def write(self, text: str) -> int:
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                self.out.write("\n")
                self._at_start = True
            if part:
                if self._at_start:
                    self.out.write(self.prefix)
                    self._at_start = False
                self.out.write(part)
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return False


def agent_printers(out: TextIO = sys.stderr) -> Callable[[int], list[Callable[[Event], None]]]:
    """Per agent number, the listener that prints its steps prefixed ``#N``."""
    return lambda n: [TracePrinter(Prefixed(out, f"#{n} "), live=False)]  # type: ignore[arg-type]


class TeamLines:
    """The team's events of the parent session, one line each."""

    def __init__(self, printer: TracePrinter) -> None:
        self.printer = printer

    def __call__(self, e: Event) -> None:
        text = describe(e)
        if text is not None:
            self.printer.line(0, text)


def describe(e: Any) -> str | None:
    match e:
        case AgentStarted():
            how = "resumes" if e.resumed else "starts"
            return f"#{e.agent} {how}: {clean(e.question)} (session {e.child_id})"
        case FactsExtracted() if e.error:
            return f"#{e.agent} facts of {clean(e.url)}: {clean(e.error)}"
        case FactsExtracted():
            return f"#{e.agent} {len(e.facts)} fact(s) from {clean(e.url)}"
        case AgentEnded():
            why = f" — {clean(e.reason)}" if e.reason else ""
            return (f"#{e.agent} {e.status} ({e.termination}){why} · {e.model_calls} calls · "
                    f"{e.prompt_tokens + e.completion_tokens:,} tokens")
        case SectionWritten():
            note = f" — {clean(e.note)}" if e.note else ""
            return f"#{e.agent} section: {e.status}{note} · {len(e.sources)} source(s)"
    return None


def show_children(store: Any, session_id: str, out: TextIO) -> None:
    """``sessions show`` of a team research: each sub-agent's child session after the parent's
    trace, its lines prefixed by its number."""
    for child in store.team_children(session_id):
        n = child.team_agent or 0
        out.write(f"\n── agent #{n} · session {child.id} · {child.shown_status}\n")
        printer = TracePrinter(Prefixed(out, f"#{n} "), live=False)  # type: ignore[arg-type]
        for e in store.events(child.id):
            printer(e)
