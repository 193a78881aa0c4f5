"""Each gate and Submit now force the answer with the last observation in the forced request (the
in-memory scripted model). Moved from tests/integration/test_engine.py (issue 28); what crosses
HTTP (the price map per transport, faults, a streamed call cut by Submit now) stays there."""

from __future__ import annotations

import asyncio

from tests.helpers import NoteTool, RecordingApprover, SlowTool, call
from tests.unit.engine_kit import FakeClock, KitModel, scripted_engine
from tui_agent.core.approval import Approve, SubmitNow


def assert_forced_request_keeps_last_observation(model: KitModel, marker: str) -> None:
    forced = model.calls[-1].messages
    last = forced[-1]
    assert last["role"] == "user"
    assert marker in last["content"]
    assert "write your final answer now inside <answer>" in last["content"]
    assert forced[0] == model.calls[0].messages[0]  # same system prompt


async def test_call_limit_forces_an_answer_with_the_last_observation():
    engine, _, model = scripted_engine([call("lookup", topic="a"), call("lookup", topic="b"),
                                        "<answer>forced</answer>"], max_calls=2)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["answer"] == "forced"
    assert result["model_calls"] == 2  # the forced call is not counted
    assert len(model.calls) == 3
    assert_forced_request_keeps_last_observation(model, "Notes on b")


async def test_token_limit_forces_an_answer_and_trims_the_observation_to_fit():
    engine, rec, model = scripted_engine([call("lookup", topic="big"), "<answer>short on room</answer>"],
                                         NoteTool(size=3000), window=8000, context_window=8000, answer_reserve=4000,
                                         forced_answer_tokens=2000)
    result = await engine.run()
    assert result["termination"] == "token_limit"
    assert_forced_request_keeps_last_observation(model, "Notes on big")
    started = rec.of("model_call_started")[-1]
    assert started.purpose == "forced" and started.prompt_tokens <= 8000 - 2000
    assert "tokens to fit the room left for the answer]" in model.calls[-1].messages[-1]["content"]


async def test_time_limit_excludes_human_waiting():
    clock = FakeClock(0.0)

    class Human:
        async def decide(self, request):
            clock.now += 3600  # an hour thinking about the approval: not counted
            return Approve(request.arguments)

    def slow_model(messages, purpose):
        clock.now += 61
        return call("lookup", topic="b")

    engine, _, model = scripted_engine([call("lookup", topic="a"), slow_model, "<answer>late</answer>"],
                                       approver=Human(), clock=clock, max_minutes=1)
    result = await engine.run()
    assert result["termination"] == "time_limit"
    assert result["model_calls"] == 2
    assert_forced_request_keeps_last_observation(model, "Notes on b")


async def test_submit_now_at_an_approval_forces_the_answer():
    approver = RecordingApprover(Approve({"topic": "a"}), SubmitNow())
    engine, _, model = scripted_engine([call("lookup", topic="a"), call("lookup", topic="b"), "<answer>now</answer>"],
                                       approver=approver)
    result = await engine.run()
    assert result["termination"] == "user_submit"
    forced = model.calls[-1].messages
    assert any("Notes on a" in m["content"] for m in forced)
    assert "Not run: the user asked for the answer now." in forced[-1]["content"]


async def test_submit_now_while_a_tool_runs_cancels_it():
    engine, rec, _ = scripted_engine([call("slow", q="x"), "<answer>quick</answer>"], SlowTool())
    task = asyncio.ensure_future(engine.run())
    while not rec.of("decision"):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    engine.request_submit()
    result = await asyncio.wait_for(task, 5)
    assert result["termination"] == "user_submit"
