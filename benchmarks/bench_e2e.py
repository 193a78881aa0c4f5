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

For attribution the same pair of runs is repeated with the model call replaced inside the child
(``LLM.complete`` patched to return the same scripted replies at once, so litellm is never
imported): the difference between the rows is what litellm costs per step.

Then an in-process check of the hot path (a 10-step ``runner.Run`` under cProfile with the same
servers): who calls ``litellm.completion_cost`` / ``cost_per_token`` (our code or litellm's
own success logging), how often per model call and at what cost, and that one httpx client
serves the run's tools and one the model calls (``httpx.AsyncClient`` constructions counted); plus a grep of ``tui_agent/``.
``--profile`` also runs the 100-step child under cProfile and prints its top functions;
``--no-stream-row`` adds the CLI with ``--no-stream`` (what streaming costs).

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


def run_child(chat: ChatServer, searx: SearxServer, n: int, prefix: list[str] | None = None,
              instant: bool = False, extra: list[str] | None = None) -> dict[str, Any]:
    script(chat, n)
    before = len(chat.requests)
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        out_path, err_path = Path(tmp) / "out.json", Path(tmp) / "trace.txt"
        entry = [str(Path(__file__).resolve()), "--instant-child", str(n), "--"] if instant else ["-m", "tui_agent"]
        cmd = [sys.executable] + (prefix or []) + entry + cli_args(chat, searx, str(Path(tmp) / "data")) + (extra or [])
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
    assert len(chat.requests) - before == (0 if instant else n + 1)
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
            "rss_mb": ru.ru_maxrss / 1024.0, "wall_s": wall}


def instant_child(n: int, argv: list[str]) -> int:
    """The CLI with ``LLM.complete`` answering the same script in-process (litellm never imported)."""
    from tui_agent import cli

    from tui_agent.model import llm
    calls = 0

    async def complete(self: Any, messages: Any, *, purpose: str = "research", model: str | None = None,
                       stream: bool | None = None, on_delta: Any = None, on_retry: Any = None,
                       stop: Any = None) -> llm.Reply:
        nonlocal calls
        calls += 1
        text = search_call(calls) if calls <= n else "<think>Enough.</think><answer>About two percent a year [1].</answer>"
        if on_delta:
            on_delta(text, False)
        return llm.Reply(text, "", prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
                         completion_tokens=len(text) // 4, cost_usd=None, finish_reason="stop",
                         model=model or "openai/test-model")

    llm.LLM.complete = complete  # type: ignore[method-assign]
    return cli.main(argv)


# --- in-process check ---------------------------------------------------------------------------
def grep_code() -> list[str]:
    pat = re.compile(r"completion_cost|cost_per_token|AsyncClient\(|httpx\.Client\(|make_client\(")
    hits = []
    for path in sorted((ROOT / "tui_agent").rglob("*.py")):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pat.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()}")
    return hits


