"""One clock stamps every event; a run stopped by a signal keeps its step on resume."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import RecordingApprover, call
from tests.unit.engine_kit import FakeClock, scripted_engine
from tui_agent.core.approval import Approve
from tui_agent.config import Settings
from tui_agent.agent.engine import Engine
from tui_agent.model.scripted import Partial, ScriptedModel
from tui_agent.core import fold
from tui_agent.core.events import ModelCallStarted, PromptEdited
from tui_agent.tools.base import ToolRegistry
from tests.helpers import NoteTool, Recorder


def non_decreasing(values: list[float]) -> bool:
    return all(a <= b for a, b in zip(values, values[1:]))


async def test_the_clock_stands_still_while_a_person_decides():
    clock = FakeClock()
    seen: list[float] = []

    def slow_human(request):
        seen.append(engine.elapsed())
        clock.now += 30  # the person thinks for 30 s
        seen.append(engine.elapsed())
        return Approve(request.arguments)

    def step(messages, purpose):
        clock.now += 5
        return call("lookup", topic="a")

    engine, rec, _ = scripted_engine([step, "<answer>x [1]</answer>"], clock=clock,
                                     approver=RecordingApprover(slow_human))
    result = await engine.run()
    assert seen[0] == seen[1] == 5.0  # the shown clock does not run on during the wait, so never goes back
    assert non_decreasing([e.elapsed_s for e in rec.events]) and result["elapsed_s"] == 5.0


async def test_a_breakpoint_edit_is_stamped_before_its_model_call_by_the_same_clock():
    clock = FakeClock()

    async def breakpoint(messages, started):
        clock.now += 20  # the person edits for 20 s
        return [*messages[:-1], {"role": "user", "content": "edited question"}]

    engine, rec, model = scripted_engine(["<answer>x</answer>", "<answer>y</answer>"], clock=clock,
                                         require_evidence=False)
    engine.before_call = breakpoint
    await engine.run()
    kinds = [type(e) for e in rec.events]
    edited, started = kinds.index(PromptEdited), kinds.index(ModelCallStarted)
    assert edited < started and rec.events[edited].step == rec.events[started].step == 1
    assert non_decreasing([e.ts for e in rec.events])
    assert rec.events[started].ts == 1_700_000_000.0 + 20  # wall time at start, moved by the one clock
    assert model.calls[0].messages[-1]["content"] == "edited question"


async def test_a_resumed_run_stamps_its_events_after_the_stored_ones_even_if_the_wall_clock_went_back():
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), Partial("<think>hm, let me see ")], clock=FakeClock())
    task = asyncio.create_task(engine.run())
    while not engine.state.steps.get(2) or not engine.state.steps[2].live_thought:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = fold.fold(e for e in rec.events if e.stored)
    rec2 = Recorder()
    resumed = Engine(Settings(model="scripted/test", answer_reserve=4000), "", tools=ToolRegistry([NoteTool()]),
                     llm=ScriptedModel(["<answer>x [1]</answer>"]), emit=rec2, state=state, clock=FakeClock(5.0),
                     wall=lambda: 1_600_000_000.0)
    await resumed.run()
    assert min(e.ts for e in rec2.events) >= max(e.ts for e in rec.events)
    assert min(e.elapsed_s for e in rec2.events) >= max(e.elapsed_s for e in rec.events)


async def test_a_call_stopped_by_a_signal_is_made_again_under_its_own_step_number():
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), Partial("<think>half a thought")])
    task = asyncio.create_task(engine.run())
    while not engine.state.steps.get(2) or not engine.state.steps[2].live_thought:
        await asyncio.sleep(0.01)
    task.cancel()  # what SIGTERM and SIGHUP do to the run
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.of("model_call_ended")[-1].interrupted
    state = fold.fold(e for e in rec.events if e.stored)
    rec2 = Recorder()
    resumed = Engine(Settings(model="scripted/test", answer_reserve=4000), "", tools=ToolRegistry([NoteTool()]),
                     llm=ScriptedModel(["<answer>x [1]</answer>"]), emit=rec2, state=state)
    result = await resumed.run()
    assert [e.step for e in rec2.events if isinstance(e, ModelCallStarted)] == [2]
    assert resumed.state.step_numbers == [1, 2] and resumed.state.steps[2].reply == "<answer>x [1]</answer>"
    assert "<think>" not in resumed.state.steps[2].reply and result["model_calls"] == 2
