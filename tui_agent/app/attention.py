"""Getting the user's attention when a decision waits: how long it has waited, when to ring, and
the bytes that ring.

A decision (a tool call, a plan, a breakpoint, a clarifying question) that waits longer than the
``notify_after_s`` setting rings the terminal bell once and, with ``notify = "all"``, sends a
desktop notification through the terminal: OSC 777 where the terminal is known to take it (VTE
terminals such as GNOME Terminal and Tilix, foot, urxvt), OSC 9 elsewhere (iTerm2, WezTerm,
kitty, Ghostty, Windows Terminal ignore what they do not know). Inside tmux the notification is
wrapped for passthrough (tmux needs ``set -g allow-passthrough on``); the bell needs no wrapping.

No Textual here: the TUI writes the bytes through its driver, the headless CLI to its terminal.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

BELL = "\a"
# What may not appear inside an OSC string: control characters end or corrupt it.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
# Terminals that show OSC 777 ("notify;title;body") as a desktop notification.
_OSC777_TERMS = ("rxvt", "foot")
BODY_CHARS = 200  # a desktop notification shows a line or two; a tool call's arguments can be long


def _clean(text: str, *, semicolons: bool = True) -> str:
    text = _CONTROL.sub(" ", text).strip()
    if not semicolons:
        text = text.replace(";", ",")  # OSC 777 separates title and body with ';'
    return text[:BODY_CHARS]


def desktop_sequence(title: str, body: str, env: Mapping[str, str] | None = None) -> str:
    """The escape sequence that asks the terminal for a desktop notification."""
    env = os.environ if env is None else env
    term = env.get("TERM", "")
    if env.get("VTE_VERSION") or term.startswith(_OSC777_TERMS):
        seq = f"\x1b]777;notify;{_clean(title, semicolons=False)};{_clean(body, semicolons=False)}\x1b\\"
    else:
        seq = f"\x1b]9;{_clean(title)}: {_clean(body)}\x07"
    if env.get("TMUX"):
        seq = "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return seq


def attention_sequence(mode: str, title: str, body: str, env: Mapping[str, str] | None = None) -> str:
    """What to write for the ``notify`` setting: the bell, plus the desktop notification for "all";
    nothing for "off"."""
    if mode == "off":
        return ""
    if mode == "bell":
        return BELL
    return BELL + desktop_sequence(title, body, env)


@dataclass
class Waiting:
    """One decision waiting: what it is (``kind``: "tool call", "breakpoint"…), a line saying what
    it asks, and when it began."""

    key: object
    kind: str
    detail: str
    since: float
    rung: bool = False


class DecisionWatch:
    """Follows the decision that waits (at most one at a time) with an injectable clock.

    ``observe`` is called with what waits now (or None) whenever that may have changed and on a
    regular tick; it starts a new wait when a different decision appears. ``due`` says, once per
    decision, that it has waited ``after_s`` seconds and the user should be called."""

    def __init__(self, after_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.after_s = after_s
        self.clock = clock
        self.current: Waiting | None = None

    def observe(self, key: object | None, kind: str = "", detail: str = "") -> None:
        if key is None:
            self.current = None
        elif self.current is None or self.current.key is not key:
            self.current = Waiting(key, kind, detail, self.clock())

    def waited(self) -> float | None:
        """Seconds the current decision has waited (None when nothing waits)."""
        return None if self.current is None else max(0.0, self.clock() - self.current.since)

    def due(self) -> Waiting | None:
        """The waiting decision, the first time it has waited ``after_s`` seconds; else None."""
        w = self.current
        if w is None or w.rung or self.clock() - w.since < self.after_s:
            return None
        w.rung = True
        return w


def waited_label(seconds: float | None) -> str:
    """``12s``, ``3m05s``: how long a decision has waited, as the header shows it."""
    if seconds is None:
        return ""
    s = int(seconds)
    return f"{s}s" if s < 60 else f"{s // 60}m{s % 60:02d}s"
