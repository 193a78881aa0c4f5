"""Figures of the package's layout, read from its imports (docs/layout.md).

    python scripts/layout_figures.py [REPO]      (REPO: a checkout; default: this one)

Prints three tables:

- package cycles: the strongly connected components of more than one package in the graph of
  every import between tui_agent's packages (imports inside functions count; only imports under
  ``if TYPE_CHECKING:`` are left out);
- upward imports: each import of a package declared above the importing one (``ORDER``);
- files touched by adding one event kind: for each event class in ``tui_agent/core/events*.py``, the
  number of files of the package (tests left out) whose code names it, with the median and the maximum.
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path

ORDER = ("kinds", "exit_codes", "safety", "settings", "config", "web", "model", "core", "tools", "protocol",
         "context", "plan", "agent", "team", "verify", "session", "evals", "telemetry", "widgets", "screens", "app", "cli", "__main__")
"""The declared order of the packages, bottom first: each imports only packages before it."""


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, int]]:
    """The absolute module names a module imports, with their line, at any depth (lazy imports
    count), leaving out what sits under ``if TYPE_CHECKING:``."""
    out: list[tuple[str, int]] = []
    base = module.split(".") if is_package else module.split(".")[:-1]

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            if isinstance(child, ast.Import):
                out.extend((a.name, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parent = base[:len(base) - (child.level - 1)]
                    mod = ".".join(parent + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                out.append((mod, child.lineno))
                out.extend((f"{mod}.{a.name}", child.lineno) for a in child.names)
            walk(child)

    walk(tree)
    return out


def package_of(module: str, packages: set[str]) -> str | None:
    """``tui_agent.agent.engine`` → ``agent``; ``tui_agent.config`` → ``config``; None outside."""
    parts = module.split(".")
    if parts[0] != "tui_agent" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in packages else None


def package_edges(repo: Path) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package → the imports that make the edge (``module:line -> module``)."""
    root = repo / "tui_agent"
    packages = {p.stem if p.is_file() else p.name for p in root.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(repo).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        src = package_of(module, packages)
        if src is None:
            continue
        seen: set[tuple[int, str]] = set()  # one entry per import statement and package
        for mod, line in imported_modules(ast.parse(path.read_text(encoding="utf-8")), module,
                                          path.name == "__init__.py"):
            dst = package_of(mod, packages)
            if dst is None or dst == src or (line, dst) in seen:
                continue
            seen.add((line, dst))
            edges.setdefault((src, dst), []).append(f"{module}:{line} -> {mod}")
    return edges


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def upward(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    """Every import of a package declared above (or not declared in) the order."""
    rank = {p: i for i, p in enumerate(ORDER)}
    out = []
    for (a, b), where in sorted(edges.items()):
        if rank.get(b, len(ORDER)) > rank.get(a, len(ORDER)):
            out.extend(where)
    return out


def _event_names(root: Path) -> list[str]:
    """The event classes of ``core/events*.py`` (``session/`` in a tree from before core/)."""
    names: list[str] = []
    for path in sorted((root / "core").glob("events*.py")) + sorted((root / "session").glob("events*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and b.id == "Event" for b in node.bases):
                names.append(node.name)
    return names


def event_reach(repo: Path) -> dict[str, int]:
    """Each event class → how many files of the package name it."""
    root = repo / "tui_agent"
    names = _event_names(root)
    used = [_identifiers(ast.parse(p.read_text(encoding="utf-8"))) for p in root.rglob("*.py")]
    return {n: sum(1 for ids in used if n in ids) for n in names}


ENUMERATES = 0.8
"""A file naming at least this share of the event classes enumerates them: a new kind must be entered there."""


def event_registries(repo: Path) -> list[str]:
    """The files (besides the events' own modules) that enumerate the event kinds: where adding one kind must
    also go, before any view that shows it."""
    root = repo / "tui_agent"
    names = set(_event_names(root))
    out = []
    for p in sorted(root.rglob("*.py")):
        if p.name.startswith("events") or p.name == "event_base.py":
            continue
        ids = _identifiers(ast.parse(p.read_text(encoding="utf-8")))
        if names and len(names & ids) >= ENUMERATES * len(names):
            out.append(str(p.relative_to(repo)))
    return out


def _identifiers(tree: ast.AST) -> set[str]:
    """The names a module's code uses (names, attributes, imported names, classes it defines);
    words in strings and comments do not count."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            out.update(a.name.split(".")[-1] for a in node.names)
            out.update(a.asname for a in node.names if a.asname)
        elif isinstance(node, ast.ClassDef):
            out.add(node.name)
    return out


def main(argv: list[str]) -> int:
    repo = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    edges = package_edges(repo)
    found = cycles(edges)
    print(f"package cycles (strongly connected components, size > 1): {len(found)}")
    for comp in found:
        print(f"  {len(comp)}: {', '.join(comp)}")
    up = upward(edges)
    print(f"\nupward imports against the declared order ({' < '.join(ORDER)}): {len(up)}")
    for line in up:
        print(f"  {line}")
    registries = event_registries(repo)
    print(f"\nfiles that enumerate every event kind (name >= {ENUMERATES:.0%} of them; a new kind goes in each): "
          f"{len(registries)}")
    for path in registries:
        print(f"  {path}")
    reach = event_reach(repo)
    counts = sorted(reach.values())
    print(f"\nfiles touched by adding one event kind ({len(reach)} event classes; files of tui_agent/ naming each):")
    if counts:
        print(f"  median {statistics.median(counts):g}, max {counts[-1]}")
        for name, n in sorted(reach.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:3d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
