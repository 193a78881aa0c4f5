"""Action tables (harlequin's habit): one table per screen feeds its key bindings, its command
palette entries, its buttons and the help screen, so the four never disagree.

A screen declares ``ACTIONS: tuple[UiAction, ...]`` and ``BINDINGS = bindings(ACTIONS)``; the app's
``get_system_commands`` lists the current screen's available actions (``palette_commands``);
buttons are made with ``button(action)`` and pressing one runs its action.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Iterable, Iterator

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Button


@dataclass(frozen=True)
class UiAction:
    name: str  # runs ``action_<name>`` on the screen
    keys: str  # Textual key names, comma-separated ("a,enter")
    label: str  # footer and button label
    title: str  # command palette title
    help: str  # palette help and the help screen's line
    footer: bool = True
    priority: bool = False
    key_display: str | None = None
    group: str | None = None  # footer group (compact), e.g. "Step"
    palette: bool = True
    variant: str = "default"  # button variant

    @property
    def shown_key(self) -> str:
        return self.key_display or self.keys.split(",")[0].replace("question_mark", "?")


_GROUPS: dict[str, Binding.Group] = {}


def bindings(actions: Iterable[UiAction]) -> list[Binding]:
    out = []
    for a in actions:
        group = _GROUPS.setdefault(a.group, Binding.Group(a.group, compact=True)) if a.group else None
        out.append(Binding(a.keys, a.name, a.label, show=a.footer, priority=a.priority, key_display=a.key_display,
                           group=group))
    return out


def palette_commands(screen: Screen, actions: Iterable[UiAction]) -> Iterator[SystemCommand]:
    """The screen's actions that are available now, for the command palette."""
    for a in actions:
        if a.palette and screen.check_action(a.name, ()) is not False:
            yield SystemCommand(a.title, f"{a.help} ({a.shown_key})", partial(screen.run_action, a.name))


def button(action: UiAction, **kw) -> Button:
    """A compact button for ``action`` (its id is the action's name; the screen runs it)."""
    return Button(f"{action.label} {action.shown_key}", id=action.name, variant=action.variant, compact=True, **kw)


def help_rows(actions: Iterable[UiAction]) -> str:
    """Markdown table rows for the help screen."""
    rows = []
    for a in actions:
        keys = " / ".join(f"**{k}**" for k in (a.key_display or a.keys).replace("question_mark", "?").split(","))
        rows.append(f"| {keys} | {a.help} |")
    return "\n".join(rows)


def table(*actions: UiAction) -> dict[str, UiAction]:
    return {a.name: a for a in actions}
