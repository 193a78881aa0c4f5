"""A direct client for OpenAI-compatible chat endpoints: one httpx request, the stream read with
httpx-sse and ``json.loads``, nothing built per chunk but the text.

litellm's streamed path builds a pydantic ``ChatCompletionChunk`` (OpenAI SDK) and then its own
``ModelResponseStream`` for every SSE event, and ends each stream with its success logging (a
rebuilt reply, a cost calculation): about two thirds of a streamed step's CPU
(``benchmarks/bench_step_cpu.py``). Where that path adds nothing — an OpenAI-compatible server
named by ``openai/…`` or ``hosted_vllm/…`` with an ``api_base`` — the adapter
(:class:`tui_agent.model.llm.LLM`) calls this module instead; it does not import litellm.

What it sends is what litellm sends there: the model name without its prefix, the messages,
``stop``, ``temperature``, ``stream`` with ``stream_options.include_usage``, the key as a Bearer
token (the setting, else the provider's environment variable, else ``none``). What it returns is
the adapter's :class:`~tui_agent.model.types.Reply` without the cost (the adapter prices it).
Failures are raised as exceptions that :func:`tui_agent.model.errors.classify` names as it names
litellm's: :class:`HTTPFault` carries the status, the server's message and its headers
(Retry-After); an error event inside a stream is one too, and a stream event that is not JSON is
one with status 502. A whole reply that is not a chat completion is an :class:`UnreadableReply`
(named, not retried). Content may be a list of typed parts (:mod:`~tui_agent.model.parts`).
httpx's transport errors keep their cause chain (a refused connection, a name that does not
resolve), a timeout is a :class:`TimeoutError`, and a stream that breaks off is a
:class:`StreamFault` (a ``ConnectionError``: retried as a dropped connection).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable
from urllib.parse import urlsplit

import httpx
from httpx_sse import EventSource

from tui_agent.model.parts import split_content
from tui_agent.model.types import Reply

PREFIX_KEY_VARIABLES = {"openai/": "OPENAI_API_KEY", "hosted_vllm/": "HOSTED_VLLM_API_KEY"}
"""The model prefixes this client serves, and the environment variable each takes its key from."""
LITELLM_ADAPTED_HOSTS = ("api.openai.com",)
"""Hosts where litellm adapts parameters to the model (o-series, gpt-5): ``auto`` leaves them to it."""
CHAT_PATH = "chat/completions"
ERROR_BODY_CHARS = 2_000
"""Characters of an error response read for its message."""
BAD_GATEWAY = 502
"""The status a reply that is not what the protocol says (an event that is not JSON) is reported
with: the server failed, retried as a 5xx is."""


class HTTPFault(Exception):
    """The server answered with an error status (or sent an error event in its stream)."""

    def __init__(self, status_code: int, message: str, headers: httpx.Headers | None = None,
                 request: httpx.Request | None = None, body: dict | None = None) -> None:
        super().__init__(f"{status_code} {message}" if message else f"HTTP {status_code}")
        self.status_code = status_code
        self.body = body  # the server's error JSON, when it sent one (errors.tool_use_failed, errors.server_words)
        self.headers = headers if headers is not None else httpx.Headers()
        self.request = request


class StreamFault(ConnectionError):
    """The stream broke off: the connection closed before the reply was whole."""


class UnreadableReply(Exception):
    """The server answered 200 with a whole reply this client cannot read (not JSON, or not a chat
    completion): the same request gets the same reply, so it is named, not retried."""


def serves(model: str, api_base: str | None, router_config: str | None) -> bool:
    """Whether this client can make the call exactly as litellm would: an ``openai/`` or
    ``hosted_vllm/`` model on a configured endpoint, no Router."""
    return bool(api_base) and not router_config and model.startswith(tuple(PREFIX_KEY_VARIABLES))


def chosen(transport: str, model: str, api_base: str | None, router_config: str | None, tools: object = None) -> bool:
    """Whether a call goes through this client under the ``transport`` setting: ``auto`` where it
    serves the call and the host is not one where litellm adapts parameters per model; ``direct``
    wherever it serves the call; ``litellm`` never. A call with native ``tools`` goes to litellm."""
    if transport == "litellm" or tools or not serves(model, api_base, router_config):
        return False
    if transport == "direct":
        return True
    host = (urlsplit(api_base or "").hostname or "").lower()
    return host not in LITELLM_ADAPTED_HOSTS


def chat_url(api_base: str) -> str:
    """The completions URL for a base, as litellm builds it (a base that names it already is kept)."""
    base = api_base.rstrip("/")
    return base if CHAT_PATH in base else f"{base}/{CHAT_PATH}"


def api_key(model: str, configured: str | None) -> str:
    prefix = next(p for p in PREFIX_KEY_VARIABLES if model.startswith(p))
    return configured or os.environ.get(PREFIX_KEY_VARIABLES[prefix]) or "none"


class DirectChat:
    """Chat completions over one httpx client (made in the event loop that first uses it, made again
    if another loop calls: a client's connections belong to their loop)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._client.is_closed:
            # The user's own endpoint: no guard, no environment proxies for loopback (httpx's default
            # trust_env reads HTTP(S)_PROXY/NO_PROXY, as the OpenAI SDK does).
            # One SSL context per process (loading certifi's bundle costs ~70 ms of CPU; an eval
            # builds a client per case).
            from tui_agent.web.transport import ssl_context

            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout), follow_redirects=False,
                                             verify=ssl_context())
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and not self._client.is_closed:
            await self._client.aclose()

    async def complete(self, messages: list[dict[str, str]], *, model: str, api_base: str, key: str | None,
                       stream: bool, stop: list[str] | None, temperature: float | None,
                       on_delta: Callable[[str, bool], None] | None) -> Reply:
        """One call; raises HTTPFault, StreamFault, TimeoutError or httpx's errors (see the module)."""
        body: dict[str, Any] = {"model": model.split("/", 1)[1], "messages": messages, "stream": stream}
        if stream:
            body["stream_options"] = {"include_usage": True}
        if stop:
            body["stop"] = stop
        if temperature is not None:
            body["temperature"] = temperature
        headers = {"Authorization": f"Bearer {api_key(model, key)}",
                   "Accept": "text/event-stream" if stream else "application/json"}
        client = self.client()  # made before the clock starts (a first client loads its TLS settings)
        try:
            async with asyncio.timeout(self.timeout) as deadline:
                async with client.stream("POST", chat_url(api_base), json=body, headers=headers) as response:
                    if response.status_code >= 400:
                        raise await _fault(response)
                    kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
                    if stream and kind == "text/event-stream":
                        return await _read_stream(response, model, deadline, self.timeout, on_delta)
                    # Not streamed, or a server that answered a streamed request with one JSON reply.
                    return _whole_reply(await response.aread(), model, on_delta)
        except httpx.TimeoutException as exc:
            raise TimeoutError("the model request timed out") from exc
        except httpx.RemoteProtocolError as exc:  # the connection closed mid-body
            raise StreamFault(f"the model stream broke off: {exc}") from exc


