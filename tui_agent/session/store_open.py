"""Opening the session database: its schema and migrations, read-write or read-only, and errors
that say what to do.

The schema moves by named migrations (``MIGRATIONS``), applied once each inside one write
transaction; ``PRAGMA user_version`` counts them, so an older tui-agent refuses a newer file.

Commands that only read (``sessions list|show|export``, ``eval list|compare``) open the file
read-only (``file:…?mode=ro``, and ``immutable=1`` when even that needs a write, as a WAL database
in a read-only directory does), so a store on a read-only disk or in someone else's directory can
still be read. Every :class:`StoreError` ends with what to do about it (:func:`advice`).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from tui_agent.core.sink import LogError

DB_NAME = "sessions.sqlite3"
BUSY_TIMEOUT_MS = 5000

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

# Team research (``tui_agent.team``): a sub-agent's child session names its parent and its number
# there (``parent_id`` stays a fork's origin).
_TEAM_AGENTS = """
ALTER TABLE sessions ADD COLUMN team_parent TEXT;
ALTER TABLE sessions ADD COLUMN team_agent INTEGER;
CREATE INDEX IF NOT EXISTS sessions_by_team_parent ON sessions(team_parent);
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", _INITIAL),
    ("0002_browser_figures", _BROWSER_FIGURES),
    ("0003_session_owner", _SESSION_OWNER),
    ("0004_eval_runs", _EVAL_RUNS),
    ("0005_team_agents", _TEAM_AGENTS),
]
SCHEMA_VERSION = len(MIGRATIONS)

# SQLite's primary result codes that call for different advice.
SQLITE_PERM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = (
    3, 8, 10, 11, 13, 14, 26)
_CANNOT_WRITE = {SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN}
_DAMAGED = {SQLITE_CORRUPT, SQLITE_NOTADB}


class StoreError(LogError):
    """The database is missing, damaged or does not hold what was asked for."""


class StoreFull(StoreError):
    """The disk (or a file size limit) is full: nothing more can be saved until space is freed."""


class StoreDamaged(StoreError):
    """The file is not a sound session database (damaged pages, not a database, empty)."""


class SessionBusy(StoreError):
    """Another live process runs the session (or took it first)."""


def data_dir_flag(path: Path) -> str:
    return f"--data-dir {quote_arg(str(path.parent))}"


def quote_arg(text: str) -> str:
    import shlex

    return shlex.quote(text)


def advice(path: Path, code: int | None) -> str:
    """What the user can do about an error with SQLite result ``code`` on the database ``path``."""
    primary = (code or 0) & 0xFF
    if primary == SQLITE_FULL:
        return (f"the disk holding {path.parent} is full (or a file size limit was reached): free some space "
                f"there, or give another --data-dir; the steps saved so far stay resumable")
    if primary == SQLITE_IOERR:
        return (f"writing or reading {path.parent} failed: the disk may be full, at a file size limit (ulimit -f) "
                f"or failing; free some space there or give another --data-dir, and if it persists check the file "
                f"with: tui-agent sessions doctor {data_dir_flag(path)}")
    if primary in _DAMAGED:
        return (f"check it with: tui-agent sessions doctor {data_dir_flag(path)} (it says what is wrong, and "
                f"--recover salvages what is readable), or move it aside and start afresh: "
                f"mv {quote_arg(str(path))} {quote_arg(str(path) + '.broken')}")
    if primary in _CANNOT_WRITE:
        return (f"{path.parent} must be writable by you to run or change sessions (sessions list, show and export "
                f"read it as it is); or give another --data-dir")
    return f"if it persists, check the file with: tui-agent sessions doctor {data_dir_flag(path)}"


def error_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None and isinstance(exc, sqlite3.DatabaseError):  # messages, for errors without a code
        text = str(exc)
        if "disk is full" in text:
            return SQLITE_FULL
        if "malformed" in text or "not a database" in text:
            return SQLITE_CORRUPT
        if "readonly" in text or "unable to open" in text:
            return SQLITE_READONLY
    return code


def store_error(path: Path, exc: BaseException, doing: str) -> StoreError:
    """A StoreError for a sqlite3 error, with what to do about it."""
    code = error_code(exc)
    cls = {SQLITE_FULL: StoreFull, SQLITE_CORRUPT: StoreDamaged, SQLITE_NOTADB: StoreDamaged}.get(
        (code or 0) & 0xFF, StoreError)
    what = advice(path, code)
    return cls(f"the session database {path} cannot be {doing}: {exc}. {what[:1].upper()}{what[1:]}")


def empty_file(path: Path) -> bool:
    """A 0-byte database file with no write-ahead log beside it. tui-agent writes the header when
    it creates the file, so such a file was cut short or replaced (a full disk, a failed copy)."""
    try:
        if path.stat().st_size != 0:
            return False
    except OSError:
        return False
    wal = path.with_name(path.name + "-wal")
    return not (wal.exists() and wal.stat().st_size > 0)


def empty_file_error(path: Path) -> StoreDamaged:
    return StoreDamaged(
        f"the session database {path} is empty (0 bytes): tui-agent never leaves it so, so it was cut short or "
        f"replaced (a full disk, a failed copy) and holds no sessions. Move it aside and start afresh: "
        f"mv {quote_arg(str(path))} {quote_arg(str(path) + '.empty')} (or restore it from a backup)")


def connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """A connection in autocommit mode; read-only ones never write to the file or its directory."""
    if not read_only:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn
    uri = "file:" + quote(str(path.resolve()))
    try:
        conn = _probe(sqlite3.connect(uri + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                      check_same_thread=False, isolation_level=None))
    except sqlite3.OperationalError as exc:
        if (error_code(exc) or 0) & 0xFF not in _CANNOT_WRITE:
            raise
        # A WAL database in a directory we cannot write: its shared-memory file cannot be made.
        # Read the file as it is (nobody can be writing it through this directory either).
        conn = _probe(sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, check_same_thread=False,
                                      isolation_level=None))
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


def _probe(conn: sqlite3.Connection) -> sqlite3.Connection:
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Execute ;-separated statements one by one (executescript would commit the transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def schema_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Apply the migrations not applied yet, in one write transaction (safe with two openers)."""
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path} was written by a newer tui-agent (schema {version}); upgrade tui-agent, or give "
                         f"another --data-dir")
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)")
        version = schema_version(conn)  # another process may have won
        done = {r[0] for r in conn.execute("SELECT name FROM migrations")}
        for number, (name, script) in enumerate(MIGRATIONS, start=1):
            if name in done:
                continue
            if number > version:  # databases from before the table record their migrations by count
                run_script(conn, script)
            conn.execute("INSERT INTO migrations (name, applied) VALUES (?, ?)", (name, time.time()))
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
