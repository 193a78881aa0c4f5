"""The base of every event (``core/events.py`` holds the kinds): the fields each carries —
session id, step, timestamp, the run's elapsed time — and its encoding for the store."""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@dataclass(kw_only=True)
class Event:
    type: ClassVar[str] = "event"
    stored: ClassVar[bool] = True
    # Fields that hold text which already went through budgets.clean_observation (redacted):
    # the store does not redact them a second time.
    clean_fields: ClassVar[tuple[str, ...]] = ()
    # Kept before the run goes on: committed at once (never held with its step), and a store that
    # cannot keep it stops what follows (a tool call does not run unrecorded).
    durable: ClassVar[bool] = False
    session_id: str = ""
    step: int = 0
    ts: float = field(default_factory=time.time)
    elapsed_s: float = 0.0  # the run's elapsed time (human waits excluded) when emitted

    def to_dict(self) -> dict[str, Any]:
        """The event's fields and its type, for encoding. Nested values are the event's own, not
        copies (``dataclasses.asdict`` deep-copied them: a third of the store's cost per event):
        encode the dict, do not change what it holds."""
        d = {name: getattr(self, name) for name in field_names(type(self))}
        d["type"] = self.type
        return d

    def stored_dict(self) -> dict[str, Any]:
        """What the store keeps (by default everything)."""
        return self.to_dict()
