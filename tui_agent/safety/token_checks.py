"""Checks a regex cannot make, applied to what a rule of the pipeline reports
(:func:`tui_agent.safety.rule_sets.scan`): a JWT's header names its algorithm, and a GitHub classic
token's CRC32 checksum makes it real even when its body looks uniform (``ghp_aaaa…``)."""

from __future__ import annotations

import base64
import binascii
import zlib

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
GITHUB_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")


def jwt_header_ok(token: str) -> bool:
    """The first part of a JWT decodes (base64url) to a JSON object naming its ``alg``."""
    header = token.split(".", 1)[0].rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(b"{") and b'"alg"' in raw


def base62(n: int, width: int = 6) -> str:
    digits = ""
    while n:
        n, r = divmod(n, 62)
        digits = _BASE62[r] + digits
    return digits.rjust(width, "0")


def github_checksum_ok(token: str) -> bool:
    """GitHub's classic tokens end in a CRC32 (base62, 6 characters) of their 30 random characters."""
    if not token.startswith(GITHUB_PREFIXES):
        return False
    body = token.split("_", 1)[-1]
    if len(body) != 36:
        return False
    return base62(zlib.crc32(body[:30].encode())) == body[30:]
