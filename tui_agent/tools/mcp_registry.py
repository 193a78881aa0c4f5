"""The tools of a run: the built-in ones, the plugins' and the MCP servers', in one registry.

:class:`RunTools` is a :class:`ToolRegistry` whose MCP tools join when :meth:`RunTools.open` has
started the servers (the prompt is written from their tool lists), and whose servers stop with
:meth:`RunTools.aclose`. ``sources`` says where each tool comes from (``tui-agent tools list``);
``problems`` are the messages, each naming its server or plugin, for what could not be added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.tools.base import Tool, ToolRegistry
from tui_agent.tools.mcp import McpServers
from tui_agent.tools.schema_check import schema_problem

if TYPE_CHECKING:  # pragma: no cover
    from tui_agent.config import Settings

BUILT_IN = "built-in"


class RunTools(ToolRegistry):
    def __init__(self, tools: list[Tool], settings: "Settings", *, sources: dict[str, str] | None = None,
                 problems: list[str] | None = None) -> None:
        super().__init__([])
        self.sources: dict[str, str] = {}
        self.problems = list(problems or [])
        for tool in tools:
            self._add(tool, (sources or {}).get(tool.name, BUILT_IN))
        self.mcp = McpServers(settings)
        self._opened = False

    async def open(self) -> list[str]:
        """Start the MCP servers and add their tools; the messages for everything left out."""
        if not self._opened:
            self._opened = True
            for tool in await self.mcp.start():
                if tool.name in self.tools:
                    self.problems.append(f"MCP server '{tool.server.name}': the tool {tool.name} is already taken; "
                                         "left out")
                    continue
                self._add(tool, tool.source)
            self.problems += self.mcp.warnings
            self.problems += self.mcp.problems.values()
        return list(self.problems)

    def _add(self, tool: Tool, source: str) -> None:
        """Offer ``tool`` unless its schema cannot be applied (tools.schema_check): then a warning."""
        problem = schema_problem(tool.parameters or {"type": "object"})
        if problem is not None:
            self.problems.append(f"{source}: the tool {tool.name} is left out: its input schema {problem}")
            return
        self.tools[tool.name] = tool
        self.sources[tool.name] = source

    def left_out(self) -> list[str]:
        """Why tools the model may expect are missing: the MCP servers that could not start (the
        parser's unknown-tool message quotes these, protocol.toolset)."""
        return list(self.mcp.problems.values())

    async def aclose(self) -> None:
        """Stop every MCP server this registry started (bounded; safe to call twice)."""
        await self.mcp.aclose()
