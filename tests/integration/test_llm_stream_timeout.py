"""The model timeout bounds the wait for each streamed chunk, not the whole reply.

Real litellm (and the direct OpenAI-compatible client) against the scripted server on 127.0.0.1:
a slow but steady stream is read to the end; a stream that stalls part way is cut off after
``model_timeout_s`` and retried.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.servers import ChatServer, Fault, Reply
from tui_agent.config import Settings
from tui_agent.model.llm import LLM, RetryInfo

MESSAGES = [{"role": "user", "content": "hi"}]
BOTH_TRANSPORTS = pytest.mark.parametrize("transport", ["litellm", "direct"])


def _llm(chat: ChatServer, timeout: float, transport: str) -> LLM:
    async def no_sleep(_s: float) -> None:
        return None

    return LLM(Settings(model="openai/test-model", api_base=chat.base_url, stream=True, model_timeout_s=timeout,
                        retry_attempts=3, transport=transport), sleep=no_sleep)


@BOTH_TRANSPORTS
def test_a_steady_stream_longer_than_the_timeout_is_read_whole(chat_server, transport):
    # 12 chunks, 0.5 s apart: 6 s in all, longer than the 4 s timeout, but no chunk waits over 0.5 s
    # (a margin of 3.5 s a gap for a loaded machine).
    chat_server.script(Reply("abcdefghijklmnopqrstuvwx", chunk_size=2, chunk_delay_s=0.5))
    deltas: list[str] = []
    reply = asyncio.run(_llm(chat_server, 4.0, transport).complete(MESSAGES, on_delta=lambda t, _r: deltas.append(t)))
    assert reply.text == "abcdefghijklmnopqrstuvwx" and reply.finish_reason == "stop"
    assert "".join(deltas) == reply.text and len(deltas) == 12


@BOTH_TRANSPORTS
def test_a_stream_that_stalls_is_timed_out_and_retried(chat_server, transport):
    chat_server.script(Fault(hang_after_chunks=2), "<answer>done</answer>")
    retries: list[RetryInfo] = []
    # 4 s: the stall takes it whole; the answering retry needs a few ms of it (a margin under load)
    reply = asyncio.run(_llm(chat_server, 4.0, transport).complete(MESSAGES, on_retry=retries.append))
    assert reply.text == "<answer>done</answer>"
    assert [r.reason for r in retries] == ["the model request timed out"]
