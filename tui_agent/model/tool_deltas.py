"""Native tool calls as the provider sends them → whole calls, OpenAI-shaped.

A streamed reply sends its tool calls in pieces (``delta.tool_calls``): each piece names the call
it belongs to by ``index``; the call's ``id`` and function ``name`` come in its first piece, its
``arguments`` string is spread over the following ones. Several calls in one reply (parallel
calls) interleave by index. :class:`ToolCallAssembler` joins the pieces; :func:`whole_calls` reads
a non-streamed reply's ``message.tool_calls``. Both give the same shape, the one sent back in the
assistant message of the next request::

    {"id": "call_…", "type": "function", "function": {"name": "search", "arguments": "{…}"}}

Pieces may be litellm objects or plain dicts. A piece without an index continues the last call
unless it brings a new id (servers that leave the index out). A piece on the index of a call whose
arguments are already one whole JSON object, and that opens another (``{``), or that names another
function, starts a new call: relays in front of Gemini send every call of a reply on index 0, often
with no new id (and no name: it is then one more call of the same function), and joined they
would be ``{…}{…}``. A call without an id (or with the id of an
earlier call) gets ``call_N`` (N its place among the calls), so its result can still be matched to it.
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

    def whole(self) -> bool:
        """Whether the arguments so far are one complete JSON object."""
        try:
            return isinstance(json.loads("".join(self.arguments)), dict)
        except ValueError:
            return False

    def ends_before(self, name: str | None, args: str) -> bool:
        """Whether a piece naming ``name`` with ``args`` is another call: a new function's name, or
        a new object after a whole one."""
        if name and self.name and name != self.name:
            return True
        return args.lstrip().startswith("{") and bool(self.arguments) and self.whole()


class ToolCallAssembler:
    """Joins streamed tool-call deltas into whole calls, in index order (calls that came on one
    index in the order they came)."""

    def __init__(self) -> None:
        self._calls: dict[tuple[int, int], _Partial] = {}  # (index, n-th call on that index)
        self._open: dict[int, tuple[int, int]] = {}  # index -> the key of its current call
        self._last: int | None = None

    def feed(self, deltas: Iterable[Any] | None) -> None:
        for d in deltas or ():
            index = _get(d, "index")
            call_id = _get(d, "id") or ""
            if not isinstance(index, int):
                last = self._calls.get(self._open[self._last]) if self._last is not None else None
                if last is None or (call_id and last.id and call_id != last.id):
                    index = max((i for i, _ in self._calls), default=-1) + 1
                else:
                    index = self._last
            fn = _get(d, "function")
            name = _get(fn, "name")
            args = _arguments_text(_get(fn, "arguments"))
            key = self._open.get(index)
            part = self._calls.get(key) if key is not None else None
            before = None
            if part is not None and part.ends_before(name, args):
                key, before, part = (index, key[1] + 1), part, None
            if part is None:
                key = key or (index, 0)
                # a call split off without a name of its own is one more call of the same function
                part = self._calls[key] = _Partial(name=before.name if before is not None and not name else "")
                self._open[index] = key
            self._last = index
            if call_id and not part.id:
                part.id = call_id
            if name and not part.name:
                part.name = name
            if args:
                part.arguments.append(args)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def calls(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        parts = [p for _, p in sorted(self._calls.items())]
        taken = {p.id for p in parts if p.id}
        seen: set[str] = set()
        for n, p in enumerate(parts):
            call_id = p.id
            if not call_id or call_id in seen:  # ids must tell the results apart
                call_id, k = f"call_{n}", 0
                while call_id in taken or call_id in seen:
                    k += 1
                    call_id = f"call_{n}_{k}"
            seen.add(call_id)
            out.append(tool_call(call_id, p.name, "".join(p.arguments)))
        return out


def whole_calls(tool_calls: Iterable[Any] | None) -> list[dict[str, Any]]:
    """A non-streamed reply's ``message.tool_calls`` in the same shape."""
    out = []
    for i, c in enumerate(tool_calls or ()):
        fn = _get(c, "function")
        out.append(tool_call(_get(c, "id") or f"call_{i}", _get(fn, "name") or "",
                             _arguments_text(_get(fn, "arguments"))))
    return out
