"""End to end, headless, on local servers: CPU per step and peak memory of the real CLI.

A scripted OpenAI-compatible ``ChatServer`` (tests/servers.py) answers N replies that each call
``search`` with a new query (no duplicate calls), then an answer; ``search`` runs against a local
``SearxServer`` (10 results per query). The CLI runs as a child process, as a user would run it:

    python -m tui_agent run QUESTION --yes --json --model openai/test-model --api-base CHAT
        --search-backend searxng --searxng-url SEARX --data-dir TMP
        --context-window 10000000 --max-calls 1000

(``python -m tui_agent`` is the ``tui-agent`` console script's entry point, ``cli.main``.) The
servers live in this process, so the child's figures are the CLI's own. Each child is reaped
with ``os.wait4``, which gives its CPU time (user + system) and peak RSS (``ru_maxrss``).
A 2-step and a 100-step run are interleaved --repeat times; medians.

- CPU per step beyond start-up = (cpu100 - cpu2) / 98. Goal < 50 ms.
- Peak RSS of the 100-step run. Goal < 600 MB.

Then an in-process check of the hot path (a 20-step ``runner.Run`` under cProfile with the same
servers): that ``litellm.completion_cost`` is not called (neither by our code nor by litellm
for us), what pricing calls cost, and that one httpx client serves the run's tools and one the
model calls (``httpx.AsyncClient`` constructions counted); plus a grep of ``tui_agent/``.
``--profile`` also runs the 100-step child under cProfile and prints its top functions.

Run: ``.venv/bin/python benchmarks/bench_e2e.py [--repeat 3] [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import ChatServer, Reply, SearxServer  # noqa: E402

GOAL_CPU_MS = 50.0
GOAL_RSS_MB = 600.0
SNIPPET = ("Annual energy use grew by about two percent according to the survey; the report gives "
           "figures by region and sector, with estimates for population growth and average demand. ")


def search_call(i: int) -> str:
    args = {"query": [f"energy statistics topic {i}"]}
    return (f"<think>Step {i}: I need figures for topic {i}.</think>"
            f"<tool_call>{json.dumps({'name': 'search', 'arguments': args})}</tool_call>")


def responder(q: str) -> list[dict[str, str]]:
    return [{"url": f"https://example.org/{abs(hash(q)) % 10**8}/{k}", "title": f"Result {k} for {q}",
             "content": SNIPPET * 2} for k in range(10)]


def script(chat: ChatServer, n: int) -> None:
    chat.clear_script()
    chat.script(*[search_call(i) for i in range(1, n + 1)],
                Reply("<think>Enough.</think><answer>About two percent a year [1].</answer>"))


def cli_args(chat: ChatServer, searx: SearxServer, data_dir: str) -> list[str]:
    return ["run", "How fast does energy use grow?", "--yes", "--json", "--model", "openai/test-model",
            "--api-base", chat.base_url, "--search-backend", "searxng", "--searxng-url", searx.url,
            "--data-dir", data_dir, "--context-window", "10000000", "--max-calls", "1000"]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def run_child(chat: ChatServer, searx: SearxServer, n: int, prefix: list[str] | None = None) -> dict[str, Any]:
    script(chat, n)
    before = len(chat.requests)
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        out_path, err_path = Path(tmp) / "out.json", Path(tmp) / "trace.txt"
        cmd = [sys.executable] + (prefix or []) + ["-m", "tui_agent"] + cli_args(chat, searx, str(Path(tmp) / "data"))
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=child_env(), cwd=tmp)
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        text = out_path.read_text(errors="replace")
        try:
            result = json.loads(text.strip().splitlines()[-1])
        except (ValueError, IndexError):
            sys.stderr.write(err_path.read_text(errors="replace")[-3000:])
            raise SystemExit(f"the CLI did not print a JSON result (exit {proc.returncode}): {text[:500]!r}")
    if result.get("termination") != "answer" or result.get("tool_calls") != n:
        raise SystemExit(f"unexpected result for {n} steps: {result}")
    assert len(chat.requests) - before == n + 1
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
            "rss_mb": ru.ru_maxrss / 1024.0, "wall_s": wall}


# --- in-process check ---------------------------------------------------------------------------
def grep_code() -> list[str]:
    pat = re.compile(r"completion_cost|cost_per_token|AsyncClient\(|httpx\.Client\(|make_client\(")
    hits = []
    for path in sorted((ROOT / "tui_agent").rglob("*.py")):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pat.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    return hits


def in_process_check(chat: ChatServer, searx: SearxServer, n: int = 20) -> None:
    import httpx

    from tui_agent.approval import AutoApprover
    from tui_agent.cli import build_run_parser, settings_from
    from tui_agent.runner import Run
    from tui_agent.store import Store

    created: list[str] = []
    orig_init = httpx.AsyncClient.__init__

    def counting_init(self: Any, *a: Any, **kw: Any) -> None:
        import traceback

        frames = [f for f in traceback.extract_stack(limit=12)[:-1] if "site-packages/httpx" not in f.filename]
        where = frames[-1] if frames else None
        created.append(f"{Path(where.filename).name}:{where.lineno} ({where.name})" if where else "?")
        orig_init(self, *a, **kw)

    with tempfile.TemporaryDirectory(prefix="bench-e2e-inproc-") as tmp:
        ns = build_run_parser().parse_args(cli_args(chat, searx, str(Path(tmp) / "data")))
        settings = settings_from(ns)
        # warm-up run: imports litellm and builds its cached model client
        script(chat, 2)
        asyncio.run(Run(settings, "warm-up", store=Store(settings.resolved_data_dir()), approver=AutoApprover()).start())
        script(chat, n)
        httpx.AsyncClient.__init__ = counting_init
        prof = cProfile.Profile()
        try:
            prof.enable()
            t0 = time.process_time()
            result = asyncio.run(Run(settings, "How fast?", store=Store(settings.resolved_data_dir()),
                                     approver=AutoApprover()).start())
            cpu = time.process_time() - t0
            prof.disable()
        finally:
            httpx.AsyncClient.__init__ = orig_init
    assert result["termination"] == "answer" and result["tool_calls"] == n, result

    stats = pstats.Stats(prof)
    wanted = ("completion_cost", "cost_per_token", "response_cost_calculator", "get_model_info", "_get_model_info_helper")
    rows = []
    for (fname, line, func), (cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func in wanted:
            short = fname.split("site-packages/")[-1] if "site-packages/" in fname else os.path.relpath(fname, ROOT)
            rows.append((func, nc, ct, f"{short}:{line}"))
    rows.sort(key=lambda r: -r[2])
    print(f"\nin-process check: {n}-step runner.Run (with store) under cProfile, {cpu / n * 1e3:.1f} ms CPU/step "
          f"(profiled)")
    print(f"{'function':<28} {'calls':>6} {'cum ms/step':>12}  where")
    for func, nc, ct, where in rows:
        print(f"{func:<28} {nc:6d} {ct / n * 1e3:12.3f}  {where}")
    if not any(r[0] == "completion_cost" for r in rows):
        print("completion_cost: not called during the run")
    print(f"httpx.AsyncClient constructions during the run: {len(created)}")
    for c in sorted(set(created)):
        print(f"  {created.count(c)} × from {c}")
    print("\ngrep tui_agent/ for completion_cost | cost_per_token | AsyncClient( | httpx.Client( | make_client(:")
    for hit in grep_code():
        print("  " + hit)


def profile_child(chat: ChatServer, searx: SearxServer, n: int, top: int = 25) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-e2e-prof-") as tmp:
        out = str(Path(tmp) / "child.prof")
        run_child(chat, searx, n, prefix=["-m", "cProfile", "-o", out])
        buf = io.StringIO()
        st = pstats.Stats(out, stream=buf)
        for key in ("tottime", "cumulative"):
            buf.seek(0)
            buf.truncate()
            st.sort_stats(key).print_stats(top)
            lines = buf.getvalue().splitlines()
            start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
            print(f"\n--- cProfile of the {n}-step child, by {key} ---")
            print("\n".join(line.replace(str(ROOT) + "/", "").replace(sys.prefix + "/lib/python3.11/site-packages/", "")
                            [:170] for line in lines[start:start + top + 1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--no-check", action="store_true", help="skip the in-process check")
    args = ap.parse_args()
    small, big = 2, args.steps

    with ChatServer() as chat, SearxServer() as searx:
        searx.responder = responder
        run_child(chat, searx, small)  # warm-up: page cache, .pyc files
        runs: dict[int, list[dict[str, Any]]] = {small: [], big: []}
        for _ in range(args.repeat):
            runs[small].append(run_child(chat, searx, small))
            runs[big].append(run_child(chat, searx, big))

        med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
        print(f"end to end: real CLI child, streaming replies from ChatServer, search on SearxServer (10 results);"
              f" median of {args.repeat}")
        head = f"{'run':<10} {'cpu s':>8} {'user s':>8} {'sys s':>7} {'wall s':>8} {'peak RSS MB':>12}"
        print(head)
        print("-" * len(head))
        for n in (small, big):
            m = med[n]
            print(f"{str(n) + ' steps':<10} {m['cpu_s']:8.2f} {m['user_s']:8.2f} {m['sys_s']:7.2f} {m['wall_s']:8.2f} "
                  f"{m['rss_mb']:12.1f}")
        per_step = [(b["cpu_s"] - s["cpu_s"]) / (big - small) * 1e3 for s, b in zip(runs[small], runs[big])]
        cpu_ms = (med[big]["cpu_s"] - med[small]["cpu_s"]) / (big - small) * 1e3
        wall_ms = (med[big]["wall_s"] - med[small]["wall_s"]) / (big - small) * 1e3
        print(f"CPU per step beyond start-up = (cpu{big} - cpu{small}) / {big - small} = {cpu_ms:.1f} ms "
              f"(pairs: {', '.join(f'{x:.1f}' for x in per_step)}); goal < {GOAL_CPU_MS:.0f} ms: "
              f"{'ok' if cpu_ms < GOAL_CPU_MS else 'MISSED'}")
        print(f"wall per step beyond start-up = {wall_ms:.1f} ms; start-up CPU ≈ {med[small]['cpu_s']:.2f} s")
        print(f"peak RSS, {big} steps = {med[big]['rss_mb']:.0f} MB; goal < {GOAL_RSS_MB:.0f} MB: "
              f"{'ok' if med[big]['rss_mb'] < GOAL_RSS_MB else 'MISSED'}")

        if not args.no_check:
            in_process_check(chat, searx)
        if args.profile:
            profile_child(chat, searx, big)
    return 0


if __name__ == "__main__":
    sys.exit(main())
