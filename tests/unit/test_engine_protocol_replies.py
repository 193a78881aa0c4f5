"""Replies of the protocol corpus through the engine, on the in-memory scripted model: named
corrections, parse_reply(..., tools=...) and a reply cut by the length limit (protocol.cut_correction),
as the engine uses them. Moved from tests/integration/test_protocol_engine.py (issue 28); where litellm
moves a closed <think> into reasoning_content (streamed or not) stays there, on the HTTP chat server."""

from __future__ import annotations

import io

from tests.helpers import NoteTool, call
from tests.unit.engine_kit import scripted_engine, user_contents
from tui_agent.cli.headless import TracePrinter
from tui_agent.config import Settings
from tui_agent.core.fold import fold
from tui_agent.model import Reply
from tui_agent.session.exports import markdown
from tui_agent.tools.search import SearchTool
from tui_agent.web.net import make_client

LOOKUP_EXAMPLE = '<tool_call>{"name": "lookup", "arguments": {"topic": "..."}}</tool_call>'


async def test_a_call_after_unclosed_thinking_runs_the_tool():
    tool = NoteTool()
    engine, rec, _ = scripted_engine([
        "<think>\nThe notes will have it; the thinking never closes.\n\n" + call("lookup", topic="life"),
        "<think>Found it.</think><answer>It is 42 [1].</answer>",
    ], tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "life"}]
    assert result["termination"] == "answer" and result["answer"] == "It is 42 [1]."
    assert rec.of("correction") == []
    assert rec.of("model_call_ended")[0].thought == "The notes will have it; the thinking never closes."


async def test_a_qwen_xml_call_runs_the_tool():
    tool = NoteTool()
    engine, _, _ = scripted_engine([
        "<think>Qwen3.5 writes its native format.</think>\n<tool_call>\n<function=lookup>\n<parameter=topic>\nxml\n"
        "</parameter>\n</function>\n</tool_call>",
        "<answer>done [1]</answer>",
    ], tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "xml"}] and result["termination"] == "answer"


async def test_a_call_swallowed_into_reasoning_content_runs():
    tool = NoteTool()
    engine, _, _ = scripted_engine([
        Reply("", reasoning="No closing tag, so the server kept it all as reasoning.\n" + call("lookup", topic="r")),
        "<answer>done [1]</answer>",
    ], tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "r"}] and result["termination"] == "answer"


async def test_an_unknown_tool_whose_body_holds_code_is_named():
    tool = NoteTool()
    engine, rec, _ = scripted_engine([
        '<think>Compute it.</think><tool_call>{"name": "PythonInterpreter", "arguments": {}}\n'
        "<code>print({1: 2})</code></tool_call>",
        call("lookup", topic="x"),
        "<answer>ok [1]</answer>",
    ], tool)
    await engine.run()
    observation = rec.of("observation")[0]
    assert observation.tool == "PythonInterpreter" and observation.status == "invalid"
    assert "unknown tool" in observation.text.lower() and "PythonInterpreter" in observation.text
    assert "not valid JSON" not in observation.text
    assert tool.runs == [{"topic": "x"}]


async def test_a_foreign_format_gets_a_correction_that_names_it_with_a_real_tool():
    tool = NoteTool()
    engine, rec, model = scripted_engine([
        'I will look it up.\n```json\n{"name": "lookup", "arguments": {"topic": "fenced"}}\n```',
        call("lookup", topic="fenced"),
        "<answer>ok [1]</answer>",
    ], tool)
    await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "foreign_format"
    assert "```json code block" in correction.content and LOOKUP_EXAMPLE in correction.content
    assert user_contents(model.calls[1].messages)[-1] == correction.content
    assert tool.runs == [{"topic": "fenced"}]


async def test_unclosed_thinking_with_no_action_never_gets_the_neither_message():
    engine, rec, _ = scripted_engine(["<think>Still thinking and never closing", call("lookup", topic="x"),
                                      "<answer>ok [1]</answer>"], NoteTool())
    await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "unclosed_think"
    assert "never closed" in correction.content and "neither" not in correction.content


async def test_a_reply_cut_by_the_length_limit_is_not_taken_as_the_answer():
    engine, rec, _ = scripted_engine([
        call("lookup", topic="x"),
        Reply("<think>ok</think><answer>The answer is 4", finish_reason="length", completion_tokens=50),
        "<answer>The answer is 42 [1].</answer>",
    ], NoteTool())
    result = await engine.run()
    assert result["answer"] == "The answer is 42 [1]."
    assert "cut off at 50 tokens" in rec.of("correction")[0].content


async def test_a_call_cut_by_the_length_limit_is_not_run():
    tool = NoteTool()
    engine, rec, _ = scripted_engine([
        Reply('<think>look</think><tool_call>{"name": "lookup", "arguments": {"topic": "li', finish_reason="length",
              completion_tokens=30),
        call("lookup", topic="life"), "<answer>It is 42 [1].</answer>",
    ], tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "life"}] and result["termination"] == "answer"
    (cut,) = rec.of("correction")
    assert cut.reason == "cut_reply" and "cut off at 30 tokens" in cut.content
    assert "in the middle of a <tool_call>" in cut.content


async def test_a_forced_answer_cut_by_the_length_limit_is_kept_and_marked():
    engine, rec, _ = scripted_engine([
        call("lookup", topic="life"),
        Reply("<think>hurry</think><answer>It is 42 [1], and the reasons are", finish_reason="length"),
    ], NoteTool(), max_calls=1)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["answer_truncated"] is True
    assert result["answer"] == "It is 42 [1], and the reasons are"
    assert "truncated: cut by the model's length limit" in markdown(fold(rec.events))
    out = io.StringIO()
    printer = TracePrinter(out)
    for e in rec.events:
        printer(e)
    assert "answer ready · truncated: cut by the model's length limit" in out.getvalue()


async def test_the_unknown_tool_observation_lists_the_tools_once():
    engine, rec, _ = scripted_engine([call("terminal", command="ls"), call("lookup", topic="x"),
                                      "<answer>ok [1]</answer>"], NoteTool())
    await engine.run()
    text = rec.of("observation")[0].text
    assert "Unknown tool 'terminal'" in text
    assert text.count("Available tools") == 1, text


async def test_a_string_where_search_wants_a_list_runs_as_one_query(searx_server):
    # Tongyi-prompt trajectories and the WebDancer case study: "query" given as one string. The search
    # tool is real, against the local SearXNG server; only the model is in memory.
    searx_server.results["Edwin Hubble birth date"] = [("https://hubble.example/", "Hubble", "born 1889")]
    settings = dict(search_backend="searxng", searxng_url=searx_server.url, allow_private_urls=True, search_retries=1,
                    extract=False)
    async with make_client(Settings(**settings)) as http:
        engine, rec, _ = scripted_engine([
            '<tool_call>{"name": "search", "arguments": {"query": "Edwin Hubble birth date"}}</tool_call>',
            "<answer>20 November 1889 [1].</answer>",
        ], SearchTool(), question="When was Edwin Hubble born?", http=http, **settings)
        result = await engine.run()
    assert searx_server.queries == ["Edwin Hubble birth date"]
    assert rec.of("observation")[0].status == "ok" and result["termination"] == "answer"
