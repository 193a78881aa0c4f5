"""The network boundary: the one place a model-chosen URL is checked and fetched.

:func:`check_url` is the SSRF guard: http/https only; every address a host name resolves to
(or the literal address) must be public — no loopback, private, link-local (169.254.169.254,
the cloud metadata address, included), CGNAT, multicast, reserved or unspecified address, in
IPv4 or IPv6, nor an IPv4 address embedded in IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
Teredo) that is one of those. ``--allow-private-urls`` lifts the address rule (never the scheme
rule), and every refusal of an address says so.

:func:`fetch` follows redirects itself so each hop passes the guard, streams the body up to a
byte cap, and bounds the whole fetch in time. Endpoints the user configured (the model API,
SearXNG) do not go through here.

A residual risk, documented rather than hidden: the guard resolves a name, then httpx resolves
it again to connect. A DNS server that answers differently within that instant (DNS rebinding)
could slip a private address past it; pinning the checked address would need a custom transport.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping
from urllib.parse import urljoin, urlsplit

import httpx

if TYPE_CHECKING:  # pragma: no cover
    from tui_agent.config import Settings

ALLOWED_SCHEMES = ("http", "https")
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
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
}
ALLOW_FLAG = "--allow-private-urls"

# Networks refused even when the ipaddress module calls them global (it does not know them all).
_EXTRA_BLOCKED = [
    ipaddress.ip_network("100.64.0.0/10"),  # CGNAT (shared address space)
    ipaddress.ip_network("192.0.0.0/24"),  # IETF protocol assignments
    ipaddress.ip_network("198.18.0.0/15"),  # benchmarking
    ipaddress.ip_network("0.0.0.0/8"),  # "this network"
    ipaddress.ip_network("255.255.255.255/32"),
    ipaddress.ip_network("64:ff9b:1::/48"),  # local-use NAT64
]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_METADATA = ipaddress.ip_address("169.254.169.254")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


class FetchError(Exception):
    """A fetch that did not produce a response.

    ``kind`` is one of "timeout", "dns", "connect", "http", "redirect", "too_many_redirects",
    "guard". The message is written for the model and the user.
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


