"""Where a closed <think> reaches the engine through litellm (moved into reasoning_content when not
streamed, kept in the content when streamed, or sent with content null), against the scripted server:
nothing drafted inside the thinking runs. The engine's reading of the protocol corpus is tested on the
in-memory model in tests/unit/test_engine_protocol_replies.py (issue 28)."""

from __future__ import annotations

from tests.helpers import Recorder, call, settings_for
from tests.servers import Reply


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


