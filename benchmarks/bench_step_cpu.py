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
- ``to exit ms/step``: the same from the 3rd call to the CLI's return (the answer, the store's
  close and, with --otel, the last spans' export and the SDK's shutdown counted): what --otel's
  goal is checked on, against the same row without;
- ``wait4 ms/step``: (cpu[long] - cpu[short]) / (long - short) from ``os.wait4`` of a short and a
  long run: the whole child, start-up variance included (noisier).

Runs of every row are interleaved --repeat times, medians. The server streams 8-character chunks
(about 22 chunks a step).

Rows:

- ``stream``: the CLI as shipped (``openai/`` model with an api_base, streamed: ``transport =
  auto`` takes the direct OpenAI-compatible client, tui_agent/model/direct.py);
- ``no-stream``: the same with ``--no-stream``;
- with --alternatives: ``stream, litellm`` and ``no-stream, litellm`` (``--transport litellm``);
  ``stream, litellm hosted_vllm/`` (litellm's own SSE handler instead of the OpenAI SDK's);
  ``stream, openai SDK`` (the child's model calls made with ``AsyncOpenAI`` alone, read as the
  adapter reads chunks: measured, not shipped); ``stream, plain text`` (the headless printer
  without ``--json`` on a pipe);
- with --otel: ``stream, --otel`` and ``no-stream, --otel``: the same runs sending their spans
  (issue 32) to a local OTLP/HTTP receiver in this process (tests/otlp_receiver.py; its CPU is not
  counted); goal: under 10 % more than the row without;
- with --old DIR: ``stream`` and ``no-stream`` of another checkout (before a change: ``git archive
  REV | tar -x -C DIR``), its own copy of this script as the child, in the same run.

--profile runs each row's long run once under cProfile (process CPU time, from the 3rd model call
to the answer's) and prints own time by package and the top functions, in ms per step.

Goals (issue 17): < 25 ms streamed, < 12 ms not streamed; --otel (issue 32): < 10 % more than without.

Run: ``.venv/bin/python benchmarks/bench_step_cpu.py [--repeat 3] [--steps 50] [--alternatives] [--old DIR]
[--otel] [--profile]``.
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

# row -> (extra CLI flags, model); --plain and --sdk are the benchmark's own (see run_child)
ROWS: dict[str, tuple[list[str], str]] = {
    "stream": ([], "openai/test-model"),
    "no-stream": (["--no-stream"], "openai/test-model"),
}
ALTERNATIVES: dict[str, tuple[list[str], str]] = {
    "stream, litellm": (["--transport", "litellm"], "openai/test-model"),
    "no-stream, litellm": (["--no-stream", "--transport", "litellm"], "openai/test-model"),
    "stream, litellm hosted_vllm/": (["--transport", "litellm"], "hosted_vllm/test-model"),
    "stream, openai SDK": (["--sdk"], "openai/test-model"),
    "stream, plain text": (["--plain"], "openai/test-model"),
}


def sdk_once(llm_module: Any) -> Any:
    """``LLM._once`` replaced by the OpenAI SDK's own streaming call (``AsyncOpenAI``, one client
    per run), read as the litellm path reads its chunks: the alternative measured, not shipped."""
    from openai import AsyncOpenAI

    clients: dict[str, Any] = {}

    async def once(self: Any, messages: Any, model: str, stream: bool, on_delta: Any, stop: Any) -> Any:
        s = self.settings
        client = clients.get(s.api_base) or clients.setdefault(
            s.api_base, AsyncOpenAI(base_url=s.api_base, api_key="none", max_retries=0, timeout=s.model_timeout_s))
        response = await client.chat.completions.create(
            model=model.split("/", 1)[1], messages=messages, stream=True, stream_options={"include_usage": True},
            stop=stop)
        parts: list[str] = []
        pt = ct = finish = None
        async for chunk in response:
            if chunk.usage is not None:
                pt, ct = chunk.usage.prompt_tokens, chunk.usage.completion_tokens
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            if choice.delta.content:
                parts.append(choice.delta.content)
                on_delta(choice.delta.content, False)
            finish = choice.finish_reason or finish
        return llm_module.Reply("".join(parts), "", pt, ct, self.price(model, pt, ct), finish, model)

    return once

OTEL_ROWS: dict[str, tuple[list[str], str]] = {
    "stream, --otel": (["--otel"], "openai/test-model"),
    "no-stream, --otel": (["--no-stream", "--otel"], "openai/test-model"),
}
OTEL_GOAL = 1.10
"""A row with --otel against the same row without: at most this ratio (issue 32)."""

OLD_ROWS = {"stream": ([], "openai/test-model"), "no-stream": (["--no-stream"], "openai/test-model")}
"""The rows run by the --old checkout too (flags it knows)."""


