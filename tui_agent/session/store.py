"""SQLite store: one database under the data directory; every event appended as it happens.

Schema version in ``PRAGMA user_version``; WAL and a busy timeout so a TUI and a headless run
can share the database. Secrets are redacted before anything is written.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from tui_agent import hygiene
from tui_agent.session.events import Event, event_from_dict

DB_NAME = "sessions.sqlite3"
SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 5000

_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY,
    created     REAL NOT NULL,
    updated     REAL NOT NULL,
    question    TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'running',
    termination TEXT,
    parent_id   TEXT,
    fork_step   INTEGER,
    steps       INTEGER NOT NULL DEFAULT 0,
    cost_usd    REAL,
    settings    TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    ts          REAL NOT NULL,
    step        INTEGER NOT NULL,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX IF NOT EXISTS events_by_session ON events(session_id, seq);
CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions(created);
"""


# Version 2: per-session figures for the session browser (tool calls, tokens), backfilled from
# each finished session's run_ended event.
_MIGRATE_V2 = """
ALTER TABLE sessions ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET
    tool_calls = COALESCE((SELECT json_extract(e.data, '$.result.tool_calls') FROM events e
                           WHERE e.session_id = sessions.id AND e.type = 'run_ended' ORDER BY e.seq DESC LIMIT 1), 0),
    tokens = COALESCE((SELECT json_extract(e.data, '$.result.total_tokens') FROM events e
                       WHERE e.session_id = sessions.id AND e.type = 'run_ended' ORDER BY e.seq DESC LIMIT 1), 0);
"""


class StoreError(Exception):
    """The database is missing, damaged or does not hold what was asked for."""


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Execute ;-separated statements one by one (executescript would commit the transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


@dataclass
class SessionRow:
    id: str
    created: float
    updated: float
    question: str
    model: str
    status: str
    termination: str | None
    parent_id: str | None
    fork_step: int | None
    steps: int
    cost_usd: float | None
    tool_calls: int = 0
    tokens: int = 0


class Store:
    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / DB_NAME
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                                        isolation_level=None)
            self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the session database {self.path} cannot be used: {exc}") from None
        except OSError as exc:
            raise StoreError(f"the data directory {self.path.parent} cannot be used: {exc}") from None
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}

    def _migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION inside one write transaction (safe with two openers)."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer tui-agent (schema {version})")
        if version == SCHEMA_VERSION:
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
            if version < 1:
                _run_script(self.conn, _SCHEMA_V1)
            if version < 2:
                _run_script(self.conn, _MIGRATE_V2)
            self.conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.conn.close()

    # -- writing ----------------------------------------------------------------------------
    def create_session(self, session_id: str, question: str, model: str, settings: dict[str, Any] | None = None,
                       parent_id: str | None = None, fork_step: int | None = None) -> None:
        now = time.time()
        with self._lock:
            self.conn.execute(
                "INSERT INTO sessions (id, created, updated, question, model, settings, parent_id, fork_step) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, now, now, hygiene.redact(question), model, json.dumps(settings or {}), parent_id, fork_step),
            )

    def append(self, event: Event) -> None:
        """Append one event and commit it (autocommit); stream deltas are not stored."""
        if not event.stored:
            return
        data = hygiene.redact(json.dumps(event.stored_dict(), ensure_ascii=False))
        sid = event.session_id
        with self._lock:
            seq = self._seq.get(sid)
            if seq is None:
                row = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id=?", (sid,)).fetchone()
                seq = row[0]
            seq += 1
            self._seq[sid] = seq
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(
                    "INSERT INTO events (session_id, seq, ts, step, type, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (sid, seq, event.ts, event.step, event.type, data),
                )
                if event.type == "model_call_started":
                    self.conn.execute("UPDATE sessions SET updated=?, steps=MAX(steps, ?) WHERE id=?",
                                      (event.ts, event.step, sid))
                elif event.type == "run_ended":
                    result = getattr(event, "result", {}) or {}
                    status = "ended" if event.termination != "cancelled" else "cancelled"
                    self.conn.execute(
                        "UPDATE sessions SET updated=?, status=?, termination=?, cost_usd=?, tool_calls=?, tokens=? "
                        "WHERE id=?",
                        (event.ts, status, event.termination, result.get("cost_usd"), result.get("tool_calls") or 0,
                         result.get("total_tokens") or 0, sid),
                    )
                elif event.type == "run_started":
                    self.conn.execute("UPDATE sessions SET updated=?, status='running', termination=NULL WHERE id=?",
                                      (event.ts, sid))
                else:
                    self.conn.execute("UPDATE sessions SET updated=? WHERE id=?", (event.ts, sid))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    # -- reading ----------------------------------------------------------------------------
    def list_sessions(self, limit: int | None = None) -> list[SessionRow]:
        sql = ("SELECT id, created, updated, question, model, status, termination, parent_id, fork_step, steps, cost_usd, "
               "tool_calls, tokens FROM sessions ORDER BY created DESC, id DESC")
        if limit:
            sql += f" LIMIT {int(limit)}"
        try:
            return [SessionRow(*r) for r in self.conn.execute(sql)]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the session database {self.path} cannot be read: {exc}") from None

    def get_session(self, session_id: str) -> SessionRow:
        row = self.conn.execute(
            "SELECT id, created, updated, question, model, status, termination, parent_id, fork_step, steps, cost_usd, "
            "tool_calls, tokens FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id!r} in {self.path}")
        return SessionRow(*row)

    def session_settings(self, session_id: str) -> dict[str, Any]:
        row = self.conn.execute("SELECT settings FROM sessions WHERE id=?", (session_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def event_dicts(self, session_id: str) -> Iterator[dict[str, Any]]:
        for (data,) in self.conn.execute("SELECT data FROM events WHERE session_id=? ORDER BY seq", (session_id,)):
            yield json.loads(data)

    def events(self, session_id: str) -> list[Event]:
        return [event_from_dict(d) for d in self.event_dicts(session_id)]

    def delete_session(self, session_id: str) -> None:
        self.get_session(session_id)
        with self._lock:
            self.conn.execute("DELETE FROM events WHERE session_id=?", (session_id,))
            self.conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
            self._seq.pop(session_id, None)
