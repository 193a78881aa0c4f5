"""Secret values known by value: the environment's secret-named variables, and the values made
known by :func:`add_known_values` (an MCP server's ``env`` values and tokens).

:class:`tui_agent.safety.detectors.KnownValues` finds them wherever they occur, with the pattern
:func:`value_pattern` keeps compiled for the last few sets of values.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from typing import Iterable, Mapping
from urllib.parse import quote

from tui_agent.safety.values import is_placeholder, looks_random

SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PWD", "AUTH")
"""An environment variable whose name contains one of these may hold a secret."""
LOCATION_NAME_SUFFIXES = ("_DIR", "_PATH", "_FILE", "_HOME", "_URL", "_HOST", "_ID", "_NAME")
"""…unless its name says it holds a location or a label (TIKTOKEN_CACHE_DIR, SSH_KEY_PATH)."""
MIN_ENV_SECRET_LENGTH = 8
"""Shorter environment values are never masks (``OPENAI_API_KEY=ollama`` must not blank words)."""

_cache_lock = threading.Lock()
_env_cache: OrderedDict[tuple[str, ...], re.Pattern[str] | None] = OrderedDict()
_ENV_CACHE_SIZE = 8
_values_memo: tuple[dict, tuple[str, ...]] | None = None


_known: frozenset[str] = frozenset()
_with_known: tuple[tuple[str, ...], frozenset[str], tuple[str, ...]] | None = None


def add_known_values(values: Iterable[str]) -> None:
    """Make ``values`` secrets the redactor knows for the rest of the process, like the
    environment's (an MCP server's ``env`` values and tokens, :mod:`tui_agent.safety.server_secrets`).
    Values shorter than MIN_ENV_SECRET_LENGTH and placeholders are ignored; the URL-encoded form
    of each joins too. They apply wherever the environment's do (``environ`` left as None)."""
    global _known
    new = set()
    for value in values:
        value = value.strip()
        if len(value) >= MIN_ENV_SECRET_LENGTH and not is_placeholder(value):
            new |= {value, quote(value, safe="")}
    if not new <= _known:
        with _cache_lock:
            _known = _known | new


def known_values() -> frozenset[str]:
    """The values :func:`add_known_values` made known."""
    return _known


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The environment's secret values (:func:`environment_values`) and, for ``os.environ``
    (``environ`` None), the known values of :func:`add_known_values`; longest first."""
    global _with_known
    values = environment_values(environ)
    known = _known
    if environ is not None or not known:
        return values
    memo = _with_known
    if memo is not None and memo[0] is values and memo[1] is known:
        return memo[2]
    merged = tuple(sorted(set(values) | known, key=lambda v: (-len(v), v)))
    _with_known = (values, known, merged)
    return merged


def environment_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named variables that look like secrets, longest first.

    A value is used only when it is at least MIN_ENV_SECRET_LENGTH long and random enough
    (:func:`tui_agent.safety.values.looks_random`): ``ollama``, ``x``, ``none``, ``test-key``,
    ``true``, numbers, paths and URLs without credentials are never masks. For ``os.environ`` the
    result is memoised until the environment changes.
    """
    global _values_memo
    if environ is None:
        data = getattr(os.environ, "_data", None)  # CPython's raw mapping behind os.environ
        memo = _values_memo
        if data is None:
            return _scan_secret_values(os.environ)
        if memo is not None and memo[0] == data:
            return memo[1]
        snapshot = dict(data)  # taken before the scan: a change during it only causes a rescan
        values = _scan_secret_values(os.environ)
        _values_memo = (snapshot, values)
        return values
    return _scan_secret_values(environ)


def names_secret(name: str) -> bool:
    """Whether a variable's or a flag's name says it holds a secret (one of SECRET_NAME_PARTS)."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def _scan_secret_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    found = set()
    for name, value in environ.items():
        if not names_secret(name) or name.upper().endswith(LOCATION_NAME_SUFFIXES):
            continue
        value = value.strip()
        if len(value) < MIN_ENV_SECRET_LENGTH or not looks_random(value):
            continue
        found.add(value)
        encoded = quote(value, safe="")
        if encoded != value:
            found.add(encoded)  # the value as it appears in a URL query or form body
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


def value_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    with _cache_lock:
        if values in _env_cache:
            _env_cache.move_to_end(values)
            return _env_cache[values]
    pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None
    with _cache_lock:
        _env_cache[values] = pattern
        while len(_env_cache) > _ENV_CACHE_SIZE:
            _env_cache.popitem(last=False)
    return pattern
