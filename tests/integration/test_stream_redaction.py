"""Streamed model text is redacted as it streams: a secret split across the pieces of a reply
(at every position) is never shown, whole or in part, and what is shown adds up to the redacted
reply. Against the scripted OpenAI-compatible server, through the real model adapter."""

from __future__ import annotations

import pytest

from tests.helpers import call, make_engine
from tests.servers import Reply
from tui_agent.safety.redaction import REDACTED, redact
from tui_agent.core.events import ModelDelta

ENV_SECRET = "Zq8mW3rT9pLx2vK7bN4cR6tY"
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
WINDOW = 8


def windows(secret: str) -> set[str]:
    return {secret[i:i + WINDOW] for i in range(len(secret) - WINDOW + 1)}


@pytest.mark.parametrize("transport", ["litellm", "direct"])
async def test_a_secret_split_across_streamed_pieces_is_never_shown(chat_server, monkeypatch, transport):
    monkeypatch.setenv("DEPLOY_API_TOKEN", ENV_SECRET)
    thought = (f"<think>The deploy token is {ENV_SECRET} and the GitHub one {TOKEN}; "
               f"password = hunter2hunter2 was set too.</think>")
    reasoning = f"Provider reasoning quotes {TOKEN} and {ENV_SECRET} once more."
    for size in (1, 2, 3, 5, 7, 13, 29):  # size 1 splits each secret at every position
        chat_server.script(Reply(thought + call("lookup", topic="x"), reasoning=reasoning, chunk_size=size),
                           Reply("<answer>Rotate both [1].</answer>", chunk_size=size))
        engine, rec = make_engine(chat_server, transport=transport)
        result = await engine.run()
        assert result["termination"] == "answer"
        for is_reasoning, full in ((False, thought + call("lookup", topic="x")), (True, reasoning)):
            deltas = [e.text for e in rec.events if isinstance(e, ModelDelta) and e.step == 1
                      and e.reasoning == is_reasoning]
            shown = ""
            for delta in deltas:
                shown += delta
                for secret in (ENV_SECRET, TOKEN, "hunter2hunter2"):
                    assert not windows(secret) & {shown[i:i + WINDOW] for i in range(len(shown))}, (size, shown)
            assert shown == redact(full), size
            assert REDACTED in shown
