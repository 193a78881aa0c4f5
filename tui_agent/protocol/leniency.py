"""The argument leniency of both protocols: one function, so the same arguments pass or fail alike
under ``tags`` (``protocol.calls``) and ``native`` (``protocol.native``).

:func:`lenient_arguments` takes a call's decoded arguments and the agent's tools and returns the
arguments the tool's schema check sees, each leniency applied named in ``notes`` (for the trace):

- wherever a tool's schema wants an array of strings, one string is read as a one-item list
  (``{"query": "x"}`` for ``query: array of strings``).

How the arguments are decoded (JSON, JSON5, XML, GLM pairs) stays each protocol's own.
"""

from __future__ import annotations

from typing import Any

from tui_agent.protocol.toolset import ToolSet


def lenient_arguments(args: Any, tools: ToolSet, tool: str, notes: list[str]) -> Any:
    """``args`` as the schema of ``tool`` reads them leniently (see the module); ``notes`` gains each leniency."""
    if not isinstance(args, dict):
        return args
    out = dict(args)
    for key, value in args.items():
        if isinstance(value, str) and tools.wants_string_list(tool, key):
            out[key] = [value]
            notes.append(f'"{key}" given as one string was read as a one-item list')
    return out
