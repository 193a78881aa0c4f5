"""`tui-agent eval --workers N`: the cases of one label run in several processes, all stored in the
one database, each once; Ctrl-C stops every worker and a rerun resumes the rest. The CLI runs as a
subprocess against the scripted model server (litellm and httpx for real)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from tests.integration.test_cli import cli, isolated_env
from tests.integration.test_eval import tool_flags, write_set
from tests.servers import Fault
from tui_agent.session.store import Store

CASES = [{"id": f"case-{i}", "question": f"Question number {i}?", "expect": [f"answer {i}\\b"]} for i in range(16)]


def number(request: dict) -> int:
    question = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return int(question.split("number ")[1].split("?")[0])


def eval_sessions(tmp_path, label: str) -> list:
    store = Store(tmp_path / "data", read_only=True)
    try:
        return [r for r in store.list_sessions() if r.eval_label == label]
    finally:
        store.close()


def test_cases_run_in_two_worker_processes_and_each_is_stored_once(tmp_path, chat_server, searx_server):
    # Each worker runs 2 cases at once (--concurrency 4 split over 2 workers), so the first four model
    # requests can all be in flight together only if both processes are running cases: the server
    # answers them only then (a barrier), and would fail them all if one process ran alone.
    first_four = threading.Barrier(4, timeout=90)
    arrived = []
    lock = threading.Lock()

    def model(request: dict):
        with lock:
            arrived.append(number(request))
            waits = len(arrived) <= 4
        if waits:
            first_four.wait()
        return f"<answer>This is answer {number(request)}.</answer>"

    chat_server.default = model
    path = write_set(tmp_path, *CASES)
    proc = cli("eval", path, "--label", "wide", "--workers", "2", "--concurrency", "4", "--json",
               *tool_flags(chat_server, searx_server), env=isolated_env(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not first_four.broken
    cases = json.loads(proc.stdout)["cases"]
    assert [c["id"] for c in cases] == [c["id"] for c in CASES]  # the set's order, as without workers
    assert all(c["passed"] for c in cases)
    assert {c["worker"] for c in cases} == {1, 2}
    stored = eval_sessions(tmp_path, "wide")
    assert sorted(r.case_id for r in stored) == sorted(c["id"] for c in CASES)  # every case once, no duplicate
    assert {r.id for r in stored} == {c["session_id"] for c in cases}
    assert all(r.status == "ended" for r in stored)
    from collections import Counter

    calls = Counter(number(r) for r in chat_server.requests)
    assert set(calls) == set(range(16)) and len(set(calls.values())) == 1  # every case run once, the same way
    assert "[16/16]" in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_stops_every_worker_and_a_rerun_resumes_the_rest_under_their_ids(tmp_path, chat_server, searx_server):
    # Cases 0-7 answer; 8-15 hang until the eval is interrupted. The four slots (two per worker) end
    # up holding four hanging cases, so both processes have cases in flight when Ctrl-C comes.
    hanging = threading.Event()
    hung = []

    def model(request: dict):
        n = number(request)
        if n >= 8 and not hanging.is_set():
            hung.append(n)
            return Fault(hang=True)
        return f"<answer>This is answer {n}.</answer>"

    chat_server.default = model
    path = write_set(tmp_path, *CASES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    args = ["eval", path, "--label", "cut", "--workers", "2", "--concurrency", "4", *tool_flags(chat_server, searx_server)]
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    deadline = time.monotonic() + 240
    while len(hung) < 4 or sum(r.status == "ended" for r in eval_sessions(tmp_path, "cut")) < 8:
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.poll() else hung
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C on a terminal: the eval and its workers all get it
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "interrupted: finished cases are kept" in err and "Traceback" not in err, err
    before = {r.case_id: r for r in eval_sessions(tmp_path, "cut")}
    ended = {cid for cid, r in before.items() if r.status == "ended"}
    assert ended == {f"case-{i}" for i in range(8)}
    stopped = {cid for cid, r in before.items() if r.status != "ended"}
    assert {f"case-{n}" for n in hung} <= stopped and all(before[c].resumable for c in stopped)

    hanging.set()
    requests_before = len(chat_server.requests)
    again = cli(*args, "--json", env=isolated_env(tmp_path), timeout=300)
    assert again.returncode == 0, again.stderr
    cases = {c["id"]: c for c in json.loads(again.stdout)["cases"]}
    assert all(c["passed"] for c in cases.values()) and len(cases) == 16
    assert all(cases[cid]["session_id"] == before[cid].id for cid in before)  # resumed and kept under their ids
    stored = eval_sessions(tmp_path, "cut")
    assert sorted(r.case_id for r in stored) == sorted(cases) and len(stored) == 16  # no duplicates
    rerun = {number(r) for r in chat_server.requests[requests_before:]}
    assert rerun == set(range(8, 16))  # the finished cases were not run again
