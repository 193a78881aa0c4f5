"""Damaged rows: one bad event must not make a whole session unreadable.

A byte that is not UTF-8 (a damaged page, a bad copy, a disk that filled mid-write) in one
event's ``data`` made SQLite's text conversion fail for the whole query, so ``sessions show`` and
``export`` refused the session while ``PRAGMA integrity_check`` (which checks pages, not text)
said ok. Here:

- :func:`lenient_text` is the store's text conversion: a bad byte reads as U+FFFD, in place;
- :func:`event_dict` reads one stored event; one that is still not an event (its JSON broken)
  becomes a ``notice`` saying so, in its place, and the rest of the session reads as usual;
- :func:`problems` is the doctor's scan: every event (and session row) whose text is not UTF-8
  or whose data is not an event, named (``sessions doctor``); ``--recover`` keeps the rest
  (:func:`salvaged`: text repaired with U+FFFD, an event that still does not parse is left out).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

MAX_NAMED = 20
"""Damaged rows named at most (the count says how many in all)."""


def lenient_text(raw: bytes) -> str:
    """A text column as UTF-8; a byte that is not UTF-8 reads as U+FFFD."""
    return raw.decode("utf-8", errors="replace")


def _event_types() -> dict[str, Any]:
    from tui_agent.core.events import EVENT_TYPES

    return EVENT_TYPES


def _broken(data: str) -> str | None:
    """Why ``data`` is not a stored event, or None."""
    try:
        d = json.loads(data)
    except ValueError as exc:
        return f"its data is not JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(d, dict) or d.get("type") not in _event_types():
        return "its data is not an event of a known type"
    return None


def event_dict(session_id: str, seq: int, data: str) -> dict[str, Any]:
    """One stored event as a dict; a broken one as a notice in its place."""
    why = _broken(data)
    if why is None:
        return json.loads(data)
    return {"type": "notice", "session_id": session_id, "level": "error",
            "text": f"event {seq} of this session cannot be read: {why}; it is left out "
                    "(tui-agent sessions doctor names it, --recover keeps the rest)"}


def problems(conn: sqlite3.Connection) -> list[str]:
    """Each session row and event whose text is not UTF-8 or whose data is not an event."""
    found: list[str] = []
    count = 0
    rows = conn.execute("SELECT CAST(id AS BLOB), CAST(question AS BLOB) FROM sessions")
    for sid, question in rows:
        for name, raw in (("id", sid), ("question", question)):
            if isinstance(raw, bytes) and not _utf8(raw):
                count += 1
                if len(found) < MAX_NAMED:
                    found.append(f"session {lenient_text(sid)}: its {name} is not valid UTF-8")
    for sid, seq, raw in conn.execute("SELECT CAST(session_id AS BLOB), seq, CAST(data AS BLOB) FROM events"):
        why = "its text is not valid UTF-8" if not _utf8(raw or b"") else _broken(raw.decode("utf-8"))
        if why is not None:
            count += 1
            if len(found) < MAX_NAMED:
                found.append(f"session {lenient_text(sid or b'')}: event {seq} cannot be read: {why}")
    if count > len(found):
        found.append(f"… {count - len(found)} more damaged rows")
    return found


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def salvaged(table: str, values: dict[str, Any]) -> bool:
    """Whether a row read leniently is worth copying: an event must still be an event."""
    return table != "events" or _broken(str(values.get("data") or "")) is None
