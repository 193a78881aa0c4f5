"""The README and docs/ say what the code does: the settings table is the settings' own declarations
(scripts/settings_table.py), the common flags are the parser's, the keys table names every key the
TUI binds, and the README stays a guide that links to the rest."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SETTINGS = ROOT / "docs" / "settings.md"
README_MAX_LINES = 500


def test_the_settings_page_lists_every_setting_as_declared():
    spec = importlib.util.spec_from_file_location("settings_table", ROOT / "scripts" / "settings_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.table() in SETTINGS.read_text(encoding="utf-8")


def test_the_settings_table_gives_each_settings_type_bounds_and_flag():
    page = SETTINGS.read_text(encoding="utf-8")
    for row in ("| `max_calls` | integer > 0 | `100` |", "| `search_backend` | 'ddgs' or 'searxng' | `'ddgs'` |",
                "| `verify_review_share` | number ≥ 0, < 1 | `0.2` |", "| `api_key` | secret text, or unset |",
                "Flag: `--stream` / `--no-stream`."):
        assert row in page


def test_the_readme_lists_exactly_the_common_flags():
    from tui_agent.cli.common import add_common

    readme = README.read_text(encoding="utf-8")
    paragraph = readme[readme.index("Common flags"):].split("\n\n", 1)[0]
    listed = set(re.findall(r"--[a-z][a-z-]*", paragraph))
    parser = __import__("argparse").ArgumentParser()
    add_common(parser)
    offered = {o for action in parser._actions for o in action.option_strings if o.startswith("--") and o != "--help"}
    assert listed == offered


# Where each class's keys are listed: the heading (its start) of a table under the README's "## Keys".
KEY_SECTIONS = {
    "ResearchApp": "Anywhere", "MainScreen": "Main screen", "JsonArea": "Main screen",
    "PlanScreen": "Plan dialog", "ClarifyScreen": "Clarifying questions", "InspectorScreen": "Prompt inspector",
    "ContextViewScreen": "Context view", "SessionsScreen": "Session browser", "SessionViewScreen": "Session browser",
    "ForkScreen": "Session browser", "ConfirmScreen": "Other dialogs", "QuestionScreen": "Other dialogs",
    "ModelScreen": "Other dialogs", "SetupScreen": "Other dialogs", "PathScreen": "Other dialogs",
    "FormCheckbox": "Other dialogs", "HelpScreen": "Other dialogs",
    "AgentScreen": "Team", "TeamChoiceScreen": "Team",
}
SHOWN = {"left": "←", "right": "→", "left_square_bracket": "[", "right_square_bracket": "]", "question_mark": "?", "slash": "/", "escape": "Esc", "enter": "Enter", "f1": "F1"}


def bound_keys() -> dict[str, set[str]]:
    """Every key bound by a class of the TUI (app/, screens/, widgets/), as the README writes it."""
    found: dict[str, set[str]] = {}
    for room in ("tui_agent.app", "tui_agent.screens", "tui_agent.widgets"):
        for info in pkgutil.iter_modules(importlib.import_module(room).__path__, room + "."):
            module = importlib.import_module(info.name)
            for name, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and "BINDINGS" in cls.__dict__:
                    for binding in cls.__dict__["BINDINGS"]:
                        for key in binding.key.split(","):
                            found.setdefault(name, set()).add(SHOWN.get(key, key))
    return found


def key_tables() -> dict[str, str]:
    readme = README.read_text(encoding="utf-8")
    section = readme[readme.index("\n## Keys\n"):].split("\n## ", 2)[1]
    return {part.split("\n", 1)[0]: part for part in section.split("\n### ")[1:]}


def test_the_readme_keys_table_names_every_key_the_tui_binds_where_it_acts():
    tables = key_tables()
    bound = bound_keys()
    assert set(bound) <= set(KEY_SECTIONS), "a new screen with keys: give it a table in the README's Keys"
    missing = {(name, key) for name, keys in bound.items() for key in keys
               if not any(f"**{key}**" in text for heading, text in tables.items()
                          if heading.startswith(KEY_SECTIONS[name]))}
    assert missing == set()
    assert "**ctrl+p**" in tables["Anywhere"]  # Textual's command palette, bound by Textual itself


def test_the_readme_is_a_guide_of_at_most_500_lines_whose_links_resolve():
    readme = README.read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    pages = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).resolve().is_file(), (page.name, target)
    linked = set(re.findall(r"\]\((docs/[a-z]+\.md)", readme))
    assert linked == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}  # every page is reachable


def test_the_readme_layout_names_every_room_in_the_declared_order():
    """The Layout section's rooms are the package's, listed bottom first in the order the layout test pins."""
    from tests.unit.test_layout import ORDER

    section = README.read_text(encoding="utf-8").split("## Layout", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    rooms = sorted(p.name for p in (ROOT / "tui_agent").iterdir() if p.is_dir() and (p / "__init__.py").exists())
    column = [re.split(r"\s{2,}", line.strip())[0] for line in block.splitlines() if line.startswith("  ") and line[2:3] != " "]
    shown = [r for cell in column for r in re.findall(r"\b([a-z_]+)/", cell)]
    assert sorted(set(shown)) == rooms
    rank = {p: i for i, p in enumerate(ORDER)}
    front = {"widgets", "screens", "app"}  # written as the front end reads: app → screens → widgets
    order = [rank[r] for r in shown if r not in front]
    assert order == sorted(order)
