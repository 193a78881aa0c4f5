"""SQLite store: one database under the data directory; every event appended as it happens.

WAL and a busy timeout so a TUI and a headless run can share the database; one commit per event,
so a killed process loses nothing that was shown. Secrets are redacted on the plain text of each
field before the row is encoded (never on JSON-encoded text, where an escape could hide them).

The schema moves by named migrations (``MIGRATIONS``), applied once each inside one write
transaction; ``PRAGMA user_version`` counts them, so an older tui-agent refuses a newer file.

Every session row names its owner: the process running it (host, boot, pid and start time).
A session whose owner is gone (SIGKILL, power loss, a closed terminal) is marked
``interrupted`` when a store is opened; SIGTERM and SIGHUP mark it at once (the front ends'
signal handlers call :meth:`Store.mark_interrupted`). Interrupted sessions stay resumable.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterator

from tui_agent import hygiene
from tui_agent.session.events import Event, RunEnded, Termination, event_from_dict

DB_NAME = "sessions.sqlite3"
BUSY_TIMEOUT_MS = 5000
# Ambiguous id prefixes list at most this many candidates.
MAX_CANDIDATES = 10


class SessionStatus(StrEnum):
    NEW = "new"  # created (a fork not yet run)
    RUNNING = "running"
    ENDED = "ended"
    CANCELLED = "cancelled"  # the run was cancelled (quit, second Ctrl-C); resumable
    INTERRUPTED = "interrupted"  # its process died or was stopped by a signal; resumable


RESUMABLE = frozenset({SessionStatus.NEW, SessionStatus.CANCELLED, SessionStatus.INTERRUPTED})

_INITIAL = """
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
_SCHEMA_V1 = _INITIAL  # the first schema, as the tests that migrate it call it

# Per-session figures for the session browser (tool calls, tokens), backfilled from each finished
# session's run_ended event.
_BROWSER_FIGURES = """
ALTER TABLE sessions ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET
    tool_calls = COALESCE((SELECT json_extract(e.data, '$.result.tool_calls') FROM events e
                           WHERE e.session_id = sessions.id AND e.type = 'run_ended' ORDER BY e.seq DESC LIMIT 1), 0),
    tokens = COALESCE((SELECT json_extract(e.data, '$.result.total_tokens') FROM events e
                       WHERE e.session_id = sessions.id AND e.type = 'run_ended' ORDER BY e.seq DESC LIMIT 1), 0);
"""

# The process that runs a session; rows left 'running' by older versions have none, so they are
# found interrupted at the next open.
_SESSION_OWNER = """
ALTER TABLE sessions ADD COLUMN owner TEXT;
CREATE INDEX IF NOT EXISTS sessions_by_status ON sessions(status);
"""

# Regression sets (``tui-agent eval``): a labelled run of a set, and each case's session.
_EVAL_RUNS = """
CREATE TABLE IF NOT EXISTS eval_runs (
    label    TEXT PRIMARY KEY,
    created  REAL NOT NULL,
    set_path TEXT NOT NULL,
    cases    TEXT NOT NULL DEFAULT '[]',
    options  TEXT NOT NULL DEFAULT '{}'
);
ALTER TABLE sessions ADD COLUMN eval_label TEXT;
ALTER TABLE sessions ADD COLUMN case_id TEXT;
CREATE INDEX IF NOT EXISTS sessions_by_eval ON sessions(eval_label, case_id);
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", _INITIAL),
    ("0002_browser_figures", _BROWSER_FIGURES),
    ("0003_session_owner", _SESSION_OWNER),
    ("0004_eval_runs", _EVAL_RUNS),
]
SCHEMA_VERSION = len(MIGRATIONS)
_COLUMNS = ("id, created, updated, question, model, status, termination, parent_id, fork_step, steps, cost_usd, "
            "tool_calls, tokens, eval_label, case_id")


class StoreError(Exception):
    """The database is missing, damaged or does not hold what was asked for."""


class AmbiguousId(StoreError):
    """An id prefix matches several sessions; ``candidates`` lists them."""

    def __init__(self, prefix: str, candidates: list["SessionRow"]) -> None:
        self.candidates = candidates
        lines = "\n".join(f"  {r.id}  {r.question[:60]}" for r in candidates[:MAX_CANDIDATES])
        more = f"\n  … and {len(candidates) - MAX_CANDIDATES} more" if len(candidates) > MAX_CANDIDATES else ""
        super().__init__(f"the id prefix {prefix!r} matches {len(candidates)} sessions:\n{lines}{more}")


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
    eval_label: str | None = None
    case_id: str | None = None

    @property
    def shown_status(self) -> str:
        """What a list shows: the termination of an ended run, else the status."""
        return self.termination if self.status == SessionStatus.ENDED and self.termination else self.status

    @property
    def resumable(self) -> bool:
        return self.status in RESUMABLE


# -- owners -----------------------------------------------------------------------------------


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str:
    """The process's start time since boot (Linux), to tell it from a later one with its pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]


