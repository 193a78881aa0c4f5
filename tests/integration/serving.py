"""Starting `tui-agent serve` for a test: on a free port (``--port 0``), its URL read from its output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.integration.test_cli import isolated_env

URL = re.compile(r"open http://\S+?:(\d+)/\?token=(\S+)")


class Served:
    """A running `tui-agent serve`: ``base`` (http://127.0.0.1:PORT), ``port``, ``token``, and
    everything it printed so far (``output()``)."""

    def __init__(self, proc: subprocess.Popen, base: str, port: int, token: str, lines: list[str]) -> None:
        self.proc, self.base, self.port, self.token, self._lines = proc, base, port, token, lines

    @property
    def cookie(self) -> str:
        return f"tui_agent_token_{self.port}"

    def output(self) -> str:
        return "".join(self._lines)

    def stop(self, timeout: float = 60) -> str:
        """Ctrl-C (SIGINT), as a person stops it; everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.output()


def start_serve(tmp_path: Path, *args: str, env: dict | None = None, timeout: float = 60) -> Served:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    full_env |= env or {}
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "serve", "--port", "0", *args], env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if URL.search(line):
                found.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not found.wait(0.1):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"serve did not start (exit {proc.poll()}): {''.join(lines)[-2000:]}")
    m = next(URL.search(line) for line in lines if URL.search(line))
    return Served(proc, f"http://127.0.0.1:{m.group(1)}", int(m.group(1)), m.group(2), lines)
