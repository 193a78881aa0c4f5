"""Model calls through a LiteLLM Router over failing deployments, the Router's own retries off
against on, side by side in one run (issue 21: "every retry waits out the client's backoff even
when a healthy deployment is free").

Four deployments of one group on 127.0.0.1, each answering after LATENCY_S: one healthy, one
answering 429 (Retry-After 1) to every second request, one answering 500 to every second request,
and one dead (a closed port). CALLS calls of the real adapter (``LLM.complete``: litellm, the
Router, our backoff with the default settings) run CONCURRENCY at a time, once with
``router_retries`` 0 (the Router gives every failure to our backoff, as before issue 21) and once
with the default 3. Printed: calls answered, our retries, and the call time p50 / p90 / max.

    .venv/bin/python benchmarks/bench_router.py [--calls 64] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import ChatServer, Fault, Reply  # noqa: E402

LATENCY_S = 0.3


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def every_other(fault: Fault | None):
    counter = itertools.count()

    def reply(request: dict):
        n = next(counter)
        return fault if fault is not None and n % 2 else Reply("<answer>ok</answer>", delay_s=LATENCY_S)

    return reply


def config_file(bases: list[str]) -> str:
    text = "model_list:\n" + "".join(
        f"  - model_name: group\n    litellm_params: {{model: openai/gpt-4o-mini, api_base: '{b}', api_key: none}}\n"
        for b in bases)
    path = Path(tempfile.mkdtemp()) / "router.yaml"
    path.write_text(text)
    return str(path)


async def measure(config: str, retries: int, calls: int, concurrency: int) -> dict:
    from tui_agent.config import Settings
    from tui_agent.model.llm import LLM, ModelError

    settings = Settings(model="group", router_config=config, router_retries=retries, stream=False)
    gate = asyncio.Semaphore(concurrency)
    times: list[float] = []
    failed = 0
    retried = 0

    def counting(info) -> None:
        nonlocal retried
        retried += 1

    async def one_counted() -> None:
        nonlocal failed
        llm = LLM(settings)
        async with gate:
            t0 = time.perf_counter()
            try:
                await llm.complete([{"role": "user", "content": "hi"}], on_retry=counting)
            except ModelError:
                failed += 1
            times.append(time.perf_counter() - t0)

    started = time.perf_counter()
    await asyncio.gather(*(one_counted() for _ in range(calls)))
    wall = time.perf_counter() - started
    times.sort()
    return {"answered": calls - failed, "retries": retried, "p50": statistics.median(times),
            "p90": times[int(0.9 * (len(times) - 1))], "max": times[-1], "wall": wall}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=64)
    p.add_argument("--concurrency", type=int, default=16)
    ns = p.parse_args()
    with ChatServer(default=every_other(None)) as ok, \
            ChatServer(default=every_other(Fault(status=429, retry_after="1"))) as limited, \
            ChatServer(default=every_other(Fault(status=500))) as failing:
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        config = config_file([ok.base_url, limited.base_url, failing.base_url, dead])
        rows = [(retries, asyncio.run(measure(config, retries, ns.calls, ns.concurrency))) for retries in (0, 3)]
    print(f"{ns.calls} calls, concurrency {ns.concurrency}, {LATENCY_S * 1000:.0f} ms latency; deployments: "
          "healthy, 429 every 2nd, 500 every 2nd, dead")
    print(f"{'router_retries':>14}  {'answered':>8}  {'our retries':>11}  {'p50 s':>6}  {'p90 s':>6}  {'max s':>6}  "
          f"{'wall s':>6}")
    for retries, r in rows:
        print(f"{retries:>14}  {r['answered']:>8}  {r['retries']:>11}  {r['p50']:>6.2f}  {r['p90']:>6.2f}  "
              f"{r['max']:>6.2f}  {r['wall']:>6.1f}")
    base, new = rows[0][1], rows[1][1]
    print(f"p90 ratio (retries 3 / retries 0): {new['p90'] / base['p90']:.2f}")


if __name__ == "__main__":
    main()
