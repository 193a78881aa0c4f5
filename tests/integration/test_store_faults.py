"""The store under hostile conditions, end to end through the CLI: two resumes at once, a disk
that fills mid-run, a read-only data directory, a damaged page."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import call
from tests.integration.test_cli import cli, isolated_env
from tests.integration.test_sessions import run_args
from tests.servers import Reply
from tui_agent.core.events import Notice, RunEnded, RunStarted
from tui_agent.session.store import SessionStatus, Store, new_session_id


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tui_agent", *args]


def env_for(tmp_path) -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)


def interrupted_session(data: Path, question: str = "What is the answer?") -> str:
    """A session stopped after its start: resumable."""
    store = Store(data)
    sid = new_session_id()
    store.create_session(sid, question, "openai/test-model", status=SessionStatus.NEW)
    store.append(RunStarted(session_id=sid, question=question, model="openai/test-model",
                            system_prompt="You are a researcher. Answer in <answer> tags."))
    store.release(sid, SessionStatus.INTERRUPTED)
    store.close()
    return sid


def test_two_resumes_started_together_run_the_session_once(tmp_path, chat_server, searx_server):
    sid = interrupted_session(tmp_path / "data")
    chat_server.script(Reply("<answer>once</answer>", delay_s=3), Reply("<answer>twice</answer>", delay_s=3))
    procs = [subprocess.Popen(command("run", "--resume", sid, *run_args(chat_server, searx_server)),
                              env=env_for(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outs
    refused = next(err for p, (_, err) in zip(procs, outs) if p.returncode == 2)
    assert "running in another process" in refused or "changed while this run was starting" in refused
    assert "Traceback" not in refused
    store = Store(tmp_path / "data")
    events = list(store.event_dicts(sid))
    assert [e["type"] for e in events].count("run_started") == 2  # the first run and one resume, not two
    assert [e["type"] for e in events].count("answer") == 1


def limit_file_size(limit: int):
    def apply() -> None:  # in the child: files may not grow past ``limit`` bytes, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_disk_that_fills_mid_run_keeps_the_answer_warns_and_the_data_dir_recovers(tmp_path, chat_server,
                                                                                     searx_server):
    data = tmp_path / "data"
    Store(data).close()
    steps = 14
    for i in range(steps):
        searx_server.results[f"topic {i}"] = [{"url": f"http://a.example/{i}", "title": f"T{i}", "content": "c" * 300}]
    chat_server.script(*[call("search", query=[f"topic {i}"]) for i in range(steps)],
                       "<answer>the final answer</answer>")
    size = max(f.stat().st_size for f in data.iterdir())
    proc = subprocess.run(command("run", "What is the answer?", *run_args(chat_server, searx_server)),
                          env=env_for(tmp_path), capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                          preexec_fn=limit_file_size(size + 120_000))
    assert proc.returncode == 1, proc.stderr  # not saved whole: not a plain success
    result = json.loads(proc.stdout)
    assert result["answer"] == "the final answer"  # what was shown is kept on stdout
    assert "saving stopped at step" in proc.stderr and "full" in proc.stderr
    assert "not saved whole" in proc.stderr and "--resume" in proc.stderr
    assert "Traceback" not in proc.stderr and "cannot rollback" not in proc.stderr
    sid = result["session_id"]
    # Space is back: the data dir works, and the session continues from its last saved step.
    listed = cli("sessions", "list", "--full-ids", env=isolated_env(tmp_path))
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.startswith(sid))
    assert line.split()[3] == "interrupted"
    saved = list(Store(data).event_dicts(sid))
    assert 0 < [e["type"] for e in saved].count("observation") < steps
    chat_server.script("<answer>after space is back</answer>")
    resumed = cli("run", "--resume", sid, *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["answer"] == "after space is back"


def non_root() -> list[str]:
    """A prefix that runs a command without root's power to ignore file modes."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only directory cannot be made")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]


def finished_session(data: Path) -> str:
    store = Store(data)
    sid = new_session_id()
    store.create_session(sid, "What is stored?", "openai/test-model")
    store.append(RunStarted(session_id=sid, question="What is stored?", model="openai/test-model"))
    store.append(Notice(session_id=sid, step=1, text="a stored note"))
    store.append(RunEnded(session_id=sid, termination="answer", result={"answer": "stored"}))
    store.close()
    return sid