def child(out: str, argv: list[str], profile: str | None = None, steps: int = 0, sdk: bool = False) -> int:
    """The CLI with ``LLM.complete`` wrapped to note the process CPU time as each call starts;
    ``profile``: cProfile from the 3rd model call to the answer's (the steps the figure measures);
    ``sdk``: the model calls made with the OpenAI SDK (:func:`sdk_once`)."""
    import cProfile
    import json

    from tui_agent import cli
    from tui_agent.model import llm

    if sdk:
        llm.LLM._once = sdk_once(llm)  # type: ignore[method-assign]
    marks: list[float] = []
    complete = llm.LLM.complete
    prof = cProfile.Profile(time.process_time) if profile else None  # CPU, not waits

    async def timed(self: Any, *a: Any, **kw: Any) -> Any:
        marks.append(time.process_time())
        if prof is not None and len(marks) == 3:
            prof.enable()
        if prof is not None and len(marks) == steps + 1:
            prof.disable()
        return await complete(self, *a, **kw)

    llm.LLM.complete = timed  # type: ignore[method-assign]
    try:
        return cli.main(argv)
    finally:
        # the end: after the CLI returned (a traced run has sent its last spans by then)
        Path(out).write_text(json.dumps(marks + [time.process_time()]))
        if prof is not None:
            prof.dump_stats(profile)


def run_child(chat: ChatServer, searx: SearxServer, n: int, extra: list[str], model: str,
              profile: str | None = None, old: Path | None = None) -> tuple[float, float]:
    """(CPU seconds of one CLI run of ``n`` tool steps and an answer, CPU seconds per step inside it);
    ``profile``: a file for the cProfile stats of its steps; ``--old`` in ``extra``: the checkout
    at ``old`` runs (its own copy of this script as the child, its package first on the path)."""
    import json

    root, env = ROOT, child_env()
    if "--old" in extra:
        assert old is not None
        root, extra = old, [e for e in extra if e != "--old"]
        env["PYTHONPATH"] = str(old) + os.pathsep + env["PYTHONPATH"]
    own = [e for e in extra if e == "--sdk"]
    extra = [e for e in extra if e != "--sdk"]
    script(chat, n)
    with tempfile.TemporaryDirectory(prefix="bench-step-cpu-") as tmp:
        args = cli_args(chat, searx, str(Path(tmp) / "data"))
        args[args.index("--model") + 1] = model
        if "--plain" in extra:
            args.remove("--json")
            extra = [e for e in extra if e != "--plain"]
        marks_path = Path(tmp) / "marks.json"
        prof = ["--profile-out", profile, "--steps", str(n)] if profile else []
        cmd = [sys.executable, str(root / "benchmarks" / "bench_step_cpu.py"), "--child", str(marks_path), *prof, *own,
               "--", *args, *extra]
        out_path = Path(tmp) / "out.txt"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, cwd=tmp)
            _, status, ru = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{cmd} exited {code}: {out_path.read_text(errors='replace')[-2000:]}")
        marks = json.loads(marks_path.read_text())
    end = marks.pop() if len(marks) == n + 2 else float("nan")  # an --old child may not note its end
    if len(marks) != n + 1:
        raise SystemExit(f"expected {n + 1} model calls, saw {len(marks)}")
    inside = (marks[n] - marks[2]) / (n - 2) if n > 2 else float("nan")
    to_exit = (end - marks[2]) / (n - 2) if n > 2 else float("nan")
    return ru.ru_utime + ru.ru_stime, inside, to_exit


def by_package(stats: Any, steps: int) -> list[tuple[str, float]]:
    """Own CPU time per package (``tui_agent.<room>``, a site package, the standard library, C
    built-ins), largest first, in ms per step."""
    own: dict[str, float] = {}
    for (path, _line, func), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        if "/tui_agent/" in path:
            pkg = "tui_agent." + path.split("/tui_agent/", 1)[1].split("/")[0].removesuffix(".py")
        elif "site-packages/" in path:
            pkg = path.split("site-packages/", 1)[1].split("/")[0].removesuffix(".py")
        elif path == "~":
            pkg = "C built-ins (sqlite3, json, re, sockets …)"
        else:
            pkg = "stdlib " + Path(path).parent.name if "/lib/python" in path else Path(path).name
        own[pkg] = own.get(pkg, 0.0) + tt
    return sorted(((k, v / steps * 1e3) for k, v in own.items() if v / steps * 1e3 >= 0.2), key=lambda kv: -kv[1])


