"""The README's settings table is the settings' own declarations (scripts/settings_table.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_lists_every_setting_as_declared():
    spec = importlib.util.spec_from_file_location("settings_table", ROOT / "scripts" / "settings_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.table() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_table_gives_each_settings_type_bounds_and_flag():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for row in ("| `max_calls` | integer > 0 | `100` |", "| `search_backend` | 'ddgs' or 'searxng' | `'ddgs'` |",
                "| `verify_review_share` | number ≥ 0, < 1 | `0.2` |", "| `api_key` | secret text, or unset |",
                "Flag: `--stream` / `--no-stream`."):
        assert row in readme


def test_the_readme_lists_exactly_the_common_flags():
    import re

    from tui_agent.cli.common import add_common

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Common flags"):].split("\n\n", 1)[0]
    listed = set(re.findall(r"--[a-z][a-z-]*", paragraph))
    parser = __import__("argparse").ArgumentParser()
    add_common(parser)
    offered = {o for action in parser._actions for o in action.option_strings if o.startswith("--") and o != "--help"}
    assert listed == offered
