"""An engine on the in-memory scripted model (no server): for the engine's unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.helpers import NoteTool, Recorder
from tui_agent.core.approval import Approver
from tui_agent.config import Settings
from tui_agent.agent.engine import Engine
from tui_agent.model.protocol import Messages
from tui_agent.model.scripted import Entry, ScriptedModel
from tui_agent.model.types import Reply
from tui_agent.tools.base import Tool, ToolRegistry


class FakeClock:
    """A monotonic clock a test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class KitModel(ScriptedModel):
    """The scripted model that also records each call's stop sequences (``stops``, one per call).

    ``honour_stop=False`` plays a server that ignores ``stop``: the reply comes back whole, and
    cutting it is left to the engine."""

    honour_stop: bool = True
    stops: list[list[str] | None] = field(default_factory=list)

    async def complete(self, messages: Messages, *, stop: list[str] | None = None, **kw: Any) -> Reply:
        self.stops.append(stop)
        return await super().complete(messages, stop=stop if self.honour_stop else None, **kw)


def scripted_engine(script: list[Entry], *tools: Tool, approver: Approver | None = None, clock: FakeClock | None = None,
                    window: int = 32768, honour_stop: bool = True, question: str = "What is the answer?",
                    http: Any = None, **settings: object) -> tuple[Engine, Recorder, KitModel]:
    base: dict[str, object] = dict(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000)
    base.update(settings)
    model = KitModel(script, window=window, honour_stop=honour_stop)
    rec = Recorder()
    kw: dict[str, Any] = {"clock": clock, "wall": lambda: 1_700_000_000.0} if clock is not None else {}
    if http is not None:  # a real tool's HTTP client (a local page or search server)
        kw["http"] = http
    engine = Engine(Settings(**base), question, tools=ToolRegistry(list(tools) or [NoteTool()]),
                    llm=model, approver=approver, emit=rec, session_id="unit", **kw)
    return engine, rec, model


def user_contents(messages: Messages) -> list[str]:
    """The contents of the user messages of one model call, in order."""
    return [m["content"] for m in messages if m["role"] == "user"]
