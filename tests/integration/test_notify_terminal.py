"""A decision waiting in a real terminal rings it: the TUI and the headless question write the
bell and the desktop notification (OSC 9) to the pseudo-terminal they run in."""

from __future__ import annotations

import sys
import time

from tests.helpers import call
from tests.integration.test_tui_process import START_TIMEOUT_S, PtyProcess, env_for

RING = b"\x07\x1b]9;tui-agent: tool call waiting: search"


def _wait_for(proc: PtyProcess, needle: bytes) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while needle not in proc.output:
        assert proc.proc.poll() is None, proc.text()[-3000:]
        assert time.monotonic() < deadline, f"never saw {needle!r}: " + proc.text()[-3000:]
        time.sleep(0.2)


def test_the_tui_rings_the_terminal_when_a_call_waits(tmp_path, chat_server):
    chat_server.script(call("search", query=["solar panels"]))
    env = env_for(tmp_path) | {"TUI_AGENT_NOTIFY_AFTER_S": "0"}
    tui = PtyProcess([sys.executable, "-m", "tui_agent", "What is the answer?", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env)
    try:
        _wait_for(tui, RING)
        assert tui.output.count(RING) == 1
    finally:
        tui.close()


def test_the_headless_question_rings_the_terminal_when_it_waits(tmp_path, chat_server):
    chat_server.script(call("search", query=["solar panels"]))
    env = env_for(tmp_path) | {"TUI_AGENT_NOTIFY_AFTER_S": "0"}
    run = PtyProcess([sys.executable, "-m", "tui_agent", "run", "What is the answer?", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env)
    try:
        _wait_for(run, b"[s]ubmit now >")
        _wait_for(run, RING)
    finally:
        run.close()
