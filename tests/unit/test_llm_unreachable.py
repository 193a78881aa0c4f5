"""Telling "nothing is at that endpoint" apart from a server that answered badly.

The chains are the shapes litellm 1.x produces (checked against a closed port and a .invalid host:
litellm.InternalServerError ← OpenAIError ← openai.APIConnectionError ← httpx.ConnectError ←
aiohttp ClientConnectorError ← ConnectionRefusedError / socket.gaierror); the real-network versions
are in tests/integration/test_llm_failfast.py.
"""

from __future__ import annotations

import socket

import httpx
import pytest

from tui_agent.config import Settings
from tui_agent.model.llm import LLM, REFUSED, UNRESOLVED, unreachable_cause


def chain(*excs: BaseException) -> BaseException:
    """excs[0] raised from excs[1] raised from …, like the wrappers do."""
    for outer, inner in zip(excs, excs[1:]):
        outer.__cause__ = inner
    return excs[0]


class APIConnectionError(Exception):
    """Stands in for openai.APIConnectionError: its class name is what the text fallback keys on."""


REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def connect_error(message: str) -> httpx.ConnectError:
    return httpx.ConnectError(message, request=REQUEST)


@pytest.mark.parametrize("exc, cause", [
    (chain(APIConnectionError("Connection error."), connect_error("Cannot connect to host"),
           ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")), REFUSED),
    (chain(APIConnectionError("Connection error."), connect_error("[Name or service not known]"),
           socket.gaierror(-2, "Name or service not known")), UNRESOLVED),
    (chain(APIConnectionError("Connection error."), connect_error("[Errno 111] Connection refused")), REFUSED),
    (chain(APIConnectionError("Connection error."), connect_error("nodename nor servname provided, or not known")),
     UNRESOLVED),
    (chain(APIConnectionError("Connection error."), connect_error("Temporary failure in name resolution")), UNRESOLVED),
], ids=["refused-errno", "gaierror", "refused-text", "macos-dns-text", "no-dns-text"])
def test_refused_and_unresolvable_are_recognised_through_the_wrappers(exc, cause):
    assert unreachable_cause(exc) == cause


@pytest.mark.parametrize("exc", [
    Exception("502 Bad Gateway: upstream connect error, connection refused"),  # a proxy answered
    chain(APIConnectionError("Connection error."), httpx.ConnectTimeout("timed out", request=REQUEST)),
    chain(APIConnectionError("Connection error."), httpx.RemoteProtocolError("Server disconnected", request=REQUEST)),
    TimeoutError(),
], ids=["proxy-502-text", "connect-timeout", "dropped", "timeout"])
def test_a_server_that_answered_or_timed_out_is_not_unreachable(exc):
    assert unreachable_cause(exc) is None


def test_the_endpoint_named_is_api_base_then_the_failed_request_then_litellms_default():
    exc = chain(APIConnectionError("Connection error."), connect_error("refused"))
    assert LLM(Settings(api_base="http://my-box:8000/v1")).endpoint("openai/x", exc) == "http://my-box:8000/v1"
    assert LLM(Settings()).endpoint("ollama_chat/qwen3", exc) == "http://127.0.0.1:9/v1/chat/completions"
    assert LLM(Settings()).endpoint("groq/llama3") == "https://api.groq.com/openai/v1"
    assert LLM(Settings()).endpoint("openai/gpt-4o-mini") == "https://api.openai.com"
    assert LLM(Settings()).endpoint("hosted_vllm/q") == "the provider's default endpoint"
