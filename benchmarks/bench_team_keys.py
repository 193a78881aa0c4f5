"""A key pressed while three team agents stream at once (issue 29, "Done when"): the keys benchmark
of ``bench_tui.py`` (``bench_keys_answer_vs_minimal``) with the real ``tui-agent --team --yes``:
the local scripted chat server (in its own process) answers the plan, then streams a long thought
to each of the three sub-agents at the same time; ``y`` is pressed alternately in the real app and
in the minimal Textual app (same tmux server, same capture-pane polling) and each press is timed
until the header's auto flag flips. Goal: p95 within 1.5x (+10 ms) of the minimal app's.

Run: ``.venv/bin/python benchmarks/bench_team_keys.py [--presses 30] [--rate 500]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tui as bt  # noqa: E402

QUESTION = "Compare the alpha tower, the beta bridge and the gamma dam"
PLAN = {"sub_questions": [{"question": f"What is known about the {k}?", "acceptance": "one figure",
                           "queries": [f"{k} facts"]} for k in ("alpha tower", "beta bridge", "gamma dam")],
        "domains": ["pages.example"]}


def _serve_team(pipe, tokens_per_s: int, seconds: int) -> None:
    sys.path.insert(0, str(bt.ROOT / "benchmarks"))
    from tests.servers import ChatServer

    with ChatServer() as chat:
        chat.script("```json\n" + json.dumps(PLAN) + "\n```", *[bt.stream_reply(tokens_per_s) for _ in range(3)])
        pipe.send(chat.base_url)
        pipe.recv()


def bench(presses: int, tmp: Path, tokens_per_s: int) -> list[tuple[str, str, str, str]]:
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    pipe, child = ctx.Pipe()
    server = ctx.Process(target=_serve_team, args=(child, tokens_per_s, bt.STREAM_S), daemon=True)
    server.start()
    base_url = pipe.recv()
    sessions = {"minimal": f"{bt.TMUX}-minimal", "team": bt.TMUX}
    try:
        bt.tmux("new-session", "-d", "-s", sessions["minimal"], "-x", "140", "-y", "44",
                f"{shlex.quote(bt.PY)} -c {shlex.quote(bt.MINIMAL_KEYS_APP)}; sleep 60")
        bt.tmux("new-session", "-d", "-s", sessions["team"], "-x", "140", "-y", "44",
                bt.tui_command(QUESTION, base_url, tmp / "team", "--yes --team") + "; sleep 60")
        deadline = time.time() + bt.START_TIMEOUT_S
        while bt._capture(sessions["team"]).count("running") < 3:  # three pane lines say running
            if time.time() > deadline:
                raise TimeoutError(bt._capture(sessions["team"]))
            time.sleep(0.05)
        time.sleep(1.0)
        samples: dict[str, list[float]] = {k: [] for k in sessions}
        for _ in range(presses):
            for kind, name in sessions.items():
                samples[kind].append(bt._press_once(name))
        still = bt._capture(sessions["team"]).count("running")
        if still < 3:
            raise RuntimeError(f"the agents stopped streaming before the presses ended ({still} running)")
    finally:
        for name in sessions.values():
            bt.tmux("kill-session", "-t", name, check=False)
        pipe.send("stop")
        server.join(10)
    a50, a95 = bt.pct(samples["team"], .5), bt.pct(samples["team"], .95)
    b50, b95 = bt.pct(samples["minimal"], .5), bt.pct(samples["minimal"], .95)
    return [(f"key -> screen, 3 team agents streaming ({tokens_per_s} tok/s each), tmux, p50",
             f"{a50 * 1000:.0f} ms", f"{b50 * 1000:.0f} ms", f"{a50 / b50:.2f}x"),
            ("  same, p95", f"{a95 * 1000:.0f} ms", f"{b95 * 1000:.0f} ms",
             f"{a95 / b95:.2f}x (goal <= 1.5x + 10 ms: {'met' if a95 <= 1.5 * b95 + 0.010 else 'missed'})")]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--rate", type=int, default=bt.ANSWER_TOKENS_PER_S, help="tokens per second per agent")
    ns = p.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is needed", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="bench-team-keys-"))
    try:
        rows = bench(ns.presses, tmp, ns.rate)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        bt.tmux("kill-server", check=False)
        (Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / bt.TMUX).unlink(missing_ok=True)
    header = ("measure", "tui-agent --team", "minimal app", "result")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(4)]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
