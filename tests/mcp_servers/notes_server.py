"""A small MCP server of notes, written with the official SDK (``MCPServer``).

    python notes_server.py            # over stdio (the tests start it as a subprocess)
    serve_http()                      # over streamable HTTP on 127.0.0.1, in a thread of the test

Tools: ``find_note`` (a note, or a tool error for an unknown topic), ``wait`` (hangs for the
seconds asked: the call timeout's test), ``crash`` (the server process dies mid-call), and the
notes again as ``notes.lookup/v2`` and under a name of 76 characters (names a provider refuses).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

NOTES = {"hubble": "Edwin Hubble was born on 20 November 1889 in Marshfield, Missouri."}

app = MCPServer("notes", log_level="WARNING")
CALLS: list[str] = []  # the topics asked for (read by the tests that serve HTTP in their own process)


@app.tool()
def find_note(topic: str) -> str:
    """Find the note about a topic (a lowercase word such as 'hubble')."""
    CALLS.append(topic)
    if topic not in NOTES:
        raise ToolError(f"no note about {topic!r}; the notes cover: {', '.join(NOTES)}")
    return NOTES[topic]


@app.tool()
async def wait(seconds: float) -> str:
    """Wait the given seconds, then say so."""
    if os.environ.get("NOTES_PID_FILE"):  # tells the tests the call is under way
        with open(os.environ["NOTES_PID_FILE"] + ".waiting", "w") as fh:
            fh.write("waiting")
    await anyio.sleep(seconds)
    return f"waited {seconds} s"


@app.tool(name="notes.lookup/v2")
def dotted(topic: str) -> str:
    """The same notes under a name with a dot and a slash (allowed by MCP, not by OpenAI's tools)."""
    return "v2: " + find_note(topic)


@app.tool(name="lookup_" + "the_note_about_a_topic_" * 3)
def long_named(topic: str) -> str:
    """The same notes under a name longer than a provider's 64 characters."""
    return "long: " + find_note(topic)


@app.tool()
def crash() -> str:
    """End the server process at once."""
    os._exit(3)


@contextmanager
def serve_http() -> Iterator[str]:
    """Serve the notes over streamable HTTP on 127.0.0.1 (an ephemeral port) in a daemon thread;
    yields the URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app.streamable_http_app(host="127.0.0.1"), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started and thread.is_alive():
            threading.Event().wait(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


if __name__ == "__main__":
    if os.environ.get("NOTES_PID_FILE"):  # the tests check that the server stops with the run
        with open(os.environ["NOTES_PID_FILE"], "w") as fh:
            fh.write(str(os.getpid()))
    if len(sys.argv) > 1 and sys.argv[1] == "--fail":  # a server that cannot start
        sys.stderr.write("notes: the index file is missing\n")
        sys.exit(2)
    app.run()
