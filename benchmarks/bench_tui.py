"""TUI figures, printed as a table (measured, never asserted):

1. Time to first frame, from process start until the question is on screen:
   - in tmux: the real ``tui-agent`` binary vs a minimal Textual app showing one line
     (``tmux capture-pane`` polled every few ms);
   - in ``run_test``: a subprocess that builds the app and runs it headless until its first
     refresh, vs the minimal app the same way.
   Goal: ratio <= 1.2x. ``--first-frame`` runs only this part; ``--against DIR`` adds another
   checkout of tui-agent (e.g. ``git archive`` of the commit before a change, unpacked into DIR)
   to the same interleaved rounds, so a before/after comparison shares the machine's load.
2. Keypress-to-screen latency while the model streams ~20,000 tokens/s: ``y`` toggles the
   auto-mode flag in the header (no other effect on a run in one long model call); measured in tmux (key sent -> flag visible in capture-pane)
   with the real binary, and in process (key posted -> header changed and the screen refreshed).
   The achieved stream rate is shown. Goal: p95 < 50 ms.
2b. Keypress-to-screen latency while a long Markdown answer streams (500 tokens/s, ~4 tokens a chunk,
   from the local scripted chat server), side by side in one run with a minimal Textual app whose
   ``y`` toggles the same flag, both in the same tmux, polled the same way (``--only answer-keys``).
   Goal: p95 within 1.5x (+10 ms) of the minimal app.
3. Memory after 100 steps with 8,000-token observations (auto mode, real engine, local model):
   RSS growth over the fresh app (litellm already imported in both). Goal: < 150 MB.

Run: ``.venv/bin/python benchmarks/bench_tui.py [--repeat 5] [--presses 30] [--steps 100] [--skip-tmux]
[--only frame|keys|answer-keys|memory] [--first-frame [--against DIR]]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PY = sys.executable
TMUX = f"tui-agent-bench-{os.getpid()}"

MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static
class Minimal(App):
    def compose(self):
        yield Static("Q a question about bridges")
Minimal().run()
"""


# -- helpers ---------------------------------------------------------------------------------
def trim() -> None:
    """Give freed heap back to the OS so RSS shows what is held, not the high-water mark."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def tmux(*args: str, check: bool = True) -> str:
    # A server of our own (-L): its sessions get this process's environment (PYTHONPATH included),
    # whatever other tmux servers run on the machine.
    proc = subprocess.run(["tmux", "-L", TMUX, *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return proc.stdout


def capture() -> str:
    return tmux("capture-pane", "-p", "-t", TMUX, check=False)


def tmux_first_frame(command: str, marker: str, size=(120, 40), timeout: float = 30.0) -> float:
    tmux("kill-session", "-t", TMUX, check=False)
    t0 = time.perf_counter()
    tmux("new-session", "-d", "-s", TMUX, "-x", str(size[0]), "-y", str(size[1]), command + "; sleep 30")
    try:
        while time.perf_counter() - t0 < timeout:
            if marker in capture():
                return time.perf_counter() - t0
            time.sleep(0.003)
        raise TimeoutError(f"{marker!r} not seen: {capture()}")
    finally:
        tmux("kill-session", "-t", TMUX, check=False)


def tui_command(question: str, api_base: str, data: Path, extra: str = "", env_extra: str = "",
                root: Path = ROOT) -> str:
    binary = shutil.which("tui-agent", path=str(Path(PY).parent)) or "tui-agent"
    env = (f"TUI_AGENT_CONFIG_DIR={shlex.quote(str(data / 'config'))} OPENAI_API_KEY=bench "
           f"PYTHONPATH={shlex.quote(str(root))} {env_extra}")  # this checkout's code, whichever is installed
    return (f"env {env} {shlex.quote(binary)} {shlex.quote(question)} --model openai/test-model "
            f"--api-base {api_base} --data-dir {shlex.quote(str(data / 'db'))} --context-window 10000000 "
            f"--answer-reserve 4000 --no-extract {extra}")


# -- 1. first frame ---------------------------------------------------------------------------
RUN_TEST_TUI = """
import time; t0 = time.perf_counter()
import asyncio, os, sys
sys.path.insert(0, {root!r})
from tui_agent.app.application import ResearchApp
from tui_agent.config import Settings
async def main():
    app = ResearchApp(Settings(model="openai/test-model", api_base="http://127.0.0.1:9/v1", data_dir={data!r}),
                      "a question about bridges")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.main is None or getattr(app.main, "first_frame_at", None) is None:
            await asyncio.sleep(0.001)
        sys.__stdout__.write(f"{{time.perf_counter() - t0}}\\n"); sys.__stdout__.flush()
        os._exit(0)
