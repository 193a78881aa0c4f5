"""Tabs: figures, printed as a table (measured, never asserted).

1. Five tabs streaming at once (and, in the same rotation, the app with one tab streaming) (each a long Markdown answer at ``--tokens`` tokens/s from the local
   scripted chat server, in a process of its own), the real ``tui-agent`` in tmux: a ``y`` on the
   shown tab (its auto flag in the header) until it is on screen, polled with ``capture-pane``, side
   by side with a minimal Textual app whose ``y`` flips the same flag; presses alternate between the
   two so the machine's load falls on both alike (as ``bench_tui.py --only answer-keys``).
   Goal: p95 within 1.5x (+10 ms) of the minimal app's. Also the real app's RSS with five tabs
   streaming (goal < 500 MB).
2. In process: switching to a tab whose run took 100 steps (its panes catch up from the folded
   state), from the shown empty tab, until the screen has been refreshed; and back. Goal: < 100 ms.
   For the answered tab, also how many of those refreshes had its answer drawn (a Markdown
   document waiting to render would make the switch look faster than it is).

Run: ``.venv/bin/python benchmarks/bench_tabs.py [--presses 30] [--tabs 5] [--tokens 500] [--switches 20]
[--only keys|switch]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import bench_tui as bt  # noqa: E402

QUESTION_BOX = "What should the model research?"


def _serve(pipe, replies: int, tokens_per_s: int, seconds: int) -> None:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_tui
    from tests.servers import ChatServer

    with ChatServer() as chat:
        chat.script(*[bench_tui.stream_answer(tokens_per_s, seconds) for _ in range(replies)])
        pipe.send(chat.base_url)
        pipe.recv()


def _rss_mb_of_tree(pid: int) -> float:
    """RSS of ``pid`` and all its descendants (the pane's shell, then tui-agent), MB."""
    try:
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    except OSError:
        kids = []
    return _own_rss(pid) + sum(_rss_mb_of_tree(int(k)) for k in kids)


def _own_rss(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return 0.0


def _wait(target: str, text: str, what: str) -> None:
    deadline = time.time() + bt.START_TIMEOUT_S
    while text not in bt._capture(target):
        if time.time() > deadline:
            raise TimeoutError(f"{what}: {bt._capture(target)}")
        time.sleep(0.05)


def bench_keys(presses: int, tabs: int, tokens_per_s: int, tmp: Path) -> list[tuple[str, str, str, str]]:
    import multiprocessing

    sessions = {"minimal": f"{bt.TMUX}-minimal", "real": bt.TMUX, "one": f"{bt.TMUX}-one"}
    for name in sessions.values():
        bt.tmux("kill-session", "-t", name, check=False)
    seconds = bt.STREAM_S * 2 + 20  # outlasts opening the tabs and the presses
    ctx = multiprocessing.get_context("spawn")
    pipe, child = ctx.Pipe()
    server = ctx.Process(target=_serve, args=(child, tabs * 2 + 2, tokens_per_s, seconds), daemon=True)
    server.start()
    base_url = pipe.recv()
    try:
        bt.tmux("new-session", "-d", "-s", sessions["minimal"], "-x", "120", "-y", "40",
                f"{bt.shlex.quote(bt.PY)} -c {bt.shlex.quote(bt.MINIMAL_KEYS_APP)}; sleep 60")
        bt.tmux("new-session", "-d", "-s", sessions["real"], "-x", "120", "-y", "40",
                bt.tui_command("stream please 1", base_url, tmp / "real", "--yes") + "; sleep 60")
        bt.tmux("new-session", "-d", "-s", sessions["one"], "-x", "120", "-y", "40",
                bt.tui_command("stream please", base_url, tmp / "one", "--yes") + "; sleep 60")
        _wait(sessions["real"], "Answer (arriving", "the first tab's stream")
        for n in range(2, tabs + 1):
            bt.tmux("send-keys", "-t", sessions["real"], "C-t")
            _wait(sessions["real"], QUESTION_BOX, "the question box")
            bt.tmux("send-keys", "-t", sessions["real"], "-l", f"stream please {n}")
            bt.tmux("send-keys", "-t", sessions["real"], "Enter")
            _wait(sessions["real"], f"{n} ▶ stream please {n}", f"tab {n}")
        _wait(sessions["real"], "Answer (arriving", "the last tab's stream")
        time.sleep(2.0)
        strip = bt._capture(sessions["real"]).splitlines()[1]
        samples: dict[str, list[float]] = {k: [] for k in sessions}
        for _ in range(presses):
            for kind, name in sessions.items():
                samples[kind].append(bt._press_once(name))
        pane_pid = int(bt.tmux("display-message", "-p", "-t", sessions["real"], "#{pane_pid}").strip())
        rss = _rss_mb_of_tree(pane_pid)
        after = bt._capture(sessions["real"]).splitlines()
        if "answering" not in after[0] or after[1].count("▶") < tabs or \
                "answering" not in bt._capture(sessions["one"]).splitlines()[0]:
            raise RuntimeError(f"the streams ended before the presses did: {after[:2]}")
    finally:
        for name in sessions.values():
            bt.tmux("kill-session", "-t", name, check=False)
        pipe.send("stop")
        server.join(10)
    mine, minimal, one = samples["real"], samples["minimal"], samples["one"]
    a50, a95, b50, b95 = bt.pct(mine, .5), bt.pct(mine, .95), bt.pct(minimal, .5), bt.pct(minimal, .95)
    c50, c95 = bt.pct(one, .5), bt.pct(one, .95)
    return [
        ("key -> screen, one tab streaming (the same app, same rotation), p50 / p95",
         f"{c50 * 1000:.0f} / {c95 * 1000:.0f} ms", f"{b50 * 1000:.0f} / {b95 * 1000:.0f} ms",
         f"p95 {c95 / b95:.2f}x"),
        ("tab strip while measuring", strip.strip()[:60], "", ""),
        (f"key -> screen, {tabs} tabs streaming ({tokens_per_s} tok/s each), tmux, p50", f"{a50 * 1000:.0f} ms",
         f"{b50 * 1000:.0f} ms", f"{a50 / b50:.2f}x"),
        ("  same, p95", f"{a95 * 1000:.0f} ms", f"{b95 * 1000:.0f} ms",
         f"{a95 / b95:.2f}x (goal <= 1.5x + 10 ms: {'met' if a95 <= 1.5 * b95 + 0.010 else 'missed'})"),
        (f"RSS of tui-agent with {tabs} tabs streaming", f"{rss:.0f} MB", "",
         f"goal < 500 MB: {'met' if rss < 500 else 'missed'}"),
    ]


def _answer_drawn(app) -> bool:
    """The Answer pane's shown Markdown document is its text (not one still waiting to render)."""
    from textual.widgets import Markdown

    pane = app.main.query_one("#answer")
    shown = [c for c in pane.children if isinstance(c, Markdown) and c.display]
    return pane.display and len(shown) == 1 and shown[0].source == pane.text and bool(pane.text)


async def _switch(steps: int, switches: int, tmp: Path, answered: bool) -> tuple[list[float], list[float], int, int]:
    """``answered``: the run answered (its answer lists every source); else it is under way, its
    101st model call hanging. Also how many switches to the full tab had its answer drawn by the
    refresh timed (answered only)."""
    from tests.helpers import NoteTool, call, settings_for
    from tests.servers import ChatServer, Fault
    from tui_agent.app.application import ResearchApp, warm_up
    from tui_agent.tools.base import ToolRegistry

    warm_up()
    with ChatServer() as chat:
        chat.script(*[call("lookup", topic=f"topic {i}") for i in range(steps)],
                    "<answer>done [1]</answer>" if answered else Fault(hang=True))
        settings = settings_for(chat, data_dir=str(tmp / f"db-switch-{answered}"), context_window=50_000_000,
                                answer_reserve=4000, auto_approve=True, max_calls=steps + 10, model_timeout_s=120)
        app = ResearchApp(settings, "a hundred steps", tools=ToolRegistry([NoteTool(size=200)]))
        async with app.run_test(size=(120, 40)) as pilot:
            while (app.session.ended is None) if answered else len(app.session.step_numbers) < steps:
                chat.requests.clear()
                await asyncio.sleep(0.05)
            await pilot.pause(0.3)
            full = app.tabs.shown
            empty = app.tabs_ui.open(app.settings, "an empty tab")
            to_full, to_empty = [], []
            drawn = [0]

            async def show(tab) -> float:
                refreshed = asyncio.get_running_loop().create_future()
                t0 = time.perf_counter()
                app.tabs_ui.show(tab)
                app.call_after_refresh(lambda: refreshed.done() or refreshed.set_result(None))
                await refreshed
                elapsed = time.perf_counter() - t0
                drawn[0] += answered and tab is full and _answer_drawn(app)
                return elapsed

            for _ in range(switches):
                to_empty.append(await show(empty))
                await pilot.pause(0.05)
                to_full.append(await show(full))
                await pilot.pause(0.05)
            n = len(app.session.step_numbers)
            app.exit()
        return to_full, to_empty, n, drawn[0]


def bench_switch(switches: int, tmp: Path, steps: int = 100) -> list[tuple[str, str, str, str]]:
    rows = []
    for answered in (False, True):
        to_full, to_empty, n, drawn = asyncio.run(_switch(steps, switches, tmp, answered))
        f50, f95 = bt.pct(to_full, .5), bt.pct(to_full, .95)
        what = "answered, its answer listing 100 sources" if answered else "under way"
        rows += [
            (f"switch to a tab with {n} steps ({what}) -> screen refreshed, in process, p50 / p95",
             f"{f50 * 1000:.0f} / {f95 * 1000:.0f} ms", "", f"goal p95 < 100 ms: {'met' if f95 < 0.1 else 'missed'}"),
            ("  the same app: switch to an empty tab, p50 / p95",
             f"{bt.pct(to_empty, .5) * 1000:.0f} / {bt.pct(to_empty, .95) * 1000:.0f} ms", "", ""),
        ]
        if answered:
            rows.append(("  switches whose timed refresh had the tab's answer drawn", f"{drawn} of {len(to_full)}",
                         "", ""))
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--tabs", type=int, default=5)
    p.add_argument("--tokens", type=int, default=bt.ANSWER_TOKENS_PER_S)
    p.add_argument("--switches", type=int, default=20)
    p.add_argument("--only", choices=["keys", "switch"])
    ns = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        if ns.only in (None, "switch"):
            rows += bench_switch(ns.switches, Path(d))
        if ns.only in (None, "keys"):
            rows += bench_keys(ns.presses, ns.tabs, ns.tokens, Path(d))
    print("| measure | tui-agent | minimal Textual app | ratio / goal |\n|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
