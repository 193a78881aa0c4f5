"""Print the README's settings table from the settings' own declarations (tui_agent.settings.fields).

    .venv/bin/python scripts/settings_table.py
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import annotated_types  # noqa: E402
from pydantic import SecretStr  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

from tui_agent.config import declared, option_strings  # noqa: E402

_BOUNDS = {annotated_types.Gt: ">", annotated_types.Ge: "≥", annotated_types.Lt: "<", annotated_types.Le: "≤"}
_NAMES = {int: "integer", float: "number", str: "text", bool: "true/false", SecretStr: "secret text"}


def _kind(annotation: typing.Any) -> tuple[str, bool, list[typing.Any]]:
    """A declared type in words, whether it may be unset, and the constraints inside it."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " or ".join(f"'{a}'" for a in args), False, []
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        text, _, meta = _kind(inner[0])
        return text, len(inner) < len(args), meta
    if origin is typing.Annotated:
        text, optional, meta = _kind(args[0])
        return text, optional, meta + list(annotation.__metadata__)
    return _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation))), False, []


def _bounds(metadata: list[typing.Any]) -> str:
    out = []
    for m in metadata:
        if isinstance(m, FieldInfo):  # Field(gt=0) inside a union member keeps its own metadata
            out.extend(filter(None, [_bounds(m.metadata)]))
            continue
        for kind, sign in _BOUNDS.items():
            if isinstance(m, kind):
                out.append(f"{sign} {getattr(m, dataclasses.fields(m)[0].name)}")
    return ", ".join(out)


def _type(name: str) -> str:
    info = declared()[name]
    text, optional, meta = _kind(info.annotation)
    bounds = _bounds(meta + list(info.metadata))
    text += f" {bounds}" if bounds else ""
    return text + (", or unset" if optional else "")


def table() -> str:
    rows = ["| setting | type | default | meaning |", "|---|---|---|---|"]
    for name, info in declared().items():
        flags = " / ".join(f"`{f}`" for f in option_strings(name))
        meaning = (info.description or "") + (f" Flag: {flags}." if flags else "")
        rows.append(f"| `{name}` | {_type(name)} | `{info.default!r}` | {meaning} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