asyncio.run(main())
"""

RUN_TEST_MINIMAL = """
import time; t0 = time.perf_counter()
import asyncio, os, sys
from textual.app import App
from textual.widgets import Static
class Minimal(App):
    def compose(self):
        yield Static("Q a question about bridges")
    def on_mount(self):
        self.call_after_refresh(self.done)
    def done(self):
        sys.__stdout__.write(f"{time.perf_counter() - t0}\\n"); sys.__stdout__.flush()
        os._exit(0)
async def main():
    async with Minimal().run_test(size=(120, 40)) as pilot:
        await asyncio.sleep(30)
asyncio.run(main())
"""


def subprocess_seconds(code: str) -> float:
    t0 = time.perf_counter()
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    total = time.perf_counter() - t0
    try:
        float(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(out.stderr[-2000:]) from None
    return total  # from process start, interpreter start-up included, like the tmux figure


def _ratio_row(label: str, mine: list[float], minimal: list[float]) -> tuple[str, str, str, str]:
    """Medians, their ratio, and the spread of the ratios of the rounds (each round ran both)."""
    a, b = statistics.median(mine), statistics.median(minimal)
    rounds = sorted(x / y for x, y in zip(mine, minimal))
    return (label, f"{a * 1000:.0f} ms", f"{b * 1000:.0f} ms",
            f"{a / b:.2f}x (rounds {rounds[0]:.2f}-{rounds[-1]:.2f}x; goal <= 1.2x)")


def bench_first_frame(repeat: int, use_tmux: bool, tmp: Path,
                      against: Path | None = None) -> list[tuple[str, str, str, str]]:
    """The first frame with a question, this checkout (and ``against``, another one) vs the minimal
    app, run in turns within each round so machine noise hits them alike (the two checkouts swap
    places every other round)."""
    roots = {"": ROOT} | ({f" [{against}]": against} if against else {})

    def turns(i: int) -> list[tuple[str, Path]]:
        return list(roots.items())[::1 if i % 2 == 0 else -1]

    rows = []
    if use_tmux:
        mine: dict[str, list[float]] = {k: [] for k in roots}
        minimal = []
        for i in range(repeat):
            minimal.append(tmux_first_frame(f"{shlex.quote(PY)} -c {shlex.quote(MINIMAL_APP)}", "Q a question"))
            for label, root in turns(i):
                mine[label].append(tmux_first_frame(
                    tui_command("a question about bridges", "http://127.0.0.1:9/v1", tmp, root=root), "Q a question"))
        rows += [_ratio_row(f"first frame, tmux (median){label}", mine[label], minimal) for label in roots]
        rows += _against_row("  this checkout vs the other, tmux", mine)
    mine, minimal = {k: [] for k in roots}, []
    for i in range(repeat):
        minimal.append(subprocess_seconds(RUN_TEST_MINIMAL))
        for label, root in turns(i):
            mine[label].append(subprocess_seconds(RUN_TEST_TUI.format(root=str(root), data=str(tmp / "db"))))
    rows += [_ratio_row(f"first frame, run_test (median){label}", mine[label], minimal) for label in roots]
    rows += _against_row("  this checkout vs the other, run_test", mine)
    return rows


def _against_row(label: str, times: dict[str, list[float]]) -> list[tuple[str, str, str, str]]:
    """With --against: the median of each round's ratio of this checkout to the other one."""
    if len(times) < 2:
        return []
    mine, other = times.values()
    rounds = sorted(a / b for a, b in zip(mine, other))
    return [(label, "", "", f"{statistics.median(rounds):.2f}x (rounds {rounds[0]:.2f}-{rounds[-1]:.2f}x)")]


