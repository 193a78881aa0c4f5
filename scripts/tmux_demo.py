#!/usr/bin/env python3
"""Drive the real ``tui-agent`` binary in tmux against local servers, and print the screens.

Starts the loopback servers of the test suite (a scripted OpenAI-compatible model, a SearXNG-
style search server and a web page server), opens ``tui-agent`` in a detached tmux session,
presses keys like a person would (approve a search, look at the step history, approve a visit,
wait for the answer) and prints the captured screens. Nothing leaves this machine; the data and
config directories are temporary.

    python scripts/tmux_demo.py                 # 120x40, prints each screen
    python scripts/tmux_demo.py --size 100x30
    python scripts/tmux_demo.py --pause 2       # slower, for a person watching:
                                                #   tmux attach -t tui-agent-demo (read-only: -r)
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import ChatServer, PageServer, Reply, SearxServer  # noqa: E402

SESSION = "tui-agent-demo"
QUESTION = "When did the Tern bridge open, and how long is it?"

ARTICLE = """<html><head><title>The Tern Bridge</title></head><body><article>
<h1>The Tern Bridge</h1>
<p>The Tern Bridge is a suspension bridge across the Tern estuary. Construction began in 1931
and the bridge opened to traffic on 4 May 1934.</p>
<h2>Dimensions</h2>
<p>Its main span is 412 metres; the whole bridge, approaches included, is 1,180 metres long.
The deck carries two traffic lanes and a footpath on each side.</p>
<h2>History</h2>
<p>A ferry crossed the estuary until the bridge opened. The bridge was strengthened in 1988 and
repainted in 2015.</p>
</article></body></html>"""


def tool_call(name: str, **arguments: object) -> str:
    import json

    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def tmux(*args: str, check: bool = True) -> str:
    proc = subprocess.run(["tmux", *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def capture() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def wait_for(text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if text in screen:
            return screen
        time.sleep(0.1)
    raise TimeoutError(f"{text!r} did not appear on screen within {timeout:g} s; last screen:\n{screen}")


def show(title: str, screen: str) -> None:
    print(f"\n===== {title} " + "=" * max(0, 60 - len(title)))
    print(screen.rstrip("\n"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="120x40", help="terminal size COLSxROWS (default 120x40)")
    p.add_argument("--pause", type=float, default=0.3, help="seconds between key presses (default 0.3)")
    p.add_argument("--keep", action="store_true", help="leave the tmux session open at the end")
    ns = p.parse_args(argv)
    cols, rows = (int(x) for x in ns.size.lower().split("x"))
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    binary = shutil.which("tui-agent", path=str(Path(sys.executable).parent)) or shutil.which("tui-agent")
    if binary is None:
        print("the tui-agent binary is not installed (pip install -e .)", file=sys.stderr)
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="tui-agent-demo-"))
    with ChatServer() as chat, PageServer() as pages, SearxServer() as searx:
        page_url = pages.add("/tern-bridge", ARTICLE)
        searx.results["Tern bridge opening date length"] = [
            (page_url, "The Tern Bridge", "Suspension bridge across the Tern estuary, opened 1934."),
        ]
        chat.script(
            Reply("<think>I need the opening date and the length. A search should find a page about the "
                  "bridge.</think>" + tool_call("search", query=["Tern bridge opening date length"]),
                  chunk_size=4, chunk_delay_s=0.01),
            Reply("<think>The first result looks like an article about the bridge itself. I will read it "
                  "for the opening date and the length.</think>"
                  + tool_call("visit", url=[page_url], goal="opening date and total length"),
                  chunk_size=4, chunk_delay_s=0.01),
            Reply("<think>The article gives both facts.</think><answer>The Tern Bridge opened to traffic on "
                  "**4 May 1934** [1]. The whole bridge is **1,180 metres** long, with a main span of "
                  "412 metres [1].</answer>", chunk_size=4, chunk_delay_s=0.01),
        )
        env = dict(os.environ, TUI_AGENT_CONFIG_DIR=str(tmp / "config"), OPENAI_API_KEY="local-test-key",
                   LITELLM_LOCAL_MODEL_COST_MAP="True", TERM="xterm-256color", COLORTERM="truecolor")
        cmd = [binary, QUESTION, "--model", "openai/test-model", "--api-base", chat.base_url,
               "--search-backend", "searxng", "--searxng-url", searx.url, "--allow-private-urls", "--no-extract",
               "--data-dir", str(tmp / "data"), "--context-window", "32000", "--answer-reserve", "4000"]
        tmux("kill-session", "-t", SESSION, check=False)
        shell = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()
                         if k in ("TUI_AGENT_CONFIG_DIR", "OPENAI_API_KEY", "LITELLM_LOCAL_MODEL_COST_MAP",
                                  "COLORTERM"))
        tmux("new-session", "-d", "-s", SESSION, "-x", str(cols), "-y", str(rows),
             f"env {shell} {shlex.join(cmd)}; sleep 30")
        print(f"tmux session {SESSION} ({cols}x{rows}); watch with: tmux attach -r -t {SESSION}")
        t0 = time.monotonic()
        try:
            show("first frame", wait_for("Q "))
            print(f"(first frame after {time.monotonic() - t0:.2f} s)")
            show("the search call waits for approval", wait_for("awaiting approval"))
            time.sleep(ns.pause)
            tmux("send-keys", "-t", SESSION, "a")
            screen = wait_for("visit", 30)
            screen = wait_for("awaiting approval")
            show("the visit call waits for approval", screen)
            time.sleep(ns.pause)
            tmux("send-keys", "-t", SESSION, "Left")
            time.sleep(max(ns.pause, 0.3))
            show("← : step 1 while the run waits", capture())
            tmux("send-keys", "-t", SESSION, "Right")
            time.sleep(ns.pause)
            tmux("send-keys", "-t", SESSION, "a")
            wait_for("ended: answer", 30)
            time.sleep(0.5)  # the answer's Markdown renders just after the header changes
            show("the answer", capture())
            time.sleep(ns.pause)
            tmux("send-keys", "-t", SESSION, "i")
            time.sleep(max(ns.pause, 0.5))
            show("the prompt inspector (read-only)", capture())
            tmux("send-keys", "-t", SESSION, "Escape")
            time.sleep(ns.pause)
            if not ns.keep:
                tmux("send-keys", "-t", SESSION, "q")
                time.sleep(0.5)
        finally:
            if not ns.keep:
                tmux("kill-session", "-t", SESSION, check=False)
                shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
