"""The TUI as a real process: under a pseudo-terminal (python's pty module) it runs and SIGTERM
ends it, leaving the session interrupted and resumable; without a terminal it refuses at once."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

from tests.servers import Fault
from tui_agent.session.store import Store

# Generous: the app imports Textual and litellm on a loaded machine.
START_TIMEOUT_S = 180
EXIT_TIMEOUT_S = 60


def env_for(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    return env | {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "TUI_AGENT_DATA_DIR": str(tmp_path / "data"),
                  "TERM": "xterm-256color", "OPENAI_API_KEY": "sk-test-not-real-000000"}


class PtyProcess:
    """A subprocess whose standard streams are a pseudo-terminal of 120×40; a thread drains its
    output (a full pty would block the app's writes)."""

    def __init__(self, args: list[str], env: dict) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the other side closed
                return
            if not chunk:
                return
            self.output += chunk

    def text(self) -> str:
        return self.output.decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._reader.join(5)
        os.close(self.master)


def wait_for_model_call(tui: PtyProcess, chat_server) -> None:
    """Until the TUI has made its first model call (its process still running)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while not chat_server.requests:
        assert tui.proc.poll() is None, tui.text()[-3000:]
        assert time.monotonic() < deadline, "the TUI never made its model call: " + tui.text()[-3000:]
        time.sleep(0.2)


def test_sigterm_ends_the_tui_and_leaves_the_session_interrupted_and_resumable(tmp_path, chat_server):
    chat_server.script(Fault(hang=True))  # the first model call never gets an answer
    env = env_for(tmp_path)
    tui = PtyProcess([sys.executable, "-m", "tui_agent", "What is the answer?", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env)
    try:
        wait_for_model_call(tui, chat_server)
        tui.proc.send_signal(signal.SIGTERM)
        try:
            code = tui.proc.wait(EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError("SIGTERM did not end the TUI") from None
        assert code == 128 + signal.SIGTERM
    finally:
        tui.close()
    store = Store(tmp_path / "data")
    (row,) = store.list_sessions()
    assert row.status == "interrupted"
    store.close()
    assert f"resume it: tui-agent --resume {row.id}" in tui.text()
    chat_server.script("<answer>It is 42.</answer>", "<answer>It is 42.</answer>")
    resumed = subprocess.run([sys.executable, "-m", "tui_agent", "run", "--resume", row.id, "--yes", "--json"],
                             env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["answer"] == "It is 42."


def _refused(tmp_path, *, stdin_tty: bool, stdout_tty: bool) -> tuple[int, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "What is the answer?", "--model", "m"],
                            stdin=slave if stdin_tty else subprocess.DEVNULL,
                            stdout=slave if stdout_tty else subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for(tmp_path), start_new_session=True)
    os.close(slave)
    try:
        _, err = proc.communicate(timeout=EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=10)
        raise AssertionError("the TUI started without a terminal instead of refusing") from None
    finally:
        os.close(master)
    return proc.returncode, err.decode()


def test_the_tui_without_a_terminal_on_stdout_refuses_with_a_pointer_to_run(tmp_path):
    code, err = _refused(tmp_path, stdin_tty=True, stdout_tty=False)
    assert code == 2
    assert "terminal" in err and "tui-agent run" in err and "Traceback" not in err
    assert not (tmp_path / "data").exists()  # nothing started, no session made


def test_the_tui_without_a_terminal_on_stdin_refuses_with_a_pointer_to_run(tmp_path):
    code, err = _refused(tmp_path, stdin_tty=False, stdout_tty=True)
    assert code == 2
    assert "terminal" in err and "tui-agent run" in err and "Traceback" not in err


# The TUI with Textual's terminal close made to hang, as it has been seen to when the terminal is
# gone mid-write (a closed tmux pane).
HANGING_CLOSE = (
    "import sys, time\n"
    "from textual.drivers.linux_driver import LinuxDriver\n"
    "LinuxDriver.close = lambda self: time.sleep(3600)\n"
    "from tui_agent.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_a_close_that_hangs_after_sighup_ends_the_process_and_the_session_stays_resumable(tmp_path, chat_server):
    chat_server.script(Fault(hang=True))
    env = env_for(tmp_path) | {"TUI_AGENT_SIGNAL_EXIT_GRACE_S": "3"}
    tui = PtyProcess([sys.executable, "-c", HANGING_CLOSE, "What is the answer?", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env)
    try:
        wait_for_model_call(tui, chat_server)
        tui.proc.send_signal(signal.SIGHUP)
        try:
            code = tui.proc.wait(EXIT_TIMEOUT_S)  # the grace is 3 s: far inside this
        except subprocess.TimeoutExpired:
            raise AssertionError("the hung close kept the process alive") from None
        assert code == 128 + signal.SIGHUP
    finally:
        tui.close()
    assert "ended at once (the session is interrupted, resumable)" in tui.text()
    store = Store(tmp_path / "data")
    (row,) = store.list_sessions()
    assert row.status == "interrupted" and not store.held_elsewhere(row.id)
    store.close()


# The TUI's launch up to the app: the app is replaced by one line saying Textual's frame rate.
SAY_FPS = (
    "import sys, types\n"
    "fake = types.ModuleType('tui_agent.app.leaving')\n"
    "def run_app(*args, **kwargs):\n"
    "    import textual.constants\n"
    "    print('@@ fps', textual.constants.MAX_FPS, flush=True)\n"
    "    return 0\n"
    "fake.run_app = run_app\n"
    "sys.modules['tui_agent.app.leaving'] = fake\n"
    "from tui_agent.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_the_tui_draws_at_the_max_fps_setting_and_textuals_own_variable_wins(tmp_path):
    def fps(**env: str) -> str:
        tui = PtyProcess([sys.executable, "-c", SAY_FPS, "What is the answer?", "--model", "openai/test-model"],
                         env_for(tmp_path) | env)
        try:
            assert tui.proc.wait(EXIT_TIMEOUT_S) == 0, tui.text()[-2000:]
            time.sleep(0.2)  # the last output drained
        finally:
            tui.close()
        return next(line.split()[-1] for line in tui.text().splitlines() if line.startswith("@@ fps"))

    assert fps() == "120"  # a key waits for the next frame: at most 8 ms, not Textual's 17
    assert fps(TUI_AGENT_MAX_FPS="90") == "90"
    assert fps(TUI_AGENT_MAX_FPS="90", TEXTUAL_FPS="30") == "30"


def wait_for_text(tui: PtyProcess, text: str, timeout: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while text not in tui.text():
        assert tui.proc.poll() is None, tui.text()[-3000:]
        assert time.monotonic() < deadline, f"{text!r} never appeared: " + tui.text()[-3000:]
        time.sleep(0.2)


def test_ctrl_c_in_the_question_dialog_says_how_to_quit_and_ctrl_q_quits(tmp_path, chat_server):
    """Issue 26: ctrl+c did nothing and said nothing (the dialog's text box took it as copy)."""
    tui = PtyProcess([sys.executable, "-m", "tui_agent", "--model", "openai/test-model",
                      "--api-base", chat_server.base_url], env_for(tmp_path))
    try:
        wait_for_text(tui, "What should the model research?")
        os.write(tui.master, b"\x03")
        wait_for_text(tui, "ctrl+q quits", EXIT_TIMEOUT_S)
        assert tui.proc.poll() is None  # ctrl+c never quits
        os.write(tui.master, b"\x11")  # ctrl+q: no run is active, so it quits at once
        assert tui.proc.wait(EXIT_TIMEOUT_S) is not None
    finally:
        tui.close()