def profile_rows(rows: dict[str, tuple[list[str], str]], n: int, top: int, old: Path | None) -> int:
    """Each row's long run under cProfile (its steps only); the top functions by own time and by
    cumulative time, in ms per step."""
    import pstats

    with ChatServer() as chat, SearxServer() as searx, tempfile.TemporaryDirectory(prefix="bench-prof-") as tmp:
        searx.responder = responder
        for row, (extra, model) in rows.items():
            out = str(Path(tmp) / "row.prof")
            _, per_step, _ = run_child(chat, searx, n, extra, model, profile=out, old=old)
            stats = pstats.Stats(out)
            print(f"\n=== {row}: {per_step * 1e3:.1f} ms/step under cProfile (CPU time), {n - 2} steps profiled ===")
            print("--- own time by package, ms/step ---")
            print("  " + ", ".join(f"{pkg} {ms:.1f}" for pkg, ms in by_package(stats, n - 2)))
            for key in ("tottime", "cumulative", "cumulative, tui_agent only"):
                print(f"--- by {key}: calls/step (a coroutine counts each resume), own ms/step, cumulative ms/step ---")
                entries = sorted(stats.stats.items(), key=lambda kv: -kv[1][2 if key == "tottime" else 3])  # type: ignore[attr-defined]
                if key.endswith("only"):
                    entries = [e for e in entries if "/tui_agent/" in e[0][0]]
                for (path, line, func), (cc, nc, tt, ct, _) in entries[:top]:
                    where = path.replace(str(ROOT) + "/", "").replace(sys.prefix + "/lib/python3.11/site-packages/", "")
                    print(f"{nc / (n - 2):8.1f} {tt / (n - 2) * 1e3:8.2f} {ct / (n - 2) * 1e3:8.2f}  "
                          f"{func} {where[-70:]}:{line}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", type=int, default=50, help="the long run's tool steps (the short run has 2)")
    ap.add_argument("--alternatives", action="store_true", help="also the rows measuring alternatives")
    ap.add_argument("--profile", action="store_true",
                    help="instead of the table: one long run of each row under cProfile, its top functions")
    ap.add_argument("--top", type=int, default=30, help="--profile: functions shown per row")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--old", type=Path, metavar="DIR",
                    help="also the rows stream and no-stream of another checkout (before a change), in the same run")
    ap.add_argument("--otel", action="store_true",
                    help="also the rows with --otel, sending spans to a local OTLP/HTTP receiver (this process)")
    ap.add_argument("--profile-out", help=argparse.SUPPRESS)
    ap.add_argument("--sdk", action="store_true", help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.child:
        return child(args.child, rest[1:] if rest[:1] == ["--"] else rest, args.profile_out, args.steps, args.sdk)
    rows = dict(ROWS, **(ALTERNATIVES if args.alternatives else {}), **(OTEL_ROWS if args.otel else {}))
    receiver = None
    if args.otel:
        from tests.otlp_receiver import OtlpReceiver

        receiver = OtlpReceiver()  # the children read the endpoint from the environment (bench_e2e.child_env)
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.url
    if args.old:
        rows.update({f"{row} (--old)": (flags + ["--old"], model) for row, (flags, model) in OLD_ROWS.items()})
    if args.profile:
        return profile_rows(rows, args.steps, args.top, args.old)
    long = args.steps
    cpu: dict[tuple[str, int], list[float]] = {(r, n): [] for r in rows for n in (SHORT, long)}
    inside: dict[str, list[float]] = {r: [] for r in rows}
    to_exit: dict[str, list[float]] = {r: [] for r in rows}
    t0 = time.perf_counter()
    with ChatServer() as chat, SearxServer() as searx:
        searx.responder = responder
        for _ in range(args.repeat):
            for row, (extra, model) in rows.items():
                for n in (SHORT, long):
                    total, per_step, to_end = run_child(chat, searx, n, extra, model, old=args.old)
                    cpu[(row, n)].append(total)
                    if n == long:
                        inside[row].append(per_step)
                        to_exit[row].append(to_end)
    print(f"CPU per step of the headless CLI (child process; servers not counted), slope {SHORT} → {long} "
          f"steps, median of {args.repeat} (wall {time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")
    head = (f"{'row':<30} {'ms/step':>8} {'runs':>18} {'goal':>10} │ {'cpu s @' + str(SHORT):>9} "
            f"{'cpu s @' + str(long):>10} {'wait4 ms/step':>13} {'to exit ms/step':>15}")
    print(head)
    print("-" * len(head))
    for row in rows:
        short_s, long_s = statistics.median(cpu[(row, SHORT)]), statistics.median(cpu[(row, long)])
        slope = (long_s - short_s) / (long - SHORT) * 1e3
        ms = statistics.median(inside[row]) * 1e3
        runs = ", ".join(f"{x * 1e3:.1f}" for x in inside[row])
        goal = GOAL_MS.get(row)
        verdict = "" if goal is None else f"<{goal:.0f} {'ok' if ms < goal else 'MISSED'}"
        exit_ms = statistics.median(to_exit[row]) * 1e3
        if row.endswith(", --otel"):  # against the same row without, to exit: the last spans' export counted
            ratio = exit_ms / (statistics.median(to_exit[row.removesuffix(", --otel")]) * 1e3)
            verdict = f"{ratio - 1:+.0%} {'ok' if ratio < OTEL_GOAL else 'MISSED'}"
        print(f"{row:<30} {ms:8.1f} {runs:>18} {verdict:>10} │ {short_s:9.2f} {long_s:10.2f} {slope:13.1f} {exit_ms:15.1f}")
    if receiver is not None:
        print(f"spans received by the local collector: {len(receiver.spans)}")
        receiver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
