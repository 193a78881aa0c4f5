"""The research loop on the in-memory scripted model: answers, tool calls, corrections."""

from __future__ import annotations

from tests.helpers import BrokenTool, NoteTool, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.model import ModelError, Reply
from tui_agent.core.events import ModelDelta, Observation, ObservationMessage


async def test_a_tool_call_runs_and_its_observation_is_the_next_user_message():
    tool = NoteTool()
    engine, rec, model = scripted_engine(
        ["<think>look it up</think>" + call("lookup", topic="life"), "<answer>It is 42 [1].</answer>"], tool)
    result = await engine.run()
    assert (result["termination"], result["answer"]) == ("answer", "It is 42 [1].")
    assert tool.runs == [{"topic": "life"}] and result["sources"] == ["https://notes.example/life"]
    sent = model.calls[1].messages[-1]["content"]
    assert sent.startswith("<tool_response>") and "the answer is 42" in sent
    assert [e.status for e in rec.events if isinstance(e, Observation)] == ["ok"]
    assert (result["model_calls"], result["tool_calls"]) == (2, 1)


async def test_the_reply_streams_through_the_same_callback_as_the_real_model():
    engine, rec, _ = scripted_engine([call("lookup", topic="x"), "<answer>done [1]</answer>"])
    await engine.run()
    streamed = "".join(e.text for e in rec.events if isinstance(e, ModelDelta) and e.step == 2)
    assert streamed == "<answer>done [1]</answer>"


async def test_a_reply_with_neither_call_nor_answer_is_corrected_and_the_loop_goes_on():
    engine, rec, model = scripted_engine(["I think the answer is 42.", call("lookup", topic="x"),
                                          "<answer>42 [1]</answer>"])
    result = await engine.run()
    assert result["answer"] == "42 [1]"
    corrections = rec.of("correction")
    assert [c.reason for c in corrections] == ["no_action"]
    assert model.calls[1].messages[-1]["content"] == corrections[0].content


async def test_an_answer_before_any_evidence_is_refused_once():
    engine, rec, _ = scripted_engine(["<answer>guess</answer>", "<answer>still a guess</answer>"])
    result = await engine.run()
    assert [c.reason for c in rec.of("correction")] == ["answer_without_evidence"]
    assert result["answer"] == "still a guess" and result["unsupported"] is True


async def test_a_model_error_ends_the_run_with_a_named_termination():
    engine, rec, _ = scripted_engine([ModelError("auth", "the provider rejected the API key (401)", 401)])
    result = await engine.run()
    assert result["termination"] == "model_error" and result["answer"] is None
    assert "rejected the API key" in rec.of("notice")[0].text
    assert rec.of("run_ended")[0].termination == "model_error"


async def test_a_tool_is_disabled_at_the_runs_own_failure_limit():
    broken = BrokenTool()
    script = [call("fetchy", q=str(i)) for i in range(3)] + ["<answer>gave up</answer>"]
    engine, rec, model = scripted_engine(script, broken, NoteTool(), tool_failure_limit=2)
    await engine.run()
    assert broken.runs == 2  # the third call is refused without running
    statuses = [e.status for e in rec.events if isinstance(e, Observation)]
    assert statuses == ["failed", "failed", "disabled"]
    assert "failed 2 times in a row and is now disabled" in rec.of("observation")[1].text
    assert "after 2 failures in a row" in rec.of("observation")[2].text
    assert engine.state.disabled == {"fetchy"}


async def test_sources_a_tool_registers_are_folded_from_source_added_events():
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), call("lookup", topic="b"), "<answer>x [1][2]</answer>"])
    await engine.run()
    added = rec.of("source_added")
    assert [(e.number, e.url) for e in added] == [(1, "https://notes.example/a"), (2, "https://notes.example/b")]
    assert [s.url for s in engine.state.source_list()] == [e.url for e in added]


async def test_calls_in_one_reply_run_in_order_and_share_one_observation_message():
    tool = NoteTool()
    engine, rec, _ = scripted_engine([call("lookup", topic="a") + call("lookup", topic="b"), "<answer>x [1]</answer>"],
                                     tool)
    await engine.run()
    assert tool.runs == [{"topic": "a"}, {"topic": "b"}]
    messages = [e for e in rec.events if isinstance(e, ObservationMessage)]
    assert len(messages) == 1 and messages[0].content.count("<tool_response>") == 2


async def test_a_reply_cut_by_the_length_limit_is_never_final():
    engine, rec, _ = scripted_engine([Reply("<answer>the first half", finish_reason="length", completion_tokens=900),
                                      call("lookup", topic="x"), "<answer>whole [1]</answer>"])
    result = await engine.run()
    assert [c.reason for c in rec.of("correction")] == ["cut_reply"] and result["answer"] == "whole [1]"
