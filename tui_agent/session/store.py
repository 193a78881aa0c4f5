"""SQLite store: one database under the data directory; every event appended as it happens.

WAL and a busy timeout so a TUI and a headless run can share the database; one commit per event,
so a killed process loses nothing that was shown. ``batch_steps`` (eval, where nobody watches a
case live): one commit per step, so a killed process leaves each step stored whole or not at all,
and the session resumable from its last whole step; a signal, a read or :meth:`Store.flush`
commits what is held at once. Secrets are redacted on the plain text of each
field before the row is encoded (never on JSON-encoded text, where an escape could hide them).
Opening, the schema and its migrations, and the errors (each says what to do) are in
``store_open``; who holds a session is in ``owners``.

Every session row names its owner: the process running it (host, boot, pid and start time).
A session whose owner is gone (SIGKILL, power loss, a closed terminal, a zombie) is marked
``interrupted`` when a store is opened; SIGTERM and SIGHUP mark it at once (the front ends'
signal handlers call :meth:`Store.mark_interrupted`). Interrupted sessions stay resumable.
A run that continues a session takes it with :meth:`Store.claim`, one compare-and-set in a write
transaction, so two processes started together cannot both run it.

Ids are ``YYYYMMDD-HHMMSS-xxxxxx``: wherever an id is taken, the full id, a unique prefix or a
unique suffix (the random part, :func:`short_id`) is accepted.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from tui_agent.safety import hygiene
from tui_agent.safety.redaction import redactor
from tui_agent.core.events import (
    Event, ModelCallStarted, Observation, RunEnded, RunStarted, Termination, event_from_dict,
)
from tui_agent.core.upgrades import upgrade
from tui_agent.session.session_rows import (  # noqa: F401 - re-exported: the store's vocabulary
    MAX_CANDIDATES, RESUMABLE, SHORT_ID_CHARS, AmbiguousId, SessionRow, SessionStatus, new_session_id, short_id,
)
from tui_agent.session.owners import owner_alive, owner_token  # noqa: F401 - part of the store's API
from tui_agent.session.damaged import event_dict, lenient_text
from tui_agent.session.store_open import (  # noqa: F401 - re-exported: the store's vocabulary
    DB_NAME, BUSY_TIMEOUT_MS, MIGRATIONS, SCHEMA_VERSION, _SCHEMA_V1, SessionBusy, StoreDamaged, StoreError,
    StoreFull, connect, empty_file, empty_file_error, migrate, run_script as _run_script, schema_version, store_error,
)

_COLUMNS = ("id, created, updated, question, model, status, termination, parent_id, fork_step, steps, cost_usd, "
            "tool_calls, tokens, eval_label, case_id, team_parent, team_agent")


def _redacted(value: Any) -> Any:
    """Every string of a structure (keys too) with secrets redacted, before it is encoded."""
    return hygiene.scrub(value, controls=False)


def _redacted_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """An event's fields with secrets redacted: each string value, and every string of a nested
    value (keys too). The top-level keys are the event's field names, not data; numbers, booleans
    and None are passed as they are (a walk over them cost more than the redaction itself)."""
    redact = redactor()
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if isinstance(value, str):
            out[name] = redact(value)
        elif isinstance(value, (dict, list, tuple)):
            out[name] = _redacted(value) if value else value
        else:
            out[name] = value
    return out


_INSERT_SQL = ("INSERT INTO events (session_id, seq, ts, step, type, data) VALUES "
               "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id=?), ?, ?, ?, ?)")
# The session row of a run that ended: its status, termination and the run's own counters.
_ENDED_SQL = ("UPDATE sessions SET updated=?, status=?, termination=?, cost_usd=?, tool_calls=?, tokens=?, owner=NULL "
              "WHERE id=?")

def _update_row(conn: sqlite3.Connection, owner: str, sid: str, events: list[Event]) -> None:
    """The session row after ``events`` (in order): a run that starts or ends sets its status;
    then one statement sets the time (the last event's) and the steps the model was called in.
    The tools that ran are counted as they run (as the fold counts them), so a live or resumed
    session shows them before its run ends (its end sets the run's own count, the same)."""
    steps = None
    ran = 0
    for event in events:
        match event:
            case ModelCallStarted(step=step):
                steps = step if steps is None else max(steps, step)
            case Observation(executed=True):
                ran += 1
            case RunEnded(result=result, termination=termination):
                ran = 0  # the end sets the run's own count, these calls included
                result = result or {}
                status = SessionStatus.CANCELLED if termination == Termination.CANCELLED else SessionStatus.ENDED
                conn.execute(_ENDED_SQL, (event.ts, status, termination, result.get("cost_usd"),
                                               result.get("tool_calls") or 0, result.get("total_tokens") or 0, sid))
            case RunStarted():
                conn.execute("UPDATE sessions SET updated=?, status=?, termination=NULL, owner=? WHERE id=?",
                                  (event.ts, SessionStatus.RUNNING, owner, sid))
    if ran:
        conn.execute("UPDATE sessions SET tool_calls=tool_calls+? WHERE id=?", (ran, sid))
    if steps is None:
        if not isinstance(events[-1], (RunStarted, RunEnded)):  # those set the time already
            conn.execute("UPDATE sessions SET updated=? WHERE id=?", (events[-1].ts, sid))
    else:
        conn.execute("UPDATE sessions SET updated=?, steps=MAX(steps, ?) WHERE id=?", (events[-1].ts, steps, sid))


class Store:
    """The session database of one data directory. ``read_only``: never write (the commands that
    only read); sessions whose owner is gone are then shown interrupted without being marked."""

    def __init__(self, data_dir: Path, *, read_only: bool = False, batch_steps: bool = False) -> None:
        self.batch_steps = batch_steps
        self._held: dict[str, list[tuple[Event, str]]] = {}  # batch_steps: each session's unsaved step
        self.path = Path(data_dir) / DB_NAME
        self.read_only = read_only and self.path.exists()  # nothing to read yet: create it as usual
        self._dead: set[str] = set()
        if empty_file(self.path):
            raise empty_file_error(self.path)
        try:
            if not self.read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = connect(self.path, read_only=self.read_only)
            if self.read_only and schema_version(self.conn) < SCHEMA_VERSION:
                self.conn.close()  # an older file: migrate it once, if we may write it
                self.conn, self.read_only = connect(self.path, read_only=False), False
            if not self.read_only:
                migrate(self.conn, self.path)
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc, "used") from None
        except OSError as exc:
            raise StoreError(f"the data directory {self.path.parent} cannot be used: {exc}. Give another "
                             f"--data-dir, or make it writable") from None
        self.conn.text_factory = lenient_text  # a byte that is not UTF-8 spoils its row only (session.damaged)
        self._lock = threading.Lock()
        self.owner = owner_token()
        self.reap()

    def close(self) -> None:
        if self._held and not self.read_only:
            self.flush()
        self.conn.close()

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc, "read") from None

    @contextmanager
    def _transaction(self, flush: tuple[str, ...] = (), then: tuple[Event, str] | None = None) -> Iterator[None]:
        """One write transaction; the held events of the sessions in ``flush`` are written first,
        and ``then`` after those of its session (one statement for all). A failed COMMIT (a full
        disk) may already have rolled it back: the error says why the write failed, never "cannot
        rollback" (held events stay held)."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    for sid in flush:
                        held = self._held.get(sid, [])
                        self._insert_many(sid, [*held, then] if then and then[0].session_id == sid else held)
                    yield
                    self.conn.execute("COMMIT")
                    for sid in flush:
                        self._held.pop(sid, None)
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise store_error(self.path, exc, "written") from None

    def _write(self, sql: str, params: tuple = ()) -> int:
        """One statement in its own transaction; the number of rows it changed."""
        with self._transaction():
            return self.conn.execute(sql, params).rowcount

    def _row(self, values: tuple) -> "SessionRow":
        row = SessionRow(*values)
        if row.id in self._dead:  # read-only: its owner is gone, though nobody could mark it
            row.status = SessionStatus.INTERRUPTED
        return row

    # -- owners ---------------------------------------------------------------------------------
    def reap(self) -> list[str]:
        """Mark running sessions whose owner process is gone as interrupted; returns their ids."""
        try:
            rows = self.conn.execute("SELECT id, owner FROM sessions WHERE status=?", (SessionStatus.RUNNING,)).fetchall()
        except sqlite3.DatabaseError:
            return []
        dead = [sid for sid, owner in rows if owner != self.owner and not owner_alive(owner)]
        if self.read_only:
            self._dead = set(dead)
            return dead
        for sid in dead:
            try:
                self.mark_interrupted(sid, only_if_running=True)
            except StoreError:
                break  # a full disk: found again at the next open
        return dead

    def held_elsewhere(self, session_id: str) -> bool:
        """Whether another live process is running this session now."""
        with self._reading():
            row = self.conn.execute("SELECT status, owner FROM sessions WHERE id=?", (session_id,)).fetchone()
        return bool(row) and row[0] == SessionStatus.RUNNING and row[1] != self.owner and owner_alive(row[1])

    def claim(self, session_id: str, *, seen_events: int | None = None) -> None:
        """Take the session for this process: one compare-and-set in a write transaction, so of
        two processes resuming it together exactly one runs it. Refused (:class:`SessionBusy`)
        while another live process runs it, or when events were added since the caller read
        ``seen_events`` of them (someone else ran it meanwhile)."""
        busy = SessionBusy(f"session {session_id} is running in another process; stop that one first (or wait for "
                           f"it to end)")
        with self._transaction():
            row = self.conn.execute("SELECT status, owner, (SELECT COUNT(*) FROM events WHERE session_id=?) "
                                    "FROM sessions WHERE id=?", (session_id, session_id)).fetchone()
            if row is None:
                raise StoreError(f"no session with id {session_id!r} in {self.path}; tui-agent sessions list "
                                 f"shows them")
            status, owner, count = row
            if status == SessionStatus.RUNNING and owner != self.owner and owner_alive(owner):
                raise busy
            if seen_events is not None and count != seen_events:
                raise SessionBusy(f"session {session_id} changed while this run was starting (another process ran "
                                  f"it); look at it with: tui-agent sessions show {short_id(session_id)}")
            changed = self.conn.execute(
                "UPDATE sessions SET status=?, owner=?, updated=? WHERE id=? AND status IS ? AND owner IS ?",
                (SessionStatus.RUNNING, self.owner, time.time(), session_id, status, owner)).rowcount
            if changed != 1:
                raise busy

    def release(self, session_id: str, status: SessionStatus) -> None:
        """Nobody runs the session now (a fork made but not yet run: NEW)."""
        self._write("UPDATE sessions SET status=?, owner=NULL WHERE id=?", (status, session_id))

    def mark_interrupted(self, session_id: str, *, only_if_running: bool = False) -> None:
        """The session's process stopped without ending the run (a signal, a crash)."""
        sql = "UPDATE sessions SET status=?, owner=NULL, updated=? WHERE id=?"
        if only_if_running:
            sql += " AND status='running'"
        with self._transaction(flush=tuple(self._held)):  # a signal: what was shown is saved
            self.conn.execute(sql, (SessionStatus.INTERRUPTED, time.time(), session_id))

    # -- writing ----------------------------------------------------------------------------
    def create_session(self, session_id: str, question: str, model: str, settings: dict[str, Any] | None = None,
                       parent_id: str | None = None, fork_step: int | None = None,
                       status: SessionStatus = SessionStatus.RUNNING, eval_label: str | None = None,
                       case_id: str | None = None, team_parent: str | None = None,
                       team_agent: int | None = None) -> None:
        """``team_parent``/``team_agent``: a team research's sub-agent, its parent session and number."""
        now = time.time()
        owner = self.owner if status == SessionStatus.RUNNING else None
        self._write(
            "INSERT INTO sessions (id, created, updated, question, model, settings, parent_id, fork_step, status, "
            "owner, eval_label, case_id, team_parent, team_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, now, now, hygiene.redact(question), model, json.dumps(_redacted(settings or {})),
             parent_id, fork_step, status, owner, eval_label, case_id, team_parent, team_agent),
        )

    def team_children(self, session_id: str) -> list[SessionRow]:
        """The sub-agents' child sessions of a team research, by agent number."""
        with self._reading():
            return [self._row(r) for r in self.conn.execute(
                f"SELECT {_COLUMNS} FROM sessions WHERE team_parent=? ORDER BY team_agent, created", (session_id,))]

    def append(self, event: Event) -> None:
        """Append one event and commit it (``batch_steps``: commit its step when the next one
        starts or the run ends, or with a ``durable`` event, such as a tool call's start); stream deltas are not stored. A failure raises a
        :class:`StoreError` saying why (:class:`StoreFull` for a full disk)."""
        if not event.stored:
            return
        fields = event.stored_dict()
        kept = {k: fields.pop(k) for k in event.clean_fields if k in fields}  # redacted already
        data = json.dumps({**_redacted_fields(fields), **kept}, ensure_ascii=False)
        sid = event.session_id
        if self.batch_steps and not isinstance(event, RunEnded) and not event.durable:
            with self._lock:
                held = self._held.get(sid)
                step_whole = bool(held) and held[-1][0].step != event.step
            if step_whole:
                self.flush(sid)  # the next step starts: the held one is whole
            with self._lock:
                self._held.setdefault(sid, []).append((event, data))
            return
        with self._transaction(flush=(sid,), then=(event, data)):
            pass

    def flush(self, session_id: str | None = None) -> None:
        """Commit the events held for a session (all sessions: None) in one transaction."""
        sessions = tuple(self._held) if session_id is None else (session_id,)
        if any(self._held.get(sid) for sid in sessions):
            with self._transaction(flush=sessions):
                pass

    def _insert_many(self, sid: str, events: list[tuple[Event, str]]) -> None:
        """A session's events in one statement, each numbered after the last one stored, and its
        row after them. The number is read inside the write transaction: another process may have
        appended to the same session since (a citation check next to an open TUI)."""
        if not events:
            return
        rows = [(sid, sid, event.ts, event.step, event.type, data) for event, data in events]
        if len(rows) == 1:  # one event (the TUI, a run): execute costs less than executemany
            self.conn.execute(_INSERT_SQL, rows[0])
        else:
            self.conn.executemany(_INSERT_SQL, rows)
        _update_row(self.conn, self.owner, sid, [event for event, _ in events])

    # -- reading ----------------------------------------------------------------------------
    def list_sessions(self, limit: int | None = None) -> list[SessionRow]:
        sql = f"SELECT {_COLUMNS} FROM sessions ORDER BY created DESC, id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._reading():
            return [self._row(r) for r in self.conn.execute(sql)]

    def has_session(self, session_id: str) -> bool:
        with self._reading():
            return self.conn.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is not None

    def get_session(self, session_id: str) -> SessionRow:
        with self._reading():
            row = self.conn.execute(f"SELECT {_COLUMNS} FROM sessions WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise StoreError(f"no session with id {session_id!r} in {self.path}; tui-agent sessions list "
                             f"shows them")
        return self._row(row)

    def resolve_id(self, text: str) -> str:
        """The full id for an id, a unique prefix of one (as git takes commit ids) or a unique
        suffix (the random part lists show)."""
        text = text.strip()
        if not text:
            raise StoreError("no session id given")
        if self.has_session(text):
            return text
        escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._reading():
            rows = [self._row(r) for r in self.conn.execute(
                f"SELECT {_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' "
                f"ORDER BY created DESC", (escaped + "%", "%" + escaped))]
        if not rows:
            raise StoreError(f"no session with an id starting {text!r} (or ending so) in {self.path}; tui-agent "
                             f"sessions list shows them")
        if len(rows) > 1:
            raise AmbiguousId(text, rows)
        return rows[0].id

    def session_settings(self, session_id: str) -> dict[str, Any]:
        with self._reading():
            row = self.conn.execute("SELECT settings FROM sessions WHERE id=?", (session_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def event_dicts(self, session_id: str) -> Iterator[dict[str, Any]]:
        self.flush(session_id)
        with self._reading():
            for seq, data in self.conn.execute("SELECT seq, data FROM events WHERE session_id=? ORDER BY seq",
                                               (session_id,)):
                yield event_dict(session_id, seq, data)  # a broken event: a notice in its place

    def events(self, session_id: str) -> list[Event]:
        """The session's events, those stored before a field existed upgraded (``core.upgrades``)."""
        return [event_from_dict(d) for d in upgrade(self.event_dicts(session_id))]

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
        self._write(
            "INSERT INTO eval_runs (label, created, set_path, cases, options) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(label) DO UPDATE SET set_path=excluded.set_path, cases=excluded.cases, "
            "options=excluded.options",
            (label, time.time(), set_path, json.dumps(_redacted(cases)), json.dumps(_redacted(options))))

    def eval_runs(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT label FROM eval_runs ORDER BY created DESC").fetchall()
        return [self.eval_run(r[0]) for r in rows]  # type: ignore[misc]

    def eval_sessions(self, label: str) -> dict[str, SessionRow]:
        """The latest session of each case of a labelled run, by case id."""
        with self._reading():
            rows = [self._row(r) for r in self.conn.execute(
                f"SELECT {_COLUMNS} FROM sessions WHERE eval_label=? ORDER BY created", (label,))]
        return {r.case_id: r for r in rows if r.case_id is not None}

    def delete_session(self, session_id: str) -> None:
        self.get_session(session_id)
        with self._transaction():
            self.conn.execute("DELETE FROM events WHERE session_id=?", (session_id,))
            self.conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