async def _fault(response: httpx.Response) -> HTTPFault:
    raw = b""
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) >= ERROR_BODY_CHARS:
            break
    text = raw[:ERROR_BODY_CHARS].decode("utf-8", "replace")
    return HTTPFault(response.status_code, _error_message(text) or response.reason_phrase, response.headers,
                     response.request, _json_object(text))


def _json_object(text: str) -> dict | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _error_message(text: str) -> str:
    """The message of an OpenAI-style error body ({"error": {"message": …}}), else the text."""
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err)
    if isinstance(err, str):
        return err
    return str(data.get("message") or data)[:300] if isinstance(data, dict) else str(data)[:300]


async def _read_stream(response: httpx.Response, model: str, deadline: asyncio.Timeout, timeout: float,
                       on_delta: Callable[[str, bool], None] | None) -> Reply:
    parts: list[str] = []
    rparts: list[str] = []
    pt = ct = None
    finish = None
    loop = asyncio.get_running_loop()
    # Each event must come within `timeout` of the last one (the deadline is pushed back).
    deadline.reschedule(loop.time() + timeout)
    async for sse in EventSource(response).aiter_sse():
        deadline.reschedule(loop.time() + timeout)
        data = sse.data
        if data == "[DONE]":
            break
        if not data:
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            raise HTTPFault(BAD_GATEWAY, f"the model stream sent an event that is not JSON: {data[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise HTTPFault(BAD_GATEWAY, f"the model stream sent an event that is not an object: {data[:200]!r}")
        if sse.event == "error" or chunk.get("error"):
            err = chunk.get("error")
            code = err.get("code") if isinstance(err, dict) else None
            status = code if isinstance(code, int) and code >= 400 else 500
            raise HTTPFault(status, _error_message(data), response.headers, response.request, chunk)
        usage = chunk.get("usage")
        if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
            pt, ct = usage.get("prompt_tokens"), usage.get("completion_tokens")
        choices = chunk.get("choices")
        if not choices:
            continue
        choice = choices[0]
        delta = choice.get("delta") or {}
        r = delta.get("reasoning_content") or delta.get("reasoning")
        c, thought = split_content(delta.get("content"))  # a string, or Mistral's typed parts
        for piece, reasoning in ((r if isinstance(r, str) else "", True), (thought, True), (c, False)):
            if piece:
                (rparts if reasoning else parts).append(piece)
                if on_delta:
                    on_delta(piece, reasoning)
        if choice.get("finish_reason"):
            finish = choice["finish_reason"]
    if finish is None:
        # A stream that ends without a finish reason was dropped mid-way: retry the call.
        raise StreamFault("the model stream ended before it finished")
    return Reply("".join(parts), "".join(rparts), pt, ct, None, finish, model)


def _whole_reply(raw: bytes, model: str, on_delta: Callable[[str, bool], None] | None) -> Reply:
    """A non-streamed reply. A server's separate reasoning is given back inside <think>…</think>
    when there is content, as the litellm path gives it (see llm.py): the parser then runs nothing
    drafted in that closed thinking."""
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        msg = choice.get("message") or {}
        content = msg.get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise UnreadableReply(f"the model server's reply is not a chat completion: "
                              f"{raw[:200].decode('utf-8', 'replace')!r}") from None
    text, parted = split_content(content)  # a string, or Mistral's typed parts
    thinking = msg.get("reasoning_content") or msg.get("reasoning") or ""
    thinking = (thinking if isinstance(thinking, str) else "") + parted
    reasoning = f"<think>{thinking}</think>" if thinking and content is not None else thinking
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    if on_delta:
        if thinking:
            on_delta(thinking, True)
        if text:
            on_delta(text, False)
    return Reply(text, reasoning, usage.get("prompt_tokens"), usage.get("completion_tokens"), None,
                 choice.get("finish_reason"), model)
