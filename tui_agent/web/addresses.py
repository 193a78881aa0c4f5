"""Which IP addresses the network guard refuses, and the literal spellings that stand for one.

:func:`blocked_reason` says why an address may not be fetched (loopback, private, link-local with
the cloud metadata address, CGNAT, multicast, reserved, unspecified, in IPv4 or IPv6, and IPv4
addresses embedded in IPv6 that are one of those); :func:`parse_ip` reads a URL's host as an
address the way resolvers do (zone indexes, a trailing dot, legacy IPv4 forms).
"""

from __future__ import annotations

import ipaddress
import socket

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


def parse_ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
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
