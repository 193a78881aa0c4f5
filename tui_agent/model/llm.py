"""The LLM adapter: litellm (imported by ``model.litellm_lazy``, only when a call needs it) or the
direct client.

Streaming with usage, stop sequences, our own retries (capped exponential backoff with jitter,
Retry-After honoured; the SDK's retries are off), cost from the provider-reported usage.
Clock and randomness are injectable so backoff tests do not sleep.

An endpoint that is not there fails fast: until a call of this adapter has succeeded at that
endpoint, a refused connection or a host name that does not resolve gets FIRST_CALL_ATTEMPTS quick
attempts, then a ModelError of kind "unreachable" naming the URL and the model. Once it has
answered, the same errors take the full backoff (a server restarting mid-run), like 429, 5xx and
timeouts always do. The rule is per endpoint, never across a Router's deployments
(``model.routing``): behind a Router the Router retries, falls back and cools deployments down
itself, and our backoff wraps only what it gives up on. Every other ModelError names where the
call went (the endpoint and model, or the deployment) before its cause. Prices: ``model.pricing``.

Three failures are not retried as a server's: a 5xx whose body says why (``errors.server_words``)
and says the same on two attempts ends there, with those words (and ``--no-stream`` where they
name streaming); a reply the client cannot read is a ModelError "unparseable"; a provider that
refused the model's tool call (Groq's tool_use_failed) returns a Reply whose ``failed_call`` holds
its words and whose text is the model's failed generation, for the engine to send back.
Content given as typed parts (Magistral) is read in both paths (``model.parts``).
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any, Awaitable, Callable

from tui_agent.config import Settings
# The call's types live in tui_agent.model (the seam); imported from here too.
from tui_agent.model.types import ModelError, Reply, RetryInfo  # noqa: F401
from tui_agent.model.errors import (  # noqa: F401 - classify, unreachable_cause and the kinds are the adapter's API
    REFUSED, TOOL_USE_FAILED, UNRESOLVED, _request_url, _retry_after, attempt_causes, classify, server_words,
    tool_use_failed, unreachable_cause, unreachable_causes,
)
from tui_agent.model.litellm_lazy import litellm, prepare_environment  # noqa: F401 - part of the adapter's API
from tui_agent.model.parts import reading_parts, split_content
from tui_agent.model.retrying import backoff_delay
from tui_agent.model.tool_deltas import ToolCallAssembler, whole_calls
from tui_agent.model import known_models, pricing
from tui_agent.model.endpoints import Endpoints
# A LiteLLM Router (several deployments and keys behind one model name) lives in model.routing.
from tui_agent.model.routing import Deployment, load_router_config, routed  # noqa: F401 - the CLI's file check

DEFAULT_CONTEXT_WINDOW = 131072
# Distinct message contents whose redaction is remembered (one run's history, resent every call).
REDACTION_CACHE_SIZE = 4096
FIRST_CALL_ATTEMPTS = 2
"""Attempts of a call that finds nothing at the endpoint before any call has succeeded."""
FIRST_CALL_RETRY_S = 1.0
"""The pause between those attempts: a server that is just starting gets a second chance."""


def litellm_needed(settings: Settings) -> bool:
    """Whether a run with these settings calls into litellm: a model the direct client does not
    serve (another provider, a Router, native tools), or one whose price or context window may be
    in litellm's map. A run against a local OpenAI-compatible server needs neither, and does not
    pay the import's seconds of CPU."""
    from tui_agent.model import direct

    native = settings.protocol == "native"
    for model in pricing.models_in_use(settings):
        if not direct.chosen(settings.transport, model, settings.api_base, settings.router_config, native):
            return True
        if not known_models.unknown(model):
            return True
    return False


def warm_up(settings: Settings | None = None) -> None:
    """Load what model calls need before the first one: litellm (seconds of imports; only when
    ``settings`` need it, :func:`litellm_needed`) and the tokenizer."""
    from tui_agent.model import tokens

    if settings is None or litellm_needed(settings):
        litellm()
    tokens.encoder()


