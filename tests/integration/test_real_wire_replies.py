"""Recorded provider replies (tests/fixtures/protocol/wire.json, each with its source) served by
the scripted chat server byte for byte, through the real adapter (litellm and the direct client)
and, where the model must hear of it, the engine.

Issue 26: Magistral's content parts; a second call on index 0 (Gemini through a relay); Groq's
tool_use_failed, as a 400 and inside a stream; llama-server's 500 "Cannot use tools with stream".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import NoteTool, make_engine
from tests.servers import ChatServer, Fault, Reply, ToolCall
from tui_agent.config import Settings
from tui_agent.model.llm import LLM, ModelError

WIRE = {f["id"]: f for f in json.loads(
    (Path(__file__).parent.parent / "fixtures" / "protocol" / "wire.json").read_text(encoding="utf-8"))}
MESSAGES = [{"role": "user", "content": "What is 17 times 23?"}]
GLOB = [{"type": "function", "function": {"name": "glob", "description": "Find files", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "pattern": {"type": "string"}}}}}]
TRANSPORTS = pytest.mark.parametrize("transport", ["litellm", "direct"])


def recorded(name: str) -> Fault:
    """The recorded reply as the server sent it: its status, its content type and its body."""
    f = WIRE[name]
    body = f["body"] if isinstance(f["body"], str) else json.dumps(f["body"])
    return Fault(status=f["status"], body=body, headers={"Content-Type": f["content_type"]})


def adapter(chat: ChatServer, transport: str, **overrides) -> LLM:
    async def no_sleep(_s: float) -> None:
        return None

    settings = dict(model="openai/magistral-medium-2509", api_base=chat.base_url, retry_attempts=10,
                    transport=transport)
    settings.update(overrides)
    return LLM(Settings(**settings), sleep=no_sleep)


def test_every_recorded_reply_names_its_source():
    assert all(f["source"] in ("real", "shape") and "github.com" in f["ref"] for f in WIRE.values())


@TRANSPORTS
async def test_magistral_content_parts_streamed_keep_the_text_and_read_the_thinking_as_reasoning(chat_server,
                                                                                                 transport):
    chat_server.script(recorded("mistral-magistral-content-parts-stream"))
    shown: list[tuple[str, bool]] = []
    reply = await adapter(chat_server, transport).complete(MESSAGES, stream=True,
                                                           on_delta=lambda t, r: shown.append((t, r)))
    assert reply.text == "391"
    assert reply.reasoning == "'s a greeting, I should return a greeting"
    assert "".join(t for t, r in shown if not r) == "391"


async def test_magistral_content_parts_not_streamed_are_read_by_the_direct_client(chat_server):
    chat_server.script(recorded("mistral-magistral-content-parts-body"))
    reply = await adapter(chat_server, "direct").complete(MESSAGES, stream=False)
    assert reply.text == "391" and reply.reasoning.startswith("<think>17 times 23")


async def test_a_reply_litellm_cannot_read_is_named_and_not_retried_as_a_server_failure(chat_server):
    chat_server.script(*[recorded("mistral-magistral-content-parts-body")] * 3)
    retries: list = []
    with pytest.raises(ModelError) as err:
        await adapter(chat_server, "litellm").complete(MESSAGES, stream=False, on_retry=retries.append)
    assert err.value.kind == "unparseable" and retries == [] and len(chat_server.requests) == 1
    assert "could not be read" in str(err.value) and "content" in str(err.value)
    assert "500" not in str(err.value) and "streamed (without --no-stream), such a reply is read" in str(err.value)


async def test_a_second_call_on_index_0_after_a_whole_arguments_object_is_a_call_of_its_own(chat_server):
    chat_server.script(recorded("gemini-relay-second-call-on-index-0"))
    reply = await adapter(chat_server, "litellm", model="openai/gemini-3.1-pro").complete(
        MESSAGES, stream=True, tools=GLOB)
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in reply.tool_calls]
    assert calls == [("glob", {"path": "", "pattern": "**/*"}), ("glob", {"path": "content/wiki", "pattern": ""})]
    assert len({c["id"] for c in reply.tool_calls}) == 2  # each result can go back to its own call


@pytest.mark.parametrize("stream, name", [(False, "groq-tool-use-failed-400"), (True, "groq-tool-use-failed-in-stream")],
                         ids=["400", "in-stream"])
async def test_groqs_tool_use_failed_goes_back_to_the_model_with_its_failed_generation(chat_server, stream, name):
    tool = NoteTool()
    chat_server.script(recorded(name), Reply(tool_calls=[ToolCall("lookup", {"topic": "SPFMV"}, id="call_1")]),
                       "SPFMV and SPCSV were both found in Uganda in 2016 [1].")
    engine, rec = make_engine(chat_server, tool, protocol="native", stream=stream, model="openai/llama-3.3-70b")
    result = await engine.run()
    assert result["termination"] == "answer" and tool.runs == [{"topic": "SPFMV"}]
    assert len(chat_server.requests) == 3 and rec.of("retry") == []  # told to the model, not retried
    second = chat_server.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": 'web_search{"query": "SPFMV and SPCSV in the Pearl Of '
                                                          'Africa 2016", "filter_year": 2016}</function>'}
    told = second[-1]["content"]
    assert second[-1]["role"] == "user" and [c.reason for c in rec.of("correction")] == ["refused_call"]
    assert "refused your last tool call: Failed to call a function" in told
    assert 'web_search{"query": "SPFMV and SPCSV' in told and 'There is no tool "web_search"' in told
    assert "lookup" in told and "503" not in told


@pytest.mark.parametrize("transport, tools", [("litellm", GLOB), ("direct", None)], ids=["litellm", "direct"])
async def test_a_5xx_that_says_why_the_same_twice_ends_with_its_words_and_the_no_stream_hint(chat_server, transport,
                                                                                          tools):
    chat_server.script(*[recorded("llama-server-cannot-use-tools-with-stream")] * 10)
    retries: list = []
    with pytest.raises(ModelError) as err:
        await adapter(chat_server, transport, model="openai/qwen3").complete(
            MESSAGES, stream=True, tools=tools, on_retry=retries.append)
    assert len(chat_server.requests) == 2 and len(retries) == 1
    message = str(err.value)
    assert "Cannot use tools with stream" in message and "try --no-stream" in message
    assert "the same answer on 2 attempts" in message


@pytest.mark.parametrize("transport", ["litellm", "direct"])
async def test_a_5xx_whose_words_say_nothing_of_why_keeps_its_retries(chat_server, transport):
    # OpenAI's own 500 ("The server had an error while processing your request. Sorry about that!")
    chat_server.script(Fault(status=500), Fault(status=500), Fault(status=500), "<answer>391</answer>")
    retries: list = []
    reply = await adapter(chat_server, transport).complete(MESSAGES, on_retry=retries.append)
    assert reply.text == "<answer>391</answer>" and len(retries) == 3
