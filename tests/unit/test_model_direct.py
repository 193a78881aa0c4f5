"""Which model calls the direct OpenAI-compatible client takes (the ``transport`` setting), and
the URL and key it uses: where litellm would do something else, litellm makes the call."""

from __future__ import annotations

import pytest

from tui_agent.model.direct import api_key, chat_url, chosen

LOCAL = "http://127.0.0.1:8000/v1"


@pytest.mark.parametrize("model", ["openai/qwen3", "hosted_vllm/qwen3"])
def test_auto_takes_an_openai_compatible_model_with_an_api_base(model):
    assert chosen("auto", model, LOCAL, None)


@pytest.mark.parametrize("model, base, router, tools", [
    ("anthropic/claude-sonnet-4-5", LOCAL, None, None),  # another provider's protocol
    ("ollama_chat/qwen3", LOCAL, None, None),
    ("openai/gpt-4.1-mini", None, None, None),  # litellm's default endpoint and its key handling
    ("openai/qwen3", LOCAL, "router.yaml", None),  # the Router picks the deployment
    ("openai/qwen3", LOCAL, None, [{"type": "function"}]),  # native tool calls
    ("openai/o3", "https://api.openai.com/v1", None, None),  # litellm adapts parameters per model there
])
def test_auto_leaves_to_litellm_what_the_direct_client_would_not_send_alike(model, base, router, tools):
    assert not chosen("auto", model, base, router, tools)


def test_litellm_forces_litellm_and_direct_also_takes_openais_own_host():
    assert not chosen("litellm", "openai/qwen3", LOCAL, None)
    assert chosen("direct", "openai/o3", "https://api.openai.com/v1", None)
    assert not chosen("direct", "anthropic/claude-sonnet-4-5", LOCAL, None)


def test_the_url_and_key_are_the_ones_litellm_uses(monkeypatch):
    assert chat_url(LOCAL + "/") == LOCAL + "/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HOSTED_VLLM_API_KEY", "vllm-key")
    assert api_key("openai/x", None) == "none"
    assert api_key("hosted_vllm/x", None) == "vllm-key"
    assert api_key("hosted_vllm/x", "given") == "given"
