"""`tui-agent serve`: the TUI in a browser tab (textual-serve), behind a token.

Each visit's websocket starts the same app as the terminal in its own process (``python -m
tui_agent`` with the settings flags given to ``serve``: the same data directory, config and model),
drawn by Textual's web driver. The token (``serve_guard``) guards the page, its static files and
the websocket; it is never handed to the apps, so it never reaches a session or their output.
``serve_max_apps`` caps the apps running at once. Closing a tab ends its app: a live run is
marked interrupted (``app.served``) and stays resumable.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import os
import secrets
import shlex
import signal
import socket
import sys
from typing import Any, Sequence

from tui_agent.cli.common import UsageError, add_common, add_setting_flags, settings_from

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
# serve's own flags: never handed to the apps (the token above all).
OWN_FLAGS = ("--host", "--port", "--token")
# The TUI's front-end flags serve hands on (with every common flag).
APP_FLAGS = ("auto_approve", "breakpoint", "theme", "notify", "plan")
TLS_HOWTO = ("put TLS in front and keep --host 127.0.0.1: an SSH tunnel (ssh -L 8000:127.0.0.1:8000 HOST, "
             "then open the URL on your machine) or an HTTPS reverse proxy "
             "(caddy reverse-proxy --from agent.example.com --to 127.0.0.1:8000)")


# What textual-serve puts in TEXTUAL_DRIVER, and ours (app/served.py) in its place.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
SERVED_DRIVER = "tui_agent.app.served:ServedDriver"


def use_served_driver(env: Any = os.environ) -> bool:
    """Started by textual-serve (its web driver named in TEXTUAL_DRIVER): use ours, which marks a
    live run interrupted when the tab closes. True when the app is served. Called before Textual
    is imported (it reads the variable once, when ``textual.constants`` loads)."""
    if env.get("TEXTUAL_DRIVER") not in (WEB_DRIVER, SERVED_DRIVER):
        return False
    env["TEXTUAL_DRIVER"] = SERVED_DRIVER
    return True


def build_parser() -> argparse.ArgumentParser:
    from tui_agent.cli.common import CommandParser

    p = CommandParser(prog="tui-agent serve", allow_abbrev=False, description=(
        "Serve the TUI in a browser: each visit runs the app in its own process with these settings, "
        "behind a token. Ctrl-C stops the server and its apps (live runs are marked interrupted)."))
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}); another than loopback is plain HTTP")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: a free one)")
    p.add_argument("--token", help="the token the URL and the cookie must carry (default: a random one)")
    add_setting_flags(p, *APP_FLAGS)
    add_common(p)
    return p


# Secret flags reach the apps in their environment (the settings' TUI_AGENT_* layer, which a flag
# would outrank the same way), not on their command lines, which `ps` shows to every user.
SECRET_FLAGS = {"--api-key": "TUI_AGENT_API_KEY"}


def app_arguments(argv: Sequence[str], secrets_out: dict[str, str] | None = None) -> list[str]:
    """The command line without serve's own flags: what every app gets. Secret flags are left out
    and put in ``secrets_out`` (environment variable -> value)."""
    out: list[str] = []
    skip: str | None = None
    for arg in argv:
        if skip is not None:
            if skip in SECRET_FLAGS and secrets_out is not None:
                secrets_out[SECRET_FLAGS[skip]] = arg
            skip = None
            continue
        name, eq, value = arg.partition("=")
        if name in OWN_FLAGS or name in SECRET_FLAGS:
            if not eq:
                skip = name
            elif name in SECRET_FLAGS and secrets_out is not None:
                secrets_out[SECRET_FLAGS[name]] = value
            continue
        out.append(arg)
    return out


def app_command(argv: Sequence[str], secrets_out: dict[str, str] | None = None) -> str:
    """The shell command textual-serve runs per visit (``exec``: the shell becomes the app, so the
    app is the process that gets the server's signals and its end is the process's end)."""
    return "exec " + shlex.join([sys.executable, "-m", "tui_agent", *app_arguments(argv, secrets_out)])


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shown_host(host: str) -> str:
    """The host for the printed URL: the machine's name for an address on every interface."""
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def main(argv: Sequence[str]) -> int:
    argv = list(argv)
    ns = build_parser().parse_args(argv)
    settings = settings_from(ns)  # a bad flag or config is an error now, not in every browser tab
    if not 0 <= ns.port <= 65535:
        raise UsageError(f"serve: --port {ns.port} is not a port (0-65535)")
    token = ns.token if ns.token is not None else secrets.token_urlsafe(24)
    if not token.strip():
        raise UsageError("serve: --token must not be empty")
    from tui_agent.cli.serve_server import GuardedServer, PortInUse

    secret_env: dict[str, str] = {}
    command = app_command(argv, secret_env)
    os.environ.update(secret_env)  # textual-serve starts each app with this process's environment
    server = GuardedServer(command, host=ns.host, port=ns.port, token=token,
                           max_apps=settings.serve_max_apps)
    if not is_loopback(ns.host):
        sys.stderr.write(f"warning: serving on {ns.host}: the traffic (the token, questions, answers, approvals) is "
                         f"plain HTTP that anyone on the network path can read; {TLS_HOWTO}\n")
    try:
        asyncio.run(serve_until_stopped(server, ns.host))
    except PortInUse as exc:
        raise UsageError(str(exc)) from None
    return 0


async def serve_until_stopped(server: Any, host: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    port = await server.start()
    sys.stdout.write(f"tui-agent serve: open http://{shown_host(host)}:{port}/?token={server.guard.token}\n"
                     f"  each visit runs the app (at most {server.max_apps} at once); Ctrl-C stops the server "
                     f"and its apps\n")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        sys.stdout.write("tui-agent serve: stopping (open tabs' apps are closed; live runs are marked interrupted)\n")
        sys.stdout.flush()
        await server.stop()


def port_problem(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"serve: port {port} on {host} is in use; choose another with --port"
    return f"serve: cannot listen on {host}:{port}: {exc.strerror or exc}"
