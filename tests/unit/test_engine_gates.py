"""Each gate ends the loop with a forced answer (scripted model, no server)."""

from __future__ import annotations

import asyncio

from tests.helpers import NoteTool, call
from tests.unit.engine_kit import FakeClock, scripted_engine
from tui_agent.model import Reply
from tui_agent.core.events import ForcedAnswer


def forced(rec) -> list[str]:
    return [e.reason for e in rec.events if isinstance(e, ForcedAnswer)]


async def test_the_call_gate_forces_the_answer_after_max_calls():
    engine, rec, model = scripted_engine([call("lookup", topic="a"), call("lookup", topic="b"),
                                          "<answer>forced [1]</answer>"], max_calls=2)
    result = await engine.run()
    assert (result["termination"], result["answer"]) == ("call_limit", "forced [1]")
    assert forced(rec) == ["call_limit"] and [c.purpose for c in model.calls] == ["research", "research", "forced"]
    assert result["model_calls"] == 2  # the forced call is not counted


async def test_the_time_gate_forces_the_answer_once_the_minutes_are_spent():
    clock = FakeClock()

    def slow(messages, purpose):
        clock.now += 90
        return call("lookup", topic="slow")

    engine, rec, _ = scripted_engine([slow, "<answer>late [1]</answer>"], clock=clock, max_minutes=1)
    result = await engine.run()
    assert result["termination"] == "time_limit" and forced(rec) == ["time_limit"]
    assert result["answer"] == "late [1]"


async def test_the_budget_gate_forces_the_answer_once_the_budget_is_spent():
    engine, rec, _ = scripted_engine([Reply(call("lookup", topic="a"), cost_usd=0.5), "<answer>cheap [1]</answer>"],
                                     budget_usd=0.4)
    result = await engine.run()
    assert result["termination"] == "budget_limit" and forced(rec) == ["budget_limit"]


async def test_the_token_gate_forces_the_answer_and_trims_the_latest_observation_to_fit():
    engine, rec, model = scripted_engine([call("lookup", topic="big"), "<answer>fits [1]</answer>"],
                                         NoteTool(size=3000), window=9000, answer_reserve=3000,
                                         observation_max_tokens=20000)
    result = await engine.run()
    assert result["termination"] == "token_limit" and forced(rec) == ["token_limit"]
    last = model.calls[-1].messages[-1]["content"]
    assert "tokens to fit the room left for the answer]" in last
    assert engine.counter.messages(model.calls[-1].messages)[0] <= 9000 - 1000


async def test_the_format_gate_forces_the_answer_after_max_format_errors():
    engine, rec, _ = scripted_engine(["no tags", "still no tags", "<answer>at last</answer>"], max_format_errors=2)
    result = await engine.run()
    assert result["termination"] == "format_error" and forced(rec) == ["format_error"]
    assert [c.reason for c in rec.of("correction")] == ["no_action"]


async def test_a_forced_reply_without_answer_tags_is_kept_whole_and_named_a_format_error():
    engine, _, _ = scripted_engine([call("lookup", topic="a"), "<think>hm</think>It is 42, I believe."], max_calls=1)
    result = await engine.run()
    assert result["termination"] == "format_error"
    assert result["answer"] == "It is 42, I believe." and result["answer_tagged"] is False


async def test_submit_now_during_a_model_call_cancels_it_and_forces_the_answer():
    reached = asyncio.Event()

    async def hangs(messages, purpose):
        reached.set()
        await asyncio.Event().wait()

    engine, rec, model = scripted_engine([call("lookup", topic="a"), hangs, "<answer>now [1]</answer>"])
    task = asyncio.create_task(engine.run())
    await asyncio.wait_for(reached.wait(), 10)
    engine.request_submit()
    result = await asyncio.wait_for(task, 10)
    assert (result["termination"], result["answer"]) == ("user_submit", "now [1]")
    ended = rec.of("model_call_ended")
    assert ended[1].cancelled and not ended[1].interrupted
    assert model.calls[-1].purpose == "forced" and forced(rec) == ["user_submit"]
