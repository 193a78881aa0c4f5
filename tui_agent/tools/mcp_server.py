"""One configured MCP server: started when first needed, called, stopped; every failure named.

The connection (the official ``mcp`` SDK's :class:`mcp.Client`, over stdio or streamable HTTP)
lives in a task of its own, so the SDK's task groups are entered and left in one task whatever
task calls a tool; :meth:`McpServerConnection.aclose` ends that task (the SDK then closes the
server's stdin, waits, and kills the process tree, every wait bounded).

A server that cannot start, stops, answers with an error or does not answer in time raises
:class:`McpUnavailable`, whose message names the server and says what happened; the tool turns
it into an observation. A stdio server's stderr goes to a temporary file (never to the terminal,
which the TUI draws on); when the server fails, the end of it (``mcp_stderr_tail_bytes``, never the
whole file) is read and its last words quoted in the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mcp import Client
    from mcp_types import CallToolResult, Tool as RemoteTool

    from tui_agent.settings.fields import McpServer

STDERR_TAIL_CHARS = 600  # of a failed stdio server's stderr, quoted in the message
LIST_PAGES = 100  # tools/list pages read at most (a paginator that never ends cannot hang a start)
STOP_TIMEOUT_S = 10.0  # for the SDK's bounded shutdown of one server (close stdin, TERM, KILL)


_QUIET = logging.NullHandler()


class McpUnavailable(Exception):
    """An MCP server failed: could not start, stopped, errored or timed out. The message names it."""


def describe(exc: BaseException) -> str:
    """One line for an exception, looking inside the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpServerConnection:
    """One ``[mcp_servers.NAME]`` entry of the settings, connected on demand."""

    def __init__(self, name: str, config: "McpServer", *, start_timeout_s: float,
                 stderr_tail_bytes: int = 65536) -> None:
        self.name, self.config, self.start_timeout_s = name, config, start_timeout_s
        self.stderr_tail_bytes = stderr_tail_bytes
        self.client: "Client | None" = None
        self.tools: list["RemoteTool"] = []
        self.error: str | None = None  # why the last start failed or the connection ended
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._stderr: Any = None

    @property
    def where(self) -> str:
        """The command or URL, as the user configured it (for messages and ``tools list``)."""
        from tui_agent.safety.server_secrets import hidden

        shown = hidden(self.config)  # its tokens are never shown
        if "url" in shown:
            return shown["url"]
        return " ".join([shown.get("command", ""), *shown.get("args", [])])

    @property
    def running(self) -> bool:
        return self.client is not None and self._task is not None and not self._task.done()

    async def start(self) -> list["RemoteTool"]:
        """Connect (once) and list the server's tools; McpUnavailable when it cannot start in time."""
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self.running:
                return self.tools
            await self._reset()
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self._serve(ready, self._stop), name=f"mcp server {self.name}")
            try:
                await asyncio.wait_for(asyncio.shield(ready), self.start_timeout_s)
            except (asyncio.TimeoutError, TimeoutError):
                await self._reset()
                raise self._failed(f"did not start within {self.start_timeout_s:g} s (mcp_start_timeout_s)") from None
            except McpUnavailable:
                await self._reset()
                raise
            return self.tools

    async def _serve(self, ready: "asyncio.Future[None]", stop: asyncio.Event) -> None:
        """The connection's own task: connect, list the tools, wait for ``stop``, disconnect."""
        from mcp import Client

        # The SDK logs transport trouble; with no handler Python would print it on stderr, over the
        # TUI or into the headless trace. Failures reach the user as the messages made here.
        logging.getLogger("mcp").addHandler(_QUIET)
        try:
            async with Client(self._transport(), mode="auto") as client:
                self.tools = await _list_tools(client)
                self.client = client
                ready.set_result(None)
                await stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - a server's failure is reported, never raised into the run
            self.error = describe(exc)
            if not ready.done():
                ready.set_exception(self._failed(f"could not start: {self.error}"))
        finally:
            self.client = None

    def _transport(self) -> Any:
        if "url" in self.config:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.config["url"])
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self._stderr = tempfile.TemporaryFile("w+b")
        params = StdioServerParameters(command=self.config["command"], args=list(self.config.get("args", [])),
                                       env=dict(self.config.get("env", {})) or None, cwd=self.config.get("cwd"))
        return stdio_client(params, errlog=self._stderr)

    def _failed(self, what: str) -> McpUnavailable:
        """The named failure, with the end of the server's stderr when it wrote any."""
        tail = self._stderr_tail()
        return McpUnavailable(f"MCP server '{self.name}' {what}" + (f"; its stderr ends: {tail}" if tail else ""))

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:  # only the end is read: a server may have written gigabytes
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - self.stderr_tail_bytes))
            text = self._stderr.read(self.stderr_tail_bytes).decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        return " ".join(text.split())[-STDERR_TAIL_CHARS:]

    async def call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> "CallToolResult":
        """Call ``tool`` (the server's own name for it), starting the server if needed."""
        from mcp.shared.exceptions import MCPError

        await self.start()
        client = self.client
        if client is None:
            raise self._failed(f"stopped: {self.error or 'the connection ended'}")
        try:
            async with asyncio.timeout(timeout_s):
                return await client.call_tool(tool, arguments)
        except TimeoutError:
            raise McpUnavailable(f"MCP server '{self.name}' did not answer {tool} within {timeout_s:g} s "
                                 f"(mcp_call_timeout_s); the call was cancelled") from None
        except MCPError as exc:
            if not self.running or _connection_lost(exc):
                self.error = describe(exc)
                await self._reset()
                raise self._failed(f"stopped during the call: {self.error}") from None
            raise McpUnavailable(f"MCP server '{self.name}' answered {tool} with an error: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - a transport failure (pipe closed, connection refused)
            self.error = describe(exc)
            await self._reset()
            raise self._failed(f"stopped during the call: {self.error}") from None

    async def _reset(self) -> None:
        """Stop the connection task (if any) and forget it; the stderr file stays for the message."""
        task, stop = self._task, self._stop
        self._task = self._stop = None
        self.client = None
        if task is None:
            return
        if stop is not None:
            stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT_S)
        except BaseException:  # noqa: BLE001 - stopping must finish whatever the task ended with
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def aclose(self) -> None:
        """Stop the server (bounded) and drop its stderr file."""
        await self._reset()
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None


def _connection_lost(exc: Exception) -> bool:
    from mcp_types import CONNECTION_CLOSED

    return getattr(exc, "code", None) == CONNECTION_CLOSED


async def _list_tools(client: "Client") -> list["RemoteTool"]:
    tools, cursor = [], None
    for _ in range(LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools
