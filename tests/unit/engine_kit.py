"""An engine on the in-memory scripted model (no server): for the engine's unit tests."""

from __future__ import annotations

from tests.helpers import NoteTool, Recorder
from tui_agent.core.approval import Approver
from tui_agent.config import Settings
from tui_agent.agent.engine import Engine
from tui_agent.model.scripted import Entry, ScriptedModel
from tui_agent.tools.base import Tool, ToolRegistry


class FakeClock:
    """A monotonic clock a test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def scripted_engine(script: list[Entry], *tools: Tool, approver: Approver | None = None, clock: FakeClock | None = None,
                    window: int = 32768, **settings: object) -> tuple[Engine, Recorder, ScriptedModel]:
    base: dict[str, object] = dict(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000)
    base.update(settings)
    model = ScriptedModel(script, window=window)
    rec = Recorder()
    kw = {"clock": clock, "wall": lambda: 1_700_000_000.0} if clock is not None else {}
    engine = Engine(Settings(**base), "What is the answer?", tools=ToolRegistry(list(tools) or [NoteTool()]),
                    llm=model, approver=approver, emit=rec, session_id="unit", **kw)
    return engine, rec, model
