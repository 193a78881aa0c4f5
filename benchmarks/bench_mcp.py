"""What an MCP tool costs next to an in-process tool, side by side in one run: the server's start
(spawn or connect, handshake, tools/list) and one tool call, over stdio and streamable HTTP,
through the same Tool.run the engine calls. The server is tests/mcp_servers/notes_server.py
(the official SDK's MCPServer); HTTP serves it from a thread of this process.

    .venv/bin/python benchmarks/bench_mcp.py [--calls 50] [--starts 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mcp_servers import notes_server  # noqa: E402
from tui_agent.config import Settings  # noqa: E402
from tui_agent.tools.base import OK, Tool, ToolContext, ToolResult  # noqa: E402
from tui_agent.tools.mcp import McpServers  # noqa: E402

SERVER = str(ROOT / "tests" / "mcp_servers" / "notes_server.py")


class LocalNotes(Tool):
    """The same lookup as an in-process tool (the baseline)."""

    name, description = "find_note", "Find the note about a topic."
    parameters = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}

    async def run(self, arguments, ctx):
        return ToolResult(notes_server.NOTES[arguments["topic"]], OK)


async def measure(config: dict | None, calls: int, starts: int) -> tuple[float, float]:
    """(median start s, median call ms); config None: the in-process tool (no start)."""
    settings = Settings(mcp_servers={"notes": config} if config else {})
    ctx = ToolContext(settings=settings, http=None, sources=None)  # type: ignore[arg-type]
    start_times, call_times = [], []
    for _ in range(starts if config else 1):
        servers = McpServers(settings)
        t0 = time.perf_counter()
        tools = {t.name: t for t in await servers.start()} if config else {}
        start_times.append(time.perf_counter() - t0)
        tool = tools.get("mcp__notes__find_note") or LocalNotes()
        for _ in range(calls):
            t0 = time.perf_counter()
            result = await tool.run({"topic": "hubble"}, ctx)
            call_times.append(time.perf_counter() - t0)
            assert result.status == OK, result.text
        await servers.aclose()
    return (statistics.median(start_times) if config else 0.0), statistics.median(call_times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--starts", type=int, default=3)
    ns = ap.parse_args()
    rows = [("in-process tool", asyncio.run(measure(None, ns.calls, 1)))]
    rows.append(("MCP over stdio", asyncio.run(measure({"command": sys.executable, "args": [SERVER]},
                                                       ns.calls, ns.starts))))
    with notes_server.serve_http() as url:
        rows.append(("MCP over streamable HTTP", asyncio.run(measure({"url": url}, ns.calls, ns.starts))))
    base = rows[0][1][1]
    print(f"{'tool':<26} {'start (median s)':>17} {'call (median ms)':>17} {'call / in-process':>18}")
    for label, (start, call) in rows:
        print(f"{label:<26} {start:>17.2f} {call:>17.3f} {call / base:>17,.0f}x")


if __name__ == "__main__":
    main()
