"""Gathering the shards of a set run on other machines into one data directory: ``eval merge DIR…``.

Each DIR is a data directory (or its ``sessions.sqlite3``) where shards ran under a label; the
labelled runs (all of them, or the ``--label`` ones) are copied into this data directory: the
run's cases (the union over the shards, in the set's order) and every case session with its
events, unchanged (they were redacted when they were written). A session that was still running
there is copied as interrupted, so a run of the label here resumes it. Merging is idempotent: a
session already here (the same id) is left as it is, so merging a directory twice copies
nothing twice. When two directories ran the same case under the label, both sessions are kept
and the later one is the case's result (as when a label is run twice), and the summary says so.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.session.store import (
    DB_NAME,
    SessionStatus,
    Store,
    StoreError,
    store_error,
)

# The session columns a merge copies (the owner is the other machine's process: not copied).
_SESSION_COLUMNS = ("id", "created", "updated", "question", "model", "status", "termination", "parent_id",
                    "fork_step", "steps", "cost_usd", "settings", "tool_calls", "tokens", "eval_label", "case_id",
                    "team_parent", "team_agent")
_EVENT_COLUMNS = ("session_id", "seq", "ts", "step", "type", "data")


class MergeError(ValueError):
    """A directory that cannot be merged (no database, the destination itself, no such label)."""


@dataclass
class Merged:
    """What one merge did, per label."""

    sessions: dict[str, int] = field(default_factory=dict)  # label -> sessions copied
    already: dict[str, int] = field(default_factory=dict)  # label -> sessions that were here already
    overlapping: dict[str, set[str]] = field(default_factory=dict)  # label -> case ids run in more than one dir

    def lines(self) -> list[str]:
        out = []
        for label in self.sessions:
            line = f"{label}: {self.sessions[label]} case sessions copied"
            if self.already.get(label):
                line += f", {self.already[label]} already here"
            if self.overlapping.get(label):
                line += (f"; {len(self.overlapping[label])} cases were run in more than one place (the later "
                         f"session counts): {', '.join(sorted(self.overlapping[label])[:5])}")
            out.append(line)
        return out


def _database(path: Path) -> Path:
    path = Path(path).expanduser()
    return path if path.name == DB_NAME or path.is_file() else path / DB_NAME


def merge(store: Store, sources: list[Path], labels: list[str] | None = None) -> Merged:
    """Copy the labelled runs of ``sources`` into ``store`` (see the module doc)."""
    out = Merged()
    for source in sources:
        db = _database(source)
        if not db.is_file():
            raise MergeError(f"eval merge: {source}: no session database there ({db} does not exist)")
        if db.resolve() == store.path.resolve():
            raise MergeError(f"eval merge: {source} is this data directory itself; give the other machines' "
                             f"data directories")
        try:
            src = Store(db.parent, read_only=True)
        except StoreError as exc:
            raise MergeError(f"eval merge: {source}: {exc}") from None
        try:
            _merge_one(store, src, labels, out)
        except sqlite3.DatabaseError as exc:
            raise MergeError(f"eval merge: {store_error(store.path, exc, 'written')}") from None
        finally:
            src.close()
    return out


def _merge_one(store: Store, src: Store, labels: list[str] | None, out: Merged) -> None:
    runs = {r["label"]: r for r in src.eval_runs()}
    wanted = labels if labels is not None else list(runs)
    missing = [label for label in wanted if label not in runs]
    if missing:
        known = ", ".join(runs) or "none"
        raise MergeError(f"eval merge: {src.path.parent}: no eval run labelled {missing[0]!r} (labels there: {known})")
    for label in wanted:
        _merge_label(store, src, runs[label], out)


def _merge_label(store: Store, src: Store, run: dict, out: Merged) -> None:
    label = run["label"]
    here = store.eval_run(label)
    cases = list(here["cases"]) if here else []
    known_ids = {c["id"] for c in cases}
    cases += [c for c in run["cases"] if c["id"] not in known_ids]
    options = dict(here["options"] if here else run["options"])
    options.pop("shard", None)  # the merged run is the whole set (or as much of it as was run)
    before = {cid: row.id for cid, row in store.eval_sessions(label).items()}
    cols = ", ".join(_SESSION_COLUMNS)
    rows = src.conn.execute(f"SELECT {cols} FROM sessions WHERE eval_label=? ORDER BY created", (label,)).fetchall()
    conn = store.conn
    with store._lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT INTO eval_runs (label, created, set_path, cases, options) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT(label) DO UPDATE SET cases=excluded.cases, options=excluded.options",
                         (label, run["created"], run["set_path"], json.dumps(cases), json.dumps(options)))
            copied = 0
            for row in rows:
                values = dict(zip(_SESSION_COLUMNS, row))
                if values["status"] == SessionStatus.RUNNING:
                    values["status"] = SessionStatus.INTERRUPTED
                added = conn.execute(f"INSERT OR IGNORE INTO sessions ({cols}) VALUES "
                                     f"({', '.join('?' * len(_SESSION_COLUMNS))})",
                                     tuple(values[c] for c in _SESSION_COLUMNS)).rowcount
                if not added:
                    continue
                copied += 1
                events = src.conn.execute(f"SELECT {', '.join(_EVENT_COLUMNS)} FROM events WHERE session_id=? "
                                          f"ORDER BY seq", (values["id"],))
                conn.executemany(f"INSERT OR IGNORE INTO events ({', '.join(_EVENT_COLUMNS)}) VALUES "
                                 f"({', '.join('?' * len(_EVENT_COLUMNS))})", events)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    out.sessions[label] = out.sessions.get(label, 0) + copied
    out.already[label] = out.already.get(label, 0) + len(rows) - copied
    theirs = {values[-1] for values in rows if values[-1] is not None}
    overlap = {cid for cid in theirs if cid in before and before[cid] not in {r[0] for r in rows}}
    if overlap:
        out.overlapping.setdefault(label, set()).update(overlap)
