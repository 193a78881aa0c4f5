"""The token in front of ``tui-agent serve`` (textual-serve has no authentication of its own).

Jupyter's scheme: the URL the server prints carries ``?token=…``; the first visit with it sets a
cookie (HttpOnly, SameSite=Strict, named after the port) and is redirected to the same page without
the token, so it leaves the address bar and the browser's history. Every request — the page, its
static files, the websocket, downloads — needs the right token in the URL or in the cookie: none is
401, a wrong one 403. Tokens are compared in constant time. A websocket opened from another site's
page (its ``Origin`` names another host) is refused too, whatever cookie the browser sends along.
"""

from __future__ import annotations

import hmac
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

TOKEN_PARAM = "token"
NO_TOKEN = "This tui-agent server needs its token: open the URL that `tui-agent serve` printed (…/?token=…)."
WRONG_TOKEN = "Wrong token: open the URL that `tui-agent serve` printed (…/?token=…)."

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def same_token(given: str, token: str) -> bool:
    """Constant-time comparison (as bytes: any text a browser sends compares without an error)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("utf-8"))


def refused(status: int, text: str) -> web.Response:
    body = f"<!doctype html><title>tui-agent</title><p>{text}</p>\n"
    return web.Response(status=status, text=body, content_type="text/html",
                        headers={"Cache-Control": "no-store"})


class TokenGuard:
    def __init__(self, token: str, port: int) -> None:
        self.token = token
        # Cookies are not kept apart by port: two servers on one host keep their own.
        self.cookie = f"tui_agent_token_{port}"

    def set_port(self, port: int) -> None:
        """The port really bound (``--port 0`` asks the system for one)."""
        self.cookie = f"tui_agent_token_{port}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        given = request.query.get(TOKEN_PARAM)
        from_url = given is not None
        if given is None:
            given = request.cookies.get(self.cookie)
        if given is None:
            return refused(401, NO_TOKEN)
        if not same_token(given, self.token):
            return refused(403, WRONG_TOKEN)
        if request.headers.get("Upgrade", "").lower() == "websocket" and not self.same_origin(request):
            return refused(403, "A websocket from another site's page is refused.")
        if from_url and request.method == "GET" and request.path == "/":
            # The first visit: the cookie from now on, and the token out of the address bar.
            query = request.rel_url.query.copy()
            query.popall(TOKEN_PARAM)
            response = web.HTTPSeeOther(request.rel_url.with_query(query))
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/",
                                secure=request.scheme == "https")
            response.headers["Cache-Control"] = "no-store"
            raise response
        return await handler(request)

    @staticmethod
    def same_origin(request: web.Request) -> bool:
        """No Origin (not a browser) or an Origin on this host:port (what the page itself sends)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        return urlsplit(origin).netloc.lower() == (request.host or "").lower()
