"""The SSRF guard: the one check a model-chosen URL passes before it is fetched.

:func:`check_url`: http/https only; every address a host name resolves to (or the literal
address) must be public — no loopback, private, link-local (169.254.169.254, the cloud metadata
address, included), CGNAT, multicast, reserved or unspecified address, in IPv4 or IPv6, nor an IPv4
address embedded in IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) that is one of those.
``--allow-private-urls`` lifts the address rule (never the scheme rule), and every refusal of an
address says so. A host name is resolved once, by :func:`resolve`; the guard returns what it
checked as a :class:`~tui_agent.web.transport.Pin`, which :mod:`tui_agent.web.net` connects to.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from typing import Awaitable, Callable

import httpx

from tui_agent.web.addresses import blocked_reason, parse_ip
from tui_agent.web.transport import Pin

ALLOWED_SCHEMES = ("http", "https")
ALLOW_FLAG = "--allow-private-urls"

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# a DNS name as httpx sends it (IDNA-encoded): labels of letters, digits, "-" and "_"
_LABEL = re.compile(r"[A-Za-z0-9_\-]{1,63}\Z")


class FetchError(Exception):
    """A fetch that did not produce a response.

    ``kind`` is one of "timeout", "dns", "connect", "http", "redirect", "too_many_redirects",
    "guard", "encoding". The message is written for the model and the user.
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


class GuardError(FetchError):
    """The network guard refused a URL (scheme, bad URL, or a non-public address)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "guard")


# A guard refuses a URL by raising GuardError (or FetchError); it may return the Pin it checked,
# and then the connection goes to those addresses. None (a test's guard) leaves it unpinned.
Guard = Callable[[str], Awaitable["Pin | None"]]


# --- the check --------------------------------------------------------------------------------


def _scheme_refusal(url: str, scheme: str) -> GuardError:
    shown = f"{scheme}: is not allowed" if scheme else "this one has no scheme"
    return GuardError(f"Refused to fetch {url!r}: only http and https URLs can be visited ({shown}).")


def _refusal(url: str, what: str) -> GuardError:
    return GuardError(
        f"Refused to fetch {url}: it points to {what}, which the network guard blocks so the model "
        f"cannot reach your machine or local network. To allow it, restart with {ALLOW_FLAG}."
    )


async def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, in the resolver's order, without repeats: the one
    lookup per hop, which the guard checks and the connection then uses."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(sockaddr[0] for _family, _type, _proto, _canon, sockaddr in infos))


def _valid_name(host: str) -> bool:
    name = host[:-1] if host.endswith(".") else host
    return 0 < len(name) <= 253 and all(_LABEL.match(label) for label in name.split("."))


async def check_url(url: str, allow_private: bool) -> Pin:
    """Refuse a URL the model may not fetch; return the :class:`Pin` to connect to when it may.

    Raises :class:`GuardError` for a scheme other than http/https, a malformed URL or host name,
    or a host that is (or resolves to any) non-public address unless ``allow_private``; raises
    :class:`FetchError` with kind "dns" when the name does not resolve. The name is resolved
    once (:func:`resolve`), with or without ``allow_private``, and the pin holds what came back.
    """
    # Parsed by httpx, as the fetch will be: the host checked is the host connected to (a
    # second parser would disagree on oddities like "127。0。0。1" or backslashes).
    try:
        parsed = httpx.URL(url.strip())
        scheme = parsed.scheme.lower()
        port = parsed.port
        host = parsed.raw_host.decode("ascii", "replace")
        parsed.host  # noqa: B018 - decodes IDNA: a malformed A-label ("xn--") fails here
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
    ip = parse_ip(host)
    if ip is not None:
        reason = None if allow_private else blocked_reason(ip)
        if reason:
            raise _refusal(url, reason)
        return Pin(host, (str(ip),))
    if not _valid_name(host):
        raise GuardError(f"Refused to fetch {url!r}: {host!r} is not a valid host name.")
    name = host.rstrip(".").lower()
    if not allow_private and (name == "localhost" or name.endswith(".localhost")):
        raise _refusal(url, "a loopback address (localhost)")
    try:
        addresses = await resolve(host, port or (443 if scheme == "https" else 80))
    except socket.gaierror as exc:
        raise FetchError(f"Could not resolve the host name {host!r} ({exc.strerror or exc}).", "dns") from None
    except (UnicodeError, ValueError) as exc:
        raise GuardError(f"Refused to fetch {url!r}: the host name is not valid ({exc}).") from None
    if not addresses:
        raise FetchError(f"Could not resolve the host name {host!r} (no addresses).", "dns")
    for address in addresses:
        try:
            addr = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            raise _refusal(url, f"an address the guard cannot read ({address!r})") from None
        reason = None if allow_private else blocked_reason(addr)
        if reason:
            raise _refusal(url, f"{reason} ({host} resolves to {addr})")
    return Pin(host, tuple(addresses))
