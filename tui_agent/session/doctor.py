"""``tui-agent sessions doctor``: what is wrong with a session database, and salvage.

:func:`diagnose` opens the file read-only and runs SQLite's ``PRAGMA integrity_check``, then
looks for rows whose text is not UTF-8 or whose data is not an event (:mod:`tui_agent.session.damaged`).
:func:`recover` copies every row that can still be read into a fresh database with the current
schema (walking each table by rowid, stepping over damaged pages, never through an index that
may be damaged itself), then moves the damaged file aside (``….broken-STAMP``, kept: nothing is
deleted) and puts the salvaged one in its place.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.session import damaged
from tui_agent.session.store_open import (
    DB_NAME, connect, empty_file, migrate, quote_arg,
)

# How many rows the salvage reads per query while the pages are sound.
BATCH_ROWS = 256
# Tables salvaged, parents first (events need their session).
TABLES = ("sessions", "events", "eval_runs")
_ROWID_MIN = -(2**63)
_ROWID_MAX = 2**63 - 1
# Problems listed at most.
MAX_PROBLEMS = 20


@dataclass
class Diagnosis:
    path: Path
    problems: list[str] = field(default_factory=list)
    sessions: int | None = None
    events: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Recovery:
    path: Path
    kept_as: Path
    copied: dict[str, int] = field(default_factory=dict)
    unreadable: dict[str, int] = field(default_factory=dict)  # damaged stretches skipped, per table


def _read_only(path: Path) -> sqlite3.Connection:
    return connect(path, read_only=True)


def diagnose(data_dir: Path) -> Diagnosis:
    path = Path(data_dir) / DB_NAME
    d = Diagnosis(path)
    if not path.exists():
        d.problems.append("there is no session database here yet (it is made by the first run)")
        return d
    if empty_file(path):
        d.problems.append("the file is empty (0 bytes): it holds no sessions")
        return d
    try:
        conn = _read_only(path)
    except sqlite3.DatabaseError as exc:
        d.problems.append(f"it cannot be opened: {exc}")
        return d
    try:
        rows = [r[0] for r in conn.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")]
        if rows != ["ok"]:
            d.problems.extend(rows)
        else:  # sound pages can still hold text that is not UTF-8, or an event that is not one
            d.problems.extend(damaged.problems(conn))
        for table in ("sessions", "events"):
            try:
                setattr(d, table, conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            except sqlite3.DatabaseError as exc:
                d.problems.append(f"the {table} table cannot be counted: {exc}")
    except sqlite3.DatabaseError as exc:
        d.problems.append(f"the integrity check cannot run: {exc}")
    finally:
        conn.close()
    return d


def advice_for(d: Diagnosis) -> str:
    """The exact commands that recover from what ``d`` found."""
    flag = f"--data-dir {quote_arg(str(d.path.parent))}"
    broken = quote_arg(str(d.path) + ".broken")
    if d.path.exists() and empty_file(d.path):
        return f"Nothing in it can be salvaged; move it aside and start afresh:\n  mv {quote_arg(str(d.path))} {broken}"
    return (f"Salvage every readable session into a fresh database (the damaged file is kept beside it):\n"
            f"  tui-agent sessions doctor --recover {flag}\n"
            f"Or move it aside and start afresh:\n  mv {quote_arg(str(d.path))} {broken}")


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def _next_rows(src: sqlite3.Connection, table: str, cols: str, after: int, limit: int) -> list[tuple]:
    return src.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?",
                       (after, limit)).fetchall()


def _walk(src: sqlite3.Connection, table: str, cols: str, skipped: list[int]):
    """Every readable row of ``table`` in rowid order; a damaged stretch is stepped over (counted
    in ``skipped``) by seeking further and further past it."""
    after = _ROWID_MIN
    while True:
        try:
            batch = _next_rows(src, table, cols, after, BATCH_ROWS)
        except sqlite3.DatabaseError:
            batch = _single_rows(src, table, cols, after, skipped)
        if not batch:
            return
        yield from batch
        after = batch[-1][0]


def _single_rows(src: sqlite3.Connection, table: str, cols: str, after: int, skipped: list[int]) -> list[tuple]:
    """Rows one at a time from ``after``; at damage, seek past it with growing jumps."""
    try:
        return _next_rows(src, table, cols, after, 1)
    except sqlite3.DatabaseError:
        pass
    skipped[0] += 1
    jump = 1
    while after + jump < _ROWID_MAX:
        try:
            rows = _next_rows(src, table, cols, after + jump, 1)
        except sqlite3.DatabaseError:
            jump *= 2
            continue
        return rows
    return []


def recover(data_dir: Path) -> Recovery:
    """Salvage the readable rows into a fresh database that takes the damaged one's place."""
    path = Path(data_dir) / DB_NAME
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fresh = path.with_name(f"{DB_NAME}.recovering-{stamp}")
    kept = path.with_name(f"{DB_NAME}.broken-{stamp}")
    report = Recovery(path, kept)
    dst = connect(fresh, read_only=False)
    try:
        migrate(dst, fresh)
        if not empty_file(path):
            _copy_all(path, dst, report)
        dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        dst.close()
    for suffix in ("", "-wal", "-shm"):
        old = path.with_name(path.name + suffix)
        if old.exists():
            old.rename(kept.with_name(kept.name + suffix))
    for suffix in ("-wal", "-shm"):
        fresh.with_name(fresh.name + suffix).unlink(missing_ok=True)
    fresh.rename(path)
    return report


def _copy_all(path: Path, dst: sqlite3.Connection, report: Recovery) -> None:
    try:
        src = _read_only(path)
    except sqlite3.DatabaseError:
        return
    src.text_factory = damaged.lenient_text  # a byte that is not UTF-8 becomes U+FFFD: the row is kept
    try:
        sessions: set[str] = set()
        dst.execute("BEGIN")
        for table in TABLES:
            try:
                cols = [c for c in _columns(src, table) if c in set(_columns(dst, table))]
            except sqlite3.DatabaseError:
                cols = []
            if not cols:
                report.unreadable[table] = 1
                continue
            skipped = [0]
            names = ", ".join(cols)
            marks = ", ".join("?" * len(cols))
            copied = 0
            for row in _walk(src, table, names, skipped):
                values = dict(zip(cols, row[1:]))
                if table == "events" and values.get("session_id") not in sessions:
                    continue  # its session row was lost
                if not damaged.salvaged(table, values):
                    skipped[0] += 1  # an event whose data is no longer one
                    continue
                if table == "sessions" and values.get("status") == "running":
                    values["status"], values["owner"] = "interrupted", None  # whoever ran it, it is resumable
                try:
                    dst.execute(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})",
                                tuple(values[c] for c in cols))
                except sqlite3.DatabaseError:
                    skipped[0] += 1
                    continue
                copied += 1
                if table == "sessions":
                    sessions.add(values["id"])
            report.copied[table] = copied
            if skipped[0]:
                report.unreadable[table] = skipped[0]
        dst.execute("COMMIT")
    finally:
        src.close()
