"""The network boundary: the one place a model-chosen URL is checked and fetched.

:func:`~tui_agent.web.guard.check_url` (web/guard.py) is the SSRF guard: http/https only; every address a host name resolves to
(or the literal address) must be public — no loopback, private, link-local (169.254.169.254,
the cloud metadata address, included), CGNAT, multicast, reserved or unspecified address, in
IPv4 or IPv6, nor an IPv4 address embedded in IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
Teredo) that is one of those. ``--allow-private-urls`` lifts the address rule (never the scheme
rule), and every refusal of an address says so. A host name is resolved once, by
:func:`resolve`; the guard returns what it checked as a :class:`~tui_agent.web.transport.Pin`.

:func:`fetch` follows redirects itself so each hop passes the guard again, and connects each hop
to the addresses that hop's check approved (the pinned transport of
:mod:`tui_agent.web.transport`: the name is not resolved a second time, so DNS rebinding cannot
swap in another address; Host, TLS server name and certificate check stay on the name). A
redirect to anything but a valid http(s) URL is refused with a message that names the target.
The body is read raw and decoded by :mod:`tui_agent.web.decode`, counting decoded bytes up to
the cap (a decompression bomb stops there; stacked or unknown compressions are refused), and
the whole fetch is bounded in time. Endpoints the user configured (the model API, SearXNG) do
not go through here.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping
from urllib.parse import urlsplit

import httpx

from tui_agent.web import decode
from tui_agent.web.addresses import blocked_reason, embedded_ipv4, parse_ip  # noqa: F401 - the guard's API
from tui_agent.web.guard import (  # noqa: F401 - the guard's API, used with the fetch
    _SCHEME, ALLOW_FLAG, ALLOWED_SCHEMES, FetchError, Guard, GuardError, check_url, resolve,
)
from tui_agent.web.transport import HELD_LOCATION, MANUAL_REDIRECTS, PIN, REDIRECT_STATUSES, GuardedTransport, Pin

if TYPE_CHECKING:  # pragma: no cover
    from tui_agent.config import Settings

# A browser-like identity: some sites refuse clients that announce themselves as scripts.
USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
DEFAULT_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.9,"
              "text/plain;q=0.8,application/json;q=0.8,*/*;q=0.5",
    "Accept-Language": "en-US,en;q=0.9",
    # only what tui_agent.web.decode decodes with a bound on its output
    "Accept-Encoding": decode.ACCEPT_ENCODING,
}
class EncodingError(FetchError):
    """The server answered, but its body's Content-Encoding is not decoded (stacked layers, an
    unknown compression) or does not decode. The server's fault, not the tool's: the visit tool
    reports it as a page without text (status ok), like a binary file."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "encoding")


@dataclass
class FetchResult:
    url: str
    final_url: str
    status: int
    content_type: str | None
    headers: Mapping[str, str]
    body: bytes
    truncated: bool
    elapsed_s: float
    # every URL of the redirect chain, the requested one first and final_url last
    chain: list[str] = field(default_factory=list)
    # set when the body ended early for another reason than the cap (connection lost mid-body)
    incomplete: str | None = None
    # bytes the content decoder produced, the cut-off part of its last piece included: at most
    # the cap plus one piece (decode.PIECE_BYTES), however far the body would have inflated
    decoded_bytes: int = 0

    @property
    def reason(self) -> str:
        from http import HTTPStatus

        try:
            return HTTPStatus(self.status).phrase
        except ValueError:
            return ""


# --- the client and the fetch -----------------------------------------------------------------


CLIENT_LIMITS = httpx.Limits(max_connections=20, max_keepalive_connections=10)
"""Connections of the run's client (per pool: pinned fetches and other requests)."""


def make_client(settings: "Settings", runs: int = 1) -> httpx.AsyncClient:
    """The HTTP client of one run (or of ``runs`` runs at once sharing it, each with the
    connections of one): browser-like headers, no automatic redirects, HTTP/1.1, and
    the pinned transport (:class:`~tui_agent.web.transport.GuardedTransport`), which connects a
    fetched URL to the addresses its guard check approved. No environment proxies (see there)."""
    limits = CLIENT_LIMITS if runs <= 1 else httpx.Limits(
        max_connections=CLIENT_LIMITS.max_connections * runs,
        max_keepalive_connections=CLIENT_LIMITS.max_keepalive_connections * runs)
    return httpx.AsyncClient(
        follow_redirects=False,
        http2=False,
        headers=DEFAULT_HEADERS,
        timeout=_timeout(settings),
        transport=GuardedTransport(limits),
    )


