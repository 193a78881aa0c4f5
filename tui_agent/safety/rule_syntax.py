"""Vendored rule patterns in RE2 syntax: Nosey Parker's and Kingfisher's are written for Rust's
regex crate, often in verbose mode (``(?x)`` with comments), with counts RE2 does not accept."""

from __future__ import annotations

import re

_REPEAT_OVER_1000 = re.compile(r"\{(\d+),\d{4,}\}")  # RE2 counts to 1000: {20,1024} becomes {20,}


def re2_pattern(pattern: str) -> str:
    """A vendored rule's pattern as RE2 compiles it (verbose syntax compacted, long counts opened)."""
    return _REPEAT_OVER_1000.sub(r"{\1,}", compact_verbose(pattern))


_FLAGS = re.compile(r"\(\?([a-zA-Z]+)\)")


def compact_verbose(pattern: str) -> str:
    """A Nosey Parker pattern (Rust syntax, often ``(?x)`` with ``#`` and ``(?# …)`` comments) in
    RE2 syntax: comments and insignificant whitespace removed, escaped spaces kept as ``\\x20``."""
    verbose = False

    def strip_x(m: re.Match[str]) -> str:
        nonlocal verbose
        flags = m.group(1)
        if "x" in flags:
            verbose = True
            flags = flags.replace("x", "")
        return f"(?{flags})" if flags else ""

    pattern = _FLAGS.sub(strip_x, pattern)
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            out.append(r"\x20" if nxt == " " else "\\" + nxt)
            i += 2
            continue
        if in_class:
            in_class = c != "]" or (out and out[-1] == "[")
            out.append(c)
        elif pattern.startswith("(?#", i):
            i = pattern.index(")", i)
        elif verbose and c == "#":
            j = pattern.find("\n", i)
            i = n if j < 0 else j
            continue
        elif verbose and c.isspace():
            pass
        else:
            if c == "[":
                in_class = True
                if pattern.startswith("[^]", i) or pattern.startswith("[]", i):
                    out.append(pattern[i:i + 2 + (pattern[i + 1] == "^")])
                    i += 2 + (pattern[i + 1] == "^")
                    continue
            out.append(c)
        i += 1
    return "".join(out)
