"""The seam between the engine and a model: what the engine calls, nothing more.

``tui_agent.model.llm.LLM`` (litellm, streaming, retries, prices) implements it for real runs;
``tui_agent.model.scripted.ScriptedModel`` implements it in memory for unit tests.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from tui_agent.model.types import Reply, RetryInfo

Messages = list[dict[str, str]]
DeltaCallback = Callable[[str, bool], None]
"""``on_delta(text, reasoning)``: a streamed piece of the reply (``reasoning`` for provider-separated thinking)."""
RetryCallback = Callable[[RetryInfo], None]
"""``on_retry(info)``: the call failed and is retried after ``info.delay_s``."""


class Model(Protocol):
    """A chat model as the engine uses it."""

    def context_window(self, model: str | None = None) -> int:
        """Tokens the model accepts in one request."""
        ...

    async def complete(
        self,
        messages: Messages,
        *,
        purpose: str = "research",
        model: str | None = None,
        stream: bool | None = None,
        on_delta: DeltaCallback | None = None,
        on_retry: RetryCallback | None = None,
        stop: list[str] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> Reply:
        """One completion of ``messages``; streams pieces through ``on_delta``; raises ModelError.

        ``tools`` (OpenAI function format) and ``tool_choice`` are the native protocol's: the
        reply's calls come back in ``Reply.tool_calls``."""
        ...