class LLM:
    """One adapter per run, a :class:`tui_agent.model.Model`. ``complete`` streams, retries and prices one model call.

    ``reached`` turns True after the first successful call; until then an unreachable endpoint
    fails fast (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.reached = False
        self.answered: set[str] = set()  # the endpoints that have answered (fail-fast is per endpoint)
        self.endpoints = Endpoints(settings)  # where calls go, and how their failures name it
        self._redaction_cache: dict[str, str] = {}
        self._direct = None  # model.direct.DirectChat, made at the first call that takes it

    def endpoint(self, model: str, exc: BaseException | None = None) -> str:
        return self.endpoints.endpoint(model, exc)

    # -- model facts -------------------------------------------------------------------
    def context_window(self, model: str | None = None) -> int:
        if self.settings.context_window:
            return self.settings.context_window
        if known_models.unknown(model or self.settings.model):
            return DEFAULT_CONTEXT_WINDOW  # not in litellm's map: no import of litellm to be told so
        try:
            info = litellm().get_model_info(model or self.settings.model or "")
            value = info.get("max_input_tokens") or info.get("max_tokens")
            if value:
                return int(value)
        except Exception:
            pass
        return DEFAULT_CONTEXT_WINDOW

    def price(self, model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        """USD for this usage: the configured price, else litellm's price map; None when unpriced."""
        return pricing.cost(self.settings, [model], prompt_tokens, completion_tokens)

    def _answered(self, response: Any, model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        """Note which endpoint answered (fail-fast counts each apart); the reply's cost, priced by
        the model that answered (a Router's deployment, not its alias)."""
        if self.settings.router_config:
            routed(self.settings).answered(response)
        else:
            self.answered.add(self.endpoint(model))
        return pricing.reply_cost(self.settings, response, model, prompt_tokens, completion_tokens)

    # -- the call -----------------------------------------------------------------------
    def _redacted(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        """The request's messages with secrets redacted: the boundary before any model request.
        Each distinct content is redacted once per run (a history is resent at every call)."""
        from tui_agent.safety.hygiene import redact
        from tui_agent.safety.redaction import Redacted

        cache = self._redaction_cache
        out = []
        for m in messages:
            content = m.get("content")
            if isinstance(content, Redacted):
                pass  # made of redacted parts (the extraction prompt around a page): not scanned again
            elif isinstance(content, str):
                clean = cache.get(content)
                if clean is None:
                    if len(cache) >= REDACTION_CACHE_SIZE:
                        cache.pop(next(iter(cache)))
                    clean = cache[content] = redact(content)
                m = m if clean is content or clean == content else {**m, "content": clean}
            out.append(m)
        return out

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        purpose: str = "research",
        model: str | None = None,
        stream: bool | None = None,
        on_delta: Callable[[str, bool], None] | None = None,
        on_retry: Callable[[RetryInfo], None] | None = None,
        stop: list[str] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> Reply:
        model = model or self.settings.model
        if not model:
            raise ModelError("not_found", "no model configured")
        messages = self._redacted(messages)
        stream = self.settings.stream if stream is None else stream
        attempts = max(1, self.settings.retry_attempts)
        attempt = 0
        said = None  # what the server said about why the last attempt failed (errors.server_words)
        while True:
            try:
                reply = await self._once(messages, model, stream, on_delta, stop, tools, tool_choice)
                self.reached = True
                return reply
            except asyncio.CancelledError:
                raise
            except ModelError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                refused = tool_use_failed(exc)
                if refused is not None:  # the model's own bad call: it goes back to the model (engine)
                    self.reached = True
                    return Reply(refused[1], finish_reason=TOOL_USE_FAILED, model=model, failed_call=refused[0])
                retryable, kind, message, status = classify(exc, key_hint=self.endpoints.key_hint(), via=self.endpoints.via())
                words = server_words(exc)
                again, said = words is not None and words == said, words
                cause, causes = attempt_causes(exc)  # this attempt's, and by deployment a Router's earlier ones'
                deployment = routed(self.settings).failed(exc) if self.settings.router_config else None
                url = None
                if cause:
                    url, message = self.endpoints.unreachable(cause, model, exc, deployment)
                attempt += 1
                dead = self._dead(model, causes) if causes else False  # notes every refusal seen
                if cause and dead:  # a wrong endpoint: fail in seconds
                    quick = min(FIRST_CALL_ATTEMPTS, attempts)
                    if attempt >= quick or self.settings.router_config:
                        raise ModelError("unreachable", f"{message} — gave up after {attempt} attempts", status,
                                         url) from None
                    delay = FIRST_CALL_RETRY_S
                else:
                    told = message if cause else f"{self.endpoints.where(model, exc, deployment)}: {message}"
                    if not retryable:
                        if kind == "unparseable" and not stream and "list" in message:
                            told += "; streamed (without --no-stream), such a reply is read"
                        raise ModelError(kind, told, status, url) from None
                    if again:  # the same reason twice: a third attempt will not change it
                        raise ModelError("server_error", f"{told} — the same answer on {attempt} attempts"
                                         f"{_stream_hint(words, stream)}", status, url) from None
                    if attempt >= attempts:
                        raise ModelError(kind, f"{told} — gave up after {attempts} attempts{_stream_hint(words, stream)}",
                                         status, url) from None
                    delay = backoff_delay(attempt - 1, self.settings.retry_base_s, self.settings.retry_cap_s,
                                          self.rng, _retry_after(exc))
                if on_retry:
                    on_retry(RetryInfo(attempt=attempt, delay_s=delay, reason=message))
                await self.sleep(delay)

    def _dead(self, model: str, causes: dict[str | None, str]) -> bool:
        """Whether a refused connection means nothing is there: per endpoint, never across a
        Router's deployments. Direct: this endpoint never answered (then FIRST_CALL_ATTEMPTS quick
        attempts). Behind a Router: every deployment of the group refused and none ever answered
        (the Router has retried them itself; ``causes`` names each deployment that refused in this
        error's attempts); one dead deployment beside healthy ones is the Router's to route around,
        and our backoff waits for it."""
        if self.settings.router_config:
            r = routed(self.settings)
            for owner in causes:
                if owner in r.by_id:
                    r.note_refused(r.by_id[owner])
            return r.all_refused(model)
        return self.endpoint(model) not in self.answered

    def _kwargs(self, messages: list[dict[str, str]], model: str, stream: bool, stop: list[str] | None,
                tools: list[dict[str, Any]] | None = None, tool_choice: str | None = None) -> dict[str, Any]:
        s = self.settings
        via_router = bool(s.router_config)  # the deployment's own api_base and key apply
        kw: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": stream,
            "max_retries": 0,
            "timeout": s.model_timeout_s,
        }
        if stop:
            kw["stop"] = stop
        if tools:  # the native protocol (protocol.native)
            kw["tools"] = tools
            if tool_choice:
                kw["tool_choice"] = tool_choice
        if stream:
            kw["stream_options"] = {"include_usage": True}
        if s.api_base and not via_router:
            kw["api_base"] = s.api_base
        if s.api_key and not via_router:
            kw["api_key"] = s.api_key.get_secret_value()
        elif s.api_base and not via_router and model.startswith(("openai/", "hosted_vllm/")) and \
                not os.environ.get("OPENAI_API_KEY"):
            kw["api_key"] = "none"  # local OpenAI-compatible servers need some key
        if s.temperature is not None:
            kw["temperature"] = s.temperature
        return kw

    async def _once(self, messages, model, stream, on_delta, stop, tools=None, tool_choice=None) -> Reply:
        s = self.settings
        from tui_agent.model import direct

        if direct.chosen(s.transport, model, s.api_base, s.router_config, tools):  # exact there, cheaper: direct.py
            if not known_models.unknown(model):
                # litellm prices the reply: imported now, before any deadline runs (an import of seconds
                # inside the loop would time out the calls in flight beside this one)
                litellm()
            if self._direct is None:
                self._direct = direct.DirectChat(s.model_timeout_s)
            reply = await self._direct.complete(
                messages, model=model, api_base=s.api_base or "", key=s.api_key.get_secret_value() if s.api_key else None,
                stream=stream, stop=stop, temperature=s.temperature, on_delta=on_delta)
            # no litellm response: the endpoint answered, priced by the model asked for
            reply.cost_usd = self._answered(None, model, reply.prompt_tokens, reply.completion_tokens)
            return reply
        lt = litellm()
        kw = self._kwargs(messages, model, stream, stop, tools, tool_choice)
        timeout = self.settings.model_timeout_s
        acompletion = routed(self.settings).router.acompletion if self.settings.router_config else lt.acompletion
        if not stream:
            resp = await asyncio.wait_for(acompletion(**kw), timeout=timeout)
            choice = resp.choices[0]
            msg = choice.message
            text, parted = split_content(msg.content)  # a string, or a list of typed parts
            reasoning = (getattr(msg, "reasoning_content", None) or "") + parted
            if reasoning and msg.content is not None:
                # litellm cuts a leading <think>…</think> out of a non-streamed reply's content into
                # reasoning_content, which cannot then be told from a server's own split. Put the
                # tags back so the parser runs nothing drafted in that closed thinking (a server
                # that never saw </think> sends no content at all: null).
                reasoning = f"<think>{reasoning}</think>"
            usage = getattr(resp, "usage", None)
            pt = getattr(usage, "prompt_tokens", None) if usage else None
            ct = getattr(usage, "completion_tokens", None) if usage else None
            if on_delta:
                if reasoning:
                    on_delta(getattr(msg, "reasoning_content", None) or "", True)
                if text:
                    on_delta(text, False)
            return Reply(text, reasoning, pt, ct, self._answered(resp, model, pt, ct), choice.finish_reason, model,
                         whole_calls(getattr(msg, "tool_calls", None)))

        response = reading_parts(await asyncio.wait_for(acompletion(**kw), timeout=timeout))  # Magistral's parts
        parts: list[str] = []
        rparts: list[str] = []
        pt = ct = None
        finish = None
        calls = ToolCallAssembler()  # native tool calls, streamed as deltas
        iterator = response.__aiter__()
        loop = asyncio.get_running_loop()
        # One deadline for the stream, pushed back before each chunk: each chunk must come within
        # `timeout`. (asyncio.wait_for per chunk wrapped every chunk in a Task: CPU per chunk.)
        async with asyncio.timeout(timeout) as deadline:
            while True:
                deadline.reschedule(loop.time() + timeout)
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                usage = getattr(chunk, "usage", None)
                if usage and getattr(usage, "prompt_tokens", None) is not None:
                    pt, ct = usage.prompt_tokens, usage.completion_tokens
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                delta = choice.delta
                calls.feed(getattr(delta, "tool_calls", None))
                r = getattr(delta, "reasoning_content", None)
                if r:
                    rparts.append(r)
                    if on_delta:
                        on_delta(r, True)
                c = getattr(delta, "content", None)
                if c:
                    parts.append(c)
                    if on_delta:
                        on_delta(c, False)
                if choice.finish_reason:
                    finish = choice.finish_reason
        if finish is None:
            # A stream that ends without a finish reason was dropped mid-way: retry the call.
            raise ConnectionError("the model stream ended before it finished")
        return Reply("".join(parts), "".join(rparts), pt, ct, self._answered(response, model, pt, ct), finish, model,
                     calls.calls())


def _stream_hint(words: str | None, stream: bool) -> str:
    """Where a failing server's words name streaming, the flag that turns it off."""
    if stream and words and "stream" in words.lower():
        return " (the server cannot stream this request: try --no-stream)"
    return ""
