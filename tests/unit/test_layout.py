"""The package's shape, read from its imports: which rooms may import what (docs/layout.md).

Every ``import``/``from … import`` in tui_agent/ is read with ``ast``, at any depth (imports inside
functions count: a lazy import is still a dependency). The package graph leaves out only what is
imported under ``if TYPE_CHECKING:`` (annotations, never run)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import tui_agent

ROOT = Path(tui_agent.__file__).parent
FRONT_END = ("tui_agent.app", "tui_agent.screens", "tui_agent.widgets")
BELOW_CORE = ("kinds", "exit_codes", "safety", "settings", "config", "web", "model", "core")
"""The ground floor (``core/``) and the packages it may import: nothing above ``model/``."""


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


def test_litellm_is_imported_only_by_its_lazy_accessor():
    offenders = sorted(m for m, imps in _modules().items()
                       if any(_within(i, "litellm") for i in imps) and m != "tui_agent.model.litellm_lazy")
    assert offenders == []


def test_opentelemetry_is_imported_only_by_the_telemetry_room():
    offenders = sorted(m for m, imps in _modules().items()
                       if any(_within(i, "opentelemetry") for i in imps) and not _within(m, "tui_agent.telemetry"))
    assert offenders == []


def test_the_telemetry_room_is_imported_only_lazily_by_the_command_line():
    """Without --otel the SDK is never imported: no module outside telemetry/ imports it at its top."""
    eager = []
    for path in ROOT.rglob("*.py"):
        rel = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__")
        if _within(rel, "tui_agent.telemetry"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.module and _within(node.module, "tui_agent.telemetry"):
                eager.append(rel)
    assert eager == []


def test_the_front_end_never_imports_the_command_line():
    offenders = sorted(m for m, imps in _modules().items()
                       if _within(m, FRONT_END) and any(_within(i, "tui_agent.cli") for i in imps))
    assert offenders == []


def test_the_kinds_are_the_bottom_of_the_package():
    assert not any(_within(i, "tui_agent") for i in _modules()["tui_agent.kinds"])


def test_no_module_sits_loose_beside_the_rooms_but_the_shared_few():
    loose = sorted(p.stem for p in ROOT.glob("*.py"))
    assert loose == ["__init__", "__main__", "config", "exit_codes", "kinds"]


# --- the package graph (TYPE_CHECKING imports left out) ---------------------------------------

def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _run_imports(tree: ast.AST) -> set[str]:
    """The absolute module names a module imports when it runs (at any depth), with the names
    imported from each (``from tui_agent import protocol`` imports ``tui_agent.protocol``)."""
    out: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if _type_checking(node):
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        out |= _run_imports(node)
    return out


def _package(module: str) -> str | None:
    """``tui_agent.agent.engine`` → ``agent``, ``tui_agent.config`` → ``config`` (None: not ours)."""
    parts = module.split(".")
    if parts[0] != "tui_agent" or len(parts) < 2 or not (
            (ROOT / parts[1]).is_dir() or (ROOT / f"{parts[1]}.py").exists()):
        return None
    return parts[1]


@functools.cache
def _package_graph() -> dict[str, dict[str, set[str]]]:
    """Package → the packages it imports → the modules that make the edge."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        src = _package(name)
        if src is None:
            continue
        edges = graph.setdefault(src, {})
        for imported in _run_imports(ast.parse(path.read_text(encoding="utf-8"))):
            dst = _package(imported)
            if dst is not None and dst != src:
                edges.setdefault(dst, set()).add(name)
    return graph


def _cycles(graph: dict[str, dict[str, set[str]]]) -> list[set[str]]:
    """The strongly connected components of more than one package."""
    reach = {p: set(graph.get(p, {})) for p in graph}
    changed = True
    while changed:  # the transitive closure: a few dozen packages
        changed = False
        for p, seen in reach.items():
            more = set().union(*(reach.get(q, set()) for q in seen)) - seen
            if more:
                seen |= more
                changed = True
    comps: list[set[str]] = []
    for p in sorted(reach):
        comp = {p} | {q for q in reach[p] if p in reach.get(q, set())}
        if len(comp) > 1 and comp not in comps:
            comps.append(comp)
    return comps


FRONT_END_PACKAGES = {r.removeprefix("tui_agent.") for r in FRONT_END}


def test_the_engine_side_imports_nothing_of_the_front_end_or_the_command_line():
    graph = _package_graph()
    engine = set(graph) - FRONT_END_PACKAGES - {"cli", "__main__"}
    offenders = sorted((p, q) for p in engine for q in graph[p] if q in FRONT_END_PACKAGES | {"cli", "__main__"})
    assert offenders == []


def test_the_package_graph_has_no_cycle():
    """Counting lazy imports (only ``if TYPE_CHECKING:`` ones left out), no package sits in a circle."""
    assert _cycles(_package_graph()) == []


def test_core_imports_nothing_above_model():
    offenders = sorted((q, sorted(mods)) for q, mods in _package_graph()["core"].items() if q not in BELOW_CORE)
    assert offenders == []


def test_session_imports_neither_plan_nor_context():
    offenders = sorted((q, sorted(mods)) for q, mods in _package_graph()["session"].items() if q in ("plan", "context"))
    assert offenders == []


def test_the_engine_side_reaches_storage_only_through_the_sink_in_core():
    """The runner and the tool runner take a ``core.sink.SessionLog``; they import nothing of session/."""
    offenders = sorted(m for m in _package_graph()["agent"].get("session", set()))
    assert offenders == []


def test_a_package_cycle_is_found_when_there_is_one():
    graph = {"a": {"b": {"tui_agent.a.x"}}, "b": {"c": {"tui_agent.b.y"}}, "c": {"a": {"tui_agent.c.z"}}, "d": {}}
    assert _cycles(graph) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b": set()}, "b": {}}) == []


def test_an_import_under_type_checking_is_not_an_edge_but_a_lazy_one_is():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui_agent.app import x\n"
                     "def f():\n    from tui_agent import plan\n")
    found = _run_imports(tree)
    assert "tui_agent.plan" in found and not any(m.startswith("tui_agent.app") for m in found)
def _runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs, lazily too (``if TYPE_CHECKING:`` blocks left out)."""
    return _run_imports(ast.parse(path.read_text(encoding="utf-8")))


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


ORDER = ("kinds", "exit_codes", "safety", "settings", "config", "web", "model", "core", "tools", "protocol",
         "context", "plan", "agent", "team", "verify", "session", "evals", "telemetry", "widgets", "screens", "app",
         "cli", "__main__")
"""The declared order, bottom first (docs/layout.md; scripts/layout_figures.py prints the same figure)."""


def test_every_package_imports_only_packages_below_it_in_the_declared_order():
    graph = _package_graph()
    assert set(graph) <= set(ORDER), f"a package without a place in ORDER: {set(graph) - set(ORDER)}"
    rank = {p: i for i, p in enumerate(ORDER)}
    upward = sorted((p, q, sorted(mods)) for p, edges in graph.items() for q, mods in edges.items() if rank[q] > rank[p])
    assert upward == []
