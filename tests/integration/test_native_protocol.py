"""``--protocol native`` against the scripted server speaking OpenAI ``tool_calls``, streamed (as
deltas) and not: litellm and the engine run for real; the assertions read what the server got."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers import NoteTool, make_engine, settings_for
from tests.servers import Reply, ToolCall
from tui_agent.core.approval import Approve
from tui_agent.agent.engine import Engine
from tui_agent.model.llm import LLM
from tui_agent.core.fold import fold
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

STREAMS = pytest.mark.parametrize("stream", [True, False], ids=["streamed", "not-streamed"])


def native(chat, *tools, stream: bool, **kw):
    return make_engine(chat, *tools, protocol="native", stream=stream, **kw)


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


@STREAMS
@pytest.mark.parametrize("interleave", [False, True], ids=["one-after-another", "interleaved"])
async def test_parallel_calls_run_and_their_results_go_back_as_tool_messages_with_their_ids(chat_server, stream,
                                                                                              interleave):
    tool = NoteTool()
    chat_server.script(
        Reply("I will look both up.", reasoning="Two topics.", chunk_size=3, interleave_calls=interleave,
              tool_calls=[ToolCall("lookup", {"topic": "tides"}, id="call_A"),
                          ToolCall("lookup", {"topic": "moon"}, id="call_B")]),
        "Spring tides come at new and full moon [1][2].",
    )
    engine, rec = native(chat_server, tool, stream=stream)
    result = await engine.run()
    assert tool.runs == [{"topic": "tides"}, {"topic": "moon"}]
    assert result["termination"] == "answer" and result["answer"] == "Spring tides come at new and full moon [1][2]."
    first, second = chat_server.requests
    assert first["tools"] == [{"type": "function", "function": {
        "name": "lookup", "description": NoteTool.description, "parameters": NoteTool.parameters}}]
    assert "tool_choice" not in first and "stop" not in first
    assistant = second["messages"][2]
    assert assistant["role"] == "assistant" and assistant["content"] == "I will look both up."
    assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]] \
        == [("call_A", "lookup", {"topic": "tides"}), ("call_B", "lookup", {"topic": "moon"})]
    results = tool_messages(second)
    assert [m["tool_call_id"] for m in results] == ["call_A", "call_B"]
    assert "Notes on tides" in results[0]["content"] and "Notes on moon" in results[1]["content"]
    assert second["messages"][-2:] == results  # the results close the request, right after the calls
    ended = rec.of("model_call_ended")[0]
    assert ended.thought == "Two topics.\n\nI will look both up."
    assert [o.status for o in rec.of("observation")] == ["ok", "ok"]


@STREAMS
async def test_a_bad_arguments_string_is_an_observation_the_model_can_act_on(chat_server, stream):
    tool = NoteTool()
    chat_server.script(
        Reply(tool_calls=[ToolCall("lookup", '{"topic": "tides"', id="call_bad")]),
        Reply(tool_calls=[ToolCall("lookup", {"subject": "tides"}, id="call_schema")]),
        Reply(tool_calls=[ToolCall("lookup", {"topic": "tides"}, id="call_good")]),
        "At new and full moon [1].",
    )
    engine, rec = native(chat_server, tool, stream=stream)
    result = await engine.run()
    assert tool.runs == [{"topic": "tides"}] and result["termination"] == "answer"
    not_json, not_schema = tool_messages(chat_server.requests[2])[:2]
    assert not_json["tool_call_id"] == "call_bad"
    assert not_json["content"].startswith("Error: the arguments of your call to lookup are not valid JSON")
    assert '{"topic": "tides"' in not_json["content"]
    assert not_schema["tool_call_id"] == "call_schema"
    assert "Invalid arguments for lookup" in not_schema["content"] and "'topic' is a required property" in \
        not_schema["content"]
    assert [o.status for o in rec.of("observation")] == ["invalid", "invalid", "ok"]
    assert rec.of("correction") == []  # each call was answered by its own result, not a correction


@STREAMS
async def test_a_call_to_an_unknown_tool_is_named_with_the_available_tools(chat_server, stream):
    tool = NoteTool()
    chat_server.script(
        Reply(tool_calls=[ToolCall("python", {"code": "print(42)"}, id="call_py"),
                          ToolCall("lookup", {"topic": "life"}, id="call_ok")]),
        "It is 42 [1].",
    )
    engine, rec = native(chat_server, tool, stream=stream)
    result = await engine.run()
    unknown, ok = tool_messages(chat_server.requests[1])
    assert unknown["tool_call_id"] == "call_py"
    assert "Unknown tool 'python'. Available tools: lookup." in unknown["content"]
    assert ok["tool_call_id"] == "call_ok" and "Notes on life" in ok["content"]
    assert tool.runs == [{"topic": "life"}] and result["answer"] == "It is 42 [1]."
    assert rec.of("observation")[0].status == "invalid"


@STREAMS
async def test_the_forced_answer_sends_tool_choice_none_after_the_last_results(chat_server, stream):
    tool = NoteTool()
    chat_server.script(
        Reply(tool_calls=[ToolCall("lookup", {"topic": "a"}, id="call_1")]),
        Reply(tool_calls=[ToolCall("lookup", {"topic": "b"}, id="call_2")]),
        "From what I found: 42 [1][2].",
    )
    engine, _ = native(chat_server, tool, stream=stream, max_calls=2)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["answer"] == "From what I found: 42 [1][2]."
    assert result["answer_tagged"] is True
    forced = chat_server.requests[-1]
    assert forced["tool_choice"] == "none" and [t["function"]["name"] for t in forced["tools"]] == ["lookup"]
    assert [m["role"] for m in forced["messages"][-3:]] == ["assistant", "tool", "user"]
    assert forced["messages"][-2]["tool_call_id"] == "call_2" and "Notes on b" in forced["messages"][-2]["content"]
    assert "Stop calling tools now" in forced["messages"][-1]["content"]
    assert "<answer>" not in forced["messages"][-1]["content"]  # plain text is the native answer
    assert all("tool_choice" not in r for r in chat_server.requests[:-1])


async def test_a_call_written_as_text_gets_a_correction_that_says_where_calls_go(chat_server):
    tool = NoteTool()
    chat_server.script(
        '<tool_call>{"name": "lookup", "arguments": {"topic": "x"}}</tool_call>',
        Reply(tool_calls=[ToolCall("lookup", {"topic": "x"}, id="call_x")]),
        "Done [1].",
    )
    engine, rec = native(chat_server, tool, stream=True)
    result = await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "foreign_format" and '"lookup"' in correction.content
    assert "tool-calling interface" in correction.content
    assert chat_server.requests[1]["messages"][-1] == {"role": "user", "content": correction.content}
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


async def test_resume_after_a_native_call_sends_the_same_calls_and_runs_only_what_was_not_run(chat_server, tmp_path):
    """The process stops while the second of two calls waits for approval; the resumed run does not
    run the first again, runs the second, and sends both results under their call ids."""
    tool = NoteTool()
    chat_server.script(Reply("Both.", tool_calls=[ToolCall("lookup", {"topic": "a"}, id="call_a"),
                                                  ToolCall("lookup", {"topic": "b"}, id="call_b")]))
    store = Store(tmp_path / "data")
    approver = ApproveFirstThenHang()
    settings = settings_for(chat_server, protocol="native")
    store.create_session("s1", "What is the answer?", "openai/test-model", settings.summary())
    engine = Engine(settings, "What is the answer?", tools=ToolRegistry([tool]), llm=LLM(settings), approver=approver,
                    emit=store.append, session_id="s1")
    task = asyncio.create_task(engine.run())
    await asyncio.wait_for(approver.waiting.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tool.runs == [{"topic": "a"}]

    state = fold(store.events("s1"))  # what a resume folds: the stored events only
    chat_server.script("Both are 42 [1][2].")
    resumed = Engine(settings, "", tools=ToolRegistry([tool]), llm=LLM(settings), state=state, session_id="s1")
    result = await resumed.run()
    store.close()
    assert tool.runs == [{"topic": "a"}, {"topic": "b"}] and result["answer"] == "Both are 42 [1][2]."
    sent = chat_server.requests[-1]["messages"]
    assert sent[:2] == chat_server.requests[0]["messages"]
    assert sent[2]["content"] == "Both." and [c["id"] for c in sent[2]["tool_calls"]] == ["call_a", "call_b"]
    assert [(m["role"], m["tool_call_id"], m["content"][:15]) for m in sent[3:]] == [
        ("tool", "call_a", "[1] Notes on a:"), ("tool", "call_b", "[2] Notes on b:")]


def test_eval_compares_the_two_protocols_on_one_set(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    from tests.helpers import call
    from tests.integration.test_eval import run_eval, tool_flags, write_set

    searx_server.results["spring tides"] = [{"url": "https://tides.example/", "title": "Tides", "content": "moon"}]

    def reply(request: dict):  # the same model, speaking whichever protocol the request asks for
        first = not any(m["role"] == "assistant" for m in request["messages"])
        if request.get("tools"):
            return Reply(tool_calls=[ToolCall("search", {"query": ["spring tides"]})]) if first \
                else "At new and full moon [1]."
        return call("search", query=["spring tides"]) if first else "<answer>At new and full moon [1].</answer>"

    chat_server.default = reply
    path = write_set(tmp_path, {"id": "tides", "question": "When are spring tides?", "expect": ["new and full moon"]})
    flags = tool_flags(chat_server, searx_server)
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "t", *flags)[0] == 0
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "n", "--protocol", "native", *flags)[0] == 0
    assert not any("tools" in r for r in chat_server.requests[:2])
    assert all(r["tools"][0]["function"]["name"] in ("search", "visit") for r in chat_server.requests[2:])
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "t", "n", "--json")
    data = json.loads(out)
    assert code == 0 and (data["protocol_a"], data["protocol_b"]) == ("tags", "native")
    case = data["cases"][0]
    assert (case["passed_a"], case["passed_b"], case["path_changed"], case["answer_changed"]) == (True, True, False, False)
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "t", "n")
    assert out.splitlines()[0] == "t (protocol tags) → n (protocol native)" and "tides: same" in out
