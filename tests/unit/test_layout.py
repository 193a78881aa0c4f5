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


def _runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs, lazily too (``if TYPE_CHECKING:`` blocks left out)."""
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.add(child.module)
                found.update(f"{child.module}.{a.name}" for a in child.names)
            walk(child)

    walk(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _front_end_files() -> dict[str, Path]:
    out = {}
    for room in ("app", "screens", "widgets"):
        for path in (ROOT / room).rglob("*.py"):
            out[".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")] = path
    return out


FRONT_END_ORDER = ("tui_agent.widgets", "tui_agent.screens", "tui_agent.app")  # each imports only those before it


def test_the_front_end_imports_only_downward_app_then_screens_then_widgets():
    upward = []
    for name, path in sorted(_front_end_files().items()):
        rank = next(i for i, room in enumerate(FRONT_END_ORDER) if _within(name, room))
        for imported in _runtime_imports(path):
            for i, room in enumerate(FRONT_END_ORDER):
                if i > rank and _within(imported, room):
                    upward.append(f"{name} -> {imported}")
    assert upward == []


def test_no_module_of_the_front_end_imports_itself_round_a_circle():
    files = _front_end_files()
    graph = {name: {i for i in _runtime_imports(path) if i in files and i != name} for name, path in files.items()}
    state: dict[str, int] = {}
    circles: list[str] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == []


def _event_class_names() -> set[str]:
    from tui_agent.core.event_base import Event
    from tui_agent.core import events

    return {name for name, value in vars(events).items() if isinstance(value, type) and issubclass(value, Event)
            and value is not Event}


def test_no_isinstance_tuple_of_event_classes_decides_a_redraw_in_the_front_end():
    """What an event redraws is the EFFECTS table's (widgets/effects.py), not ``isinstance(e, (A, B, …))``."""
    events = _event_class_names()
    offenders = []
    for name, path in sorted(_front_end_files().items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                    and len(node.args) == 2):
                classes = node.args[1]
                if isinstance(classes, ast.Name):  # a tuple kept in a constant: isinstance(e, SHOWN)
                    classes = _constant(path, classes.id) or classes
                if isinstance(classes, ast.Tuple) and any(isinstance(c, ast.Name) and c.id in events
                                                          for c in classes.elts):
                    offenders.append(f"{name}:{node.lineno}")
    assert offenders == []


def _constant(path: Path, name: str) -> ast.expr | None:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    return None


def test_the_run_handle_is_below_the_front_end():
    for module in ("handle.py", "run_sink.py"):
        imports = _runtime_imports(ROOT / "agent" / module)
        assert not any(_within(i, FRONT_END + ("textual",)) for i in imports), module
