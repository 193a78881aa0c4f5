"""Replies of the protocol corpus through the engine, against the scripted server, through litellm.

Named corrections (protocol.correction with the tool registry), parse_reply(..., tools=...) and
finish_reason "length" → protocol.cut_correction, as the engine uses them.
"""

from __future__ import annotations


from tests.helpers import NoteTool, Recorder, call, make_engine, settings_for
from tests.servers import Reply

LOOKUP_EXAMPLE = '<tool_call>{"name": "lookup", "arguments": {"topic": "..."}}</tool_call>'


def last_user(request: dict) -> str:
    return [m["content"] for m in request["messages"] if m["role"] == "user"][-1]


async def test_a_call_after_unclosed_thinking_runs_the_tool(chat_server):
    tool = NoteTool()
    chat_server.script(
        "<think>\nThe notes will have it; the thinking never closes.\n\n" + call("lookup", topic="life"),
        "<think>Found it.</think><answer>It is 42 [1].</answer>",
    )
    engine, rec = make_engine(chat_server, tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "life"}]
    assert result["termination"] == "answer" and result["answer"] == "It is 42 [1]."
    assert rec.of("correction") == []
    assert rec.of("model_call_ended")[0].thought == "The notes will have it; the thinking never closes."


async def test_a_qwen_xml_call_runs_the_tool(chat_server):
    tool = NoteTool()
    chat_server.script(
        "<think>Qwen3.5 writes its native format.</think>\n<tool_call>\n<function=lookup>\n<parameter=topic>\nxml\n"
        "</parameter>\n</function>\n</tool_call>",
        "<answer>done [1]</answer>",
    )
    engine, rec = make_engine(chat_server, tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "xml"}] and result["termination"] == "answer"


async def test_a_call_swallowed_into_reasoning_content_runs(chat_server):
    tool = NoteTool()
    chat_server.script(
        Reply("", reasoning="No closing tag, so the server kept it all as reasoning.\n" + call("lookup", topic="r")),
        "<answer>done [1]</answer>",
    )
    engine, _ = make_engine(chat_server, tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "r"}] and result["termination"] == "answer"


async def test_an_unknown_tool_whose_body_holds_code_is_named(chat_server):
    tool = NoteTool()
    chat_server.script(
        '<think>Compute it.</think><tool_call>{"name": "PythonInterpreter", "arguments": {}}\n'
        "<code>print({1: 2})</code></tool_call>",
        call("lookup", topic="x"),
        "<answer>ok [1]</answer>",
    )
    engine, rec = make_engine(chat_server, tool)
    await engine.run()
    observation = rec.of("observation")[0]
    assert observation.tool == "PythonInterpreter" and observation.status == "invalid"
    assert "unknown tool" in observation.text.lower() and "PythonInterpreter" in observation.text
    assert "not valid JSON" not in observation.text
    assert tool.runs == [{"topic": "x"}]


async def test_a_foreign_format_gets_a_correction_that_names_it_with_a_real_tool(chat_server):
    tool = NoteTool()
    chat_server.script(
        'I will look it up.\n```json\n{"name": "lookup", "arguments": {"topic": "fenced"}}\n```',
        call("lookup", topic="fenced"),
        "<answer>ok [1]</answer>",
    )
    engine, rec = make_engine(chat_server, tool)
    await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "foreign_format"
    assert "```json code block" in correction.content and LOOKUP_EXAMPLE in correction.content
    assert last_user(chat_server.requests[1]) == correction.content
    assert tool.runs == [{"topic": "fenced"}]


async def test_unclosed_thinking_with_no_action_never_gets_the_neither_message(chat_server):
    chat_server.script("<think>Still thinking and never closing", call("lookup", topic="x"), "<answer>ok [1]</answer>")
    engine, rec = make_engine(chat_server, NoteTool())
    await engine.run()
    correction = rec.of("correction")[0]
    assert correction.reason == "unclosed_think"
    assert "never closed" in correction.content and "neither" not in correction.content


async def test_a_reply_cut_by_the_length_limit_is_not_taken_as_the_answer(chat_server):
    chat_server.script(
        call("lookup", topic="x"),
        Reply("<think>ok</think><answer>The answer is 4", finish_reason="length", completion_tokens=50),
        "<answer>The answer is 42 [1].</answer>",
    )
    engine, rec = make_engine(chat_server, NoteTool())
    result = await engine.run()
    assert result["answer"] == "The answer is 42 [1]."
    assert "cut off at 50 tokens" in rec.of("correction")[0].content


async def test_a_call_cut_by_the_length_limit_is_not_run(chat_server):
    tool = NoteTool()
    chat_server.script(
        Reply('<think>look</think><tool_call>{"name": "lookup", "arguments": {"topic": "li', finish_reason="length",
              completion_tokens=30),
        call("lookup", topic="life"), "<answer>It is 42 [1].</answer>",
    )
    engine, rec = make_engine(chat_server, tool)
    result = await engine.run()
    assert tool.runs == [{"topic": "life"}] and result["termination"] == "answer"
    (cut,) = rec.of("correction")
    assert cut.reason == "cut_reply" and "cut off at 30 tokens" in cut.content
    assert "in the middle of a <tool_call>" in cut.content


