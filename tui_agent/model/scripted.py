"""An in-memory :class:`~tui_agent.model.Model` that answers from a script (for unit tests).

The script is a list (one entry per call, in order) or a function of the call. An entry is the
reply text, a :class:`Reply`, an exception to raise (a :class:`ModelError`, say), or a function
``(messages, purpose) -> entry`` (sync or async: an async one can wait, for Submit now), or a
:class:`Partial` (streams its text, then waits until the call is cancelled: a stopped process). The
reply text is streamed through ``on_delta`` in pieces, like a real streamed call, and provider
reasoning (``Reply.reasoning``) is streamed first with ``reasoning=True``. A :class:`Reply`'s
``tool_calls`` (the native protocol) come back as given; each call records its ``tools`` and ``tool_choice``.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Union

from tui_agent.model.protocol import DeltaCallback, Messages, RetryCallback
from tui_agent.model.types import ModelError, Reply



@dataclass
class Partial:
    """A reply that streams ``text`` (after ``reasoning``) and never finishes."""

    text: str = ""
    reasoning: str = ""


Entry = Union[str, Reply, Partial, BaseException, Callable[[Messages, str], "Entry | Awaitable[Entry]"]]
DEFAULT_WINDOW = 32768
"""The context window the scripted model reports unless told otherwise."""
CHUNK_CHARS = 8
"""Characters per streamed piece."""


@dataclass
class ScriptedCall:
    """One call the scripted model received."""

    messages: Messages
    purpose: str
    model: str | None
    stream: bool | None
    tools: list[dict[str, Any]] | None = None  # native protocol: the request's tools=[…] and tool_choice
    tool_choice: str | None = None


@dataclass
class ScriptedModel:
    script: list[Entry] | Callable[[Messages, str], Entry]
    window: int = DEFAULT_WINDOW
    calls: list[ScriptedCall] = field(default_factory=list)

    def context_window(self, model: str | None = None) -> int:
        return self.window

    def _next(self, messages: Messages, purpose: str) -> Entry:
        if callable(self.script):
            return self.script(messages, purpose)
        research = [c for c in self.calls if c.purpose != "extract"]
        if not self.script:
            raise ModelError("bad_request", f"the script has no reply for call {len(research)}")
        return self.script.pop(0)

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
        self.calls.append(ScriptedCall([dict(m) for m in messages], str(purpose), model, stream, tools, tool_choice))
        entry = self._next(messages, str(purpose))
        while callable(entry) and not isinstance(entry, BaseException):
            entry = entry(messages, str(purpose))
            if inspect.isawaitable(entry):
                entry = await entry
        if isinstance(entry, BaseException):
            raise entry
        if isinstance(entry, Partial):
            _stream(Reply(entry.text, entry.reasoning), on_delta)
            await asyncio.Event().wait()  # until cancelled
        reply = Reply(text=entry) if isinstance(entry, str) else entry
        if stop:  # like a server: the reply ends before a stop sequence
            cut = [reply.text.find(s) for s in stop if s in reply.text]
            if cut:
                reply = Reply(**{**reply.__dict__, "text": reply.text[: min(cut)]})
        if stream is not False:
            _stream(reply, on_delta)
        if reply.prompt_tokens is None:
            reply.prompt_tokens = sum(len(m.get("content") or "") // 4 + 4 for m in messages)
        if reply.completion_tokens is None:
            reply.completion_tokens = len(reply.text) // 4 + 1
        return reply


def _stream(reply: Reply, on_delta: DeltaCallback | None) -> None:
    if on_delta is None:
        return
    for i in range(0, len(reply.reasoning), CHUNK_CHARS):
        on_delta(reply.reasoning[i:i + CHUNK_CHARS], True)
    for i in range(0, len(reply.text), CHUNK_CHARS):
        on_delta(reply.text[i:i + CHUNK_CHARS], False)
