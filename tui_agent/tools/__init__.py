"""Research tools: search and visit, behind the interface in :mod:`tui_agent.tools.base`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_agent.tools.base import ToolRegistry

if TYPE_CHECKING:  # pragma: no cover
    from tui_agent.config import Settings


def build_registry(settings: "Settings") -> ToolRegistry:
    """The tools of a run. ``settings`` is accepted for tools that depend on configuration."""
    from tui_agent.tools.search import SearchTool
    from tui_agent.tools.visit import VisitTool

    return ToolRegistry([SearchTool(), VisitTool()])