# -- 2. key latency while streaming -----------------------------------------------------------
TOKENS_PER_S = 20000
CHUNK_CHARS = 160  # ~40 tokens per chunk
STREAM_S = 40


def stream_reply(tokens_per_s: int = TOKENS_PER_S):
    from tests.servers import Reply

    chunks_per_s = tokens_per_s / (CHUNK_CHARS / 4)
    words = ("streaming thoughts arrive quickly while the developer keeps pressing keys " * 2000)
    text = "<think>" + (words * (STREAM_S * tokens_per_s * 4 // len(words) + 1)) + "</think><answer>done</answer>"
    return Reply(text, chunk_size=CHUNK_CHARS, chunk_delay_s=1.0 / chunks_per_s)


def bench_keys_tmux(presses: int, tmp: Path, tokens_per_s: int = TOKENS_PER_S) -> list[float]:
    from tests.servers import ChatServer

    with ChatServer() as chat:
        chat.script(stream_reply(tokens_per_s))
        tmux("kill-session", "-t", TMUX, check=False)
        tmux("new-session", "-d", "-s", TMUX, "-x", "120", "-y", "40",
             tui_command("stream please", chat.base_url, tmp, "--yes") + "; sleep 60")
        try:
            deadline = time.time() + START_TIMEOUT_S
            while "streaming thoughts" not in capture():
                if time.time() > deadline:
                    raise TimeoutError(capture())
                time.sleep(0.05)
            time.sleep(1.0)
            samples = _press_and_poll(presses)  # started with --yes: auto goes off, then on
            header = capture().splitlines()[0]
            if "running" not in header and "answering" not in header:
                raise RuntimeError(f"the stream ended before the presses did: {header}")
        finally:
            tmux("kill-session", "-t", TMUX, check=False)
        return samples


MINIMAL_KEYS_APP = """
from textual.app import App
from textual.widgets import Static
class MinimalKeys(App):
    BINDINGS = [("y", "toggle", "toggle")]
    auto = True
    def compose(self):
        yield Static("tui-agent · minimal · answering auto", id="h")
        yield Static("a minimal Textual app: y toggles the flag above")
    def action_toggle(self):
        self.auto = not self.auto
        self.query_one("#h", Static).update("tui-agent · minimal · answering" + (" auto" if self.auto else ""))
MinimalKeys().run()
"""

ANSWER_TOKENS_PER_S = 500
# How long the app may take to show the stream (litellm imports slowly on a loaded machine), seconds.
START_TIMEOUT_S = 180


def stream_answer(tokens_per_s: int = ANSWER_TOKENS_PER_S, seconds: int = STREAM_S):
    """A long Markdown answer (headings, lists, paragraphs, a table) streamed at ``tokens_per_s``."""
    from tests.servers import Reply

    section = ("\n\n## Section on bridges and loads\n\nStreaming answers arrive quickly while the developer keeps "
               "pressing keys, and the **answer pane** must keep up with *every* piece [1].\n\n"
               "- a first point about suspension bridges\n- a second point about arches [2]\n\n"
               "| span | material |\n|---|---|\n| 1,991 m | steel |\n\nA closing paragraph of plain text "
               "that goes on for a while so that wrapping matters as much as structure does.")
    text = "<answer>" + section * (seconds * tokens_per_s * 4 // len(section) + 1) + "</answer>"
    chunk = 16  # ~4 tokens per chunk, as a real model streams
    return Reply(text, chunk_size=chunk, chunk_delay_s=1.0 / (tokens_per_s / (chunk / 4)))


def _press_and_poll(presses: int, target: str = "") -> list[float]:
    """Press ``y`` ``presses`` times; each time poll capture-pane until the header's auto flag flips."""
    return [_press_once(target or TMUX) for _ in range(presses)]


def _press_once(target: str) -> float:
    """Press ``y`` in the tmux session ``target`` and poll its capture until the header's auto flag
    flips; the seconds that took."""
    start_auto = " auto" in _capture(target).splitlines()[0]
    t0 = time.perf_counter()
    tmux("send-keys", "-t", target, "y")
    while True:
        screen = _capture(target)
        header = screen.splitlines()[0] if screen else ""
        if (" auto" in header) != start_auto:  # capture-pane strips trailing spaces
            break
        if time.perf_counter() - t0 > 5:
            raise TimeoutError(header)
    took = time.perf_counter() - t0
    time.sleep(0.15)
    return took


def _capture(target: str) -> str:
    return tmux("capture-pane", "-p", "-t", target, check=False)


def _serve_answer(pipe, tokens_per_s: int, seconds: int) -> None:
    """The chat server's own process: it streams the long answer (its CPU is not the poller's)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tests.servers import ChatServer

    with ChatServer() as chat:
        chat.script(*[stream_answer(tokens_per_s, seconds) for _ in range(2)])  # one per app
        pipe.send(chat.base_url)
        pipe.recv()


class _AnswerServer:
    """The scripted chat server in a process of its own: the benchmark's process only polls tmux,
    the same for the real app and the minimal one (a server thread here would slow the polling
    of the real app alone)."""

    def __init__(self, tokens_per_s: int, seconds: int = STREAM_S) -> None:
        self.tokens_per_s, self.seconds = tokens_per_s, seconds

    def __enter__(self):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.pipe, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve_answer, args=(child, self.tokens_per_s, self.seconds), daemon=True)
        self.process.start()
        self.base_url = self.pipe.recv()
        return self

    def __exit__(self, *exc) -> None:
        self.pipe.send("stop")
        self.process.join(10)


def bench_keys_answer_vs_minimal(presses: int, tmp: Path, tokens_per_s: int = ANSWER_TOKENS_PER_S,
                                 compare_compositor: bool = False) -> list[tuple[str, str, str, str]]:
    """Side by side, same tmux server, same polling: ``y`` while the real app streams a long
    Markdown answer from the local scripted chat server (in its own process), vs a minimal Textual
    app. Both run at once, and the presses alternate between them (minimal, real, minimal, …): a
    change in the machine's load (other work on its two cores) falls on both alike.

    ``compare_compositor`` adds a third session in the same rotation: the real app drawing with
    Textual's own compositor (``lean_compositor = false``), streaming the same answer."""
    sessions = {"minimal": f"{TMUX}-minimal", "real": TMUX}
    if compare_compositor:
        sessions["textual"] = f"{TMUX}-textual"
    for name in sessions.values():
        tmux("kill-session", "-t", name, check=False)
    with _AnswerServer(tokens_per_s, STREAM_S * len(sessions) // 2 + 10) as chat:  # outlasts the presses
        try:
            tmux("new-session", "-d", "-s", sessions["minimal"], "-x", "120", "-y", "40",
                 f"{shlex.quote(PY)} -c {shlex.quote(MINIMAL_KEYS_APP)}; sleep 60")
            for kind in ("real", "textual")[:len(sessions) - 1]:
                env = "TUI_AGENT_LEAN_COMPOSITOR=false" if kind == "textual" else ""
                tmux("new-session", "-d", "-s", sessions[kind], "-x", "120", "-y", "40",
                     tui_command("stream please", chat.base_url, tmp / kind, "--yes", env) + "; sleep 60")
            deadline = time.time() + START_TIMEOUT_S
            while "minimal" not in _capture(sessions["minimal"]) or any(
                    "Answer (arriving" not in _capture(sessions[k]) for k in sessions if k != "minimal"):
                if time.time() > deadline:
                    raise TimeoutError(_capture(TMUX))
                time.sleep(0.05)
            time.sleep(2.0)  # some of the answer is in already
            samples: dict[str, list[float]] = {k: [] for k in sessions}
            for _ in range(presses):
                for kind, name in sessions.items():
                    samples[kind].append(_press_once(name))
            for kind in sessions:
                header = _capture(sessions[kind]).splitlines()[0]
                if kind != "minimal" and "answering" not in header:
                    raise RuntimeError(f"the stream ended before the presses did: {header}")
        finally:
            for name in sessions.values():
                tmux("kill-session", "-t", name, check=False)
    minimal = samples["minimal"]
    b50, b95 = pct(minimal, .5), pct(minimal, .95)
    rows = []
    for kind, label in (("real", ""), ("textual", ", Textual's compositor")):
        if kind not in samples:
            continue
        mine = samples[kind]
        a50, a95 = pct(mine, .5), pct(mine, .95)
        rows += [
            (f"key -> screen, long answer streaming ({tokens_per_s} tok/s){label}, tmux, p50",
             f"{a50 * 1000:.0f} ms", f"{b50 * 1000:.0f} ms", f"{a50 / b50:.2f}x"),
            ("  same, p95", f"{a95 * 1000:.0f} ms", f"{b95 * 1000:.0f} ms",
             f"{a95 / b95:.2f}x (goal <= 1.5x + 10 ms: {'met' if a95 <= 1.5 * b95 + 0.010 else 'missed'})"),
        ]
    return rows


async def press_y_in_process(app) -> float:
    """Post ``y`` to the running app; the seconds until the header's auto flag flipped and the
    screen was refreshed."""
    from textual import events

    before = app.main.header.auto
    refreshed = asyncio.get_running_loop().create_future()
    t0 = time.perf_counter()
    app.post_message(events.Key("y", "y"))
    while app.main.header.auto == before:
        await asyncio.sleep(0.0005)
    app.call_after_refresh(lambda: refreshed.done() or refreshed.set_result(None))
    await refreshed
    return time.perf_counter() - t0


async def _keys_in_process(presses: int, tmp: Path) -> tuple[list[float], float]:
    from tests.helpers import NoteTool, settings_for
    from tests.servers import ChatServer
    from tui_agent.app.application import ResearchApp
    from tui_agent.tools.base import ToolRegistry

    with ChatServer() as chat:
        chat.script(stream_reply())
        settings = settings_for(chat, data_dir=str(tmp / "db-keys"), context_window=10_000_000, auto_approve=True,
                                model_timeout_s=60)
        app = ResearchApp(settings, "stream please", tools=ToolRegistry([NoteTool()]))

        def received() -> int:  # characters of streamed text the UI has taken in
            step = app.session.steps.get(1)
            return len(step.live_thought) if step else 0

        async with app.run_test(size=(120, 40)):
            while received() < 10_000:
                await asyncio.sleep(0.01)
            c0, t_rate = received(), time.perf_counter()
            samples = []
            for i in range(presses):
                samples.append(await press_y_in_process(app))
                await asyncio.sleep(0.1)
            rate = (received() - c0) / 4 / (time.perf_counter() - t_rate)
            app.exit()
        return samples, rate


# -- 3. memory ---------------------------------------------------------------------------------
async def _memory(steps: int, tmp: Path, tui: bool = True) -> tuple[float, float, float, int]:
    """(RSS of the fresh app, RSS after the run, RSS after the run with freed heap trimmed, calls)."""
    from tests.helpers import NoteTool, call, settings_for
    from tests.servers import ChatServer
    from tui_agent.app.application import ResearchApp, warm_up
    from tui_agent.agent.runner import Run
    from tui_agent.session.store import Store
    from tui_agent.tools.base import ToolRegistry

    warm_up()  # litellm and tiktoken loaded before the baseline: they are not the app's growth
    with ChatServer() as chat:
        chat.script(*[call("lookup", topic=f"topic {i}") for i in range(steps)], "<answer>done [1]</answer>")
        data = tmp / ("db-mem-tui" if tui else "db-mem-engine")
        settings = settings_for(chat, data_dir=str(data), context_window=50_000_000, answer_reserve=4000,
                                auto_approve=True, max_calls=steps + 10, observation_max_tokens=8000,
                                model_timeout_s=120)
        tool = NoteTool(size=2800)  # "filler words here " ~3 tokens: ~8,000-token observations

        async def drive(done) -> None:
            t0 = time.perf_counter()
            while not done():
                chat.requests.clear()  # the fake server keeps every request body: not the app's memory
                await asyncio.sleep(0.05)
                if time.perf_counter() - t0 > 900:
                    raise TimeoutError("run did not end")
            chat.requests.clear()

        if not tui:
            trim()
            base = rss_mb()
            run = Run(settings, "memory", store=Store(data), approver=None, listeners=[lambda e: None],
                      tools=ToolRegistry([tool]))
            task = asyncio.ensure_future(run.start())
            await drive(task.done)
            task.result()
            after = rss_mb()
            trim()
            return base, after, rss_mb(), len(tool.runs)

        app = ResearchApp(settings, "memory", tools=ToolRegistry([tool]))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            trim()
            base = rss_mb()
            await drive(lambda: app.session.ended is not None)
            await pilot.pause(0.5)
            after = rss_mb()
            trim()
            trimmed = rss_mb()
            app.exit()
        return base, after, trimmed, len(tool.runs)


# -- main ---------------------------------------------------------------------------------------
def note(text: str) -> None:
    sys.stderr.write(f"[bench_tui] {text}\n")
    sys.stderr.flush()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--skip-tmux", action="store_true")
    p.add_argument("--answer-rate", type=int, nargs="+", default=[ANSWER_TOKENS_PER_S],
                   help="tokens/s of the streamed answer for --only answer-keys (each rate a row pair)")
    p.add_argument("--compare-compositor", action="store_true",
                   help="--only answer-keys: also the app with Textual's own compositor, in the same rotation")
    p.add_argument("--only", choices=["frame", "keys", "answer-keys", "memory"], help="run one part")
    p.add_argument("--first-frame", action="store_true", help="only the first frame with a question (--only frame)")
    p.add_argument("--against", type=lambda d: Path(d).resolve(), metavar="DIR",
                   help="first frame: also another checkout of tui-agent (its code from DIR), in the same rounds")
    ns = p.parse_args()
    if ns.first_frame:
        ns.only = "frame"
    use_tmux = not ns.skip_tmux and shutil.which("tmux") is not None
    tmp = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    rows: list[tuple[str, str, str, str]] = []
    try:
        if ns.only in (None, "frame"):
            note("first frame")
            rows += bench_first_frame(ns.repeat, use_tmux, tmp, ns.against)
        if ns.only in (None, "keys"):
            if use_tmux:
                note("keys in tmux")
                samples = bench_keys_tmux(ns.presses, tmp)
                rows.append(("key -> screen while streaming, tmux", f"p50 {pct(samples, .5) * 1000:.0f} ms",
                             f"p95 {pct(samples, .95) * 1000:.0f} ms", "goal p95 < 50 ms"))
                samples = bench_keys_tmux(ns.presses, tmp, 100)
                rows.append(("  same, stream ~idle (100 tok/s): tmux floor", f"p50 {pct(samples, .5) * 1000:.0f} ms",
                             f"p95 {pct(samples, .95) * 1000:.0f} ms", "capture-pane polling + tmux"))
            note("keys in process")
            samples, rate = asyncio.run(_keys_in_process(ns.presses, tmp))
            rows.append(("key -> refresh while streaming, in process", f"p50 {pct(samples, .5) * 1000:.1f} ms",
                         f"p95 {pct(samples, .95) * 1000:.1f} ms", f"stream {rate:,.0f} tok/s seen by the UI"))
        if ns.only in (None, "answer-keys") and use_tmux:
            note("keys in tmux while a long answer streams, vs a minimal Textual app")
            for rate in ns.answer_rate:
                rows += bench_keys_answer_vs_minimal(ns.presses, tmp, rate, ns.compare_compositor)
        if ns.only in (None, "memory"):
            note(f"memory, {ns.steps} steps, TUI")
            base, after, trimmed, calls = asyncio.run(_memory(ns.steps, tmp))
            rows.append((f"RSS growth, {calls} steps of 8k-token obs.", f"+{after - base:.0f} MB",
                         f"fresh app {base:.0f} MB", "goal < 150 MB"))
            rows.append(("  same, freed heap returned (malloc_trim)", f"+{trimmed - base:.0f} MB", "", "held memory"))
            note(f"memory, {ns.steps} steps, engine only")
            base, after, trimmed, calls = asyncio.run(_memory(ns.steps, tmp, tui=False))
            rows.append(("  same run without the TUI (engine only)", f"+{after - base:.0f} MB",
                         f"trimmed +{trimmed - base:.0f} MB", "what the TUI does not own"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if use_tmux:  # the server of our own is gone with its last session; its socket file stays
            sock = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / TMUX
            tmux("kill-server", check=False)
            sock.unlink(missing_ok=True)
    widths = [max(len(r[i]) for r in rows + [("measure", "tui-agent", "baseline", "result")]) for i in range(4)]
    header = ("measure", "tui-agent", "baseline", "result")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
