"""Eval throughput on the real path: `tui-agent eval` cases/s against the ideal, by workers and concurrency.

Nothing is injected: the CLI runs as a subprocess (``python -m tui_agent eval … --json``), with
litellm and the real HTTP client, against local servers from tests/servers.py that run in a
process of their own (their CPU is not the eval's):

- the scripted OpenAI-compatible ``ChatServer``, every reply held ``--latency`` seconds (``Reply.delay_s``);
- a SearXNG server and a ``PageServer``: case i's search returns, and its visit reads, the i-th
  real page of the extraction dev set (``shared/extraction-dev``, 900-odd published pages, in
  turn: each case another page, as a regression set reads), so each case fetches, decodes,
  extracts (trafilatura), redacts and stores a real page. ``--pages synthetic`` gives every case
  the one generated ~150 KB article of benchmarks/bench_extract.py instead (links, tables and
  code on every screen: about four times a real page's extraction CPU).

Each case: a search, a visit (with the page-extraction model call), an answer: 4 model calls,
so the ideal is ``concurrency / (4 × latency)`` cases/s (every model call waiting its latency,
no time of our own). Reported per row:

- run cases/s: cases over the span from the first case's session created to the last one ended
  (the eval's own throughput; what the issue's ≥ 40 % goal is about);
- wall cases/s: cases over the whole command, process start and imports included (spawned
  workers import litellm too);
- in flight: model requests in flight at the server on average over the run span;
- CPU ms/case: the CPU time of the eval and its workers (start and imports included) per case.

    .venv/bin/python benchmarks/bench_eval.py [--latency 0.3] [--workers 1 2] [--concurrency 4 16 32] [--pages real|synthetic]
    .venv/bin/python benchmarks/bench_eval.py --profile   # where one process's CPU goes (cProfile)
    .venv/bin/python benchmarks/bench_eval.py --client    # the cost of building a fetch client

The machine's load is printed with the table: the rows of one run are measured side by side.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

CALLS_PER_CASE = 4  # search step, visit step, the visit's extraction call, the answer
PAGE_BYTES = 150_000
PROFILE_CASES = 32


def real_pages() -> list[bytes]:
    """The real pages of the extraction dev set (shared/extraction-dev: 900-odd news, blog,
    government and company pages, a quarter neither English nor German), as their bytes."""
    from bench_quality import default_tarball, trafilatura_pages, unpacked

    tarball = default_tarball()
    if tarball is None:
        sys.exit("no shared/extraction-dev/trafilatura-eval.tar.xz beside the repository: use --pages synthetic")
    return [page["body"] for page in trafilatura_pages(unpacked(tarball), None)]


def case_number(text: str) -> int:
    found = re.search(r"year (\d+)", text)
    return int(found.group(1)) if found else 0


def serve(latency: float, pipe, counters, pages_kind: str = "real") -> None:
    """The servers' process: a chat server with latency, a search server, a page server. Case i
    reads page i of the real pages (in turn), or the one synthetic ~150 KB article."""
    from bench_extract import make_article

    from tests.helpers import call
    from tests.servers import ChatServer, PageServer, Reply, SearxServer

    lock = threading.Lock()
    bodies = real_pages() if pages_kind == "real" else [make_article(PAGE_BYTES).encode()]

    def model(request: dict) -> Reply:
        messages = request["messages"]
        with lock:
            counters[0] += 1
            counters[1] += 1
            counters[2] = max(counters[2], counters[1])
        try:
            last = messages[-1]["content"]
            if "=== PAGE START ===" in last:  # the visit's extraction call
                text = json.dumps({"rational": "the page says", "evidence": "energy use grew by two percent",
                                   "summary": "Energy use grew by two percent in 2024."})
            else:
                question = next(m["content"] for m in messages if m["role"] == "user")
                turn = sum(1 for m in messages if m["role"] == "assistant")
                if turn == 0:
                    text = "<think>Search.</think>" + call("search", query=[question[:40]])
                elif turn == 1:
                    url = page_urls[case_number(question) % len(page_urls)]
                    text = "<think>Read it.</think>" + call("visit", url=[url], goal="energy use in 2024")
                else:
                    text = "<think>Enough.</think><answer>Energy use grew by two percent [1].</answer>"
            time.sleep(latency)
            return Reply(text, prompt_tokens=1000, completion_tokens=50)
        finally:
            with lock:
                counters[1] -= 1

    with ChatServer(model) as chat, PageServer() as pages, SearxServer() as searx:
        # the real pages' bytes as published: no charset in the header (the reader decodes them)
        page_urls = [pages.add(f"/page-{n}", body, content_type="text/html") for n, body in enumerate(bodies)]
        searx.responder = lambda q: [{"url": page_urls[case_number(q) % len(page_urls)],
                                      "title": "Global energy use in 2024", "content": "energy"}]
        pipe.send((chat.base_url, searx.url, len(bodies), sum(map(len, bodies)) // len(bodies)))
        pipe.recv()  # until the benchmark is done


def run_eval(urls: tuple, workers: int, concurrency: int, cases: int, data: Path,
             prefix: list[str] | None = None, extra: list[str] | None = None) -> tuple[float, subprocess.CompletedProcess]:
    chat_url, searx_url = urls[:2]
    path = data / "set.jsonl"
    path.write_text("".join(json.dumps({"id": f"case-{i}", "question": f"How much energy in year {i}?",
                                        "expect": ["two percent"]}) + "\n" for i in range(cases)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    env |= {"TUI_AGENT_CONFIG_DIR": str(data / "config"), "TUI_AGENT_DATA_DIR": str(data / "data"),
            "PYTHONPATH": str(ROOT)}
    cmd = [*(prefix or [sys.executable, "-m"]), "tui_agent", "eval", str(path), "--label", "bench", "--json",
           "--workers", str(workers), "--concurrency", str(concurrency), "--model", "openai/test-model",
           "--api-base", chat_url, "--search-backend", "searxng", "--searxng-url", searx_url, "--allow-private-urls",
           *(extra or [])]
    t0 = time.perf_counter()
    cpu0 = _children_cpu()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    proc.cpu_s = _children_cpu() - cpu0  # the eval's CPU, its workers' included (reaped by it)
    return time.perf_counter() - t0, proc


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_span(data: Path) -> float:
    conn = sqlite3.connect(data / "data" / "sessions.sqlite3")
    first, last = conn.execute("SELECT MIN(created), MAX(updated) FROM sessions WHERE eval_label='bench'").fetchone()
    conn.close()
    return last - first


def client_cost(n: int = 20) -> None:
    """What a case's HTTP client used to cost: building the fetch client (web/net.make_client) the
    first time in a process and then again (each one built the certifi SSL contexts anew)."""
    import asyncio

    from tui_agent.config import Settings
    from tui_agent.web.net import make_client

    async def build() -> float:
        t0 = time.perf_counter()
        async with make_client(Settings()):
            pass
        return time.perf_counter() - t0

    first = asyncio.run(build())
    again = sum(asyncio.run(build()) for _ in range(n)) / n
    print(f"fetch client: first in a process {first * 1000:.1f} ms, each further one {again * 1000:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.3, help="seconds each model reply is held")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 32])
    ap.add_argument("--cases-per-slot", type=int, default=6, help="cases = this × concurrency (at least 32)")
    ap.add_argument("--no-stream", action="store_true", help="run the evals with --no-stream")
    ap.add_argument("--pages", choices=["real", "synthetic"], default="real",
                    help="real: case i reads the i-th page of shared/extraction-dev (each case another real "
                         "page); synthetic: every case reads one generated ~150 KB article")
    ap.add_argument("--profile", action="store_true", help="profile one in-process eval (workers 1, concurrency 16)")
    ap.add_argument("--save", type=Path, help="with --profile: keep the cProfile output here")
    ap.add_argument("--client", action="store_true", help="only time building the fetch client")
    ns = ap.parse_args()
    if ns.client:
        return client_cost()
    ctx = multiprocessing.get_context("spawn")
    counters = ctx.Array("i", 3)  # requests, in flight now, most in flight
    parent, child = ctx.Pipe()
    server = ctx.Process(target=serve, args=(ns.latency, child, counters, ns.pages), daemon=True)
    server.start()
    urls = parent.recv()
    try:
        if ns.profile:
            profile(urls, ns.latency, ns.save)
        else:
            table(urls, ns, counters)
    finally:
        parent.send("stop")
        server.join(10)


def table(urls, ns, counters) -> None:
    load = os.getloadavg()
    rows = []
    for concurrency in ns.concurrency:
        for workers in ns.workers:
            cases = max(32, ns.cases_per_slot * concurrency)
            with tempfile.TemporaryDirectory() as tmp:
                with counters.get_lock():
                    counters[0] = counters[2] = 0
                wall, proc = run_eval(urls, workers, concurrency, cases, Path(tmp),
                                      extra=["--no-stream"] if ns.no_stream else None)
                if proc.returncode != 0:
                    sys.exit(f"eval failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
                results = json.loads(proc.stdout)["cases"]
                assert len(results) == cases and all(r["passed"] for r in results), proc.stderr[-2000:]
                span = run_span(Path(tmp))
            calls = counters[0]
            ideal = concurrency / (CALLS_PER_CASE * ns.latency)
            in_flight = calls * ns.latency / span  # each call holds its latency at the server
            rows.append((workers, concurrency, cases, calls / cases, ideal, cases / span, cases / wall, in_flight,
                         proc.cpu_s / cases * 1000))
            print(f"  workers {workers} concurrency {concurrency}: {cases / span:.1f} cases/s", file=sys.stderr)
    pages = (f"another of {urls[2]} real pages per case (mean {urls[3] // 1000} KB)" if ns.pages == "real"
             else f"one synthetic {urls[3] // 1000} KB page")
    print(f"\nmodel latency {ns.latency:.2f} s per call, {CALLS_PER_CASE} calls per case, {pages}"
          f"{', --no-stream' if ns.no_stream else ''}; {os.cpu_count()} cores, load average at start {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")
    print(f"{'workers':>7} {'conc.':>5} {'cases':>5} {'calls/case':>10} {'ideal/s':>8} {'run/s':>6} {'% ideal':>8} "
          f"{'wall/s':>6} {'in flight':>9} {'CPU ms/case':>11}")
    for w, c, n, cpc, ideal, run, wall, flight, cpu in rows:
        print(f"{w:>7} {c:>5} {n:>5} {cpc:>10.1f} {ideal:>8.1f} {run:>6.1f} {run / ideal:>8.0%} {wall:>6.1f} "
              f"{flight:>9.1f} {cpu:>11.0f}")


def profile(urls, latency: float, save: Path | None = None) -> None:
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "eval.prof"
        wall, proc = run_eval(urls, 1, 16, PROFILE_CASES, Path(tmp), prefix=[sys.executable, "-m", "cProfile", "-o", str(out), "-m"])
        if proc.returncode != 0:
            sys.exit(proc.stderr[-3000:])
        span = run_span(Path(tmp))
        print(f"{PROFILE_CASES} cases, workers 1, concurrency 16, latency {latency} s: run {PROFILE_CASES / span:.1f} cases/s, wall {wall:.1f} s")
        if save is not None:
            save.write_bytes(out.read_bytes())
        stats = pstats.Stats(str(out))
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(60)


if __name__ == "__main__":
    main()
