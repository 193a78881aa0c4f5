"""Ctrl-C at the headless approval prompt, on a terminal (a pseudo-terminal), against the local
chat server: the first Ctrl-C is Submit now, the forced answer is printed and the process ends by
itself, with nobody pressing Enter (both tool-calling protocols)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.helpers import call
from tests.integration.test_plan_headless import _wait_for
from tests.integration.test_tui_process import PtyProcess, env_for
from tests.servers import Reply, ToolCall

EXIT_TIMEOUT_S = 30  # generous: the process only has to finish writing and leave


@pytest.mark.parametrize("protocol", ["tags", "native"])
def test_ctrl_c_at_the_approval_prompt_answers_and_the_process_exits_by_itself(tmp_path, chat_server, protocol):
    asked = (call("search", query=["tides"]) if protocol == "tags"
             else Reply(tool_calls=[ToolCall("search", {"query": ["tides"]}, id="call_1")]))
    forced = "<answer>Tides follow the moon.</answer>" if protocol == "tags" else "Tides follow the moon."
    chat_server.script(asked, forced)
    args = [sys.executable, "-m", "tui_agent", "run", "Why are there tides?", "--protocol", protocol,
            "--model", "openai/test-model", "--api-base", chat_server.base_url, "--no-extract", "--no-stream"]
    pty = PtyProcess(args, env_for(tmp_path))
    try:
        _wait_for(pty, "[a]pprove  [A]lways")
        pty.proc.send_signal(signal.SIGINT)  # what Ctrl-C on the terminal sends
        _wait_for(pty, "ended: ")
        try:
            code = pty.proc.wait(EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError("the run printed its end but did not exit:\n" + pty.text()[-2000:]) from None
        pty._reader.join(5)
    finally:
        pty.close()
    out = pty.text()
    assert code == 0, out[-3000:]
    assert "submitting now" in out and "Tides follow the moon." in out
