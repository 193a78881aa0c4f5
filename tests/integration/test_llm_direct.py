"""The direct OpenAI-compatible client (tui_agent/model/direct.py) against the scripted server on
127.0.0.1: it sends and returns what litellm does there, litellm's streaming never runs on the
default path, and the stream's own faults are named and retried.

The faults both paths share (429, 5xx, hangs, drops, refused connections) are parametrized over
both transports in test_engine.py, test_llm_failfast.py and test_llm_stream_timeout.py.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import ChatServer, Fault, Reply
from tui_agent.config import Settings
from tui_agent.model import llm as llm_module
from tui_agent.model.llm import LLM, ModelError

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
SSE = {"Content-Type": "text/event-stream"}


def adapter(chat: ChatServer, transport: str = "auto", **overrides) -> LLM:
    async def no_sleep(_s: float) -> None:
        return None

    settings = dict(model="openai/test-model", api_base=chat.base_url, retry_attempts=3, transport=transport)
    settings.update(overrides)
    return LLM(Settings(**settings), sleep=no_sleep)


@pytest.mark.parametrize("stream", [True, False])
async def test_the_direct_client_sends_and_returns_what_litellm_does(chat_server, stream):
    seen: dict[str, tuple] = {}
    for transport in ("litellm", "direct"):
        chat_server.script(Reply("<think>plan</think><answer>42</answer>", reasoning="first, think",
                                 prompt_tokens=1200, completion_tokens=80))
        deltas: list[tuple[str, bool]] = []
        llm = adapter(chat_server, transport, model="openai/gpt-4o-mini", stream=stream, temperature=0.3)
        reply = await llm.complete(MESSAGES, stop=["<tool_response>"], on_delta=lambda t, r: deltas.append((t, r)))
        seen[transport] = (reply, "".join(t for t, r in deltas if not r), "".join(t for t, r in deltas if r),
                           chat_server.requests[-1], chat_server.request_headers[-1]["authorization"])
    (a_reply, a_text, a_thought, a_req, a_auth), (b_reply, b_text, b_thought, b_req, b_auth) = seen.values()
    assert b_reply == a_reply  # text, reasoning, usage, cost (litellm's price map), finish reason
    assert b_reply.cost_usd and b_reply.prompt_tokens == 1200 and b_reply.completion_tokens == 80
    assert (b_text, b_thought) == (a_text, a_thought) and b_text == "<think>plan</think><answer>42</answer>"
    a_req.pop("stream", None) if not stream else None  # litellm leaves stream out when it is off
    b_req.pop("stream", None) if not stream else None
    assert b_req == a_req and b_auth == a_auth == "Bearer none"


async def test_by_default_an_openai_compatible_server_is_streamed_without_litellm(chat_server, monkeypatch):
    def refuse(*_a, **_kw):
        raise AssertionError("litellm.acompletion called")

    monkeypatch.setattr(llm_module.litellm(), "acompletion", refuse)
    chat_server.script("<answer>direct</answer>", "<answer>never</answer>")
    deltas: list[str] = []
    reply = await adapter(chat_server).complete(MESSAGES, on_delta=lambda t, _r: deltas.append(t))
    assert reply.text == "<answer>direct</answer>" and len(deltas) > 1  # streamed in pieces
    with pytest.raises(ModelError):  # the setting that forces litellm reaches it
        await adapter(chat_server, "litellm", retry_attempts=1).complete(MESSAGES)


@pytest.mark.parametrize("transport", ["litellm", "direct"])
async def test_an_error_event_inside_a_stream_is_retried_as_the_status_it_names(chat_server, transport):
    chat_server.script(Fault(status=200, body='data: {"error": {"message": "Rate limit reached", "code": 429}}\n\n',
                             headers=SSE), "<answer>ok</answer>")
    retries: list = []
    reply = await adapter(chat_server, transport).complete(MESSAGES, on_retry=retries.append)
    assert reply.text == "<answer>ok</answer>"
    assert [r.reason for r in retries] == ["rate limited (429)"]


async def test_a_stream_event_that_is_not_json_is_a_server_failure_and_retried(chat_server):
    chat_server.script(Fault(status=200, body="data: {not json\n\n", headers=SSE), "<answer>ok</answer>")
    retries: list = []
    reply = await adapter(chat_server).complete(MESSAGES, on_retry=retries.append)
    assert reply.text == "<answer>ok</answer>"
    assert [r.reason for r in retries] == ["the model server failed (502)"]


async def test_a_server_that_answers_a_streamed_request_in_one_reply_is_read_whole(chat_server):
    # litellm returns an empty reply here; the direct client reads the completion it was sent.
    whole = {"id": "c", "object": "chat.completion", "created": 0, "model": "test-model",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": "<answer>whole</answer>"},
                          "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
    chat_server.script(Fault(status=200, body=json.dumps(whole)))
    deltas: list[str] = []
    reply = await adapter(chat_server).complete(MESSAGES, on_delta=lambda t, _r: deltas.append(t))
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("<answer>whole</answer>", 7, 3)
    assert deltas == ["<answer>whole</answer>"]


async def test_a_stream_without_a_finish_reason_is_retried_as_a_drop(chat_server):
    chunk = {"choices": [{"index": 0, "delta": {"content": "half"}, "finish_reason": None}]}
    chat_server.script(Fault(status=200, body=f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n", headers=SSE),
                       "<answer>ok</answer>")
    retries: list = []
    reply = await adapter(chat_server).complete(MESSAGES, on_retry=retries.append)
    assert reply.text == "<answer>ok</answer>" and len(retries) == 1
    assert "dropped" in retries[0].reason


def test_a_run_against_a_local_server_with_a_model_litellm_does_not_know_never_imports_litellm(chat_server, tmp_path):
    # litellm's import costs seconds of CPU per process (each eval worker, each scripted run); for
    # a model not in its map it would only say "no price, no context window".
    import subprocess
    import sys

    from tests.integration.test_read import WITH_IMPORT_CHECK  # cli.main, then whether litellm was imported

    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("TUI_AGENT_")}
    env |= {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "c"), "TUI_AGENT_DATA_DIR": str(tmp_path / "d")}

    def run(model: str, api_base: str, *extra: str) -> tuple[subprocess.CompletedProcess, dict | None]:
        proc = subprocess.run([sys.executable, "-c", WITH_IMPORT_CHECK, "run", "What is it?", "--json", "--yes",
                               "--model", model, "--api-base", api_base, *extra],
                              capture_output=True, text=True, timeout=120, env=env)
        return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)

    chat_server.script(*["<answer>It is 42.</answer>"] * 3)  # asked again for evidence, then forced: the same
    proc, result = run("openai/my-local-model", chat_server.base_url, "--no-stream")
    assert proc.returncode == 0 and result["answer"] == "It is 42." and result["cost_usd"] is None, proc.stderr
    assert "@@ litellm imported: False" in proc.stderr
    # a refused connection is still named (its classification needs no litellm either)
    proc, _ = run("hosted_vllm/my-local-model", "http://127.0.0.1:9/v1")
    assert proc.returncode == 1 and "cannot reach the model server" in proc.stderr, proc.stderr
    assert "@@ litellm imported: False" in proc.stderr



def test_a_model_in_litellms_map_is_still_asked_of_litellm_and_one_outside_it_is_not():
    from tui_agent.model import known_models, pricing

    settings = Settings(model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
    assert not known_models.unknown("openai/gpt-4o-mini") and llm_module.litellm_needed(settings)
    assert pricing.cost(settings, ["openai/gpt-4o-mini"], 1000, 100) > 0  # litellm's price
    local = Settings(model="openai/my-local-model", api_base="http://127.0.0.1:9/v1")
    assert known_models.unknown("hosted_vllm/Qwen/My-Finetune-7B") and known_models.unknown("openai/my-local-model")
    assert not llm_module.litellm_needed(local)
    assert llm_module.litellm_needed(Settings(model=local.model, api_base=local.api_base, protocol="native"))  # native: litellm
    assert not known_models.unknown("ollama_chat/whatever")  # not a map-only provider: litellm is asked
