"""`tui-agent run --team` as a process against the local chat, search and page servers: the JSON
result's agents and sections, the trace prefixed by agent number, and kill -9 then --resume
researching only the agents that had not finished."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from tests.helpers import call
from tests.integration.test_tui_process import env_for
from tests.servers import Fault, Reply
from tui_agent.session.store import Store

TIMEOUT_S = 120
KEYS = ["alpha", "beta", "gamma"]
SUBS = {"alpha": "How tall is the Alpha tower?", "beta": "When did the Beta bridge open?",
        "gamma": "Who designed the Gamma dam?"}


def page(key: str) -> str:
    return (f"<html><head><title>{key}</title></head><body><article><p>The {key} figure is 42 units, the "
            f"{key} archive says in its long and careful history of the {key} works and their builders.</p>"
            f"</article></body></html>")


def responder(urls: dict[str, str], hang_on: set[str]):
    """The chat server's reply to any request, by what it asks (plan, research per agent, facts, section)."""
    plan = {"sub_questions": [{"question": SUBS[k], "acceptance": "a figure", "queries": [f"{k} facts"]}
                              for k in KEYS]}

    def reply(req: dict):
        msgs = req.get("messages") or []
        first = msgs[0].get("content") or "" if msgs else ""
        last = msgs[-1].get("content") or "" if msgs else ""
        if first.startswith("You plan a web research"):
            return "```json\n" + json.dumps(plan) + "\n```"
        if "You press one web page" in last:
            key = next(k for k in KEYS if urls[k] in last)
            return f"The {key} figure is 42 units."
        if "You write one section" in last:
            m = re.search(r"\[(\d+)\] \S+/(alpha|beta|gamma)", last)
            return f"The {m.group(2)} figure is 42 units [{m.group(1)}]."
        key = next((k for k in KEYS if k.capitalize() in (msgs[1].get("content") or "").split("Background")[0]), None)
        steps = sum(1 for m in msgs if m.get("role") == "assistant")
        if key in hang_on:
            return Fault(hang=True)
        if steps == 0:
            return call("search", query=[f"{key} facts"])
        if steps == 1:
            return call("visit", url=[urls[key]], goal="the figure")
        return Reply(content=f"<answer>The {key} figure is 42 units [1].</answer>")

    return reply


def _setup(chat_server, page_server, searx_server, hang_on: set[str]):
    urls = {k: page_server.add(f"/{k}", page(k)) for k in KEYS}
    for k in KEYS:
        searx_server.results[f"{k} facts"] = [{"url": urls[k], "title": k, "content": "figure"}]
    chat_server.default = responder(urls, hang_on)
    return urls


def _args(chat_server, searx_server, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tui_agent", "run", *extra, "--yes", "--json", "--model", "openai/test-model",
            "--api-base", chat_server.base_url, "--search-backend", "searxng", "--searxng-url", searx_server.url,
            "--allow-private-urls", "--no-extract", "--no-stream"]


def _env(tmp_path) -> dict:
    return env_for(tmp_path) | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}


def test_run_team_json_reports_agents_and_sections_and_prefixes_each_agents_trace(
        tmp_path, chat_server, page_server, searx_server):
    urls = _setup(chat_server, page_server, searx_server, set())
    proc = subprocess.run(_args(chat_server, searx_server, "Tell me about the three works.", "--team"),
                          env=_env(tmp_path), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["termination"] == "answer"
    assert [a["question"] for a in out["agents"]] == [SUBS[k] for k in KEYS]
    assert all(set(a) >= {"question", "status", "termination", "model_calls", "tokens", "cost_usd", "sources"}
               for a in out["agents"])
    assert [a["status"] for a in out["agents"]] == ["done"] * 3
    assert [s["sources"] for s in out["sections"]] == [[urls[k]] for k in KEYS]
    assert [s["status"] for s in out["sections"]] == ["answered"] * 3
    for n in (1, 2, 3):
        assert re.search(rf"(?m)^#{n} \[", proc.stderr), proc.stderr[-2000:]
    store = Store(tmp_path / "data", read_only=True)
    children = store.team_children(out["session_id"])
    assert len(children) == 3
    listed = subprocess.run([sys.executable, "-m", "tui_agent", "sessions", "list", "--full-ids"], env=_env(tmp_path),
                            capture_output=True, text=True, timeout=TIMEOUT_S).stdout.splitlines()
    rows = [line for line in listed[1:] if line.strip()]
    assert rows[0].startswith(out["session_id"])  # the parent, then its agents under it
    assert [r.split()[0] for r in rows[1:4]] == [c.id for c in children]
    assert all("└ #" in r for r in rows[1:4])
    shown = subprocess.run([sys.executable, "-m", "tui_agent", "sessions", "show", out["session_id"]],
                           env=_env(tmp_path), capture_output=True, text=True, timeout=TIMEOUT_S).stdout
    for n in (1, 2, 3):
        assert f"── agent #{n}" in shown and re.search(rf"(?m)^#{n} \[", shown)
    md = subprocess.run([sys.executable, "-m", "tui_agent", "sessions", "export", out["session_id"]],
                        env=_env(tmp_path), capture_output=True, text=True, timeout=TIMEOUT_S).stdout
    for i, k in enumerate(KEYS, 1):
        assert f"## {i}. {SUBS[k]}" in md and urls[k] in md


def test_kill_9_then_resume_researches_only_the_agents_that_had_not_finished(
        tmp_path, chat_server, page_server, searx_server):
    urls = _setup(chat_server, page_server, searx_server, {"beta"})
    proc = subprocess.Popen(_args(chat_server, searx_server, "Tell me about the three works.", "--team"),
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + TIMEOUT_S
    while sum(" section: " in line for line in seen) < 2:  # alpha and gamma written; beta hangs
        assert proc.poll() is None, "".join(seen)[-3000:]
        assert time.monotonic() < deadline, "".join(seen)[-3000:]
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(TIMEOUT_S)
    hits_before = sorted(page_server.hits)
    assert hits_before == ["/alpha", "/gamma"]
    store = Store(tmp_path / "data", read_only=True)
    parent = next(r for r in store.list_sessions() if r.team_parent is None)
    store.close()
    chat_server.default = responder(urls, set())
    resumed = subprocess.run(_args(chat_server, searx_server, "--resume", parent.id), env=_env(tmp_path),
                             capture_output=True, text=True, timeout=TIMEOUT_S)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    out = json.loads(resumed.stdout)
    assert sorted(page_server.hits) == ["/alpha", "/beta", "/gamma"]  # only beta's page read again
    assert [s["status"] for s in out["sections"]] == ["answered"] * 3
    assert "#2 resumes" in resumed.stderr and "#1 resumes" not in resumed.stderr
