"""The real binary under a pseudo-terminal with two tabs: a second research opens with ctrl+t while
the first one's model call is under way, both run at once, and quitting asks once for both and
leaves each session resumable (the command to resume each is printed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.integration.test_tui_process import EXIT_TIMEOUT_S, START_TIMEOUT_S, PtyProcess, env_for, wait_for_text
from tests.servers import Fault
from tui_agent.session.store import Store


def wait_for_requests(tui: PtyProcess, chat_server, n: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while len(chat_server.requests) < n:
        assert tui.proc.poll() is None, tui.text()[-3000:]
        assert time.monotonic() < deadline, f"fewer than {n} model calls: " + tui.text()[-3000:]
        time.sleep(0.2)


def test_two_tabs_run_at_once_in_the_real_binary_and_quitting_asks_once_for_both(tmp_path, chat_server):
    chat_server.script(Fault(hang=True), Fault(hang=True))  # both runs' first model calls stay under way
    tui = PtyProcess([sys.executable, "-m", "tui_agent", "What is the answer?", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env_for(tmp_path))
    try:
        wait_for_requests(tui, chat_server, 1)
        os.write(tui.master, b"\x14")  # ctrl+t: a new research in a new tab
        wait_for_text(tui, "What should the model research?", EXIT_TIMEOUT_S)
        os.write(tui.master, b"Why is the sky blue?\r")
        wait_for_requests(tui, chat_server, 2)  # the second tab's run calls the model too
        wait_for_text(tui, "Why is the sky blue?", EXIT_TIMEOUT_S)
        wait_for_text(tui, "1 ▶ What is the answer?", EXIT_TIMEOUT_S)  # the strip: both running
        os.write(tui.master, b"\x11")  # ctrl+q
        wait_for_text(tui, "Quit while 2 runs are active?", EXIT_TIMEOUT_S)
        os.write(tui.master, b"y")
        try:
            tui.proc.wait(EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError("quitting did not end the TUI: " + tui.text()[-3000:]) from None
        time.sleep(0.3)  # the leaving notes drained
    finally:
        tui.close()
    store = Store(tmp_path / "data")
    rows = store.list_sessions()
    store.close()
    assert sorted(r.question for r in rows) == ["What is the answer?", "Why is the sky blue?"]
    for row in rows:
        assert row.status != "running", row
        assert f"tui-agent --resume {row.id}" in tui.text()
