"""The secrets an MCP server's configuration hands it, found so they are never shown or stored.

An ``[mcp_servers.NAME]`` table passes its server tokens in ``env`` (``NOTES_TOKEN = "…"``), in
``args`` (``--token VALUE``, ``--api-key=VALUE``, ``API_KEY=VALUE``) or in its ``url``
(``https://user:pw@host/mcp``, ``?api_key=…``). A server may echo any of them in a result or in
its stderr, where the redactor would not know them. :func:`secret_values` lists them (the MCP
servers register them as the redactor's known values, :func:`tui_agent.safety.redaction.add_known_values`);
:func:`hidden` is the table as a session stores it and ``tools list`` shows it.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from tui_agent.safety.values import is_placeholder, looks_random
from tui_agent.safety.redaction import MIN_ENV_SECRET_LENGTH, REDACTED, find_secrets, names_secret, redact

HIDDEN = "(not stored)"
"""What a stored session (and ``tools list``) holds in place of a server's secret."""

_FLAG = re.compile(r"^--?(?P<name>[A-Za-z][\w.-]*)(?:=(?P<value>.*))?$", re.DOTALL)


def _worth_hiding(value: str, named: bool) -> bool:
    """A value a secret name gave (any but placeholders and short words), or one that looks random."""
    value = value.strip()
    if len(value) < MIN_ENV_SECRET_LENGTH or is_placeholder(value):
        return False
    return named or looks_random(value)


def _arg_secrets(args: list[str]) -> dict[int, str]:
    """Index of each argument holding a secret → the secret in it."""
    found: dict[int, str] = {}
    for i, arg in enumerate(args):
        flag = _FLAG.match(arg)
        if flag and flag.group("value") is not None:  # --api-key=VALUE
            if names_secret(flag.group("name")) and _worth_hiding(flag.group("value"), True):
                found[i] = flag.group("value")
        elif flag and i + 1 < len(args) and names_secret(flag.group("name")) and not args[i + 1].startswith("-"):
            if _worth_hiding(args[i + 1], True):  # --token VALUE
                found[i + 1] = args[i + 1]
        if i not in found:
            for f in find_secrets(arg, {}):  # API_KEY=VALUE, a bare token, user:pw in a URL
                if _worth_hiding(arg[f.start:f.end], True):
                    found[i] = arg[f.start:f.end]
                    break
    return found


def secret_values(config: Mapping[str, Any]) -> list[str]:
    """The secrets in one server's table: its ``env`` values (a secret-named variable's or one that
    looks random), secret ``args`` and the credentials in its ``url``."""
    values = [v for k, v in (config.get("env") or {}).items()
              if isinstance(v, str) and _worth_hiding(v, names_secret(k))]
    values += _arg_secrets([str(a) for a in config.get("args") or []]).values()
    url = str(config.get("url") or "")
    values += [url[f.start:f.end] for f in find_secrets(url, {})]
    return [v for v in values if _worth_hiding(v, True)]


def hidden(config: Mapping[str, Any]) -> dict[str, Any]:
    """The table without its secrets: every ``env`` value, each secret argument and the secrets
    of its ``url`` are :data:`HIDDEN`."""
    out = dict(config)
    if "env" in out:
        out["env"] = {k: HIDDEN for k in out["env"]}
    if "args" in out:
        args = [str(a) for a in out["args"]]
        for i, secret in _arg_secrets(args).items():
            args[i] = args[i].replace(secret, HIDDEN)
        out["args"] = args
    if out.get("url"):
        out["url"] = redact(str(out["url"]), {}).replace(REDACTED, HIDDEN)
    return out
