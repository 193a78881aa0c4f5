"""The tool interface: each tool declares name, description and a JSON schema.

That schema is the single source for the system prompt, argument validation (jsonschema, within
the bounds of :mod:`tui_agent.tools.schema_check`) and
the approval display. Tools are async and cancellable; the engine bounds each with a timeout.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar

from tui_agent.kinds import ObservationStatus
from tui_agent.core.fold import SourceState

if TYPE_CHECKING:  # pragma: no cover
    import httpx

    from tui_agent.config import Settings


# Status of a tool result. FAILED counts towards disabling a tool; REFUSED (network guard) and
# INVALID (argument validation) are explained to the model and do not.
OK, FAILED, REFUSED, INVALID = (ObservationStatus.OK, ObservationStatus.FAILED, ObservationStatus.REFUSED,
                                ObservationStatus.INVALID)


class SourceRegistry:
    """URLs read during a run, each with a stable citation number [n].

    Backed by the session state's ``sources`` (by URL) when given: a new source is announced
    through ``on_added`` (the engine emits ``SourceAdded``, which the fold records) and numbered
    after the ones the session already has, so a resumed or forked run keeps its numbers.
    """

    def __init__(self, sources: dict[str, SourceState] | None = None,
                 on_added: Callable[[SourceState], None] | None = None) -> None:
        self._by_url = sources if sources is not None else {}
        self.on_added = on_added

    def register(self, url: str, title: str = "") -> SourceState:
        src = self._by_url.get(url)
        if src is None:
            src = SourceState(number=len(self._by_url) + 1, url=url, title=title, read_at=time.time())
            if self.on_added:
                self.on_added(src)
            src = self._by_url.setdefault(url, src)
        return src

    def all(self) -> list[SourceState]:
        return sorted(self._by_url.values(), key=lambda s: s.number)

    def urls(self) -> list[str]:
        return [s.url for s in self.all()]


@dataclass
class ToolResult:
    text: str
    status: ObservationStatus = OK
    sources: list[int] = field(default_factory=list)


@dataclass
class ToolContext:
    """What a running tool may use; built by the engine for each run."""

    settings: "Settings"
    http: "httpx.AsyncClient"
    sources: SourceRegistry
    # progress(text, cost_usd=None, prompt_tokens=None, completion_tokens=None): a visible sub-step
    progress: Callable[..., None] = lambda *a, **k: None
    # the engine's model caller for sub-calls (extraction); returns an llm.Reply
    complete: Callable[..., Awaitable[Any]] | None = None
    call_id: str = ""
    # the tokens this call's observation may hold (its budget, core.budgets); None: observation_max_tokens
    observation_tokens: int | None = None

    @property
    def budget(self) -> int:
        """The tokens this call's observation may hold."""
        return self.observation_tokens or self.settings.observation_max_tokens


class Tool:
    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]
    # Running it twice does no harm (it only reads): a call that had started when the process
    # stopped runs again on resume. Otherwise (MCP, plugins) it is not run again: the model is told.
    rerun_safe: ClassVar[bool] = False

    def timeout_s(self, settings: "Settings") -> float:
        return settings.tool_timeout_s

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:  # pragma: no cover
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


class ToolRegistry:
    def __init__(self, tools: list[Tool]) -> None:
        self.tools: dict[str, Tool] = {t.name: t for t in tools}

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def names(self) -> list[str]:
        return list(self.tools)

    def prompt_block(self) -> str:
        return "\n".join(json.dumps(t.schema(), ensure_ascii=False) for t in self.tools.values())

    def validate(self, name: str, arguments: Any) -> str | None:
        """None when valid, else a message naming the field and what it expects plus the schema."""
        tool = self.tools.get(name)
        if tool is None:
            return f"Unknown tool {name!r}. Available tools: {', '.join(self.tools) or 'none'}."
        return validate_arguments(tool.name, tool.parameters, arguments)


def validate_arguments(name: str, schema: dict[str, Any], arguments: Any) -> str | None:
    """None when ``arguments`` fit the tool's JSON schema, else the call's named error
    (:func:`tui_agent.tools.schema_check.validate_arguments`: local ``$ref``s only, bounded)."""
    from tui_agent.tools import schema_check

    return schema_check.validate_arguments(name, schema, arguments)
