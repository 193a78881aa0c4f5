"""Print the README's settings table from the settings' own declarations (config.Settings).

    .venv/bin/python scripts/settings_table.py
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_agent.config import Settings  # noqa: E402


def table() -> str:
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(Settings):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        rows.append(f"| `{f.name}` | `{default!r}` | {f.metadata.get('doc', '')} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
