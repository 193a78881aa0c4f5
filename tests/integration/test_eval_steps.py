"""`tui-agent eval` commits each case's events one step at a time (issue 17): a process killed
mid-step (SIGKILL) leaves every stored step whole, and the case resumes from its last whole step.
Real processes, the scripted model server and a SearXNG endpoint; litellm and the tools run for real."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from tests.helpers import call
from tests.integration.test_cli import cli, isolated_env
from tests.integration.test_eval import tool_flags, write_set
from tests.servers import Fault
from tui_agent.core.fold import fold
from tui_agent.session.store import Store


def test_an_eval_killed_mid_step_keeps_whole_steps_and_the_case_resumes(tmp_path, chat_server, searx_server):
    searx_server.results["tides"] = [{"url": "https://tides.example/", "title": "Tides", "content": "tides"}]
    path = write_set(tmp_path, {"id": "tides", "question": "When are spring tides?", "expect": ["full moon"]})
    hung = threading.Event()

    def model(request):
        messages = request["messages"]
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn == 0:
            return call("search", query=["tides"])
        if not hung.is_set():  # step 2's model call: the step has begun, nothing of it is whole
            hung.set()
            return Fault(hang=True)
        return "<answer>At new and full moon [1].</answer>"

    chat_server.default = model
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "eval", path, "--label", "kill",
                             *tool_flags(chat_server, searx_server)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not hung.is_set():
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)

    store = Store(tmp_path / "data")
    row = store.eval_sessions("kill")["tides"]
    assert row.status == "interrupted"
    stored = list(store.event_dicts(row.id))
    assert {d["step"] for d in stored} == {0, 1}  # step 2 had begun: none of it is stored
    step_one = [d["type"] for d in stored if d["step"] == 1]
    assert step_one[0] == "model_call_started" and "observation" in step_one and "observation_message" in step_one
    state = fold(store.events(row.id))
    assert state.step == 1 and state.tool_calls == 1 and not state.in_flight
    store.close()

    again = cli("eval", path, "--label", "kill", "--json", *tool_flags(chat_server, searx_server),
                env=isolated_env(tmp_path))
    assert again.returncode == 0, again.stderr
    case = json.loads(again.stdout)["cases"][0]
    assert case["session_id"] == row.id and case["answer"] == "At new and full moon [1]."
    resumed_request = chat_server.requests[-1]["messages"]
    assert any("tides.example" in m["content"] for m in resumed_request[2:])  # step 1's observation
    assert sum(1 for r in chat_server.requests if sum(m["role"] == "assistant" for m in r["messages"]) == 0) == 1
