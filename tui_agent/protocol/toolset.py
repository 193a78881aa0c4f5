"""What the parser and the corrections know about the agent's tools: names and parameter schemas.

Every function of the protocol that takes ``tools`` accepts any of: a ``ToolRegistry`` (its
``.tools`` mapping), ``Tool`` objects (``.name``/``.parameters``), schema dicts as
``Tool.schema()`` returns them (``{"name", "description", "parameters"}``), a mapping of name to
parameter schema, or plain names. ``None`` means "unknown": nothing is reported as an unknown tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

PLACEHOLDER = "..."


class ToolSet:
    def __init__(self, tools: Any = None) -> None:
        self.known = tools is not None
        self.params: dict[str, dict[str, Any] | None] = {}
        self.left_out: list[str] = []  # why tools are missing from this run (an MCP server that could not start)
        if tools is None:
            return
        if hasattr(tools, "tools") and isinstance(tools.tools, Mapping):  # a ToolRegistry
            self.left_out = list(getattr(tools, "left_out", list)())
            tools = list(tools.tools.values())
        if isinstance(tools, str):
            tools = [tools]
        if isinstance(tools, Mapping):
            for name, schema in tools.items():
                self.params[str(name)] = schema if isinstance(schema, Mapping) else None
            return
        for t in tools if isinstance(tools, Iterable) else [tools]:
            if isinstance(t, str):
                self.params[t] = None
            elif isinstance(t, Mapping) and "name" in t:
                self.params[str(t["name"])] = t.get("parameters")
            elif hasattr(t, "name"):
                self.params[str(t.name)] = getattr(t, "parameters", None)

    @property
    def names(self) -> list[str]:
        return list(self.params)

    def resolve(self, name: str) -> str | None:
        """The real tool ``name`` means: exact, else a unique case-insensitive match; else None."""
        if name in self.params:
            return name
        folded = [n for n in self.params if n.casefold() == name.casefold()]
        return folded[0] if len(folded) == 1 else None

    def closest(self, name: str) -> str | None:
        """The real tool a wrong ``name`` most likely means (``web_search`` → ``search``): itself,
        a tool whose name is part of it (or holds it), else the closest spelling; None if none is near."""
        real = self.resolve(name)
        if real is not None or not name:
            return real
        low = name.casefold()
        inside = [n for n in self.params if n.casefold() in low or low in n.casefold()]
        if len(inside) == 1:
            return inside[0]
        import difflib

        near = difflib.get_close_matches(low, [n.casefold() for n in self.params], n=1, cutoff=0.6)
        return next((n for n in self.params if near and n.casefold() == near[0]), None)

    def unknown(self, name: str) -> bool:
        return self.known and self.resolve(name) is None

    def property_type(self, tool: str, key: str) -> str | None:
        props = (self.params.get(tool) or {}).get("properties") or {}
        prop = props.get(key) if isinstance(props, Mapping) else None
        typ = prop.get("type") if isinstance(prop, Mapping) else None
        return typ if isinstance(typ, str) else None

    def wants_string_list(self, tool: str, key: str) -> bool:
        """Whether the schema of ``tool`` wants an array of strings under ``key``."""
        props = (self.params.get(tool) or {}).get("properties") or {}
        prop = props.get(key) if isinstance(props, Mapping) else None
        if not isinstance(prop, Mapping):
            return False
        typ, items = prop.get("type"), prop.get("items")
        is_array = typ == "array" or (isinstance(typ, list) and "array" in typ and "string" not in typ)
        return is_array and isinstance(items, Mapping) and items.get("type") == "string"

    def listing(self) -> str:
        names = ", ".join(self.names) or "none"
        return names + (f" (not available in this run: {'; '.join(self.left_out)})" if self.left_out else "")

    def example_arguments(self, tool: str) -> dict[str, Any]:
        """Placeholder arguments from the tool's schema: its required properties (else the first)."""
        schema = self.params.get(tool) or {}
        props = schema.get("properties") or {}
        keys = [k for k in schema.get("required") or [] if k in props] or list(props)[:1]
        return {k: _placeholder(props[k]) for k in keys}

    def example_call(self, tool: str | None = None) -> str:
        """``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` for ``tool`` (default: the first)."""
        name = (self.resolve(tool) if tool else None) or (self.names[0] if self.names else "tool_name")
        body = json.dumps({"name": name, "arguments": self.example_arguments(name)}, ensure_ascii=False)
        return f"<tool_call>{body}</tool_call>"


def _placeholder(prop: Any) -> Any:
    typ = prop.get("type") if isinstance(prop, Mapping) else None
    if typ == "array":
        return [_placeholder(prop.get("items") or {})]
    if typ == "object":
        return {}
    if typ in ("integer", "number"):
        return 1
    if typ == "boolean":
        return True
    return PLACEHOLDER
