"""Native tool calls as the provider sends them → whole calls, OpenAI-shaped.

A streamed reply sends its tool calls in pieces (``delta.tool_calls``): each piece names the call
it belongs to by ``index``; the call's ``id`` and function ``name`` come in its first piece, its
``arguments`` string is spread over the following ones. Several calls in one reply (parallel
calls) interleave by index. :class:`ToolCallAssembler` joins the pieces; :func:`whole_calls` reads
a non-streamed reply's ``message.tool_calls``. Both give the same shape, the one sent back in the
assistant message of the next request::

    {"id": "call_…", "type": "function", "function": {"name": "search", "arguments": "{…}"}}

Pieces may be litellm objects or plain dicts. A piece without an index continues the last call
unless it brings a new id (servers that leave the index out); a call without an id gets
``call_N`` (N its index), so its result can still be matched to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _arguments_text(value: Any) -> str:
    """The arguments as the provider sent them: a string (some send an object: kept as JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@dataclass
class _Partial:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Joins streamed tool-call deltas into whole calls, in index order."""

    def __init__(self) -> None:
        self._calls: dict[int, _Partial] = {}
        self._last: int | None = None

    def feed(self, deltas: Iterable[Any] | None) -> None:
        for d in deltas or ():
            index = _get(d, "index")
            call_id = _get(d, "id") or ""
            if not isinstance(index, int):
                last = self._calls.get(self._last) if self._last is not None else None
                if last is None or (call_id and last.id and call_id != last.id):
                    index = max(self._calls, default=-1) + 1
                else:
                    index = self._last
            part = self._calls.setdefault(index, _Partial())
            self._last = index
            if call_id and not part.id:
                part.id = call_id
            fn = _get(d, "function")
            name = _get(fn, "name")
            if name and not part.name:
                part.name = name
            args = _get(fn, "arguments")
            if args:
                part.arguments.append(_arguments_text(args))

    def __bool__(self) -> bool:
        return bool(self._calls)

    def calls(self) -> list[dict[str, Any]]:
        return [tool_call(p.id or f"call_{i}", p.name, "".join(p.arguments))
                for i, p in sorted(self._calls.items())]


def whole_calls(tool_calls: Iterable[Any] | None) -> list[dict[str, Any]]:
    """A non-streamed reply's ``message.tool_calls`` in the same shape."""
    out = []
    for i, c in enumerate(tool_calls or ()):
        fn = _get(c, "function")
        out.append(tool_call(_get(c, "id") or f"call_{i}", _get(fn, "name") or "",
                             _arguments_text(_get(fn, "arguments"))))
    return out
