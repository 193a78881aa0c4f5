"""A bad setting's value as an error message shows it: never a secret.

Hidden whole (``[secret]``): a secret setting's value (``api_key``, whatever its type), the value
of any key whose name says secret (``api_key`` landed in a table, a server's ``GITHUB_TOKEN``; the
rule of :func:`tui_agent.safety.assignments.name_kind`, so ``max_tokens`` is shown) and the values
of an MCP server's ``env`` (tokens, as a rule; a stored session hides them too). What is left is
shown with :func:`tui_agent.safety.redaction.redact` applied, so a token pasted into any other
setting is masked as in every other text the program prints.

Used only on the way to an error message: the redaction modules are imported then, never when
settings load.
"""

from __future__ import annotations

from typing import Any, Sequence

from tui_agent.settings.fields import is_secret, setting_names

SECRET = "[secret]"
ENV_TABLE = "env"  # an MCP server's environment table: mcp_servers.NAME.env


def secret_path(path: Sequence[Any]) -> bool:
    """Whether the value at ``path`` (a setting name, then keys into its tables) is a secret."""
    from tui_agent.safety.assignments import name_kind

    if path and path[0] in setting_names() and is_secret(str(path[0])):
        return True
    if len(path) >= 4 and path[0] == "mcp_servers" and path[2] == ENV_TABLE:
        return True
    return any(isinstance(part, str) and name_kind(part) is not None for part in path[1:])


def _masked(value: Any, path: tuple[Any, ...]) -> Any:
    if secret_path(path):
        return SECRET
    if isinstance(value, dict):
        return {k: _masked(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_masked(v, (*path, i)) for i, v in enumerate(value))
    return value


def shown(path: Sequence[Any], value: Any) -> str:
    """``repr(value)`` for an error message about the setting at ``path``, secrets hidden."""
    masked = _masked(value, tuple(path))
    if masked == SECRET:
        return SECRET
    from tui_agent.safety.redaction import redact

    return redact(repr(masked))


def text(value: str) -> str:
    """Any other text of an error message about settings (a key, a path) with secrets masked."""
    from tui_agent.safety.redaction import redact

    return redact(value)
