"""CPU per model call of each way to call an OpenAI-compatible server, side by side in one process.

The scripted ``ChatServer`` (tests/servers.py) runs in this process's threads; each client makes
--calls calls of the same reply (a tool call of about 150 characters, streamed in 8-character
chunks: about 22 SSE events, as in ``bench_step_cpu.py``) with a --prompt-chars prompt, and the
figure is the CPU time of the calling thread (``time.thread_time``) per call, after one warm-up
call: the server's CPU is not counted. Rows are interleaved --repeat times; medians.

- ``litellm openai/``: the adapter with ``transport = litellm`` (the OpenAI SDK inside litellm);
- ``litellm hosted_vllm/``: the same through litellm's own OpenAI-compatible handler;
- ``openai SDK``: ``AsyncOpenAI`` alone, chunks read as the adapter reads them;
- ``direct (httpx + httpx-sse)``: the adapter with ``transport = direct`` (tui_agent/model/direct.py);
- ``aiohttp, bare``: aiohttp reading the lines and ``json.loads`` — a floor for an aiohttp
  client (no fault mapping, no timeouts), measured for comparison only.

Run: ``.venv/bin/python benchmarks/bench_model_client.py [--calls 40] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import ChatServer, Reply  # noqa: E402

TEXT = ('<think>Step 7: I need figures for topic 7.</think><tool_call>{"name": "search", "arguments": '
        '{"query": ["energy statistics topic 7"]}}</tool_call>')
Call = Callable[[bool], Awaitable[str]]


def clients(chat: ChatServer, messages: list[dict[str, str]]) -> dict[str, Call]:
    from tui_agent.config import Settings
    from tui_agent.model.llm import LLM

    def adapter(model: str, transport: str) -> Call:
        llms = {s: LLM(Settings(model=model, api_base=chat.base_url, transport=transport, stream=s))
                for s in (True, False)}

        async def call(stream: bool) -> str:
            return (await llms[stream].complete(messages, on_delta=lambda _t, _r: None)).text
        return call

    def sdk() -> Call:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=chat.base_url, api_key="none", max_retries=0)

        async def call(stream: bool) -> str:
            if not stream:
                resp = await client.chat.completions.create(model="test-model", messages=messages)  # type: ignore[arg-type]
                return resp.choices[0].message.content or ""
            parts = []
            async for chunk in await client.chat.completions.create(
                    model="test-model", messages=messages, stream=True,  # type: ignore[arg-type]
                    stream_options={"include_usage": True}):
                if chunk.choices and chunk.choices[0].delta.content:
                    parts.append(chunk.choices[0].delta.content)
            return "".join(parts)
        return call

    def bare_aiohttp() -> Call:
        import aiohttp

        session: list[Any] = []
        url = chat.base_url + "/chat/completions"

        async def call(stream: bool | None) -> str:
            if stream is None:  # the end: close the session
                return await session[0].close() if session else ""
            if not session:
                session.append(aiohttp.ClientSession())
            body = {"model": "test-model", "messages": messages, "stream": stream}
            async with session[0].post(url, json=body) as resp:
                if not stream:
                    return json.loads(await resp.read())["choices"][0]["message"]["content"]
                parts = []
                async for line in resp.content:
                    if line.startswith(b"data: ") and line[6:].strip() != b"[DONE]":
                        choices = json.loads(line[6:]).get("choices")
                        if choices and choices[0]["delta"].get("content"):
                            parts.append(choices[0]["delta"]["content"])
                return "".join(parts)
        return call

    bare = bare_aiohttp()
    return {
        "litellm openai/": adapter("openai/test-model", "litellm"),
        "litellm hosted_vllm/": adapter("hosted_vllm/test-model", "litellm"),
        "openai SDK": sdk(),
        "direct (httpx + httpx-sse)": adapter("openai/test-model", "direct"),
        "aiohttp, bare": bare,
    }


async def measure(call: Call, stream: bool, n: int) -> float:
    """CPU ms of this thread per call."""
    assert (await call(stream)).endswith("</tool_call>")  # warm-up, and the reply is whole
    t0 = time.thread_time()
    for _ in range(n):
        await call(stream)
    return (time.thread_time() - t0) / n * 1e3


async def run(args: argparse.Namespace) -> None:
    messages = [{"role": "system", "content": "x" * args.prompt_chars}, {"role": "user", "content": "go"}]
    with ChatServer(default=Reply(TEXT)) as chat:
        rows = clients(chat, messages)
        got: dict[tuple[str, bool], list[float]] = {(r, s): [] for r in rows for s in (True, False)}
        for _ in range(args.repeat):
            for row, call in rows.items():
                for stream in (True, False):
                    got[(row, stream)].append(await measure(call, stream, args.calls))
        await rows["aiohttp, bare"](None)  # type: ignore[arg-type]
    base = {s: statistics.median(got[("litellm openai/", s)]) for s in (True, False)}
    print(f"CPU per model call of the calling thread (server not counted), {args.calls} calls × {args.repeat}, "
          f"median; load {os.getloadavg()[0]:.1f}")
    head = f"{'client':<28} {'streamed ms':>11} {'× litellm':>9} {'not streamed ms':>15} {'× litellm':>9}"
    print(head)
    print("-" * len(head))
    for row in rows:
        st, ns = statistics.median(got[(row, True)]), statistics.median(got[(row, False)])
        print(f"{row:<28} {st:11.2f} {st / base[True]:9.2f} {ns:15.2f} {ns / base[False]:9.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--prompt-chars", type=int, default=20_000, help="size of the prompt sent with each call")
    asyncio.run(run(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