def in_process_check(chat: ChatServer, searx: SearxServer, n: int = 10) -> None:
    import httpx

    from tui_agent.cli.common import build_run_parser, settings_from
    from tui_agent.agent.runner import Run
    from tui_agent.session.store import Store

    created: list[str] = []
    orig_init = httpx.AsyncClient.__init__

    def counting_init(self: Any, *a: Any, **kw: Any) -> None:
        import traceback

        frames = [f for f in traceback.extract_stack(limit=12)[:-1] if "site-packages/httpx" not in f.filename]
        where = frames[-1] if frames else None
        created.append(f"{Path(where.filename).name}:{where.lineno} ({where.name})" if where else "?")
        orig_init(self, *a, **kw)

    with tempfile.TemporaryDirectory(prefix="bench-e2e-inproc-") as tmp:
        ns = build_run_parser().parse_args(cli_args(chat, searx, str(Path(tmp) / "data"))[1:])
        settings = settings_from(ns)
        # warm-up run: imports litellm and builds its cached model client
        script(chat, 2)
        asyncio.run(Run(settings, "warm-up", store=Store(settings.resolved_data_dir()), approver=None).start())
        script(chat, n)
        httpx.AsyncClient.__init__ = counting_init
        prof = cProfile.Profile()
        try:
            prof.enable()
            t0 = time.process_time()
            result = asyncio.run(Run(settings, "How fast?", store=Store(settings.resolved_data_dir()),
                                     approver=None).start())
            cpu = time.process_time() - t0
            prof.disable()
        finally:
            httpx.AsyncClient.__init__ = orig_init
    assert result["termination"] == "answer" and result["tool_calls"] == n, result

    stats = pstats.Stats(prof)
    calls = n + 1  # model calls
    wanted = ("completion_cost", "cost_per_token", "response_cost_calculator", "get_model_info")
    rows = []
    for (fname, line, func), (cc, nc, tt, ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func in wanted:
            short = fname.split("site-packages/")[-1] if "site-packages/" in fname else os.path.relpath(fname, ROOT)
            ours = sum(c[1] for (cf, _, _), c in callers.items() if "/tui_agent/" in cf)
            rows.append((func, nc, ours, ct, f"{short}:{line}"))
    rows.sort(key=lambda r: -r[3])
    print(f"\nin-process check: {n}-step runner.Run (with store, {calls} model calls) under cProfile, "
          f"{cpu / n * 1e3:.1f} ms CPU/step (profiled)")
    print(f"{'function':<26} {'calls':>6} {'/model call':>11} {'from tui_agent':>14} {'cum ms/step':>12}  where")
    for func, nc, ours, ct, where in rows:
        print(f"{func:<26} {nc:6d} {nc / calls:11.1f} {ours:14d} {ct / n * 1e3:12.3f}  {where}")
    ours_cc = sum(r[2] for r in rows if r[0] == "completion_cost")
    print(f"completion_cost called from tui_agent: {ours_cc} times; from litellm's own success logging: "
          f"{sum(r[1] for r in rows if r[0] == 'completion_cost') - ours_cc} times")
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
    ap.add_argument("--no-stream-row", action="store_true", help="also run the CLI with --no-stream")
    ap.add_argument("--instant-child", type=int, help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.instant_child is not None:
        return instant_child(args.instant_child, rest[1:] if rest[:1] == ["--"] else rest)
    small, big = 2, args.steps

    with ChatServer() as chat, SearxServer() as searx:
        searx.responder = responder
        modes: dict[str, tuple[bool, list[str]]] = {"CLI": (False, []), "CLI, no litellm": (True, [])}
        if args.no_stream_row:
            modes["CLI --no-stream"] = (False, ["--no-stream"])
        runs: dict[tuple[str, int], list[dict[str, Any]]] = {(m, k): [] for m in modes for k in (small, big)}
        for _ in range(args.repeat):
            for mode, (instant, extra) in modes.items():
                runs[(mode, small)].append(run_child(chat, searx, small, instant=instant, extra=extra))
                runs[(mode, big)].append(run_child(chat, searx, big, instant=instant, extra=extra))
        med = {key: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for key, rs in runs.items()}

        print(f"end to end: CLI child process, streaming replies from ChatServer, search on SearxServer "
              f"(10 results/query); median of {args.repeat}")
        head = (f"{'mode':<16} {'steps':>5} {'cpu s':>7} {'user s':>7} {'sys s':>6} {'wall s':>7} {'peak RSS MB':>12} │ "
                f"{'cpu ms/step*':>12} {'goal <50':>9}")
        print(head)
        print("-" * len(head))
        per_step: dict[str, float] = {}
        for mode in modes:
            cpu_ms = (med[(mode, big)]["cpu_s"] - med[(mode, small)]["cpu_s"]) / (big - small) * 1e3
            per_step[mode] = cpu_ms
            for k in (small, big):
                m = med[(mode, k)]
                tail = f"{cpu_ms:12.1f} {('ok' if cpu_ms < GOAL_CPU_MS else 'MISSED'):>9}" if k == big else ""
                print(f"{mode:<16} {k:5d} {m['cpu_s']:7.2f} {m['user_s']:7.2f} {m['sys_s']:6.2f} {m['wall_s']:7.2f} "
                      f"{m['rss_mb']:12.1f} │ {tail}")
        print(f"* (cpu{big} - cpu{small}) / {big - small}; pairs (CLI): " + ", ".join(
            f"{(b['cpu_s'] - s['cpu_s']) / (big - small) * 1e3:.1f}"
            for s, b in zip(runs[("CLI", small)], runs[("CLI", big)])))
        lite = per_step["CLI"] - per_step["CLI, no litellm"]
        print(f"CPU per step beyond start-up: {per_step['CLI']:.1f} ms (goal < {GOAL_CPU_MS:.0f} ms: "
              f"{'ok' if per_step['CLI'] < GOAL_CPU_MS else 'MISSED'}); of which litellm ≈ {lite:.1f} ms "
              f"({lite / per_step['CLI']:.0%}), the rest (engine, store, search, trace) ≈ "
              f"{per_step['CLI, no litellm']:.1f} ms")
        if "CLI --no-stream" in per_step:
            print(f"streaming costs ≈ {per_step['CLI'] - per_step['CLI --no-stream']:.1f} ms CPU per step "
                  f"(CLI {per_step['CLI']:.1f} vs --no-stream {per_step['CLI --no-stream']:.1f}; the scripted "
                  f"server sends 8-character chunks)")
        rss = med[("CLI", big)]["rss_mb"]
        print(f"peak RSS, {big} steps: {rss:.0f} MB (goal < {GOAL_RSS_MB:.0f} MB: {'ok' if rss < GOAL_RSS_MB else 'MISSED'}); "
              f"start-up CPU (2 steps): {med[('CLI', small)]['cpu_s']:.2f} s with litellm, "
              f"{med[('CLI, no litellm', small)]['cpu_s']:.2f} s without")

        if not args.no_check:
            in_process_check(chat, searx)
        if args.profile:
            profile_child(chat, searx, big)
    return 0


if __name__ == "__main__":
    sys.exit(main())
