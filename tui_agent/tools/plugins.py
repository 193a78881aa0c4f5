"""Tool plugins: an installed package adds tools through the entry point group ``tui_agent.tools``.

The entry point names a ``register_tools(register)`` function (simonw/llm's hook), which calls
``register(tool)`` once for each :class:`~tui_agent.tools.base.Tool` instance it adds::

    # pyproject.toml of the plugin
    [project.entry-points."tui_agent.tools"]
    wordcount = "tui_agent_wordcount:register_tools"

    # tui_agent_wordcount.py
    def register_tools(register):
        register(WordCountTool())

A plugin's tools are regular tools: their schema is the prompt's, the validation's and the
approval display's, and every call goes through the same approval gate and tool policies. Their
descriptions go through the observations' hygiene (controls stripped, secrets redacted, protocol
tags escaped), as MCP servers' do. A
plugin that fails to load, or a tool that clashes with another or lacks a name or schema, is
left out with a message naming the plugin; it never stops a run.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from tui_agent.tools.base import Tool
from tui_agent.tools.mcp import shown_text

GROUP = "tui_agent.tools"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


@lru_cache(maxsize=4)
def _discovered(path: tuple[str, ...]) -> tuple[Any, ...]:
    """The group's entry points on this import path. Reading every installed distribution's
    metadata costs ~30 ms, and an eval builds the tools for every case: read once per path."""
    from importlib.metadata import entry_points

    return tuple(entry_points(group=GROUP))


@dataclass
class Loaded:
    """The tools the plugins registered (name -> tool and its source), and what went wrong."""

    tools: list[Tool] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_plugins(taken: set[str], entry_points: Callable[[], Any] | None = None) -> Loaded:
    """The tools of every installed plugin; ``taken`` are the names already in use (built-ins)."""
    if entry_points is None:
        def entry_points() -> Any:
            return _discovered(tuple(sys.path))

    loaded, names = Loaded(), set(taken)
    for ep in sorted(entry_points(), key=lambda e: e.name):
        dist = getattr(getattr(ep, "dist", None), "name", None)
        source = f"plugin {dist or ep.name}"
        offered: list[Any] = []
        try:
            hook = ep.load()
            hook(offered.append)
        except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, the run goes on
            loaded.problems.append(f"the tool plugin {ep.name!r} ({ep.value}) could not load: {type(exc).__name__}: {exc}")
            continue
        for tool in offered:
            why = _unfit(tool, names)
            if why:
                loaded.problems.append(f"the tool plugin {ep.name!r} offered a tool that was left out: {why}")
                continue
            try:  # what the model reads of it goes through the observations' hygiene, as an MCP server's does
                tool.description = shown_text(tool.description)
            except AttributeError:  # a read-only description (a property): the tool is left out
                loaded.problems.append(f"the tool plugin {ep.name!r} offered {tool.name!r} with a description "
                                       "that cannot be cleaned (read-only): it was left out")
                continue
            names.add(tool.name)
            loaded.tools.append(tool)
            loaded.sources[tool.name] = source
    return loaded


def _unfit(tool: Any, names: set[str]) -> str | None:
    if not isinstance(tool, Tool):
        return f"{tool!r} is not a tui_agent.tools.base.Tool"
    name = getattr(tool, "name", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return f"its name {name!r} is not a tool name (letters, digits, '_', '.', '-')"
    if name in names:
        return f"the name {name!r} is already taken"
    if name.startswith("mcp__"):
        return f"{name!r}: names starting with mcp__ belong to MCP servers"
    if not isinstance(getattr(tool, "parameters", None), dict) or not isinstance(getattr(tool, "description", None), str):
        return f"{name!r} needs a description (text) and parameters (a JSON schema object)"
    return None
