"""What a frame and a key cost while a long answer streams, side by side, three ways:

- the app as it is (the lean compositor; typed keys act where they arrive);
- the same with Textual's own compositor (``lean_compositor = false``);
- the same with the main screen's typed keys as plain bindings, which a key reaches only after
  passing from the focused pane up through its containers to the screen (as before).

The real app (real engine, direct model client) streams a long Markdown answer at 500 tokens/s
from the local scripted chat server, in process, with a headless driver, drawing at up to 120
frames/s as the app does; the three take turns, so a change in the machine's load falls on all
alike. Per turn it measures, over ``--seconds`` of streaming:

- frames drawn per second and the time each took (``Screen._compositor_refresh``: laying out
  what changed, drawing the widgets, splitting lines at the cuts, building the update);
- the widgets drawn per frame;
- the share of the main thread's time spent drawing frames (a key that arrives then waits);
- ``y`` (auto on/off) posted every 0.1 s: the time until the header shows it and the screen is
  refreshed.

Run: ``.venv/bin/python benchmarks/bench_frames.py [--rounds 3] [--seconds 6] [--rate 500]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TEXTUAL_FPS", "120")  # as the app draws (max_fps)


class FrameClock:
    """Times every frame of the screen it is installed on, and counts the widgets each drew."""

    def __init__(self) -> None:
        self.frames: list[float] = []
        self.widgets: list[int] = []
        self.on = False

    def install(self, screen) -> None:
        compositor = screen._compositor
        refresh = screen._compositor_refresh
        get_renders = compositor._get_renders
        lean_renders = getattr(compositor, "_lean_renders", None)
        drawn = [0]

        def counted(method):
            def wrapper(*a, **k):
                for item in method(*a, **k):
                    drawn[0] += 1
                    yield item
            return wrapper

        compositor._get_renders = counted(get_renders)
        if lean_renders is not None:
            compositor._lean_renders = counted(lean_renders)

        def timed() -> None:
            drawn[0] = 0
            t0 = time.perf_counter()
            refresh()
            if self.on:
                self.frames.append(time.perf_counter() - t0)
                self.widgets.append(drawn[0])

        screen._compositor_refresh = timed


class PlainTypedKeys:
    """While in effect, the main screen's typed keys are plain (non-priority) bindings again."""

    def __enter__(self) -> None:
        from dataclasses import replace

        from tui_agent.widgets.actions import bindings
        from tui_agent.screens.main import MainScreen
        from tui_agent.screens.main_keys import MAIN_ACTIONS

        self.saved = MainScreen.BINDINGS
        MainScreen.BINDINGS = bindings(replace(a, priority=False) for a in MAIN_ACTIONS.values())
        MainScreen._merged_bindings = MainScreen._merge_bindings()

    def __exit__(self, *exc) -> None:
        from tui_agent.screens.main import MainScreen

        MainScreen.BINDINGS = self.saved
        MainScreen._merged_bindings = MainScreen._merge_bindings()


VARIANTS = {  # label: (lean compositor, typed keys act where they arrive)
    "as built": (True, True),
    "Textual's compositor": (False, True),
    "keys via focus": (True, False),
}


async def one_turn(lean: bool, seconds: float, rate: int, data: Path) -> dict[str, float]:
    from bench_tui import pct, press_y_in_process, stream_answer
    from tests.helpers import settings_for
    from tests.servers import ChatServer
    from tui_agent.app.application import ResearchApp

    with ChatServer() as chat:
        chat.script(stream_answer(rate))
        settings = settings_for(chat, data_dir=str(data), context_window=10_000_000, auto_approve=True,
                                model_timeout_s=120, extract=False, lean_compositor=lean)
        app = ResearchApp(settings, "stream please")
        clock = FrameClock()
        async with app.run_test(size=(120, 40)) as pilot:
            while app.main is None or not app.main.ready.is_set():
                await asyncio.sleep(0.02)
            clock.install(app.main)
            answer = app.main.query_one("#answer")
            while "arriving" not in str(answer.border_title or ""):
                await asyncio.sleep(0.02)
            await asyncio.sleep(1.0)
            keys: list[float] = []
            clock.on = True
            t_start, cpu_start = time.perf_counter(), time.thread_time()
            while time.perf_counter() - t_start < seconds:
                keys.append(await press_y_in_process(app))
                await asyncio.sleep(0.1)
            wall = time.perf_counter() - t_start
            cpu = time.thread_time() - cpu_start
            clock.on = False
            if "answering" not in app.main.header.state:
                raise RuntimeError(f"the stream ended before the turn did: {app.main.header.state}")
            await pilot.press("ctrl+c")
            app.exit()
    return {
        "frames/s": len(clock.frames) / wall,
        "ms/frame": statistics.mean(clock.frames) * 1000,
        "p95 ms/frame": pct(clock.frames, .95) * 1000,
        "widgets/frame": statistics.mean(clock.widgets),
        "frame share %": sum(clock.frames) / wall * 100,
        "main CPU %": cpu / wall * 100,
        "key p50 ms": pct(keys, .5) * 1000,
        "key p95 ms": pct(keys, .95) * 1000,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=6.0)
    p.add_argument("--rate", type=int, default=500, help="tokens/s of the streamed answer")
    ns = p.parse_args()
    from tui_agent.app.application import warm_up

    warm_up()
    results: dict[str, list[dict[str, float]]] = {label: [] for label in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="bench-frames-") as tmp:
        for r in range(ns.rounds):
            for label, (lean, typed_first) in VARIANTS.items():
                sys.stderr.write(f"[bench_frames] round {r + 1}, {label}\n")
                data = Path(tmp) / f"{r}-{label}"
                if typed_first:
                    turn = asyncio.run(one_turn(lean, ns.seconds, ns.rate, data))
                else:
                    with PlainTypedKeys():
                        turn = asyncio.run(one_turn(lean, ns.seconds, ns.rate, data))
                results[label].append(turn)
    labels = list(VARIANTS)
    rows = [("measure", *labels, *(f"as built / {x}" for x in labels[1:]))]
    for key in results[labels[0]][0]:
        med = [statistics.median(t[key] for t in results[label]) for label in labels]
        rows.append((key, *(f"{m:.2f}" for m in med), *(f"{med[0] / m:.2f}" if m else "-" for m in med[1:])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print(f"streaming {ns.rate} tokens/s, median of {ns.rounds} turns each, in process (headless driver)")
    for i, row in enumerate(rows):
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
        if i == 0:
            print("-+-".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
