"""What one visit of `tui-agent serve` costs (measured, never asserted):

- start time: from the websocket's opening (the browser's visit starts the app) to the first bytes
  the app draws, and to the question box on screen (its heading in the drawn bytes);
- memory: the app process's resident set (VmRSS, and its proportional share PSS, which counts
  the pages it shares with the other apps by their number of sharers) once it shows the question box,
  and again with several apps open at once;
- the server's own resident set, idle and with the apps open.

Each visit runs the real app (``python -m tui_agent``) through the real server on a free port;
the model is the local scripted server of tests/servers.py. The first figures are of apps showing
the question box (the model library, litellm, not loaded yet); the last, of an app that answered a
question typed in chromium (through Playwright, as tests/integration/test_serve_browser.py does).

Run: ``.venv/bin/python benchmarks/bench_serve.py [--visits 5] [--together 4]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.integration.serving import start_serve  # noqa: E402
from tests.servers import ChatServer  # noqa: E402

QUESTION_BOX = b"What should the model research?"


def kib(pid: int, field: str, path: str = "status") -> int:
    """A field of /proc/PID/status (VmRSS) or /proc/PID/smaps_rollup (Pss), in KiB."""
    for line in Path(f"/proc/{pid}/{path}").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


async def open_app(http: aiohttp.ClientSession, url: str) -> tuple[aiohttp.ClientWebSocketResponse, float, float]:
    """Open one visit's websocket; seconds to the first drawn bytes and to the question box."""
    t0 = time.perf_counter()
    ws = await http.ws_connect(url)
    first = None
    drawn = b""
    while QUESTION_BOX not in drawn:
        msg = await ws.receive(timeout=120)
        if msg.type == aiohttp.WSMsgType.BINARY:
            drawn = drawn[-200:] + msg.data
            if first is None:
                first = time.perf_counter() - t0
        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            raise RuntimeError("the app closed before it drew the question box")
    return ws, first or 0.0, time.perf_counter() - t0


async def measure(served, visits: int, together: int) -> dict:
    url = served.base.replace("http", "ws") + f"/ws?token={served.token}&width=160&height=48"
    firsts, boxes, rss, pss = [], [], [], []
    server_idle = kib(served.proc.pid, "VmRSS")
    async with aiohttp.ClientSession() as http:
        for _ in range(visits):
            ws, first, box = await open_app(http, url)
            (app,) = children(served.proc.pid)
            firsts.append(first)
            boxes.append(box)
            rss.append(kib(app, "VmRSS"))
            pss.append(kib(app, "Pss", "smaps_rollup"))
            await ws.close()
            while children(served.proc.pid):
                await asyncio.sleep(0.1)
        sockets = [(await open_app(http, url))[0] for _ in range(together)]
        apps = children(served.proc.pid)
        together_rss = [kib(a, "VmRSS") for a in apps]
        together_pss = [kib(a, "Pss", "smaps_rollup") for a in apps]
        server_busy = kib(served.proc.pid, "VmRSS")
        for ws in sockets:
            await ws.close()
        while children(served.proc.pid):
            await asyncio.sleep(0.1)
    return {"first": firsts, "box": boxes, "rss": rss, "pss": pss, "together_rss": together_rss,
            "together_pss": together_pss, "server_idle": server_idle, "server_busy": server_busy}


def after_an_answer(chat: ChatServer, visits: int) -> list[tuple[float, float, float]]:
    """Visits in chromium (Playwright) that ask a question, answered by the local model server: the
    app's RSS and PSS (MiB) once the answer is stored (the model library loaded), and seconds from
    Enter to the stored answer. Empty without chromium or Playwright."""
    from tests.integration.test_serve_browser import CHROMIUM, ask_in_the_browser, stored, wait_until

    try:
        import playwright  # noqa: F401
    except ImportError:
        return []
    if not Path(CHROMIUM).exists():
        return []
    out = []
    for _ in range(visits):
        chat.script(*["<answer>It is 42.</answer>"] * 2)
        with tempfile.TemporaryDirectory() as tmp:
            served = start_serve(Path(tmp), "--yes", "--model", "openai/test-model", "--api-base", chat.base_url)
            try:
                def answered(page) -> None:
                    t0 = time.perf_counter()
                    wait_until("the answer", lambda: [r for r in stored(Path(tmp) / "data")
                                                      if r.shown_status == "answer"], page=page)
                    took = time.perf_counter() - t0
                    (app,) = children(served.proc.pid)
                    out.append((kib(app, "VmRSS") / 1024, kib(app, "Pss", "smaps_rollup") / 1024, took))

                ask_in_the_browser(served, "What is the answer?", answered)
            finally:
                served.stop()
    return out


def row(name: str, values: list[float], unit: str) -> str:
    return (f"| {name} | {statistics.median(values):.2f} {unit} | {min(values):.2f} | {max(values):.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--visits", type=int, default=5, help="visits one after another (one app each)")
    ap.add_argument("--together", type=int, default=4, help="apps open at once (at most serve_max_apps)")
    ns = ap.parse_args()
    chat = ChatServer()
    chat.script(*["<answer>It is 42.</answer>"] * 2)
    with tempfile.TemporaryDirectory() as tmp:
        served = start_serve(Path(tmp), "--yes", "--model", "openai/test-model", "--api-base", chat.base_url)
        try:
            f = asyncio.run(measure(served, ns.visits, ns.together))
        finally:
            served.stop()
        answered = after_an_answer(chat, ns.visits)
    chat.close()
    mib = lambda xs: [x / 1024 for x in xs]  # noqa: E731
    print(f"one visit at a time ({ns.visits} visits), then {ns.together} apps open at once\n")
    print("| figure | median | min | max |\n|---|---|---|---|")
    print(row("websocket open -> first drawn bytes", f["first"], "s"))
    print(row("websocket open -> question box drawn", f["box"], "s"))
    print(row("one app's RSS", mib(f["rss"]), "MiB"))
    print(row("one app's PSS (alone)", mib(f["pss"]), "MiB"))
    print(row(f"each app's RSS, {ns.together} open", mib(f["together_rss"]), "MiB"))
    print(row(f"each app's PSS, {ns.together} open", mib(f["together_pss"]), "MiB"))
    if answered:
        print(row("one app's RSS after a question answered (model library loaded)", [a[0] for a in answered], "MiB"))
        print(row("one app's PSS after a question answered", [a[1] for a in answered], "MiB"))
        print(row("Enter -> answer stored (local model, no tools)", [a[2] for a in answered], "s"))
    else:
        print("| after a question answered | not measured: no chromium or Playwright | | |")
    print(f"\nserver RSS: {f['server_idle'] / 1024:.1f} MiB idle, {f['server_busy'] / 1024:.1f} MiB with "
          f"{ns.together} apps open")


if __name__ == "__main__":
    main()
