"""A session whose process dies is listed as interrupted, not running, and stays resumable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.integration.test_cli import cli, isolated_env
from tests.servers import Fault
from tui_agent.session.store import Store


def start_hanging_run(tmp_path, chat) -> subprocess.Popen:
    """A headless run whose first model call never gets an answer."""
    chat.script(Fault(hang=True))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    return subprocess.Popen([sys.executable, "-m", "tui_agent", "run", "What is the answer?", "--yes", "--json",
                             "--model", "openai/test-model", "--api-base", chat.base_url],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def wait_for_the_model_call(data, proc, chat, timeout: float = 120.0) -> str:
    """The session id, once its first model request has reached the server (and hangs there) and
    its model call is recorded in the store under ``data``."""
    deadline = time.monotonic() + timeout
    while not chat.requests:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"no model request (exit {proc.returncode}): {err.decode()[-2000:]}")
        time.sleep(0.1)
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        if (data / "sessions.sqlite3").exists():
            store = Store(data)
            try:
                rows = store.list_sessions()
                if rows and any(e["type"] == "model_call_started" for e in store.event_dicts(rows[0].id)):
                    return rows[0].id
            finally:
                store.close()
        time.sleep(0.1)
    raise AssertionError("the run never reached its model call")


def listed_status(tmp_path, sid: str) -> str:
    out = cli("sessions", "list", "--full-ids", env=isolated_env(tmp_path)).stdout
    line = next(line for line in out.splitlines() if line.startswith(sid))
    return line.split()[3]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_mark_the_session_interrupted_at_once(tmp_path, chat_server, sig):
    proc = start_hanging_run(tmp_path, chat_server)
    sid = wait_for_the_model_call(tmp_path / "data", proc, chat_server)
    assert Store(tmp_path / "data").get_session(sid).status == "running"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    assert f"stopped by {sig.name}" in err.decode() and f"tui-agent run --resume {sid}" in err.decode()
    assert listed_status(tmp_path, sid) == "interrupted"
    chat_server.script("<answer>It is 42.</answer>", "<answer>It is 42.</answer>")  # resumable: it ends now
    resumed = cli("run", "--resume", sid, "--yes", "--json", "--api-base", chat_server.base_url,
                  env=isolated_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert (result["session_id"], result["termination"], result["answer"]) == (sid, "answer", "It is 42.")
    assert listed_status(tmp_path, sid) == "answer"


def test_a_killed_run_is_found_interrupted_when_the_store_is_opened(tmp_path, chat_server):
    proc = start_hanging_run(tmp_path, chat_server)
    sid = wait_for_the_model_call(tmp_path / "data", proc, chat_server)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    proc.stderr.close()
    assert listed_status(tmp_path, sid) == "interrupted"
    shown = cli("sessions", "export", sid[:-2], "--format", "json", env=isolated_env(tmp_path))
    assert shown.returncode == 0 and json.loads(shown.stdout)["result"]["termination"] is None


def test_a_session_another_live_process_runs_is_not_resumed_twice(tmp_path, chat_server):
    proc = start_hanging_run(tmp_path, chat_server)
    try:
        sid = wait_for_the_model_call(tmp_path / "data", proc, chat_server)
        again = cli("run", "--resume", sid, "--yes", "--model", "openai/test-model", "--api-base",
                    chat_server.base_url, env=isolated_env(tmp_path))
        assert again.returncode == 2 and "running in another process" in again.stderr
        assert listed_status(tmp_path, sid) == "running"  # its owner is alive
    finally:
        proc.kill()
        proc.communicate(timeout=10)
