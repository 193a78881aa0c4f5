"""CPU per step of the headless CLI, streamed and not, side by side in one run.

The servers (the scripted OpenAI-compatible ``ChatServer`` and a ``SearxServer``, tests/servers.py)
run in this process; the CLI runs as a child process, as a user runs it (real litellm, real httpx,
the SQLite store on), each step calling ``search`` with a new query, then an answer (the same
script as ``bench_e2e.py``). Each child is reaped with ``os.wait4``: its CPU time (user + system)
is the CLI's own, the servers' CPU is not counted.

Two figures per row, both slopes, so start-up (imports, litellm's first call) cancels out:

- ``ms/step``: inside the child, process CPU time (``time.process_time``) is read as each model
  call starts (the child is the CLI's ``cli.main`` with ``LLM.complete`` wrapped to read the
  clock, nothing else changed): (t[answer call] - t[3rd call]) / (long - 2) over the long run.
  Start-up's variance (about ±0.5 s of an 11 s start on a busy machine) is not in it;
- ``wait4 ms/step``: (cpu[long] - cpu[short]) / (long - short) from ``os.wait4`` of a short and a
  long run: the whole child, start-up variance included (noisier).

Runs of every row are interleaved --repeat times, medians. The server streams 8-character chunks
(about 22 chunks a step).

Rows:

- ``stream``: the CLI as shipped (``openai/`` model, streamed, the default);
- ``no-stream``: the same with ``--no-stream``;
- ``stream hosted_vllm/`` (with --alternatives): the same server through litellm's
  ``hosted_vllm/`` provider, which parses the SSE stream with litellm's own handler instead of
  the OpenAI SDK's per-chunk model construction: still litellm, measured for comparison only;
- ``stream, plain text`` (with --alternatives): streamed, but the headless printer without
  ``--json`` on a pipe (what a script reading the trace runs).

Goals (issue 17): < 25 ms streamed, < 12 ms not streamed.

Run: ``.venv/bin/python benchmarks/bench_step_cpu.py [--repeat 3] [--steps 50] [--alternatives]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_e2e import child_env, cli_args, responder, script

from tests.servers import ChatServer, SearxServer

GOAL_MS = {"stream": 25.0, "no-stream": 12.0}
SHORT = 2

# row -> (extra CLI flags, model)
ROWS: dict[str, tuple[list[str], str]] = {
    "stream": ([], "openai/test-model"),
    "no-stream": (["--no-stream"], "openai/test-model"),
}
ALTERNATIVES: dict[str, tuple[list[str], str]] = {
    "stream hosted_vllm/": ([], "hosted_vllm/test-model"),
    "stream, plain text": (["--plain"], "openai/test-model"),
}


def child(out: str, argv: list[str]) -> int:
    """The CLI with ``LLM.complete`` wrapped to note the process CPU time as each call starts."""
    import json

    from tui_agent import cli
    from tui_agent.model import llm

    marks: list[float] = []
    complete = llm.LLM.complete

    async def timed(self: Any, *a: Any, **kw: Any) -> Any:
        marks.append(time.process_time())
        return await complete(self, *a, **kw)

    llm.LLM.complete = timed  # type: ignore[method-assign]
    try:
        return cli.main(argv)
    finally:
        Path(out).write_text(json.dumps(marks))


def run_child(chat: ChatServer, searx: SearxServer, n: int, extra: list[str], model: str) -> tuple[float, float]:
    """(CPU seconds of one CLI run of ``n`` tool steps and an answer, CPU seconds per step inside it)."""
    import json

    script(chat, n)
    with tempfile.TemporaryDirectory(prefix="bench-step-cpu-") as tmp:
        args = cli_args(chat, searx, str(Path(tmp) / "data"))
        args[args.index("--model") + 1] = model
        if "--plain" in extra:
            args.remove("--json")
            extra = [e for e in extra if e != "--plain"]
        marks_path = Path(tmp) / "marks.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(marks_path), "--", *args, *extra]
        out_path = Path(tmp) / "out.txt"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=child_env(), cwd=tmp)
            _, status, ru = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{cmd} exited {code}: {out_path.read_text(errors='replace')[-2000:]}")
        marks = json.loads(marks_path.read_text())
    if len(marks) != n + 1:
        raise SystemExit(f"expected {n + 1} model calls, saw {len(marks)}")
    inside = (marks[n] - marks[2]) / (n - 2) if n > 2 else float("nan")
    return ru.ru_utime + ru.ru_stime, inside


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", type=int, default=50, help="the long run's tool steps (the short run has 2)")
    ap.add_argument("--alternatives", action="store_true", help="also the rows measuring alternatives")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.child:
        return child(args.child, rest[1:] if rest[:1] == ["--"] else rest)
    rows = dict(ROWS, **(ALTERNATIVES if args.alternatives else {}))
    long = args.steps
    cpu: dict[tuple[str, int], list[float]] = {(r, n): [] for r in rows for n in (SHORT, long)}
    inside: dict[str, list[float]] = {r: [] for r in rows}
    t0 = time.perf_counter()
    with ChatServer() as chat, SearxServer() as searx:
        searx.responder = responder
        for _ in range(args.repeat):
            for row, (extra, model) in rows.items():
                for n in (SHORT, long):
                    total, per_step = run_child(chat, searx, n, extra, model)
                    cpu[(row, n)].append(total)
                    if n == long:
                        inside[row].append(per_step)
    print(f"CPU per step of the headless CLI (child process; servers not counted), slope {SHORT} → {long} "
          f"steps, median of {args.repeat} (wall {time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")
    head = (f"{'row':<22} {'ms/step':>8} {'runs':>18} {'goal':>10} │ {'cpu s @' + str(SHORT):>9} "
            f"{'cpu s @' + str(long):>10} {'wait4 ms/step':>13}")
    print(head)
    print("-" * len(head))
    for row in rows:
        short_s, long_s = statistics.median(cpu[(row, SHORT)]), statistics.median(cpu[(row, long)])
        slope = (long_s - short_s) / (long - SHORT) * 1e3
        ms = statistics.median(inside[row]) * 1e3
        runs = ", ".join(f"{x * 1e3:.1f}" for x in inside[row])
        goal = GOAL_MS.get(row)
        verdict = "" if goal is None else f"<{goal:.0f} {'ok' if ms < goal else 'MISSED'}"
        print(f"{row:<22} {ms:8.1f} {runs:>18} {verdict:>10} │ {short_s:9.2f} {long_s:10.2f} {slope:13.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
