"""Research tools: search and visit, plugins' tools and MCP servers' tools, behind the interface
in :mod:`tui_agent.tools.base`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.tools.base import ToolRegistry

if TYPE_CHECKING:  # pragma: no cover
    from tui_agent.config import Settings
    from tui_agent.tools.mcp_registry import RunTools


def build_registry(settings: "Settings") -> "RunTools":
    """The tools of a run: the built-in ones, then the installed plugins' (tools.plugins); the MCP
    servers' tools join when the run opens the registry (``await registry.open()``)."""
    from tui_agent.tools.mcp_registry import RunTools
    from tui_agent.tools.plugins import load_plugins
    from tui_agent.tools.search import SearchTool
    from tui_agent.tools.visit import VisitTool

    built_in = [SearchTool(), VisitTool()]
    plugins = load_plugins({t.name for t in built_in})
    return RunTools([*built_in, *plugins.tools], settings, sources=plugins.sources, problems=plugins.problems)


async def open_registry(tools: ToolRegistry) -> list[str]:
    """Start what a registry needs before its tools are known (MCP servers); the messages, each
    naming its server or plugin, for what was left out."""
    from tui_agent.tools.mcp_registry import RunTools

    return await tools.open() if isinstance(tools, RunTools) else []


async def close_registry(tools: ToolRegistry) -> None:
    """Stop what :func:`open_registry` started."""
    from tui_agent.tools.mcp_registry import RunTools

    if isinstance(tools, RunTools):
        await tools.aclose()


async def listed_registry(settings: "Settings") -> tuple["RunTools", list[str]]:
    """A run's registry with its MCP servers' tools listed and the servers stopped again (for the
    commands that show the tools and start no run); and the messages for what was left out."""
    tools = build_registry(settings)
    try:
        problems = await open_registry(tools)
    finally:
        await close_registry(tools)
    return tools, problems
