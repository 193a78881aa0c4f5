"""A configured endpoint that is not there fails in seconds; a server that answers badly keeps the backoff.

Real litellm (and the direct OpenAI-compatible client, ``transport``) against a real closed port on
127.0.0.1, a name under .invalid (RFC 6761: never resolves), and the scripted server; sleeps are
injected and counted, never waited for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.servers import ChatServer, Fault, closed_port
from tui_agent.config import Settings
from tui_agent.model.llm import FIRST_CALL_ATTEMPTS, FIRST_CALL_RETRY_S, LLM, ModelError

MESSAGES = [{"role": "user", "content": "hi"}]
UNRESOLVABLE = "http://no-such-host.invalid:9/v1"
BOTH_TRANSPORTS = pytest.mark.parametrize("transport", ["litellm", "direct"])


class Counted:
    def __init__(self, base: str | None, **overrides) -> None:
        self.sleeps: list[float] = []
        self.retries: list = []
        settings = dict(model="openai/x", api_base=base, api_key="k", retry_attempts=10, retry_base_s=1.0,
                        retry_cap_s=30.0, model_timeout_s=10.0)
        settings.update(overrides)

        async def sleep(delay: float) -> None:
            self.sleeps.append(delay)

        self.llm = LLM(Settings(**settings), sleep=sleep)

    async def call(self):
        return await self.llm.complete(MESSAGES, on_retry=self.retries.append)


@BOTH_TRANSPORTS
async def test_a_refused_connection_on_the_first_call_fails_after_two_quick_attempts(transport):
    base = f"http://127.0.0.1:{closed_port()}/v1"
    c = Counted(base, transport=transport)
    with pytest.raises(ModelError) as err:
        await c.call()
    assert err.value.kind == "unreachable" and err.value.url == base
    assert c.sleeps == [FIRST_CALL_RETRY_S] * (FIRST_CALL_ATTEMPTS - 1)
    assert len(c.retries) == FIRST_CALL_ATTEMPTS - 1
    message = str(err.value)
    assert base in message and "openai/x" in message and "connection refused" in message
    assert f"gave up after {FIRST_CALL_ATTEMPTS} attempts" in message


@BOTH_TRANSPORTS
async def test_a_host_name_that_does_not_resolve_fails_after_two_quick_attempts(transport):
    c = Counted(UNRESOLVABLE, transport=transport)
    with pytest.raises(ModelError) as err:
        await c.call()
    assert err.value.kind == "unreachable"
    assert c.sleeps == [FIRST_CALL_RETRY_S] * (FIRST_CALL_ATTEMPTS - 1)
    message = str(err.value)
    assert UNRESOLVABLE in message and "openai/x" in message and "'no-such-host.invalid' does not resolve" in message


@BOTH_TRANSPORTS
async def test_one_configured_attempt_is_not_raised_to_two(transport):
    c = Counted(f"http://127.0.0.1:{closed_port()}/v1", retry_attempts=1, transport=transport)
    with pytest.raises(ModelError, match="gave up after 1 attempts"):
        await c.call()
    assert c.sleeps == []


@BOTH_TRANSPORTS
async def test_after_a_successful_call_a_refused_connection_takes_the_full_backoff(transport):
    chat = ChatServer()
    chat.script("<answer>first</answer>")
    c = Counted(chat.base_url, retry_attempts=4, transport=transport)
    try:
        assert (await c.call()).text == "<answer>first</answer>"
    finally:
        chat.close()  # the server goes away mid-run: its port now refuses
    with pytest.raises(ModelError) as err:
        await c.call()
    assert err.value.kind == "server_down"
    assert len(c.sleeps) == 3
    assert 1 <= c.sleeps[0] <= 2 and 2 <= c.sleeps[1] <= 3 and 4 <= c.sleeps[2] <= 5
    assert "gave up after 4 attempts" in str(err.value) and chat.base_url in str(err.value)


@BOTH_TRANSPORTS
async def test_server_errors_on_the_first_call_keep_the_full_backoff(chat_server, transport):
    chat_server.script(Fault(status=503), Fault(status=500), Fault(status=502), "<answer>ok</answer>")
    c = Counted(chat_server.base_url, retry_attempts=5, transport=transport)
    assert (await c.call()).text == "<answer>ok</answer>"
    assert len(c.sleeps) == 3 and c.sleeps[2] >= 4  # exponential, not the quick pause
    assert len(chat_server.requests) == 4


@BOTH_TRANSPORTS
async def test_a_hanging_server_on_the_first_call_is_a_timeout_with_the_full_backoff(chat_server, transport):
    chat_server.script(Fault(hang=True), Fault(hang=True), "<answer>ok</answer>")
    # 2 s per attempt: the answering third call needs a few ms of it, so a loaded machine keeps a margin
    c = Counted(chat_server.base_url, retry_attempts=3, model_timeout_s=2.0, transport=transport)
    assert (await c.call()).text == "<answer>ok</answer>"
    assert [r.reason for r in c.retries] == ["the model request timed out"] * 2
    assert c.sleeps[1] >= 2


@pytest.mark.parametrize("transport", ["litellm", "auto"])
def test_headless_run_against_a_closed_port_exits_1_naming_the_url_and_the_model(tmp_path, transport):
    base = f"http://127.0.0.1:{closed_port()}/v1"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    env.update(TUI_AGENT_CONFIG_DIR=str(tmp_path / "config"), TUI_AGENT_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.run([sys.executable, "-m", "tui_agent", "run", "--yes", "--model", "openai/x", "--api-base", base,
                           "--transport", transport, "q"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, env=env)
    assert proc.returncode == 1, proc.stderr
    assert base in proc.stderr and "openai/x" in proc.stderr and "connection refused" in proc.stderr
    attempts = re.findall(r"retrying in [\d.]+ s after .* \(attempt (\d+)\)", proc.stderr)
    assert attempts == [str(n) for n in range(1, FIRST_CALL_ATTEMPTS)]
    assert f"gave up after {FIRST_CALL_ATTEMPTS} attempts" in proc.stderr
