"""The package's shape, read from its imports: which rooms may import what (docs/layout.md).

Every ``import``/``from … import`` in tui_agent/ is read with ``ast``, at any depth (imports inside
functions count: a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import tui_agent

ROOT = Path(tui_agent.__file__).parent
FRONT_END = ("tui_agent.app", "tui_agent.screens", "tui_agent.widgets")


def _modules() -> dict[str, set[str]]:
    """Each module of the package and the absolute module names it imports."""
    out: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
                imported.update(f"{node.module}.{a.name}" for a in node.names)
        out[name] = imported
    return out


def _within(name: str, rooms: tuple[str, ...] | str) -> bool:
    rooms = (rooms,) if isinstance(rooms, str) else rooms
    return any(name == r or name.startswith(r + ".") for r in rooms)


def test_textual_is_imported_only_by_the_front_end():
    offenders = sorted(m for m, imps in _modules().items()
                       if any(_within(i, "textual") for i in imps) and not _within(m, FRONT_END))
    assert offenders == []


def test_litellm_is_imported_only_by_the_model_adapter():
    offenders = sorted(m for m, imps in _modules().items()
                       if any(_within(i, "litellm") for i in imps) and m != "tui_agent.model.llm")
    assert offenders == []


def test_the_front_end_never_imports_the_command_line():
    offenders = sorted(m for m, imps in _modules().items()
                       if _within(m, FRONT_END) and any(_within(i, "tui_agent.cli") for i in imps))
    assert offenders == []


def test_the_kinds_are_the_bottom_of_the_package():
    assert not any(_within(i, "tui_agent") for i in _modules()["tui_agent.kinds"])


def test_no_module_sits_loose_beside_the_rooms_but_the_shared_few():
    loose = sorted(p.stem for p in ROOT.glob("*.py"))
    assert loose == ["__init__", "__main__", "config", "exit_codes", "kinds"]
