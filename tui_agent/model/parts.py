"""A reply's ``content`` as the server sent it → (text, thinking).

OpenAI-compatible servers send a string. Mistral's reasoning models (Magistral) send a list of
typed parts, streamed and not: ``[{"type": "thinking", "thinking": [{"type": "text", "text": …}]},
{"type": "text", "text": "3"}]``, and later deltas of the same reply may be plain strings again
(``"91"``). Text parts are the reply's text; thinking parts its reasoning. Parts may be dicts or
litellm/pydantic objects; a part of another type (an image, a reference) carries no text.
"""

from __future__ import annotations

import inspect
from typing import Any

TEXT_PARTS = ("text", "output_text")
THINKING_PARTS = ("thinking", "reasoning")


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _texts(value: Any) -> str:
    """A thinking part's body: a string, or a list of text parts (or strings)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(v if isinstance(v, str) else str(_get(v, "text") or "") for v in value)
    return ""


def split_content(content: Any) -> tuple[str, str]:
    """(text, thinking) of a message's or a delta's ``content``: a string is all text; a list of
    parts is read part by part; anything else holds neither."""
    if content is None:
        return "", ""
    if isinstance(content, str):
        return content, ""
    if not isinstance(content, list):
        content = [content]
    text: list[str] = []
    thinking: list[str] = []
    for part in content:
        if isinstance(part, str):
            text.append(part)
            continue
        kind = _get(part, "type")
        if kind in TEXT_PARTS:
            text.append(str(_get(part, "text") or ""))
        elif kind in THINKING_PARTS:
            thinking.append(_texts(_get(part, kind)) or _texts(_get(part, "text")))
    return "".join(text), "".join(thinking)


def _read_delta(chunk: Any) -> None:
    """A raw chunk's delta whose content is a list of parts, made a string (its text) beside its
    thinking (``reasoning_content``), which litellm reads; left a list, litellm drops it."""
    for choice in getattr(chunk, "choices", None) or ():
        delta = getattr(choice, "delta", None)
        content = getattr(delta, "content", None)
        if isinstance(content, list):
            text, thinking = split_content(content)
            try:
                delta.content = text
                if thinking:
                    delta.reasoning_content = (getattr(delta, "reasoning_content", None) or "") + thinking
            except (AttributeError, TypeError, ValueError):
                pass


class PartsReader:
    """The raw chunks of litellm's stream (OpenAI SDK objects) with Magistral's content parts read
    (:func:`_read_delta`) before litellm sees them; closing it closes the stream it reads."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._it: Any = None

    def __aiter__(self) -> "PartsReader":
        return self

    async def __anext__(self) -> Any:
        if self._it is None:
            self._it = self._inner.__aiter__()
        chunk = await self._it.__anext__()
        _read_delta(chunk)
        return chunk

    async def aclose(self) -> None:
        close = getattr(self._inner, "aclose", None) or getattr(self._inner, "close", None)
        result = close() if callable(close) else None
        if inspect.isawaitable(result):
            await result

    def close(self) -> Any:
        close = getattr(self._inner, "close", None)
        return close() if callable(close) else None


def reading_parts(response: Any) -> Any:
    """``response`` (litellm's stream wrapper) reading its raw chunks through a :class:`PartsReader`."""
    inner = getattr(response, "completion_stream", None)
    if inner is not None and hasattr(inner, "__aiter__"):
        try:
            response.completion_stream = PartsReader(inner)
        except (AttributeError, TypeError):
            pass
    return response
