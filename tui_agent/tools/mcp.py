"""MCP servers as tools: each tool of a configured server is a regular :class:`Tool` named
``mcp__SERVER__TOOL``, with the server's description and input schema (the single source for the
prompt, argument validation and the approval display, as for the built-in tools).

The servers of ``settings.mcp_servers`` start when a run needs their tool lists (the prompt is
written from them) and stop with the run (:meth:`McpServers.aclose`, also on cancel). A server
that cannot start is left out of the run with a message naming it; a call to one of its tools, a
tool error, a server that stops or a call that hangs past ``mcp_call_timeout_s`` becomes an
observation that says so (status ``failed``), never a traceback or a hang.

A server is outside input: its description and every string of its schema reach the model through
the observation's hygiene (escaped, redacted: :func:`shown_text`); what it may add is capped
(``mcp_max_tools``, ``mcp_max_description_chars``, ``mcp_max_schema_chars``: :func:`offered`, with a
warning naming it); the secrets its table hands it (``env``, ``args``, ``url``) are the redactor's
known values from the moment the servers are set up (:mod:`tui_agent.safety.server_secrets`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from tui_agent.safety import hygiene, redaction, server_secrets
from tui_agent.tools.base import FAILED, OK, Tool, ToolContext, ToolResult
from tui_agent.tools.mcp_server import McpServerConnection, McpUnavailable

if TYPE_CHECKING:  # pragma: no cover
    from mcp_types import CallToolResult, Tool as RemoteTool

    from tui_agent.config import Settings

PREFIX = "mcp__"
CALL_TIMEOUT_MARGIN_S = 5.0  # over the tool's own bounds (which name the server), for the engine's outer one


NAME_LIMIT = 64
"""Characters of a tool name a provider takes (OpenAI's and Anthropic's tools: ``^[a-zA-Z0-9_-]{1,64}$``)."""
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """The name the model calls: ``mcp__SERVER__TOOL`` (Claude Code's convention). A character a
    provider refuses in a name (MCP allows dots and slashes) becomes ``_``; a name over NAME_LIMIT
    keeps its start and ends in a hash of the tool's own name, so two long names stay two."""
    name = f"{PREFIX}{server}__{_NOT_NAME.sub('_', tool) or 'tool'}"
    if len(name) > NAME_LIMIT:
        digest = hashlib.sha1(tool.encode("utf-8")).hexdigest()[:8]
        name = f"{name[:NAME_LIMIT - 9]}_{digest}"
    return name


class McpTool(Tool):
    """One tool of an MCP server, called through the server's connection."""

    def __init__(self, server: McpServerConnection, remote: "RemoteTool") -> None:
        self.server, self.remote_name = server, remote.name
        self.name = tool_name(server.name, remote.name)  # type: ignore[misc] - per instance here
        description = remote.description or f"Tool {remote.name} of the MCP server {server.name}."
        self.description = shown_text(description).strip()  # type: ignore[misc]
        self.parameters = dict(remote.input_schema or {"type": "object"})  # type: ignore[misc] - validation's
        self.source = f"MCP server {server.name}"

    def schema(self) -> dict[str, Any]:
        """What the model is told (the prompt, native ``tools``): the description and every string of
        the input schema escaped and redacted like an observation (validation keeps the schema as sent)."""
        return {"name": self.name, "description": self.description, "parameters": shown_schema(self.parameters)}

    def timeout_s(self, settings: "Settings") -> float:
        """The engine's outer bound: a restart of a stopped server, then the call, each bounded here."""
        return settings.mcp_start_timeout_s + settings.mcp_call_timeout_s + CALL_TIMEOUT_MARGIN_S

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not self.server.running:
            ctx.progress(f"starting MCP server {self.server.name}")
        try:
            result = await self.server.call(self.remote_name, arguments, ctx.settings.mcp_call_timeout_s)
        except McpUnavailable as exc:
            ctx.progress(str(exc))
            return ToolResult(f"Error: {exc}. Use another tool or answer.", FAILED)
        text = result_text(result)
        if result.is_error:
            ctx.progress(f"MCP server {self.server.name}: {self.remote_name} reported an error")
            return ToolResult(f"Error from the MCP server '{self.server.name}' ({self.remote_name}): {text}", FAILED)
        return ToolResult(text or "(the tool returned nothing)", OK)


def shown_text(text: str) -> str:
    """A server's text as the model may read it: the observation's hygiene without its size cut
    (strip_controls → redact → escape_tags)."""
    return hygiene.escape_tags(hygiene.redact(hygiene.strip_controls(text)))


def shown_schema(schema: Any) -> Any:
    """Every string of a schema (keys too) through :func:`shown_text`."""
    if isinstance(schema, str):
        return shown_text(schema)
    if isinstance(schema, dict):
        return {shown_text(str(k)): shown_schema(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [shown_schema(v) for v in schema]
    return schema


def offered(server: str, remotes: list["RemoteTool"], settings: "Settings") -> tuple[list["RemoteTool"], list[str]]:
    """The tools of a server a run offers, within mcp_max_tools, mcp_max_description_chars and
    mcp_max_schema_chars; and a warning naming the server for each kind of tool left out."""
    kept, too_long, too_large = [], [], []
    for remote in remotes:
        if len(remote.description or "") > settings.mcp_max_description_chars:
            too_long.append(remote.name)
        elif len(json.dumps(remote.input_schema or {}, ensure_ascii=False)) > settings.mcp_max_schema_chars:
            too_large.append(remote.name)
        else:
            kept.append(remote)
    warnings = []
    if too_long:
        warnings.append(f"MCP server '{server}': {len(too_long)} tool(s) left out, their description is over "
                        f"{settings.mcp_max_description_chars} characters (mcp_max_description_chars): "
                        + ", ".join(too_long[:5]) + (", …" if len(too_long) > 5 else ""))
    if too_large:
        warnings.append(f"MCP server '{server}': {len(too_large)} tool(s) left out, their input schema is over "
                        f"{settings.mcp_max_schema_chars} characters (mcp_max_schema_chars): "
                        + ", ".join(too_large[:5]) + (", …" if len(too_large) > 5 else ""))
    if len(kept) > settings.mcp_max_tools:
        warnings.append(f"MCP server '{server}' lists {len(kept)} tools; only the first {settings.mcp_max_tools} "
                        f"are offered (mcp_max_tools)")
        kept = kept[:settings.mcp_max_tools]
    return kept, warnings


def result_text(result: "CallToolResult") -> str:
    """A tool result as text: text blocks as they are, other blocks named, else the structured content."""
    parts: list[str] = []
    for block in result.content:
        match block.type:
            case "text":
                parts.append(block.text)
            case "resource":
                res = block.resource
                text = getattr(res, "text", None)
                parts.append(text if text is not None else f"[binary resource {res.uri} ({res.mime_type or 'unknown type'})]")
            case "resource_link":
                parts.append(f"[resource link {block.uri}" + (f": {block.name}]" if block.name else "]"))
            case "image" | "audio":
                parts.append(f"[{block.type} ({block.mime_type}) left out: only text is passed to the model]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n\n".join(parts)


class McpServers:
    """The configured MCP servers of one run (or of ``tui-agent tools list``)."""

    def __init__(self, settings: "Settings") -> None:
        self.settings = settings
        self.connections = {name: McpServerConnection(name, config, start_timeout_s=settings.mcp_start_timeout_s,
                                                      stderr_tail_bytes=settings.mcp_stderr_tail_bytes)
                            for name, config in settings.mcp_servers.items()}
        self.problems: dict[str, str] = {}  # server name -> why it is not part of the run
        self.warnings: list[str] = []  # tools left out of a server that started (over the caps)
        # The secrets a server is handed (env, args, url) are known to the redactor from now on:
        # echoed in a result or its stderr, they never reach the model, the store or a terminal.
        redaction.add_known_values(v for config in settings.mcp_servers.values()
                                   for v in server_secrets.secret_values(config))

    async def start(self) -> list[McpTool]:
        """Start every server at once and return their tools; a server that cannot start is
        recorded in ``problems`` (its message names it) and left out."""
        names = list(self.connections)
        listed = await asyncio.gather(*(self.connections[n].start() for n in names), return_exceptions=True)
        tools: list[McpTool] = []
        for name, result in zip(names, listed):
            if isinstance(result, BaseException):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                self.problems[name] = str(result) if isinstance(result, McpUnavailable) else (
                    f"MCP server '{name}' could not start: {type(result).__name__}: {result}")
                continue
            kept, warnings = offered(name, result, self.settings)
            self.warnings += warnings
            tools += [McpTool(self.connections[name], remote) for remote in kept]
        return tools

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.connections.values()), return_exceptions=True)
