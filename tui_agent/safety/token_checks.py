"""Checks a regex cannot make, applied to what a rule of the pipeline reports
(:func:`tui_agent.safety.rule_sets.scan`): a GitHub classic token's CRC32 checksum makes it real
even when its body looks uniform (``ghp_aaaa…``)."""

from __future__ import annotations

import zlib

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
GITHUB_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")


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