def _timeout(settings: "Settings") -> httpx.Timeout:
    return httpx.Timeout(
        connect=settings.visit_connect_timeout_s,
        read=settings.visit_read_timeout_s,
        write=settings.visit_read_timeout_s,
        pool=settings.visit_connect_timeout_s,
    )


def human_bytes(n: int) -> str:
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MB"
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    settings: "Settings",
    *,
    guard: Guard | None = None,
    max_bytes: int | None = None,
    total_timeout_s: float | None = None,
) -> FetchResult:
    """GET ``url``, following redirects by hand with every hop checked by ``guard``.

    ``guard`` defaults to :func:`check_url` with ``settings.allow_private_urls``. The body is
    read as a stream and stopped at ``max_bytes`` (default ``settings.visit_max_bytes``), with
    ``truncated=True``. The whole fetch is bounded by ``total_timeout_s`` (default
    ``settings.visit_total_timeout_s``) on top of the client's connect and read timeouts.
    HTTP error statuses are returned, not raised; everything else raises :class:`FetchError`.
    """
    if guard is None:
        allow = settings.allow_private_urls

        async def guard(u: str) -> Pin:
            return await check_url(u, allow)

    cap = settings.visit_max_bytes if max_bytes is None else max_bytes
    limit = settings.visit_total_timeout_s if total_timeout_s is None else total_timeout_s
    start = time.monotonic()
    try:
        async with asyncio.timeout(limit):
            return await _fetch(client, url, settings, guard, cap, start)
    except TimeoutError:
        raise FetchError(
            f"Timed out fetching {url}: no complete answer within {limit:g} s.", "timeout"
        ) from None


async def _fetch(client, url, settings, guard, cap, start) -> FetchResult:
    chain = [url]
    current = url
    timeout = _timeout(settings)
    for hop in range(settings.visit_max_redirects + 1):
        pin = await guard(current)
        extensions = {MANUAL_REDIRECTS: True}
        if isinstance(pin, Pin):
            extensions[PIN] = pin
        try:
            request = client.build_request("GET", current, timeout=timeout, extensions=extensions)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError, UnicodeError) as exc:
            raise GuardError(f"Refused to fetch {current!r}: not a valid URL ({exc}).") from None
        try:
            response = await client.send(request, stream=True, follow_redirects=False)
        except httpx.HTTPError as exc:
            raise _as_fetch_error(exc, current) from None
        except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
            # e.g. a client without the guarded transport, whose httpx parses Location and raises
            raise FetchError(f"The request for {current} failed ({type(exc).__name__}: {exc}).", "http") from None
        try:
            location = response.extensions.get(HELD_LOCATION, response.headers.get("location"))
            if response.status_code in REDIRECT_STATUSES and location is not None:
                target = _redirect_target(current, location, response.status_code)
                if target in chain:
                    loop = " → ".join(chain[chain.index(target):] + [target])
                    raise FetchError(f"Redirect loop: {loop}.", "redirect")
                chain.append(target)
                current = target
                continue
            body, truncated, broken, decoded = await _read_capped(response, cap, current)
            return FetchResult(
                url=url,
                final_url=current,
                status=response.status_code,
                content_type=response.headers.get("content-type"),
                headers=dict(response.headers),
                body=body,
                truncated=truncated,
                elapsed_s=time.monotonic() - start,
                chain=chain,
                incomplete=broken,
                decoded_bytes=decoded,
            )
        finally:
            await response.aclose()
    raise FetchError(
        f"Too many redirects: more than {settings.visit_max_redirects} starting from {url} "
        f"({' → '.join(chain)}).",
        "too_many_redirects",
    )


def _quoted(text: str) -> str:
    return f"'{text}'" if text.isprintable() else repr(text)