async def test_a_forced_answer_cut_by_the_length_limit_is_kept_and_marked(chat_server, tmp_path):
    from tui_agent.cli.headless import TracePrinter
    from tui_agent.session.exports import markdown
    from tui_agent.core.fold import fold
    import io

    chat_server.script(call("lookup", topic="life"),
                       Reply("<think>hurry</think><answer>It is 42 [1], and the reasons are", finish_reason="length"))
    engine, rec = make_engine(chat_server, NoteTool(), max_calls=1)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["answer_truncated"] is True
    assert result["answer"] == "It is 42 [1], and the reasons are"
    assert "truncated: cut by the model's length limit" in markdown(fold(rec.events))
    out = io.StringIO()
    printer = TracePrinter(out)
    for e in rec.events:
        printer(e)
    assert "answer ready · truncated: cut by the model's length limit" in out.getvalue()


# -- issue 16: nothing inside a closed <think> runs, whichever field the server put it in ----------

QWEN_DRAFT_IN_THINK = (  # Qwen3.5's shape from cubist38/mlx-openai-server#284, with a search call
    "<think>\nThe user wants Hubble's birth date. Let me draft a search.\n\n<tool_call>\n<function=search>\n"
    "<parameter=query>\n[\"Edwin Hubble birth date\"]\n</parameter>\n</function>\n</tool_call>\n"
    "Actually I already know this, no search needed.\n</think>"
)


async def run_search_engine(chat_server, searx_server, **overrides):
    """The engine with the real search tool against the SearXNG server; (result, recorder)."""
    from tui_agent.agent.engine import Engine
    from tui_agent.model.llm import LLM
    from tui_agent.tools.base import ToolRegistry
    from tui_agent.tools.search import SearchTool
    from tui_agent.web.net import make_client

    searx_server.results["Edwin Hubble birth date"] = [("https://hubble.example/", "Hubble", "born 1889")]
    settings = settings_for(chat_server, search_backend="searxng", searxng_url=searx_server.url, **overrides)
    rec = Recorder()
    async with make_client(settings) as http:
        engine = Engine(settings, "When was Edwin Hubble born?", tools=ToolRegistry([SearchTool()]),
                        llm=LLM(settings), emit=rec, session_id="test-session", http=http)
        result = await engine.run()
    return result, rec


async def test_a_search_drafted_inside_a_closed_think_never_runs_without_streaming(chat_server, searx_server):
    # Not streamed, litellm moves the <think>…</think> into reasoning_content and leaves the content blank.
    chat_server.script(QWEN_DRAFT_IN_THINK, "<answer>20 November 1889.</answer>", "<answer>20 November 1889.</answer>")
    _, rec = await run_search_engine(chat_server, searx_server, stream=False)
    assert searx_server.queries == []
    assert rec.of("action_proposed") == []
    correction = rec.of("correction")[0]
    assert correction.reason == "action_in_think" and "nothing inside the thinking is run" in correction.content


async def test_a_search_drafted_inside_a_closed_think_never_runs_when_streamed(chat_server, searx_server):
    chat_server.script(QWEN_DRAFT_IN_THINK, "<answer>20 November 1889.</answer>", "<answer>20 November 1889.</answer>")
    _, rec = await run_search_engine(chat_server, searx_server, stream=True)
    assert searx_server.queries == []
    assert rec.of("correction")[0].reason == "action_in_think"


async def test_streamed_reasoning_content_holding_a_closed_think_runs_nothing(chat_server, searx_server):
    chat_server.script(Reply("", reasoning=QWEN_DRAFT_IN_THINK), "<answer>1889.</answer>", "<answer>1889.</answer>")
    _, rec = await run_search_engine(chat_server, searx_server, stream=True)
    assert searx_server.queries == []
    assert rec.of("correction")[0].reason == "action_in_think"


async def test_a_call_in_reasoning_content_with_null_content_still_runs_without_streaming(chat_server, searx_server):
    # A server whose reasoning parser never saw </think> sends everything as reasoning and content null.
    import time

    from tests.servers import Fault

    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": None,
                "reasoning_content": "Search first.\n" + call("search", query=["Edwin Hubble birth date"])}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
    chat_server.script(Fault(status=200, body=body), "<answer>20 November 1889 [1].</answer>")
    result, rec = await run_search_engine(chat_server, searx_server, stream=False)
    assert searx_server.queries == ["Edwin Hubble birth date"]
    assert result["termination"] == "answer"


async def test_a_string_where_search_wants_a_list_runs_as_one_query(chat_server, searx_server):
    # Tongyi-prompt trajectories and the WebDancer case study: "query" given as one string.
    chat_server.script('<tool_call>{"name": "search", "arguments": {"query": "Edwin Hubble birth date"}}</tool_call>',
                       "<answer>20 November 1889 [1].</answer>")
    result, rec = await run_search_engine(chat_server, searx_server)
    assert searx_server.queries == ["Edwin Hubble birth date"]
    assert rec.of("observation")[0].status == "ok" and result["termination"] == "answer"


async def test_the_unknown_tool_observation_lists_the_tools_once(chat_server):
    chat_server.script(call("terminal", command="ls"), call("lookup", topic="x"), "<answer>ok [1]</answer>")
    engine, rec = make_engine(chat_server, NoteTool())
    await engine.run()
    text = rec.of("observation")[0].text
    assert "Unknown tool 'terminal'" in text
    assert text.count("Available tools") == 1, text
