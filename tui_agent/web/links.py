"""Links made absolute, as ``urllib.parse.urljoin`` makes them, at a fraction of its cost.

A page's Markdown carries every link of its main text made absolute; ``urljoin`` parses the base
and the link into six parts and joins them back (about 14 µs a link, a tenth of the rendering of
a long article). :func:`absolute` gives the same string as ``urljoin`` without the parse for the
two kinds of link most pages are made of — a path from the site's root (``/news/2024/x?id=3``) and
a full ``http(s)://`` URL — whenever the base is an ``http(s)`` URL with a host. Anything else
(a relative path, ``//host/x``, dot segments, ``;params``, control characters, brackets or
non-ASCII in the host, a tab or newline, which urlsplit deletes) goes to ``urljoin`` itself. ``tests/unit/test_links.py`` holds the two to
the same results on tricky links.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urljoin, urlsplit

# a full URL whose scheme urljoin keeps as written (lowercase) and whose host needs no checks
_FULL = re.compile(r"(https?)://([\x21-\x7e]*?)(?=[/?#]|\Z)")
_DOT_SEGMENT = re.compile(r"(?:^|/)\.\.?(?:/|\Z)")


@functools.lru_cache(maxsize=64)
def _origin(base: str) -> tuple[str, str] | None:
    """(scheme, "scheme://host") of an http(s) base URL with a host, else None."""
    try:
        parts = urlsplit(base)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.scheme, f"{parts.scheme}://{parts.netloc}"


def absolute(base: str, href: str) -> str | None:
    """``urljoin(base, href)``, or None where that raises ``ValueError``. ``href`` is not empty."""
    origin = _origin(base) if base else None
    if origin is not None and "\t" not in href and "\n" not in href and "\r" not in href:
        if href[:1] == "/" and href[1:2] != "/":
            joined = _join(origin[1], href, 0)
            if joined is not None:
                return joined
        else:
            full = _FULL.match(href)
            if full is not None and "[" not in full[2] and "]" not in full[2]:
                if full[1] != origin[0]:
                    return href  # another scheme: urljoin returns the link as it is
                if full[2]:
                    joined = _join(f"{full[1]}://{full[2]}", href, full.end())
                    if joined is not None:
                        return joined
    return _urljoin(base, href)


def _join(prefix: str, href: str, start: int) -> str | None:
    """``prefix`` and the path, query and fragment of ``href`` from ``start``, put back together as
    ``urlunsplit`` does (an empty query or fragment is dropped); None when the path has ``;``
    parameters or dot segments (then ``urljoin`` does it)."""
    rest, query, fragment = href[start:], "", ""
    if "#" in rest:
        rest, fragment = rest.split("#", 1)
    if "?" in rest:
        rest, query = rest.split("?", 1)
    if ";" in rest or (start == 0 and "." in rest and _DOT_SEGMENT.search(rest)):
        return None
    joined = prefix + rest
    if query:
        joined += "?" + query
    if fragment:
        joined += "#" + fragment
    return joined


@functools.lru_cache(maxsize=1024)
def _urljoin(base: str, href: str) -> str | None:
    try:
        return urljoin(base, href)
    except ValueError:
        return None
