"""Telling "nothing is at that endpoint" apart from a server that answered badly.

The chains are the shapes litellm 1.x produces (checked against a closed port and a .invalid host:
litellm.InternalServerError ← OpenAIError ← openai.APIConnectionError ← httpx.ConnectError ←
aiohttp ClientConnectorError ← ConnectionRefusedError / socket.gaierror); the real-network versions
are in tests/integration/test_llm_failfast.py.
"""

from __future__ import annotations

import socket
from types import SimpleNamespace

import httpx
import pytest

from tui_agent.config import Settings
from tui_agent.model.llm import LLM, REFUSED, UNRESOLVED, ModelError, unreachable_cause, unreachable_causes


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


def stamped(exc: BaseException, deployment: str) -> BaseException:
    exc.failed_deployment_id = deployment  # what a LiteLLM Router sets on each attempt's error
    return exc


def test_a_routers_retry_names_the_deployment_that_failed_last_not_an_earlier_refusal():
    # A Router tries the dead deployment, then (inside its except block) the rate-limited one: the
    # 429's context is the refusal. Measured with litellm's Router: the outer error carries the last
    # deployment's id. The refusal belongs to the earlier attempt; the live deployment answered.
    refused = stamped(chain(APIConnectionError("Connection error."), connect_error("Cannot connect to host"),
                            ConnectionRefusedError(111, "Connect call failed")), "dead")
    limited = stamped(Exception("RateLimitError: 429 Rate limit reached"), "limited")
    limited.__context__ = refused
    assert unreachable_cause(limited) is None
    assert unreachable_cause(refused) == REFUSED
    # The same deployment retried keeps its own cause: the refusal is still that deployment's.
    again = stamped(Exception("InternalServerError: Connection error."), "dead")
    again.__context__ = refused
    assert unreachable_cause(again) == REFUSED


class ScriptedRouter:
    """Stands in for a LiteLLM Router: raises the scripted errors, then answers from ``answerer``."""

    def __init__(self, errors: list[BaseException], answerer: str) -> None:
        self.errors = list(errors)
        self.answerer = answerer
        self.calls = 0

    async def acompletion(self, **kw):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        message = SimpleNamespace(content="<answer>ok</answer>", reasoning_content=None, tool_calls=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=None,
                               model="fast", _hidden_params={"model_id": self.answerer})


def refusal(deployment: str) -> BaseException:
    outer = APIConnectionError("Connection error.")
    outer.status_code = 500  # litellm reports a refused connection as InternalServerError (500)
    return stamped(chain(outer, connect_error("Cannot connect to host"),
                         ConnectionRefusedError(111, "Connect call failed")), deployment)


def status_error(status: int, deployment: str, context: BaseException) -> BaseException:
    exc = stamped(Exception(f"Error code: {status}"), deployment)
    exc.status_code = status
    exc.__context__ = context  # the Router tried the next deployment inside its except block
    return exc


async def test_a_router_whose_live_deployments_fail_after_a_dead_ones_refusal_waits_for_them(tmp_path, monkeypatch):
    # CI lost an eval case to this: at the start, before any deployment had answered, the 429 and
    # the 500 of the live deployments each carried the dead one's refusal as context, so all three
    # counted as refused and the call failed fast instead of backing off.
    router = ScriptedRouter([refusal("dead"), status_error(429, "limited", refusal("dead")),
                             status_error(500, "failing", refusal("dead")), refusal("dead")], answerer="limited")
    llm, sleeps = routed_llm(tmp_path, monkeypatch, ("dead", "limited", "failing"), router)
    reply = await llm.complete([{"role": "user", "content": "q"}], stream=False)
    assert reply.text == "<answer>ok</answer>"
    assert router.calls == 5 and len(sleeps) == 4


class InternalServerError(Exception):
    """Stands in for litellm.InternalServerError, which litellm raises for a refused connection."""

    status_code = 500


ROUTER_CONNECTION_ERROR = "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error."


def two_dead_attempts() -> BaseException:
    """The shape a LiteLLM Router raised here over two dead deployments (num_retries 1): the retry's
    error (A) has lost its own cause chain; its context is the first attempt's error (B), whose
    chain ends in the refusal. Both read "Connection error."; the Router adds lines below A's."""
    first = stamped(InternalServerError(ROUTER_CONNECTION_ERROR), "B")
    first.__context__ = chain(APIConnectionError("Connection error."), connect_error("Cannot connect to host"),
                              ConnectionRefusedError(111, "Connect call failed"))
    last = stamped(InternalServerError(ROUTER_CONNECTION_ERROR + "\n\nLiteLLM: model group 'fast' failed with the "
                                       "error above. LiteLLM Retried: 1 times"), "A")
    last.__context__ = first
    return last


def test_two_dead_deployments_both_count_as_refused_though_the_router_kept_one_cause_chain():
    assert unreachable_causes(two_dead_attempts()) == {"A": REFUSED, "B": REFUSED}
    assert unreachable_cause(two_dead_attempts()) == REFUSED
    # A live deployment's 429 after a refusal: only the dead one refused.
    limited = status_error(429, "L", refusal("B"))
    assert unreachable_causes(limited) == {"B": REFUSED} and unreachable_cause(limited) is None


def routed_llm(tmp_path, monkeypatch, names: tuple[str, ...], router) -> tuple[LLM, list[float]]:
    from tui_agent.model import routing
    from tui_agent.model.routing import Deployment, Routed

    path = str(tmp_path / "router.yaml")
    settings = Settings(model="fast", router_config=path, retry_attempts=10, api_key=None)
    group = [Deployment(name, "fast", "openai/gpt-4o-mini", f"http://{name}:1/v1") for name in names]
    monkeypatch.setitem(routing._routed, (path, settings.router_retries, settings.router_cooldown_s),
                        Routed(path, router, {d.id: d for d in group}))
    sleeps: list[float] = []

    async def sleep(delay: float) -> None:
        sleeps.append(delay)

    return LLM(settings, sleep=sleep), sleeps


async def test_a_router_whose_deployments_all_refuse_fails_at_once_naming_the_refusal(tmp_path, monkeypatch):
    router = ScriptedRouter([two_dead_attempts()], answerer="A")
    llm, sleeps = routed_llm(tmp_path, monkeypatch, ("A", "B"), router)
    with pytest.raises(ModelError) as err:
        await llm.complete([{"role": "user", "content": "q"}], stream=False)
    assert err.value.kind == "unreachable" and "connection refused" in str(err.value)
    assert "http://A:1/v1" in str(err.value) and router.calls == 1 and sleeps == []
