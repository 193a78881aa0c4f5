"""What a plan's domain may be, and which URLs it covers (read by the plan's schema in ``core/`` and
the plan policy in ``plan/``, so it lives below both).

A plan domain is either a registrable domain (``python.org``, ``bbc.co.uk``, ``someone.github.io``:
one label under a public suffix, read from the Public Suffix List), which covers itself and its
subdomains, or an exact host under one (``docs.python.org``), which covers that host only.

Refused, with the reason (:func:`problem`), so that a plan never approves more than it names:

- IP addresses in any spelling (``127.0.0.1``, ``1``, ``0.0.1``, ``0x7f.1``, ``[::1]``): they would
  approve visits to loopback or private hosts;
- a public suffix alone (``com``, ``co.uk``, ``github.io``): it would approve a whole TLD or every
  user of a hosting service;
- names under no public suffix (``localhost``, ``intranet``).

Internationalised names are kept in punycode (``xn--pple-43d.com``, what ``аpple.com`` with a
Cyrillic ``а`` is), shown that way, and never approve a visit unasked: a look-alike is asked.
The list is tldextract's bundled snapshot; it never fetches the list and writes no cache.
"""

from __future__ import annotations

import ipaddress
import re
from functools import cache
from typing import Any
from urllib.parse import urlsplit

RESERVED_SUFFIXES = ("example", "test", "invalid")
"""Top-level names reserved for documentation and tests (RFC 2606), read as public suffixes so
``docs.example`` is a domain like any other; they never resolve on the internet."""

_NUMERIC_LABEL = re.compile(r"(?i)^(?:0x[0-9a-f]*|[0-9]+)$")


@cache
def _extractor() -> Any:
    import tldextract  # the Public Suffix List; imported on first use (about 0.1 s)

    # suffix_list_urls=(): the bundled snapshot only, never the network; cache_dir=None: no files.
    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), include_psl_private_domains=True,
                                 extra_suffixes=RESERVED_SUFFIXES)


def to_ascii(host: str) -> str:
    """``host`` with non-ASCII labels in punycode (IDNA); unchanged when it cannot be encoded."""
    if host.isascii():
        return host
    import idna  # a dependency of httpx and tldextract

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:
        return host


def to_unicode(host: str) -> str:
    """``host`` with punycode labels written out (``xn--pple-43d.com`` → ``аpple.com``)."""
    if "xn--" not in host.lower():
        return host
    import idna

    try:
        return idna.decode(host)
    except idna.IDNAError:
        return host


def normalise(text: Any) -> str:
    """``https://www.Example.org/x`` → ``example.org``; a bare domain is lower-cased and an
    internationalised one written in punycode."""
    host = str(text).strip().lower()
    host = host.split("://", 1)[-1].split("/", 1)[0]
    if not host.startswith("["):
        host = host.split(":", 1)[0]
    return to_ascii(host.removeprefix("www.").strip("."))


def is_ip(host: str) -> bool:
    """An IP address in any spelling a resolver accepts (dotted, shortened, hex, octal, IPv6)."""
    host = host.strip("[]")
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    return ":" in host or bool(_NUMERIC_LABEL.match(labels[-1]))  # no top-level domain is numeric


def is_lookalike(host: str) -> bool:
    """Internationalised (non-ASCII, or punycode ``xn--`` labels): it may imitate another name."""
    return not host.isascii() or any(label.startswith("xn--") for label in host.split("."))


def lookalike_addresses(arguments: Any) -> list[str]:
    """The look-alike hosts of the web addresses in a call's arguments (any depth), each as
    ``written = punycode``: what an approval says before a person lets the call visit them."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            for m in _URL_IN_TEXT.finditer(value):
                try:
                    host = urlsplit(m.group()).hostname or ""  # no user, port or brackets
                except ValueError:  # a malformed IPv6 literal: not a name that can imitate another
                    continue
                note = f"{to_unicode(host)} = {to_ascii(host)}"
                if is_lookalike(host) and note not in found:
                    found.append(note)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(arguments)
    return found


_URL_IN_TEXT = re.compile(r"https?://[^/\s?#]+", re.IGNORECASE)


def problem(domain: str) -> str | None:
    """Why ``domain`` (normalised) cannot be a plan domain, or None."""
    if not domain:
        return "is empty"
    if is_ip(domain):
        return f"{domain!r} is an IP address: name a registrable domain such as example.org"
    parts = _extractor()(domain)
    if not parts.suffix:
        return f"{domain!r} is under no public suffix: name a registrable domain such as example.org"
    if not parts.domain:
        return f"{domain!r} is a public suffix alone: name a registrable domain under it, such as example.{domain}"
    return None


def _registrable(domain: str) -> bool:
    parts = _extractor()(domain)
    return not parts.subdomain


def covers(url: str, domains: list[str]) -> bool:
    """Whether a plan domain covers ``url``'s host: a registrable domain covers itself and its
    subdomains, an exact host itself. Never for an IP address, a look-alike or a refused domain."""
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    host = to_ascii(host).removeprefix("www.")
    if not host or is_ip(host) or is_lookalike(host):
        return False
    for d in domains:
        if problem(d) is not None or is_lookalike(d):
            continue
        if host == d or (_registrable(d) and host.endswith("." + d)):
            return True
    return False
