"""The store under faults, in process: zombie owners, the claim, ids by their random part, an
empty file, a full disk (SQLite's own SQLITE_FULL via ``PRAGMA max_page_count``)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tui_agent.core.events import Notice, RunStarted
from tui_agent.session.store import SessionStatus, Store, StoreError, owner_alive, owner_token


def zombie() -> subprocess.Popen:
    """A child killed and not reaped: its /proc entry stays, in state Z."""
    child = subprocess.Popen(["sleep", "600"])
    return child


def wait_for_state(pid: int, state: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[-1].split()[0] == state:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never reached state {state}")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_killed_but_unreaped_owner_does_not_hold_its_session(tmp_path):
    child = zombie()
    try:
        token = owner_token(child.pid)
        assert owner_alive(token)  # alive while it runs
        store = Store(tmp_path)
        store.create_session("s1", "q", "m")
        store.conn.execute("UPDATE sessions SET owner=? WHERE id='s1'", (token,))
        store.close()
        os.kill(child.pid, signal.SIGKILL)
        wait_for_state(child.pid, "Z")  # killed, not reaped: a zombie
        assert not owner_alive(token)
        assert Store(tmp_path).get_session("s1").status == SessionStatus.INTERRUPTED
    finally:
        child.kill()
        child.wait()


def resumable_session(store: Store, sid: str = "20260102-101500-d37a5d") -> str:
    store.create_session(sid, "What is the answer?", "m", status=SessionStatus.NEW)
    store.append(RunStarted(session_id=sid, question="What is the answer?", model="m", system_prompt="sys"))
    store.release(sid, SessionStatus.INTERRUPTED)
    return sid


def test_of_two_processes_claiming_one_session_exactly_one_gets_it(tmp_path):
    first, second = Store(tmp_path), Store(tmp_path)
    second.owner = owner_token(os.getppid())  # another live process
    sid = resumable_session(first)
    seen = len(first.events(sid))
    first.claim(sid, seen_events=seen)
    with pytest.raises(StoreError, match="running in another process"):
        second.claim(sid, seen_events=seen)
    assert first.get_session(sid).status == SessionStatus.RUNNING
    # The first one stops; what the second read before is stale now: it must not run from it.
    first.append(Notice(session_id=sid, text="a step the second never saw"))
    first.mark_interrupted(sid)
    with pytest.raises(StoreError, match="changed while this run was starting"):
        second.claim(sid, seen_events=seen)
    second.claim(sid, seen_events=seen + 1)
    assert second.get_session(sid).status == SessionStatus.RUNNING


def test_ids_are_taken_by_their_random_suffix_and_lists_show_it(tmp_path):
    from tui_agent.session.store import AmbiguousId, short_id

    store = Store(tmp_path)
    for sid in ("20260102-101500-d37a5d", "20260102-101501-aa11bb"):
        store.create_session(sid, f"question {sid}", "m")
    assert store.resolve_id("d37a5d") == "20260102-101500-d37a5d"
    assert store.resolve_id("a11bb") == "20260102-101501-aa11bb"  # any unique end of it
    assert store.resolve_id("20260102-101501") == "20260102-101501-aa11bb"  # prefixes still work
    with pytest.raises(AmbiguousId) as err:
        store.resolve_id("20260102")  # every session of the day
    assert "20260102-101500-d37a5d" in str(err.value) and "20260102-101501-aa11bb" in str(err.value)
    assert short_id("20260102-101500-d37a5d") == "d37a5d" and short_id("golden-session") == "golden-session"
    assert [r.short_id for r in store.list_sessions()] == ["aa11bb", "d37a5d"]


def test_an_empty_database_file_is_reported_not_used_as_an_empty_store(tmp_path):
    (tmp_path / "sessions.sqlite3").write_bytes(b"")
    with pytest.raises(StoreError) as err:
        Store(tmp_path)
    assert "empty (0 bytes)" in str(err.value) and "mv " in str(err.value)
    assert (tmp_path / "sessions.sqlite3").stat().st_size == 0  # left as it was


def test_a_full_database_says_so_and_the_store_stays_usable(tmp_path):
    store = Store(tmp_path)
    store.create_session("s1", "q", "m")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages + 2}")  # SQLITE_FULL, as a full disk gives
    with pytest.raises(StoreError) as err:
        for n in range(2000):
            store.append(Notice(session_id="s1", text=f"event {n} " + "x" * 500))
    assert "full" in str(err.value) and "free some space" in str(err.value)
    assert "cannot rollback" not in str(err.value)
    saved = [e["text"] for e in store.event_dicts("s1")]
    assert saved == [f"event {n} " + "x" * 500 for n in range(len(saved))]  # whole events, in order
    store.conn.execute("PRAGMA max_page_count=1073741823")  # space is back
    store.append(Notice(session_id="s1", text="after"))
    assert [e["text"] for e in store.event_dicts("s1")][-1] == "after"
