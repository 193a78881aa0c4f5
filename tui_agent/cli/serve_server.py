"""textual-serve's server with the token in front, a cap on the apps, and no request log.

textual-serve's ``Server`` runs the routes (the page, ``/static``, the websocket that starts one
app process per visit, downloads); this subclass adds the ``TokenGuard`` middleware, counts the
live apps against ``serve_max_apps``, builds the page's websocket URL from the request (the host
the browser used, https behind a TLS proxy that says so), and runs aiohttp without its access log:
the first visit's URL carries the token, and it must never reach a log.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from textual_serve.server import Server

from tui_agent.cli.serve_guard import TokenGuard, refused


class PortInUse(Exception):
    """The port cannot be bound; the message names it (one line)."""


class GuardedServer(Server):
    def __init__(self, command: str, *, host: str, port: int, token: str, max_apps: int) -> None:
        super().__init__(command, host=host, port=port, title="tui-agent")
        self.guard = TokenGuard(token, port)
        self.max_apps = max_apps
        self.live = 0  # apps running now (one per open websocket)
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
        if self.live >= self.max_apps:
            return self.busy()
        self.live += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.live -= 1

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
