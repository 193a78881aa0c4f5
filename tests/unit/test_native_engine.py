"""``--protocol native`` through the engine on the in-memory scripted model: bad arguments, unknown
tools, the forced answer's tool_choice, a call written as text, and resume. Moved from
tests/integration/test_native_protocol.py (issue 28), which keeps the wire: parallel calls streamed as
deltas (one after another and interleaved) and not streamed, through litellm, and eval comparing protocols."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers import NoteTool
from tests.unit.engine_kit import KitModel, scripted_engine
from tui_agent.agent.engine import Engine
from tui_agent.config import Settings
from tui_agent.core.approval import Approve
from tui_agent.core.fold import fold
from tui_agent.model import Reply
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry


def tc(name: str, arguments: str | dict, call_id: str) -> dict:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def calls(*tool_calls: dict, text: str = "") -> Reply:
    return Reply(text, tool_calls=list(tool_calls))


def tool_messages(messages: list[dict]) -> list[dict]:
    return [m for m in messages if m["role"] == "tool"]


def native(script, *tools, **kw):
    return scripted_engine(script, *tools, protocol="native", **kw)


async def test_a_bad_arguments_string_is_an_observation_the_model_can_act_on():
    tool = NoteTool()
    engine, rec, model = native([
        calls(tc("lookup", '{"topic": "tides"', "call_bad")),
        calls(tc("lookup", {"subject": "tides"}, "call_schema")),
        calls(tc("lookup", {"topic": "tides"}, "call_good")),
        "At new and full moon [1].",
    ], tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "tides"}] and result["termination"] == "answer"
    not_json, not_schema = tool_messages(model.calls[2].messages)[:2]
    assert not_json["tool_call_id"] == "call_bad"
    assert not_json["content"].startswith("Error: the arguments of your call to lookup are not valid JSON")
    assert '{"topic": "tides"' in not_json["content"]
    assert not_schema["tool_call_id"] == "call_schema"
    assert "Invalid arguments for lookup" in not_schema["content"] and "'topic' is a required property" in \
        not_schema["content"]
    assert [o.status for o in rec.of("observation")] == ["invalid", "invalid", "ok"]
    assert rec.of("correction") == []  # each call was answered by its own result, not a correction


async def test_a_call_to_an_unknown_tool_is_named_with_the_available_tools():
    tool = NoteTool()
    engine, rec, model = native([
        calls(tc("python", {"code": "print(42)"}, "call_py"), tc("lookup", {"topic": "life"}, "call_ok")),
        "It is 42 [1].",
    ], tool)
    result = await engine.run()
    unknown, ok = tool_messages(model.calls[1].messages)
    assert unknown["tool_call_id"] == "call_py"
    assert "Unknown tool 'python'. Available tools: lookup." in unknown["content"]
    assert ok["tool_call_id"] == "call_ok" and "Notes on life" in ok["content"]
    assert tool.runs == [{"topic": "life"}] and result["answer"] == "It is 42 [1]."
    assert rec.of("observation")[0].status == "invalid"


async def test_the_forced_answer_sends_tool_choice_none_after_the_last_results():
    tool = NoteTool()
    engine, _, model = native([
        calls(tc("lookup", {"topic": "a"}, "call_1")),
        calls(tc("lookup", {"topic": "b"}, "call_2")),
        "From what I found: 42 [1][2].",
    ], tool, max_calls=2)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["answer"] == "From what I found: 42 [1][2]."
    assert result["answer_tagged"] is True
    forced = model.calls[-1]
    assert forced.tool_choice == "none" and [t["function"]["name"] for t in forced.tools] == ["lookup"]
    assert [m["role"] for m in forced.messages[-3:]] == ["assistant", "tool", "user"]
    assert forced.messages[-2]["tool_call_id"] == "call_2" and "Notes on b" in forced.messages[-2]["content"]
    assert "Stop calling tools now" in forced.messages[-1]["content"]
    assert "<answer>" not in forced.messages[-1]["content"]  # plain text is the native answer
    assert all(c.tool_choice is None for c in model.calls[:-1])
    assert model.stops[0] is None  # no stop sequence: calls come in tool_calls, not in the text


async def test_a_call_written_as_text_gets_a_correction_that_says_where_calls_go():
    tool = NoteTool()
    engine, rec, model = native([
        '<tool_call>{"name": "lookup", "arguments": {"topic": "x"}}</tool_call>',
        calls(tc("lookup", {"topic": "x"}, "call_x")),
        "Done [1].",
    ], tool)
    result = await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "foreign_format" and '"lookup"' in correction.content
    assert "tool-calling interface" in correction.content
    assert model.calls[1].messages[-1] == {"role": "user", "content": correction.content}
    assert tool.runs == [{"topic": "x"}] and result["answer"] == "Done [1]."


class ApproveFirstThenHang:
    """Approves the first call; the second waits for a decision that never comes (the process stops)."""

    def __init__(self) -> None:
        self.asked = 0
        self.waiting = asyncio.Event()

    async def decide(self, request):
        self.asked += 1
        if self.asked == 1:
            return Approve(request.arguments)
        self.waiting.set()
        await asyncio.Event().wait()


async def test_resume_after_a_native_call_sends_the_same_calls_and_runs_only_what_was_not_run(tmp_path):
    """The process stops while the second of two calls waits for approval; the resumed run does not
    run the first again, runs the second, and sends both results under their call ids."""
    tool = NoteTool()
    first_model = KitModel([calls(tc("lookup", {"topic": "a"}, "call_a"), tc("lookup", {"topic": "b"}, "call_b"),
                                  text="Both.")])
    store = Store(tmp_path / "data")
    approver = ApproveFirstThenHang()
    settings = Settings(model="scripted/test", protocol="native", answer_reserve=4000, forced_answer_tokens=1000)
    store.create_session("s1", "What is the answer?", "scripted/test", settings.summary())
    engine = Engine(settings, "What is the answer?", tools=ToolRegistry([tool]), llm=first_model, approver=approver,
                    emit=store.append, session_id="s1")
    task = asyncio.create_task(engine.run())
    await asyncio.wait_for(approver.waiting.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tool.runs == [{"topic": "a"}]

    state = fold(store.events("s1"))  # what a resume folds: the stored events only
    model = KitModel(["Both are 42 [1][2]."])
    resumed = Engine(settings, "", tools=ToolRegistry([tool]), llm=model, state=state, session_id="s1")
    result = await resumed.run()
    store.close()
    assert tool.runs == [{"topic": "a"}, {"topic": "b"}] and result["answer"] == "Both are 42 [1][2]."
    sent = model.calls[-1].messages
    assert sent[:2] == first_model.calls[0].messages
    assert sent[2]["content"] == "Both." and [c["id"] for c in sent[2]["tool_calls"]] == ["call_a", "call_b"]
    assert [(m["role"], m["tool_call_id"], m["content"][:15]) for m in sent[3:]] == [
        ("tool", "call_a", "[1] Notes on a:"), ("tool", "call_b", "[2] Notes on b:")]
