"""Print the settings table of docs/settings.md from the settings' own declarations (tui_agent.settings.fields).

    .venv/bin/python scripts/settings_table.py
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import annotated_types  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from tui_agent.config import declared, option_strings, shape  # noqa: E402

_BOUNDS = {annotated_types.Gt: ">", annotated_types.Ge: "≥", annotated_types.Lt: "<", annotated_types.Le: "≤"}
_NAMES = {int: "integer", float: "number", str: "text", bool: "true/false", SecretStr: "secret text"}


def _type(name: str) -> str:
    """A setting's declared type, choices and bounds in words."""
    form = shape(name)
    if typing.get_origin(form.kind) is dict:
        return "TOML table"  # its keys and values are described in the meaning
    text = " or ".join(f"'{c}'" for c in form.choices) if form.choices else _NAMES.get(form.kind, str(form.kind))
    bounds = ", ".join(f"{_BOUNDS[type(b)]} {getattr(b, dataclasses.fields(b)[0].name)}" for b in form.bounds)
    text += f" {bounds}" if bounds else ""
    return text + (", or unset" if form.optional else "")


def table() -> str:
    rows = ["| setting | type | default | meaning |", "|---|---|---|---|"]
    for name, info in declared().items():
        flags = " / ".join(f"`{f}`" for f in option_strings(name))
        meaning = (info.description or "") + (f" Flag: {flags}." if flags else "")
        rows.append(f"| `{name}` | {_type(name)} | `{info.default!r}` | {meaning} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
