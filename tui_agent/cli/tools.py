"""`tui-agent tools list`: every tool a run would offer the model, where it comes from and its policy.

  tui-agent tools list [--json] [flags]

The built-in tools, the installed plugins' (entry point group ``tui_agent.tools``) and the
configured MCP servers' (started to list their tools, then stopped), each with its source and
its approval policy from ``[tool_policies]`` (ask, allow or deny, and the pattern that set it).
A server or plugin that could not be added is named on stderr and the exit status is 1; bad
usage or configuration exits 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Sequence

from tui_agent.cli.common import CommandParser, add_common, settings_from
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="tui-agent tools", description="The tools a run offers the model.",
                epilog="Exit status: 0 listed, 1 an MCP server or plugin could not be added, 2 bad usage.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    ls = sub.add_parser("list", help="every tool with its source (built-in, plugin, MCP server) and its policy")
    ls.add_argument("--json", action="store_true", help="one JSON object per tool, one per line")
    add_common(ls)
    return p


async def _rows(settings) -> tuple[list[dict[str, str]], list[str]]:
    from tui_agent.agent.tool_policy import policy_for
    from tui_agent.tools import listed_registry

    tools, problems = await listed_registry(settings)
    rows = []
    for name, tool in tools.tools.items():
        policy, pattern = policy_for(name, settings.tool_policies)
        rows.append({"name": name, "source": tools.sources.get(name, "built-in"), "policy": str(policy),
                     "pattern": pattern or "", "description": " ".join(tool.description.split())})
    return rows, problems


def cmd_list(ns: argparse.Namespace) -> int:
    from tui_agent.safety.hygiene import for_terminal, scrub

    settings = settings_from(ns)
    rows, problems = asyncio.run(_rows(settings))
    if ns.json:
        for row in rows:
            # every string terminal-safe and redacted: an MCP description's C1, DEL or U+202E never reaches
            # the terminal, not even inside JSON
            sys.stdout.write(json.dumps(scrub(row, terminal=True), ensure_ascii=False) + "\n")
    else:
        width = max([len(r["name"]) for r in rows] + [4])
        source_width = max([len(r["source"]) for r in rows] + [6])
        sys.stdout.write(f"{'TOOL':<{width}}  {'SOURCE':<{source_width}}  POLICY\n")
        for r in rows:
            by = f' ("{r["pattern"]}")' if r["pattern"] and r["pattern"] != r["name"] else ""
            sys.stdout.write(for_terminal(f"{r['name']:<{width}}  {r['source']:<{source_width}}  {r['policy']}{by}") + "\n")
        if settings.tool_policies:
            sys.stdout.write("\ntool policies (deny wins over every other match, --yes and auto mode included):\n")
            for pattern, policy in settings.tool_policies.items():
                sys.stdout.write(for_terminal(f'  "{pattern}" = "{policy}"') + "\n")
    for text in problems:
        sys.stderr.write(for_terminal(f"tui-agent: {text}") + "\n")
    return EXIT_NO_ANSWER if problems else EXIT_OK


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    return cmd_list(ns)
