"""A pytest plugin (collect only, nothing runs): how many tests go through the HTTP chat server and
how many use the in-memory scripted model (issue 28's count)::

    .venv/bin/python -m pytest -q -n 0 -p tests.model_census --collect-only tests | grep "MODEL CENSUS"

A test counts as HTTP when it takes the ``chat_server`` fixture or its source (or a test helper it
names, two levels deep) builds a ``ChatServer``; as in-memory when its source or such a helper calls
``scripted_engine``, ``scripted_app``, ``ScriptedModel(`` or ``KitModel(``. ``MODEL_CENSUS_OUT=FILE``
also writes each test's kind and node id, one a line.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from collections import Counter

HTTP = ("ChatServer(",)
MEMORY = ("scripted_engine(", "scripted_app(", "ScriptedModel(", "KitModel(")


def _src(obj):
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        return ""


def _reach(fn, depth=2):
    """The function's source and the sources of module-level functions it names (depth levels)."""
    seen, out, todo = set(), [], [(fn, 0)]
    while todo:
        f, d = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        src = _src(f)
        out.append(src)
        if d >= depth or not src:
            continue
        g = getattr(f, "__globals__", {})
        try:
            names = {n.id for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Name)}
        except SyntaxError:
            names = set()
        for n in names:
            obj = g.get(n)
            if inspect.isfunction(obj) and obj.__module__.startswith("tests"):
                todo.append((obj, d + 1))
    return "\n".join(out)


def pytest_collection_modifyitems(session, config, items):
    counts, per_dir = Counter(), Counter()
    kinds: list[str] = []
    for item in items:
        fn = getattr(item, "function", None)
        text = _reach(fn) if fn else ""
        http = "chat_server" in getattr(item, "fixturenames", ()) or any(t in text for t in HTTP)
        memory = any(t in text for t in MEMORY)
        kind = "http" if http else ("memory" if memory else "neither")
        counts[kind] += 1
        per_dir[(item.nodeid.split("/")[1], kind)] += 1
        kinds.append(f"{kind} {item.nodeid}")
    print(f"\nMODEL CENSUS: {len(items)} tests: http chat server {counts['http']}, "
          f"in-memory model {counts['memory']}, neither {counts['neither']}")
    if os.environ.get("MODEL_CENSUS_OUT"):
        with open(os.environ["MODEL_CENSUS_OUT"], "w") as f:
            f.write("\n".join(kinds) + "\n")
    for (d, kind), n in sorted(per_dir.items()):
        print(f"MODEL CENSUS   {d:12} {kind:8} {n}")
