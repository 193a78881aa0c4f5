"""The app's tabs: several researches at once, one shown. No Textual here.

Each ``Tab`` holds one research: its run's handle (``agent.handle.RunHandle``, opened by
``app.runs.Runs``), its own settings (model, plan mode, team mode, context policy), its question,
its breakpoint, and what the app keeps around the run (the starting note, the last result, the
decisions that wait: ``app.decisions.Decisions``). The app's ``handle``, ``settings``, ``question``…
are the shown tab's (``ResearchApp`` reads them through ``Tabs.shown``), so every pane, dialog and
key acts on the shown tab's run only.

A hidden tab's run goes on; its events are folded into its handle's state as they come, but no
widget redraws: ``stale`` says the main screen must catch up (``MainScreen.reset`` from the folded
state) when the tab is shown again. ``mark`` says what the tab strip shows for it.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from tui_agent.agent.handle import Phase
from tui_agent.core.state import Status

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle
    from tui_agent.config import Settings

# How many characters of its question a tab's label shows.
LABEL_CHARS = 24


class TabMark(enum.Enum):
    """What a tab's research is doing, as its mark in the tab strip says."""

    NEW = "○"  # no run yet: the question is being asked
    RUNNING = "▶"
    WAITING = "⏸"  # waiting for you: a tool call, a plan, clarifying questions, a breakpoint
    ANSWERED = "✓"
    FAILED = "✗"  # ended without an answer (a limit, a model error, a crash)
    INTERRUPTED = "■"  # cancelled or interrupted: resumable

    @property
    def word(self) -> str:
        return {TabMark.WAITING: "waiting for you"}.get(self, self.name.lower())


_numbers = itertools.count(1)


@dataclass(eq=False)
class Tab:
    """One research. ``key`` is unique for the app's life (tab numbers shift when one closes)."""

    handle: RunHandle
    settings: Settings
    question: str | None = None
    breakpoint: bool = False
    fixed_session_id: str | None = None  # the session id the next run of this tab takes
    resume: str | None = None  # a stored session this tab continues when its run starts
    starting_note: str | None = None
    last_result: dict[str, object] | None = None
    decisions: Any = None  # app.decisions.Decisions of this tab (set by the app)
    team: Any = None  # app.team_front.TeamFront of this tab (set by the app)
    stale: bool = False  # events came while hidden: the panes catch up when shown
    key: int = field(default_factory=lambda: next(_numbers))

    @property
    def session_id(self) -> str:
        return self.handle.state.session_id or self.fixed_session_id or self.resume or ""

    def mark(self) -> TabMark:
        h, s = self.handle, self.handle.state
        if h.waiting_on() is not None:
            return TabMark.WAITING
        if h.phase is Phase.FAILED:
            return TabMark.FAILED
        if s.ended is not None:
            if s.answer is not None:
                return TabMark.ANSWERED
            return TabMark.INTERRUPTED if str(s.ended.termination) == "cancelled" else TabMark.FAILED
        if h.active:
            return TabMark.RUNNING
        if s.status == Status.IDLE and not s.runs:
            return TabMark.NEW
        return TabMark.INTERRUPTED  # stopped without an end recorded (closed, a signal)

    def label(self) -> str:
        """Its short question (or what it resumes)."""
        text = " ".join((self.handle.state.question or self.question or "").split())
        if not text:
            text = f"session {self.resume}" if self.resume else "new research"
        return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


class Tabs:
    """The open tabs, in order, and which one is shown."""

    def __init__(self, max_tabs: Callable[[], int]) -> None:
        self.max_tabs = max_tabs
        self.tabs: list[Tab] = []
        self.shown: Tab | None = None  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.tabs)

    def __iter__(self):
        return iter(list(self.tabs))

    def add(self, tab: Tab) -> Tab:
        self.tabs.append(tab)
        if self.shown is None:
            self.shown = tab
        return tab

    def full(self) -> bool:
        return len(self.tabs) >= self.max_tabs()

    def number(self, tab: Tab) -> int:
        """Its number in the strip (1-based)."""
        return self.tabs.index(tab) + 1

    def of(self, handle: object) -> Tab | None:
        """The tab whose run ``handle`` is (None: a closed tab's)."""
        return next((t for t in self.tabs if t.handle is handle), None)

    def with_session(self, session_id: str) -> Tab | None:
        """The open tab showing the stored session ``session_id`` (or a unique prefix of it)."""
        return next((t for t in self.tabs if session_id and t.session_id and
                     (t.session_id == session_id or t.session_id.startswith(session_id))), None)

    def hidden(self) -> list[Tab]:
        return [t for t in self.tabs if t is not self.shown]

    def live(self) -> list[Tab]:
        return [t for t in self.tabs if t.handle.active]

    def step(self, delta: int) -> Tab:
        """The tab ``delta`` places after the shown one (wrapping)."""
        i = self.tabs.index(self.shown)
        return self.tabs[(i + delta) % len(self.tabs)]

    def at(self, number: int) -> Tab | None:
        return self.tabs[number - 1] if 1 <= number <= len(self.tabs) else None

    def longest_waiting(self) -> Tab | None:
        """The tab whose decision has waited longest (its ``decisions`` watch started first)."""
        waiting = [(t.decisions.since(), t) for t in self.tabs
                   if t.handle.waiting_on() is not None and t.decisions is not None]
        waiting = [(since, t) for since, t in waiting if since is not None]
        return min(waiting, key=lambda pair: pair[0])[1] if waiting else None

    def remove(self, tab: Tab) -> Tab:
        """Drop ``tab``; returns the tab shown next (its neighbour when it was the shown one)."""
        i = self.tabs.index(tab)
        self.tabs.remove(tab)
        if self.shown is tab:
            self.shown = self.tabs[min(i, len(self.tabs) - 1)]
        return self.shown


class ShownTab:
    """An app attribute that is the shown tab's (``app.settings`` is ``app.tabs.shown.settings``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj.tabs.shown, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.tabs.shown, self.name, value)