def owner_token(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return json.dumps({"host": socket.gethostname(), "boot": _boot_id(), "pid": pid, "start": _start_time(pid)})


def owner_alive(token: str | None) -> bool:
    """Whether the process a token names still runs. Another host's sessions count as alive
    (nothing here can tell); no token means nobody holds the session."""
    if not token:
        return False
    try:
        owner = json.loads(token)
    except ValueError:
        return False
    if owner.get("host") != socket.gethostname():
        return True
    if owner.get("boot") and owner["boot"] != _boot_id():
        return False  # the machine restarted since
    pid = int(owner.get("pid") or 0)
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's live process
    start = owner.get("start")
    return not start or start == _start_time(pid)


def _redacted(value: Any) -> Any:
    """Every string of a structure (keys too) with secrets redacted, before it is encoded."""
    return hygiene.scrub(value, controls=False)


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
        self.owner = owner_token()
        self.reap()

    def _migrate(self) -> None:
        """Apply the migrations not applied yet, in one write transaction (safe with two openers)."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer tui-agent (schema {version})")
        if version == SCHEMA_VERSION:
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)")
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
            done = {r[0] for r in self.conn.execute("SELECT name FROM migrations")}
            for number, (name, script) in enumerate(MIGRATIONS, start=1):
                if name in done:
                    continue
                if number > version:  # databases from before the table record their migrations by count
                    _run_script(self.conn, script)
                self.conn.execute("INSERT INTO migrations (name, applied) VALUES (?, ?)", (name, time.time()))
            self.conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.conn.close()

    # -- owners ---------------------------------------------------------------------------------
    def reap(self) -> list[str]:
        """Mark running sessions whose owner process is gone as interrupted; returns their ids."""
        try:
            rows = self.conn.execute("SELECT id, owner FROM sessions WHERE status=?", (SessionStatus.RUNNING,)).fetchall()
        except sqlite3.DatabaseError:
            return []
        dead = [sid for sid, owner in rows if owner != self.owner and not owner_alive(owner)]
        for sid in dead:
            self.mark_interrupted(sid, only_if_running=True)
        return dead

    def held_elsewhere(self, session_id: str) -> bool:
        """Whether another live process is running this session now."""
        row = self.conn.execute("SELECT status, owner FROM sessions WHERE id=?", (session_id,)).fetchone()
        return bool(row) and row[0] == SessionStatus.RUNNING and row[1] != self.owner and owner_alive(row[1])

    def release(self, session_id: str, status: SessionStatus) -> None:
        """Nobody runs the session now (a fork made but not yet run: NEW)."""
        with self._lock:
            self.conn.execute("UPDATE sessions SET status=?, owner=NULL WHERE id=?", (status, session_id))

    def mark_interrupted(self, session_id: str, *, only_if_running: bool = False) -> None:
        """The session's process stopped without ending the run (a signal, a crash)."""
        sql = "UPDATE sessions SET status=?, owner=NULL, updated=? WHERE id=?"
        if only_if_running:
            sql += " AND status='running'"
        with self._lock:
            self.conn.execute(sql, (SessionStatus.INTERRUPTED, time.time(), session_id))

    # -- writing ----------------------------------------------------------------------------
    def create_session(self, session_id: str, question: str, model: str, settings: dict[str, Any] | None = None,
                       parent_id: str | None = None, fork_step: int | None = None,
                       status: SessionStatus = SessionStatus.RUNNING, eval_label: str | None = None,
                       case_id: str | None = None) -> None:
        now = time.time()
        owner = self.owner if status == SessionStatus.RUNNING else None
        with self._lock:
            self.conn.execute(
                "INSERT INTO sessions (id, created, updated, question, model, settings, parent_id, fork_step, status, "
                "owner, eval_label, case_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, now, now, hygiene.redact(question), model, json.dumps(_redacted(settings or {})),
                 parent_id, fork_step, status, owner, eval_label, case_id),
            )

    def append(self, event: Event) -> None:
        """Append one event and commit it (autocommit); stream deltas are not stored."""
        if not event.stored:
            return
        fields = event.stored_dict()
        kept = {k: fields.pop(k) for k in event.clean_fields if k in fields}  # redacted already
        data = json.dumps({**_redacted(fields), **kept}, ensure_ascii=False)
        sid = event.session_id
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                # The next number is read inside the write transaction: another process may have
                # appended to the same session since (a citation check next to an open TUI).
                self.conn.execute(
                    "INSERT INTO events (session_id, seq, ts, step, type, data) VALUES "
                    "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id=?), ?, ?, ?, ?)",
                    (sid, sid, event.ts, event.step, event.type, data),
                )
                self._update_row(event)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def _update_row(self, event: Event) -> None:
        sid = event.session_id
        if event.type == "model_call_started":
            self.conn.execute("UPDATE sessions SET updated=?, steps=MAX(steps, ?) WHERE id=?", (event.ts, event.step, sid))
        elif isinstance(event, RunEnded):
            result = event.result or {}
            status = SessionStatus.CANCELLED if event.termination == Termination.CANCELLED else SessionStatus.ENDED
            self.conn.execute(
                "UPDATE sessions SET updated=?, status=?, termination=?, cost_usd=?, tool_calls=?, tokens=?, owner=NULL "
                "WHERE id=?",
                (event.ts, status, event.termination, result.get("cost_usd"), result.get("tool_calls") or 0,
                 result.get("total_tokens") or 0, sid),
            )
        elif event.type == "run_started":
            self.conn.execute("UPDATE sessions SET updated=?, status=?, termination=NULL, owner=? WHERE id=?",
                              (event.ts, SessionStatus.RUNNING, self.owner, sid))
        else:
            self.conn.execute("UPDATE sessions SET updated=? WHERE id=?", (event.ts, sid))

    # -- reading ----------------------------------------------------------------------------
    def list_sessions(self, limit: int | None = None) -> list[SessionRow]:
        sql = f"SELECT {_COLUMNS} FROM sessions ORDER BY created DESC, id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        try:
            return [SessionRow(*r) for r in self.conn.execute(sql)]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the session database {self.path} cannot be read: {exc}") from None

    def has_session(self, session_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is not None

    def get_session(self, session_id: str) -> SessionRow:
        row = self.conn.execute(f"SELECT {_COLUMNS} FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id!r} in {self.path}")
        return SessionRow(*row)

    def resolve_id(self, text: str) -> str:
        """The full id for an id or a unique prefix of one (as git takes commit ids)."""
        text = text.strip()
        if not text:
            raise StoreError("no session id given")
        if self.has_session(text):
            return text
        pattern = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = [SessionRow(*r) for r in self.conn.execute(
            f"SELECT {_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY created DESC", (pattern,))]
        if not rows:
            raise StoreError(f"no session with an id starting {text!r} in {self.path}")
        if len(rows) > 1:
            raise AmbiguousId(text, rows)
        return rows[0].id

    def session_settings(self, session_id: str) -> dict[str, Any]:
        row = self.conn.execute("SELECT settings FROM sessions WHERE id=?", (session_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def event_dicts(self, session_id: str) -> Iterator[dict[str, Any]]:
        for (data,) in self.conn.execute("SELECT data FROM events WHERE session_id=? ORDER BY seq", (session_id,)):
            yield json.loads(data)

    def events(self, session_id: str) -> list[Event]:
        return [event_from_dict(d) for d in self.event_dicts(session_id)]

    # -- regression sets ------------------------------------------------------------------------
    def eval_run(self, label: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT label, created, set_path, cases, options FROM eval_runs WHERE label=?",
                                (label,)).fetchone()
        if row is None:
            return None
        return {"label": row[0], "created": row[1], "set_path": row[2], "cases": json.loads(row[3]),
                "options": json.loads(row[4])}

    def save_eval_run(self, label: str, set_path: str, cases: list[dict[str, Any]], options: dict[str, Any]) -> None:
        """Record (or update) a labelled run of a set: its cases and the options it ran with."""
        with self._lock:
            self.conn.execute(
                "INSERT INTO eval_runs (label, created, set_path, cases, options) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(label) DO UPDATE SET set_path=excluded.set_path, cases=excluded.cases, "
                "options=excluded.options",
                (label, time.time(), set_path, json.dumps(_redacted(cases)), json.dumps(_redacted(options))))

    def eval_runs(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT label FROM eval_runs ORDER BY created DESC").fetchall()
        return [self.eval_run(r[0]) for r in rows]  # type: ignore[misc]

    def eval_sessions(self, label: str) -> dict[str, SessionRow]:
        """The latest session of each case of a labelled run, by case id."""
        rows = [SessionRow(*r) for r in self.conn.execute(
            f"SELECT {_COLUMNS} FROM sessions WHERE eval_label=? ORDER BY created", (label,))]
        return {r.case_id: r for r in rows if r.case_id is not None}

    def delete_session(self, session_id: str) -> None:
        self.get_session(session_id)
        with self._lock:
            self.conn.execute("DELETE FROM events WHERE session_id=?", (session_id,))
            self.conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