class GuardError(FetchError):
    """The network guard refused a URL (scheme, bad URL, or a non-public address)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "guard")


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

    @property
    def reason(self) -> str:
        from http import HTTPStatus

        try:
            return HTTPStatus(self.status).phrase
        except ValueError:
            return ""


Guard = Callable[[str], Awaitable[None]]


# --- the guard --------------------------------------------------------------------------------


def blocked_reason(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address may not be fetched, or None when it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = embedded_ipv4(ip)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner:
                return f"{inner} (embedded in the IPv6 address {ip})"
        if ip.scope_id:
            return "a scoped (link-local) IPv6 address"
    if ip == _METADATA:
        return "the cloud metadata address (link-local)"
    for label, test in (
        ("an unspecified address", ip.is_unspecified),
        ("a loopback address", ip.is_loopback),
        ("a link-local address", ip.is_link_local),
        ("a multicast address", ip.is_multicast),
        ("a reserved address", ip.is_reserved),
        ("a private address", ip.is_private),
        ("a site-local address", getattr(ip, "is_site_local", False)),
    ):
        if test:
            return label
    for net in _EXTRA_BLOCKED:
        if ip.version == net.version and ip in net:
            return "a carrier-grade NAT address" if net.prefixlen == 10 and ip.version == 4 else "a reserved address"
    if not ip.is_global:
        return "a non-public address"
    return None


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv4-mapped, -compatible, NAT64, 6to4 or Teredo address."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    packed = int(ip)
    # IPv4-compatible (deprecated) ::a.b.c.d, but not :: and ::1 themselves
    if packed >> 32 == 0 and packed > 1:
        return ipaddress.IPv4Address(packed)
    return None


def _parse_ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a literal host stands for (zone indexes and legacy IPv4 forms included)."""
    host = host.strip("[]")
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]  # "127.0.0.1." is 127.0.0.1 to some resolvers
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    # Legacy IPv4 spellings that resolvers accept too: 2130706433, 0x7f.1, 0177.0.0.1, 127.1
    if host and all(c in "0123456789abcdefxABCDEFX." for c in host) and host[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return None
    return None


def _scheme_refusal(url: str, scheme: str) -> GuardError:
    shown = f"{scheme}: is not allowed" if scheme else "this one has no scheme"
    return GuardError(f"Refused to fetch {url!r}: only http and https URLs can be visited ({shown}).")


def _refusal(url: str, what: str) -> GuardError:
    return GuardError(
        f"Refused to fetch {url}: it points to {what}, which the network guard blocks so the model "
        f"cannot reach your machine or local network. To allow it, restart with {ALLOW_FLAG}."
    )


async def check_url(url: str, allow_private: bool) -> None:
    """Refuse a URL the model may not fetch; return quietly when it may.

    Raises :class:`GuardError` for a scheme other than http/https, a malformed URL, or a host
    that is (or resolves to any) non-public address unless ``allow_private``; raises
    :class:`FetchError` with kind "dns" when the name does not resolve.
    """
    # Parsed by httpx, as the fetch will be: the host checked is the host connected to (a
    # second parser would disagree on oddities like "127。0。0。1" or backslashes).
    try:
        parsed = httpx.URL(url.strip())
        scheme = parsed.scheme.lower()
        port = parsed.port
        host = parsed.raw_host.decode("ascii", "replace")
    except (httpx.InvalidURL, ValueError, TypeError, UnicodeError) as exc:
        m = _SCHEME.match(url.strip())
        scheme = m.group(1).lower() if m else ""
        if scheme and scheme not in ALLOWED_SCHEMES:
            raise _scheme_refusal(url, scheme) from None
        raise GuardError(f"Refused to fetch {url!r}: not a valid URL ({exc}).") from None
    if scheme not in ALLOWED_SCHEMES:
        raise _scheme_refusal(url, scheme)
    if not host:
        raise GuardError(f"Refused to fetch {url!r}: the URL has no host name.")
    if port is not None and not 0 < port < 65536:
        raise GuardError(f"Refused to fetch {url!r}: not a valid URL (port {port} is out of range).")
    if allow_private:
        return
    ip = _parse_ip(host)
    if ip is not None:
        reason = blocked_reason(ip)
        if reason:
            raise _refusal(url, reason)
        return
    if host.rstrip(".").lower() in ("localhost",) or host.rstrip(".").lower().endswith(".localhost"):
        raise _refusal(url, "a loopback address (localhost)")
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port or (443 if scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except socket.gaierror as exc:
        raise FetchError(f"Could not resolve the host name {host!r} ({exc.strerror or exc}).", "dns") from None
    except (UnicodeError, ValueError) as exc:
        raise GuardError(f"Refused to fetch {url!r}: the host name is not valid ({exc}).") from None
    if not infos:
        raise FetchError(f"Could not resolve the host name {host!r} (no addresses).", "dns")
    for family, _type, _proto, _canon, sockaddr in infos:
        try:
            addr = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
        except ValueError:
            raise _refusal(url, f"an address the guard cannot read ({sockaddr[0]!r})") from None
        reason = blocked_reason(addr)
        if reason:
            raise _refusal(url, f"{reason} ({host} resolves to {addr})")


# --- the client and the fetch -----------------------------------------------------------------


def make_client(settings: "Settings") -> httpx.AsyncClient:
    """The HTTP client of one run: browser-like headers, no automatic redirects, HTTP/1.1."""
    return httpx.AsyncClient(
        follow_redirects=False,
        http2=False,
        headers=DEFAULT_HEADERS,
        timeout=_timeout(settings),
        limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
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

        async def guard(u: str) -> None:
            await check_url(u, allow)

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
        await guard(current)
        try:
            request = client.build_request("GET", current, timeout=timeout)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:
            raise GuardError(f"Refused to fetch {current!r}: not a valid URL ({exc}).") from None
        try:
            response = await client.send(request, stream=True, follow_redirects=False)
        except httpx.HTTPError as exc:
            raise _as_fetch_error(exc, current) from None
        try:
            location = response.headers.get("location")
            if response.status_code in REDIRECT_STATUSES and location:
                target = _resolve(current, location)
                if target is None:
                    raise FetchError(f"{current} redirected to an unusable location {location!r}.", "redirect")
                if target in chain:
                    loop = " → ".join(chain[chain.index(target):] + [target])
                    raise FetchError(f"Redirect loop: {loop}.", "redirect")
                chain.append(target)
                current = target
                continue
            body, truncated, broken = await _read_capped(response, cap, current)
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
            )
        finally:
            await response.aclose()
    raise FetchError(
        f"Too many redirects: more than {settings.visit_max_redirects} starting from {url} "
        f"({' → '.join(chain)}).",
        "too_many_redirects",
    )


def _resolve(base: str, location: str) -> str | None:
    try:
        target = urljoin(base, location.strip())
        parts = urlsplit(target)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    # A fragment never changes what is fetched.
    return parts._replace(fragment="").geturl()


async def _read_capped(response: httpx.Response, cap: int, url: str) -> tuple[bytes, bool, str | None]:
    """(body, stopped at the cap, why the body ended early) — memory stays within cap + a chunk."""
    buf = bytearray()
    try:
        # Chunks as they arrive (decoded): a body cut off mid-way keeps what came before.
        async for chunk in response.aiter_bytes():
            if len(buf) + len(chunk) > cap:
                buf += chunk[: cap - len(buf)]
                return bytes(buf), True, None
            buf += chunk
    except httpx.HTTPError as exc:
        if buf:
            # The connection dropped or stalled mid-body: keep what arrived and say so.
            return bytes(buf), False, _as_fetch_error(exc, url).message
        raise _as_fetch_error(exc, url) from None
    return bytes(buf), False, None


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