def _redirect_target(base: str, location: str, status: int) -> str:
    """The absolute URL a Location header points to, joined to ``base`` by httpx (the parser
    the fetch and the guard use); anything but an http(s) URL is refused, naming the target. The
    guard then checks the target like any URL (host name, port, address)."""
    shown = location.strip()
    if not shown:
        raise FetchError(f"{base} answered HTTP {status} with an empty Location header: there is no "
                         f"redirect target to follow.", "redirect")
    m = _SCHEME.match(shown)
    scheme = m.group(1).lower() if m else ""
    if scheme and scheme not in ALLOWED_SCHEMES:
        raise GuardError(f"Refused to follow the redirect from {base} to {_quoted(shown)}: only http and https "
                         f"URLs can be visited ({scheme}: is not allowed).")
    # A backslash or a control character is not part of a URL (RFC 3986): some parsers read
    # "http:\\host" as "http://host", and a guessed repair could be a bypass. (A space in a path
    # is encoded by httpx, as browsers do; one in a host name is refused by the guard.)
    if "\\" in shown or any(ord(c) < 0x20 or ord(c) == 0x7F for c in shown):
        raise FetchError(f"Refused to follow the redirect from {base} to {_quoted(shown)}: not a valid http(s) "
                         f"URL (it contains a backslash or a control character).", "redirect")
    try:
        alone = httpx.URL(shown)
        # "http://:80/" or "//": an authority without a host (a join would borrow the base's host)
        hostless = (scheme or shown.startswith("//")) and not alone.raw_host
        target = httpx.URL(base).join(alone).copy_with(fragment=None)  # a fragment changes nothing fetched
        port = target.port
        text = str(target)
    except (httpx.InvalidURL, ValueError, TypeError, UnicodeError) as exc:
        raise FetchError(f"Refused to follow the redirect from {base} to {_quoted(shown)}: not a valid http(s) "
                         f"URL ({exc}).", "redirect") from None
    why = "no host name" if hostless or not target.raw_host else \
        f"port {port} is out of range" if port is not None and not 0 < port < 65536 else None
    if why:
        raise FetchError(f"Refused to follow the redirect from {base} to {_quoted(shown)}: not a valid http(s) "
                         f"URL ({why}).", "redirect")
    return text


async def _read_capped(response: httpx.Response, cap: int, url: str) -> tuple[bytes, bool, str | None, int]:
    """(body, stopped at the cap, why the body ended early, bytes the decoder produced).

    The raw body is decoded piece by piece (:mod:`tui_agent.web.decode`) and the decoded bytes
    are counted: reading stops at ``cap`` decoded bytes, or at ``cap`` bytes received, so memory
    stays within the cap plus one piece however far the body would inflate."""
    try:
        decoder = decode.decoder_for(response.headers.get_list("content-encoding", split_commas=True), url)
    except decode.EncodingRefused as exc:
        raise EncodingError(str(exc)) from None
    buf = bytearray()
    received = produced = 0
    try:
        async for chunk in response.aiter_raw():
            received += len(chunk)
            for piece in decoder.decode(chunk):
                produced += len(piece)
                if len(buf) + len(piece) > cap:
                    buf += piece[: cap - len(buf)]
                    return bytes(buf), True, None, produced
                buf += piece
            if received > cap:  # the download itself reached the cap (a body that barely shrinks)
                return bytes(buf), True, None, produced
    except decode.DecodeFailed as exc:
        if buf:
            return bytes(buf), False, f"the rest of the body could not be decoded ({exc}).", produced
        raise EncodingError(f"{url} sent a body that does not decode as its Content-Encoding says ({exc}).") \
            from None
    except httpx.HTTPError as exc:
        if buf:
            # The connection dropped or stalled mid-body: keep what arrived and say so.
            return bytes(buf), False, _as_fetch_error(exc, url).message, produced
        raise _as_fetch_error(exc, url) from None
    return bytes(buf), False, None, produced


def _as_fetch_error(exc: httpx.HTTPError, url: str) -> FetchError:
    if isinstance(exc, httpx.ConnectTimeout):
        return FetchError(f"Timed out connecting to {url}.", "timeout")
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(f"Timed out waiting for {url} to answer.", "timeout")
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return GuardError(f"Refused to fetch {url!r}: not a valid URL ({exc}).")
    if isinstance(exc, httpx.ConnectError):
        if is_dns_error(exc):
            host = urlsplit(url).hostname or url
            return FetchError(f"Could not resolve the host name {host!r}.", "dns")
        detail = str(exc) or exc.__class__.__name__
        return FetchError(f"Could not connect to {url} ({detail}).", "connect")
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.CloseError)):
        return FetchError(f"The connection to {url} broke ({exc or exc.__class__.__name__}).", "connect")
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError(f"Too many redirects from {url}.", "too_many_redirects")
    return FetchError(f"HTTP error from {url}: {exc or exc.__class__.__name__}.", "http")


def is_dns_error(exc: BaseException) -> bool:
    seen = 0
    node: BaseException | None = exc
    while node is not None and seen < 10:
        if isinstance(node, socket.gaierror):
            return True
        text = str(node).lower()
        if "name or service not known" in text or "nodename nor servname" in text or \
                "temporary failure in name resolution" in text or "getaddrinfo failed" in text or \
                "no address associated" in text:
            return True
        node = node.__cause__ or node.__context__
        seen += 1
    return False
