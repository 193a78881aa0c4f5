"""The fetch client's transport: a guarded request connects to the address the guard checked.

The guard (:func:`tui_agent.web.net.check_url`) resolves a host name once and checks every
address; it returns a :class:`Pin` (the host and those addresses) that :func:`net.fetch` puts on
the request (extension :data:`PIN`). :class:`GuardedTransport` sends such a request through a
connection pool whose network backend (:class:`PinnedBackend`) connects to the pinned
addresses only, in the resolver's order, and never resolves the name again — so a DNS server
that answers differently the second time (DNS rebinding) is never asked a second time. The URL
is not rewritten: the Host header, the TLS server name (SNI) and the certificate check stay on
the original host name (httpcore takes them from the request's origin).

Pooling: a pinned connection is reused only by another pinned request to the same origin
(scheme, host, port), so every reused connection was opened to an address the guard approved
for that host in this run; requests without a pin (the SearXNG endpoint the user configured)
use a second pool of ordinary connections, and the two never share a connection. A pinned
request whose host has no pin fails closed (a connect error), it is never resolved here.

A request marked :data:`MANUAL_REDIRECTS` also has its Location header taken off a redirect
response and kept in ``response.extensions[HELD_LOCATION]``: httpx parses Location itself even
with ``follow_redirects=False`` and raises on odd targets (``javascript:``, ``http:\\\\host``),
while :func:`net.fetch` wants to read them and refuse them by name.

Environment proxies (``HTTP(S)_PROXY``) are not used by this client: a proxy resolves names
itself, which no pin can cover. ``SSL_CERT_FILE``/``SSL_CERT_DIR`` are honoured.

One SSL context serves every client of a process (:func:`ssl_context`): building one loads the
certifi bundle (~20 ms of CPU), and a client holds two pools, so a client per run used to cost
three of them. The context is built again only when ``SSL_CERT_FILE``/``SSL_CERT_DIR`` change.
"""

from __future__ import annotations

import contextvars
import functools
import os
import ssl
from dataclasses import dataclass
from typing import Iterable

import anyio
import httpcore
import httpx

PIN = "tui_agent.pin"
"""Request extension: the :class:`Pin` whose addresses the connection must use."""
MANUAL_REDIRECTS = "tui_agent.manual_redirects"
"""Request extension: keep a redirect's Location out of httpx's hands (see the module doc)."""
HELD_LOCATION = "tui_agent.location"
"""Response extension: the Location header of a redirect sent with :data:`MANUAL_REDIRECTS`."""
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
HAPPY_EYEBALLS_DELAY_S = 0.25
"""Seconds an attempt on one pinned address gets before the next address is tried alongside it
(RFC 8305, as anyio does for a name): a dead first address costs a quarter second, not the
whole connect timeout."""


@dataclass(frozen=True)
class Pin:
    """A host name (as the request carries it: lower case, IDNA-encoded) and the addresses the
    guard checked for it, in the resolver's order."""

    host: str
    addresses: tuple[str, ...]


_current: contextvars.ContextVar[Pin | None] = contextvars.ContextVar("tui_agent_pin", default=None)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections to the pinned addresses of the request being sent (the families
    interleaved, each attempt given :data:`HAPPY_EYEBALLS_DELAY_S` before the next starts; the
    first to connect wins); TLS is then started by httpcore with the original host name."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable | None = None) -> httpcore.AsyncNetworkStream:
        pin = _current.get()
        if pin is None or pin.host != host or not pin.addresses:
            raise httpcore.ConnectError(f"no address checked by the network guard for {host!r}")
        options = dict(timeout=timeout, local_address=local_address, socket_options=socket_options)
        addresses = interleaved(pin.addresses)
        if len(addresses) == 1:
            return await self._inner.connect_tcp(addresses[0], port, **options)
        won: list[httpcore.AsyncNetworkStream] = []
        failures: list[Exception] = []

        async def attempt(address: str, failed: anyio.Event) -> None:
            try:
                stream = await self._inner.connect_tcp(address, port, **options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failures.append(exc)
                failed.set()
                return
            if won:
                await stream.aclose()
            else:
                won.append(stream)
                group.cancel_scope.cancel()

        async with anyio.create_task_group() as group:
            for address in addresses:
                failed = anyio.Event()
                group.start_soon(attempt, address, failed)
                with anyio.move_on_after(HAPPY_EYEBALLS_DELAY_S):
                    await failed.wait()
        if won:
            return won[0]
        raise failures[-1]

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):  # pragma: no cover
        raise httpcore.ConnectError("unix sockets are not used by the fetch client")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def interleaved(addresses: tuple[str, ...]) -> list[str]:
    """The resolver's order with the first address of the other family moved to second place,
    as RFC 8305 asks (an IPv6 and an IPv4 attempt early, whichever family is broken)."""
    out = list(addresses)
    family = ":" in out[0]
    other = next((i for i, a in enumerate(out) if (":" in a) != family), None)
    if other is not None and other > 1:
        out.insert(1, out.pop(other))
    return out


def ssl_context() -> ssl.SSLContext:
    """The process's SSL context for fetches (certifi, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``)."""
    return _ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context(trust_env=True)  # reads the same two variables


class _PinnedHTTPTransport(httpx.AsyncHTTPTransport):
    def __init__(self, *, limits: httpx.Limits, backend: httpcore.AsyncNetworkBackend) -> None:
        context = ssl_context()
        super().__init__(limits=limits, http2=False, verify=context)
        # httpx builds its pool without a way to choose the network backend: the same pool is
        # built again with the pinned one (httpx 0.28 keeps it in ``_pool``; a test checks it)
        assert isinstance(self._pool, httpcore.AsyncConnectionPool)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=backend,
        )


class GuardedTransport(httpx.AsyncBaseTransport):
    """Pinned requests through the pinned pool, the rest through an ordinary one."""

    def __init__(self, limits: httpx.Limits, backend: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.backend = backend or PinnedBackend()
        self._pinned = _PinnedHTTPTransport(limits=limits, backend=self.backend)
        self._direct = httpx.AsyncHTTPTransport(limits=limits, http2=False, verify=ssl_context())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pin = request.extensions.get(PIN)
        if isinstance(pin, Pin):
            token = _current.set(pin)
            try:  # the connection (if a new one is needed) is opened within this call
                response = await self._pinned.handle_async_request(request)
            finally:
                _current.reset(token)
        else:
            response = await self._direct.handle_async_request(request)
        if request.extensions.get(MANUAL_REDIRECTS) and response.status_code in REDIRECT_STATUSES \
                and "location" in response.headers:
            response.extensions[HELD_LOCATION] = response.headers["location"]
            del response.headers["location"]
        return response

    async def aclose(self) -> None:
        try:
            await self._pinned.aclose()
        finally:
            await self._direct.aclose()
