"""`tui-agent run --plan` as a user runs it on a terminal (a pseudo-terminal), against the local
chat, search and page servers: the plan is printed, `--approve-plan` approves it, and only the
call outside the plan is asked."""

from __future__ import annotations

import json
import os
import sys
import time

from tests.helpers import call
from tests.integration.test_tui_process import PtyProcess, env_for
from tui_agent.session.store import Store

TIMEOUT_S = 120
PAGE = "<html><head><title>Bridge</title></head><body><article><p>The bridge opened in 1932 and was built by " \
       "Acme Works, the city archive says in its long history of the river crossing and its builders.</p>" \
       "</article></body></html>"


def _wait_for(pty: PtyProcess, text: str, count: int = 1) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while pty.text().count(text) < count:
        assert pty.proc.poll() is None or pty.text().count(text) >= count, pty.text()[-3000:]
        assert time.monotonic() < deadline, f"never saw {text!r}:\n{pty.text()[-3000:]}"
        time.sleep(0.1)


def test_run_plan_on_a_terminal_approve_plan_asks_only_the_call_outside_the_plan(
        tmp_path, chat_server, page_server, searx_server):
    inside = page_server.add("/bridge", PAGE)
    outside = page_server.add("/elsewhere", PAGE)
    searx_server.results["bridge opening year"] = [{"url": inside, "title": "Bridge", "content": "1932"}]
    plan = {"sub_questions": [{"question": "When did the bridge open?", "acceptance": "a year",
                               "queries": ["bridge opening year"]}], "budget": {"max_calls": 8}}
    chat_server.script(
        "```json\n" + json.dumps(plan) + "\n```",
        call("search", query=["bridge opening year"]),
        call("visit", url=[inside], goal="the year"),
        call("visit", url=[outside], goal="the year"),
        "<answer>## 1. When did the bridge open?\nIn 1932 [1].</answer>",
    )
    args = [sys.executable, "-m", "tui_agent", "run", "When did the bridge open?", "--plan", "--approve-plan",
            "--model", "openai/test-model", "--api-base", chat_server.base_url, "--search-backend", "searxng",
            "--searxng-url", searx_server.url, "--allow-private-urls", "--no-extract", "--no-stream"]
    pty = PtyProcess(args, env_for(tmp_path) | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    try:
        _wait_for(pty, "[a]pprove  [A]lways")
        os.write(pty.master, b"a\n")
        assert pty.proc.wait(TIMEOUT_S) == 0, pty.text()[-3000:]
        pty._reader.join(5)
    finally:
        pty.close()
    out = pty.text()
    assert "plan proposed (attempt 1):" in out and "queries: bridge opening year" in out
    assert "plan approved (--approve-plan)" in out
    # One question only: the visit outside the plan, marked so.
    assert out.count("[a]pprove  [A]lways") == 1
    asked = [line for line in out.splitlines() if "outside the plan" in line]
    assert len(asked) == 1 and "/elsewhere" in asked[0] and "visit" in asked[0]
    assert sorted(page_server.hits) == ["/bridge", "/elsewhere"]
    store = Store(tmp_path / "data", read_only=True)
    sid = store.list_sessions()[0].id
    kinds = [e.kind for e in store.events(sid) if e.type == "decision"]
    assert kinds == ["plan", "plan", "approved"]