def test_a_store_in_a_read_only_directory_can_be_listed_shown_and_exported(tmp_path):
    data = tmp_path / "data"
    sid = finished_session(data)
    (data / "sessions.sqlite3").chmod(0o444)
    data.chmod(0o555)
    try:
        env = env_for(tmp_path)
        listed = subprocess.run(non_root() + command("sessions", "list"), env=env, capture_output=True, text=True,
                                timeout=120)
        assert listed.returncode == 0, listed.stderr
        assert sid.rsplit("-", 1)[1] in listed.stdout and "What is stored?" in listed.stdout
        shown = subprocess.run(non_root() + command("sessions", "show", sid), env=env, capture_output=True,
                               text=True, timeout=120)
        assert shown.returncode == 0 and "a stored note" in shown.stdout, shown.stderr
        exported = subprocess.run(non_root() + command("sessions", "export", sid, "--format", "json"), env=env,
                                  capture_output=True, text=True, timeout=120)
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)["result"]["termination"] == "answer"
        assert sorted(p.name for p in data.iterdir()) == ["sessions.sqlite3"]  # nothing written beside it
    finally:
        data.chmod(0o755)


def damage_events_of(data: Path, marker: str) -> None:
    """Overwrite the header of the page that holds ``marker`` (a leaf of the events table)."""
    path = data / "sessions.sqlite3"
    raw = bytearray(path.read_bytes())
    at = raw.find(marker.encode())
    assert at > 0
    page = at // 4096 * 4096
    raw[page:page + 12] = b"\xff" * 12
    path.write_bytes(bytes(raw))


def test_a_damaged_page_is_named_with_what_to_do_and_doctor_salvages_the_rest(tmp_path, chat_server, searx_server):
    data = tmp_path / "data"
    damaged = interrupted_session(data, "damaged question")
    store = Store(data)
    for n in range(60):
        store.append(Notice(session_id=damaged, step=1, text=f"note {n} " + "y" * 200))
    store.close()
    intact = finished_session(data)
    damage_events_of(data, "note 30 ")
    env = isolated_env(tmp_path)
    resumed = cli("run", "--resume", damaged, *run_args(chat_server, searx_server), env=env)
    assert resumed.returncode == 2 and "Traceback" not in resumed.stderr, resumed.stderr
    assert "malformed" in resumed.stderr and "tui-agent sessions doctor" in resumed.stderr
    assert chat_server.requests == []
    found = cli("sessions", "doctor", env=env)
    assert found.returncode == 1 and "damaged" in found.stdout and "--recover" in found.stdout, found.stdout
    fixed = cli("sessions", "doctor", "--recover", env=env)
    assert fixed.returncode == 0, fixed.stderr
    assert "salvaged 2 sessions" in fixed.stdout and "kept as" in fixed.stdout
    assert any(p.name.startswith("sessions.sqlite3.broken-") for p in data.iterdir())
    assert cli("sessions", "doctor", env=env).returncode == 0
    listed = cli("sessions", "list", "--full-ids", env=env)
    assert listed.returncode == 0 and damaged in listed.stdout and intact in listed.stdout
    shown = cli("sessions", "show", intact, env=env)
    assert shown.returncode == 0 and "a stored note" in shown.stdout


def test_one_event_with_a_byte_that_is_not_utf8_spoils_only_itself_and_doctor_finds_it(tmp_path):
    import sqlite3

    data = tmp_path / "data"
    sid = finished_session(data)
    store = Store(data)
    for n in range(5):
        store.append(Notice(session_id=sid, step=1, text=f"kept note {n}"))
    store.close()
    conn = sqlite3.connect(data / "sessions.sqlite3")
    (raw,) = conn.execute("SELECT CAST(data AS BLOB) FROM events WHERE data LIKE '%kept note 2%'").fetchone()
    conn.execute("UPDATE events SET data = CAST(? AS TEXT) WHERE data LIKE '%kept note 2%'",
                 (raw.replace(b"kept note 2", b"kept note \xff2"),))
    conn.commit()
    conn.close()
    env = isolated_env(tmp_path)
    for args in (["sessions", "show", sid], ["sessions", "export", sid, "--format", "jsonl"]):
        shown = cli(*args, env=env)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, (args, shown.stderr)
        assert "kept note 1" in shown.stdout and "kept note 3" in shown.stdout and "stored" in shown.stdout, args
    found = cli("sessions", "doctor", env=env)
    assert found.returncode == 1 and f"session {sid}: event" in found.stdout and "not valid UTF-8" in found.stdout
    fixed = cli("sessions", "doctor", "--recover", env=env)
    assert fixed.returncode == 0, fixed.stderr
    assert cli("sessions", "doctor", env=env).returncode == 0
    notes = [e["text"] for e in Store(data).event_dicts(sid) if e["type"] == "notice"]
    assert [n for n in notes if n.startswith("kept note")] == [f"kept note {n}" for n in (0, 1)] + \
        ["kept note \ufffd2"] + [f"kept note {n}" for n in (3, 4)]  # the rest kept, the bad byte marked
