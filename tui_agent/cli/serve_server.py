"""textual-serve's server with the token in front, a cap on the apps, and no request log.

textual-serve's ``Server`` runs the routes (the page, ``/static``, the websocket that starts one
app process per visit, downloads); this subclass adds the ``TokenGuard`` middleware, counts the
live apps against ``serve_max_apps``, builds the page's websocket URL from the request (the host
the browser used, https behind a TLS proxy that says so), and runs aiohttp without its access log:
the first visit's URL carries the token, and it must never reach a log.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, log, to_int

from tui_agent.cli.serve_guard import TokenGuard, refused


# Seconds the server waits, when stopped, for the apps of open tabs to end.
SHUTDOWN_WAIT_S = 20.0


class PortInUse(Exception):
    """The port cannot be bound; the message names it (one line)."""


class GuardedServer(Server):
    def __init__(self, command: str, *, host: str, port: int, token: str, max_apps: int) -> None:
        super().__init__(command, host=host, port=port, title="tui-agent")
        self.guard = TokenGuard(token, port)
        self.max_apps = max_apps
        self.live = 0  # apps running now (one per open websocket)
        self.sockets: set[web.WebSocketResponse] = set()
        self._runner: web.AppRunner | None = None

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.guard.middleware)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner with the app's command here; ours prints the URL (cli.serve)."""

    # -- the routes ------------------------------------------------------------------------------------
    def busy(self) -> web.Response:
        return refused(503, f"All {self.max_apps} apps this server runs at once (serve_max_apps) are in use: "
                            "close a tab that shows one, then reload this page.")

    async def handle_index(self, request: web.Request) -> Any:
        if self.live >= self.max_apps:
            return self.busy()
        # No await from here to the page's rendering: the URL is this request's.
        proto = request.headers.get("X-Forwarded-Proto", request.scheme).split(",")[0].strip()
        self.public_url = f"{'https' if proto == 'https' else 'http'}://{request.host}"
        response = await super().handle_index(request)
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's handler (one app per websocket), with the cap, and each websocket kept so
        that stopping the server closes them first (``on_shutdown``): their apps get the quit a
        closed tab sends, at once, rather than after aiohttp's shutdown timeout."""
        if self.live >= self.max_apps:
            return self.busy()
        websocket = web.WebSocketResponse(heartbeat=15)
        width, height = to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
        self.live += 1
        self.sockets.add(websocket)
        app_service: AppService | None = None
        try:
            await websocket.prepare(request)
            app_service = AppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=websocket.close, download_manager=self.download_manager, debug=self.debug)
            await app_service.start(width, height)
            await self._process_messages(websocket, app_service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # noqa: BLE001 - as textual-serve: logged, the socket closed
            log.exception(error)
        finally:
            self.sockets.discard(websocket)
            try:
                if app_service is not None:
                    await app_service.stop()  # the app's quit, then its end
            finally:
                self.live -= 1
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every tab's websocket and wait (at most SHUTDOWN_WAIT_S) until their apps have
        closed their output (the processes end a moment later, once Python has shut down)."""
        for websocket in list(self.sockets):
            await websocket.close()
        deadline = asyncio.get_running_loop().time() + SHUTDOWN_WAIT_S
        while self.live and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)

    # -- running ---------------------------------------------------------------------------------------
    async def start(self) -> int:
        """Listen; the port bound (``--port 0`` picks a free one). PortInUse when it cannot."""
        from tui_agent.cli.serve import port_problem

        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise PortInUse(port_problem(self.host, self.port, exc)) from None
        self._runner = runner
        sockets = [s for s in (getattr(site._server, "sockets", None) or [])]  # noqa: SLF001
        if sockets:
            self.port = sockets[0].getsockname()[1]
            self.guard.set_port(self.port)
        return self.port

    async def stop(self) -> None:
        """Close every websocket (each app gets textual-serve's quit, as when its tab closes) and stop."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
