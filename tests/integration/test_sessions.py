"""Sessions that outlive the process: kill -9 and resume, fork with replay, export, two writers."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path


from tests.helpers import NoteTool, call, make_engine
from tests.integration.test_cli import ARTICLE, cli, isolated_env
from tests.servers import Reply
from tui_agent.core.events import Notice
from tui_agent.session.store import SCHEMA_VERSION, Store, _SCHEMA_V1, _run_script

GOLDEN = Path(__file__).parent.parent / "golden"


def run_args(chat, searx, *extra: str) -> list[str]:
    return ["--yes", "--json", "--model", "openai/test-model", "--api-base", chat.base_url,
            "--search-backend", "searxng", "--searxng-url", searx.url, "--allow-private-urls", "--no-extract", *extra]


def start(tmp_path, chat, searx, question="What is the answer?") -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    return subprocess.Popen([sys.executable, "-m", "tui_agent", "run", question, *run_args(chat, searx)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def wait_until(cond, timeout=30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.02)


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    proc.stderr.close()


def only_session(tmp_path) -> str:
    store = Store(tmp_path / "data")
    rows = store.list_sessions()
    store.close()
    assert len(rows) == 1
    return rows[0].id


def stored_events(tmp_path, sid) -> list[dict]:
    store = Store(tmp_path / "data")
    try:
        return list(store.event_dicts(sid))
    finally:
        store.close()


def resume(tmp_path, chat, searx, sid) -> dict:
    proc = cli("run", "--resume", sid, *run_args(chat, searx), env=isolated_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_no_event_duplicated(events: list[dict]) -> None:
    for kind in ("action_proposed", "decision", "observation"):
        ids = Counter(e["call_id"] for e in events if e["type"] == kind)
        assert all(n == 1 for n in ids.values()), f"duplicated {kind}: {ids}"
    seqs = [e for e in events if e["type"] == "observation_message"]
    assert len({e["content"] for e in seqs}) == len(seqs)


def test_kill_during_a_model_stream_then_resume_finishes_with_no_event_lost(tmp_path, chat_server, searx_server):
    searx_server.results["first"] = [{"url": "http://a.example/1", "title": "A", "content": "alpha"}]
    chat_server.script(
        call("search", query=["first"]),
        Reply("<think>" + "slow thought " * 400 + "</think>", chunk_delay_s=0.05, chunk_size=4),
        call("search", query=["second"]),
        "<answer>done after resume</answer>",
    )
    proc = start(tmp_path, chat_server, searx_server)
    chat_server.wait_for_requests(2, timeout=60)
    time.sleep(0.5)  # mid-stream
    kill(proc)
    sid = only_session(tmp_path)
    before = stored_events(tmp_path, sid)
    assert [e["type"] for e in before].count("observation") == 1
    result = resume(tmp_path, chat_server, searx_server, sid)
    assert result["session_id"] == sid
    assert result["termination"] == "answer" and result["answer"] == "done after resume"
    assert result["tool_calls"] == 2 and result["model_calls"] == 3
    assert searx_server.queries == ["first", "second"]  # the finished search was not run again
    after = stored_events(tmp_path, sid)
    assert after[: len(before)] == before  # nothing that was stored changed or vanished
    assert_no_event_duplicated(after)
    # The resumed request carries the same history as the killed one.
    assert chat_server.requests[2]["messages"] == chat_server.requests[1]["messages"]


def test_kill_while_a_tool_runs_then_resume_runs_only_the_unfinished_call(tmp_path, chat_server, searx_server,
                                                                          page_server):
    slow = page_server.hang("/slow")
    searx_server.results["x"] = [{"url": slow, "title": "Slow", "content": "s"}]
    chat_server.script(call("search", query=["x"]) + call("visit", url=[slow], goal="g"),
                       "<answer>read it</answer>")
    proc = start(tmp_path, chat_server, searx_server)
    page_server.wait_for_hits(1, timeout=60)
    kill(proc)
    sid = only_session(tmp_path)
    page_server.add("/slow", ARTICLE)
    result = resume(tmp_path, chat_server, searx_server, sid)
    assert result["termination"] == "answer"
    assert searx_server.queries == ["x"]  # finished before the kill: not run again
    assert page_server.hits == ["/slow", "/slow"]  # unfinished: run again once
    events = stored_events(tmp_path, sid)
    assert_no_event_duplicated(events)
    obs = [e for e in events if e["type"] == "observation_message"]
    assert len(obs) == 1 and "forty-two" in obs[0]["content"] and "alpha" not in obs[0]["content"]
    assert len(chat_server.requests) == 2


def test_kill_right_after_an_observation_then_resume(tmp_path, chat_server, searx_server):
    searx_server.results["q"] = [{"url": "http://a.example/q", "title": "Q", "content": "quux"}]
    chat_server.script(call("search", query=["q"]), Reply("<answer>never seen</answer>", delay_s=30),
                       "<answer>after resume</answer>")
    proc = start(tmp_path, chat_server, searx_server)
    chat_server.wait_for_requests(2, timeout=60)
    kill(proc)
    sid = only_session(tmp_path)
    result = resume(tmp_path, chat_server, searx_server, sid)
    assert result["answer"] == "after resume" and result["tool_calls"] == 1
    assert searx_server.queries == ["q"]
    assert chat_server.requests[2]["messages"] == chat_server.requests[1]["messages"]
    assert_no_event_duplicated(stored_events(tmp_path, sid))


def test_resuming_a_finished_session_says_so_and_exits_2(tmp_path, chat_server, searx_server):
    chat_server.script(call("search", query=["q"]), "<answer>a</answer>")
    proc = cli("run", "q", *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    sid = json.loads(proc.stdout)["session_id"]
    again = cli("run", "--resume", sid, *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    assert again.returncode == 2 and "finished" in again.stderr and sid in again.stderr
    unknown = cli("run", "--resume", "no-such-id", *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    assert unknown.returncode == 2 and "no session with an id starting 'no-such-id'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_fork_with_a_new_system_prompt_replays_recorded_tool_calls(tmp_path, chat_server, searx_server, page_server):
    url = page_server.add("/answer", ARTICLE)
    searx_server.results["life"] = [{"url": url, "title": "The Answer Article", "content": "42"}]
    chat_server.script(call("search", query=["life"]), call("visit", url=[url], goal="answer"),
                       "<answer>parent answer [1]</answer>")
    proc = cli("run", "q", *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    parent = json.loads(proc.stdout)["session_id"]
    parent_step2 = chat_server.requests[1]["messages"]
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are the FORKED researcher.\nTools:\n{tools}\n")
    chat_server.script(call("visit", url=[url], goal="answer"), "<answer>forked answer [1]</answer>")
    forked = cli("sessions", "fork", parent, "--at", "2", "--system-prompt", str(prompt),
                 *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    assert forked.returncode == 0, forked.stderr
    result = json.loads(forked.stdout)
    assert result["session_id"] != parent and result["answer"] == "forked answer [1]"
    first_fork_request = chat_server.requests[3]["messages"]
    assert first_fork_request[0]["content"].startswith("You are the FORKED researcher.")
    assert '"name": "visit"' in first_fork_request[0]["content"]
    assert first_fork_request[1:] == parent_step2[1:]  # same history up to that step
    assert page_server.hits == ["/answer"]  # the visit was replayed, not fetched again
    assert searx_server.queries == ["life"]
    events = stored_events(tmp_path, result["session_id"])
    statuses = [e["status"] for e in events if e["type"] == "observation"]
    assert statuses == ["ok", "replayed"]
    assert result["sources"] == [url]
    store = Store(tmp_path / "data")
    row = store.get_session(result["session_id"])
    assert (row.parent_id, row.fork_step) == (parent, 2)
    # --live-tools goes to the web again.
    chat_server.script(call("visit", url=[url], goal="answer"), "<answer>live</answer>")
    live = cli("sessions", "fork", parent, "--at", "2", "--live-tools", *run_args(chat_server, searx_server),
               env=isolated_env(tmp_path))
    assert live.returncode == 0, live.stderr
    assert page_server.hits == ["/answer", "/answer"]


async def test_two_writers_at_once_lose_nothing(tmp_path):
    stores = [Store(tmp_path), Store(tmp_path)]
    for i, st in enumerate(stores):
        st.create_session(f"s{i}", "q", "m")
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for n in range(300):
                stores[i].append(Notice(session_id=f"s{i}", text=f"event {n}"))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    check = Store(tmp_path)
    for i in range(2):
        texts = [e["text"] for e in check.event_dicts(f"s{i}")]
        assert texts == [f"event {n}" for n in range(300)]
    assert check.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_first_schema_database_is_migrated(tmp_path):
    conn = sqlite3.connect(tmp_path / "sessions.sqlite3", isolation_level=None)
    _run_script(conn, _SCHEMA_V1)
    conn.execute("PRAGMA user_version=1")
    conn.execute("INSERT INTO sessions (id, created, updated, question) VALUES ('old', 1, 1, 'old question')")
    ended = {"type": "run_ended", "termination": "answer", "result": {"tool_calls": 4, "total_tokens": 1234}}
    conn.execute("INSERT INTO events (session_id, seq, ts, step, type, data) VALUES ('old', 1, 1, 3, 'run_ended', ?)",
                 (json.dumps(ended),))
    conn.close()
    store = Store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    row = store.get_session("old")
    assert (row.question, row.tool_calls, row.tokens) == ("old question", 4, 1234)


def test_damaged_database_gives_a_clear_message(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "sessions.sqlite3").write_bytes(b"this is not a database" * 100)
    proc = cli("sessions", "list", env=isolated_env(tmp_path))
    assert proc.returncode == 2
    assert "cannot be used" in proc.stderr and "Traceback" not in proc.stderr


async def test_markdown_export_matches_the_golden_report(tmp_path, chat_server):
    chat_server.script(
        Reply("<think>Look it up.</think>" + call("lookup", topic="life"), prompt_tokens=900, completion_tokens=20),
        Reply("<think>Got it.</think><answer>The answer is 42 [1].</answer>", prompt_tokens=1000, completion_tokens=12),
    )
    store = Store(tmp_path)
    store.create_session("golden-session", "What is the answer?", "openai/test-model")
    engine, rec = make_engine(chat_server, NoteTool())
    engine._emit = store.append
    engine.session_id = "golden-session"
    await engine.run()
    from tui_agent.session.exports import export

    text = export(store.events("golden-session"), "md")
    text = re.sub(r"\(read [^)]+\)", "(read TIME)", text)
    text = re.sub(r"\| [\d.]+ s \|", "| TIME |", text)
    text = re.sub(r", [\d.]+ s\)", ", TIME)", text)
    golden = GOLDEN / "report.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()
    lines = export(store.events("golden-session"), "jsonl").splitlines()
    assert [json.loads(x)["type"] for x in lines][0] == "run_started"
    data = json.loads(export(store.events("golden-session"), "json"))
    assert data["result"]["answer"] == "The answer is 42 [1]." and len(data["events"]) == len(lines)


def test_exports_keep_secrets_redacted(tmp_path, chat_server, monkeypatch):
    secret = "s3cr3t-VALUE-for-export-test"
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    store = Store(tmp_path)
    store.create_session("sec", f"question mentioning {secret}", "m")
    store.append(Notice(session_id="sec", text=f"echo {secret}"))
    from tui_agent.session.exports import export

    for fmt in ("md", "json", "jsonl"):
        assert secret not in export(store.events("sec"), fmt)
    for f in tmp_path.iterdir():  # the database and its WAL
        assert secret.encode() not in f.read_bytes()


def test_kill_while_an_mcp_call_runs_then_resume_does_not_run_it_again_and_says_it_may_have_run(
        tmp_path, chat_server, searx_server):
    # An MCP tool may act (write, send, pay): once started, a resume never runs it a second time.
    from tests.integration.test_mcp import stdio

    pid_file = tmp_path / "notes.pid"
    waiting = Path(str(pid_file) + ".waiting")
    config = tmp_path / "config"
    config.mkdir()
    server = stdio(NOTES_PID_FILE=str(pid_file))
    (config / "config.toml").write_text(
        f"require_evidence = false\n[mcp_servers.notes]\ncommand = {json.dumps(server['command'])}\n"
        f"args = {json.dumps(server['args'])}\nenv = {{ NOTES_PID_FILE = {json.dumps(str(pid_file))} }}\n",
        encoding="utf-8")
    chat_server.script(call("mcp__notes__wait", seconds=3), "<answer>it waited, I think</answer>")
    proc = start(tmp_path, chat_server, searx_server)
    wait_until(waiting.exists, timeout=120)
    kill(proc)
    waiting.unlink()
    sid = only_session(tmp_path)
    before = [e["type"] for e in stored_events(tmp_path, sid)]
    resumed = cli("run", "--resume", sid, *run_args(chat_server, searx_server), env=isolated_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert not waiting.exists()  # the call was not made again
    assert "had started when the session stopped" in resumed.stderr and "not run again" in resumed.stderr
    (obs,) = [e for e in stored_events(tmp_path, sid) if e["type"] == "observation"]
    assert obs["status"] == "interrupted" and "may have run" in obs["text"]
    told = chat_server.requests[-1]["messages"][-1]["content"]
    assert "may have run" in told
    assert before[-1] == "tool_started"  # what told the resume: saved before the call ran
