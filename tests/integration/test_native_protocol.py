"""``--protocol native`` against the scripted server speaking OpenAI ``tool_calls``, streamed (as
deltas) and not: litellm and the engine run for real; the assertions read what the server got. The
engine's handling of native calls (bad arguments, unknown tools, the forced answer, resume) is tested
on the in-memory model in tests/unit/test_native_engine.py (issue 28)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import NoteTool, make_engine
from tests.servers import Reply, ToolCall

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
