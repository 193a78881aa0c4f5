"""The LLM adapter: the only module that imports litellm, and only when a call is made.

Streaming with usage, stop sequences, our own retries (capped exponential backoff with jitter,
Retry-After honoured; the SDK's retries are off), cost from the provider-reported usage.
Clock and randomness are injectable so backoff tests do not sleep.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from tui_agent.config import Settings

_litellm = None
DEFAULT_CONTEXT_WINDOW = 131072


def prepare_environment() -> None:
    """Settings litellm must see before import: local cost map, no tokenizer downloads."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")


def litellm():
    global _litellm
    if _litellm is None:
        prepare_environment()
        import litellm as _mod

        _mod.disable_hf_tokenizer_download = True
        _mod.telemetry = False
        _mod.suppress_debug_info = True
        _mod.drop_params = True
        _litellm = _mod
    return _litellm


class ModelError(Exception):
    """The model could not be reached or refused the request (after retries where they help)."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # auth | not_found | context | bad_request | server_down | rate_limit | timeout
        self.status = status


@dataclass
class Reply:
    text: str
    reasoning: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    finish_reason: str | None = None
    model: str = ""


@dataclass
class RetryInfo:
    attempt: int
    delay_s: float
    reason: str


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random, retry_after: float | None = None) -> float:
    """base * 2**attempt + uniform(0, 1), capped; Retry-After wins when larger (still capped)."""
    delay = base * (2**attempt) + rng.uniform(0, 1)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, cap)


def _retry_after(exc: BaseException) -> float | None:
    headers = None
    for attr in ("litellm_response_headers", "headers"):
        h = getattr(exc, attr, None)
        if h:
            headers = h
            break
    if headers is None:
        resp = getattr(exc, "response", None)
        headers = getattr(resp, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except Exception:
        return None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def classify(exc: BaseException) -> tuple[bool, str, str, int | None]:
    """(retryable, kind, plain message, status) for an exception from a model call."""
    lt = litellm()
    e = lt.exceptions
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
    if isinstance(exc, e.ContextWindowExceededError):
        return False, "context", f"the prompt is longer than the model's context window ({text})", status
    if isinstance(exc, e.AuthenticationError) or status == 401:
        return False, "auth", f"the provider rejected the API key (401): check the key for this model ({text})", 401
    if isinstance(exc, e.PermissionDeniedError) or status == 403:
        return False, "auth", f"the provider denied access (403) ({text})", 403
    if isinstance(exc, e.NotFoundError) or status == 404:
        return False, "not_found", f"unknown model or endpoint (404): check --model and --api-base ({text})", 404
    if isinstance(exc, e.BadRequestError) or status in (400, 422):
        low = text.lower()
        if "context" in low and ("length" in low or "window" in low or "too long" in low):
            return False, "context", f"the prompt is longer than the model's context window ({text})", status
        if "model" in low and ("not exist" in low or "not found" in low or "unknown" in low or "provider" in low):
            return False, "not_found", f"unknown model: {text}", status
        return False, "bad_request", f"the provider refused the request ({status or 400}): {text}", status
    if isinstance(exc, e.RateLimitError) or status == 429:
        return True, "rate_limit", "rate limited (429)", 429
    if isinstance(exc, (e.Timeout, asyncio.TimeoutError, TimeoutError)):
        return True, "timeout", "the model request timed out", status
    if isinstance(exc, (e.ServiceUnavailableError,)) or status == 503:
        return True, "server_down", "the model server is unavailable (503)", 503
    if isinstance(exc, (e.InternalServerError, e.BadGatewayError, e.APIConnectionError)) or (status and status >= 500):
        low = text.lower()
        if "connect" in low or "refused" in low:
            return True, "server_down", "cannot connect to the model server", status
        return True, "server_down", f"the model server failed ({status or 'connection error'})", status
    if isinstance(exc, e.APIError):
        return True, "server_down", f"the model server failed: {text}", status
    import httpx

    if isinstance(exc, (httpx.TransportError, ConnectionError, OSError)):
        return True, "server_down", f"connection to the model server dropped ({type(exc).__name__})", status
    return False, "bad_request", f"model call failed: {type(exc).__name__}: {text}", status


class LLM:
    """One adapter per run. ``complete`` streams, retries and prices one model call."""

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

    # -- model facts -------------------------------------------------------------------
    def context_window(self, model: str | None = None) -> int:
        if self.settings.context_window:
            return self.settings.context_window
        try:
            info = litellm().get_model_info(model or self.settings.model or "")
            value = info.get("max_input_tokens") or info.get("max_tokens")
            if value:
                return int(value)
        except Exception:
            pass
        return DEFAULT_CONTEXT_WINDOW

    def price(self, model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        """USD for this usage from litellm's price map; None when the model is not priced."""
        if prompt_tokens is None:
            return None
        try:
            p, c = litellm().cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens or 0)
        except Exception:
            return None
        return float(p) + float(c)

    # -- the call -----------------------------------------------------------------------
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
    ) -> Reply:
        model = model or self.settings.model
        if not model:
            raise ModelError("not_found", "no model configured")
        stream = self.settings.stream if stream is None else stream
        attempts = max(1, self.settings.retry_attempts)
        last: ModelError | None = None
        for attempt in range(attempts):
            try:
                return await self._once(messages, model, stream, on_delta, stop)
            except asyncio.CancelledError:
                raise
            except ModelError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                retryable, kind, message, status = classify(exc)
                last = ModelError(kind, message, status)
                if not retryable:
                    raise last from None
                if attempt + 1 >= attempts:
                    break
                delay = backoff_delay(attempt, self.settings.retry_base_s, self.settings.retry_cap_s, self.rng, _retry_after(exc))
                if on_retry:
                    on_retry(RetryInfo(attempt=attempt + 1, delay_s=delay, reason=message))
                await self.sleep(delay)
        assert last is not None
        raise ModelError(last.kind, f"{last} — gave up after {attempts} attempts", last.status)

    def _kwargs(self, messages: list[dict[str, str]], model: str, stream: bool, stop: list[str] | None) -> dict[str, Any]:
        s = self.settings
        kw: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": stream,
            "max_retries": 0,
            "timeout": s.model_timeout_s,
        }
        if stop:
            kw["stop"] = stop
        if stream:
            kw["stream_options"] = {"include_usage": True}
        if s.api_base:
            kw["api_base"] = s.api_base
        if s.api_key:
            kw["api_key"] = s.api_key
        elif s.api_base and model.startswith(("openai/", "hosted_vllm/")) and not os.environ.get("OPENAI_API_KEY"):
            kw["api_key"] = "none"  # local OpenAI-compatible servers need some key
        if s.temperature is not None:
            kw["temperature"] = s.temperature
        return kw

    async def _once(self, messages, model, stream, on_delta, stop) -> Reply:
        lt = litellm()
        kw = self._kwargs(messages, model, stream, stop)
        timeout = self.settings.model_timeout_s
        if not stream:
            resp = await asyncio.wait_for(lt.acompletion(**kw), timeout=timeout)
            choice = resp.choices[0]
            msg = choice.message
            text = msg.content or ""
            reasoning = getattr(msg, "reasoning_content", None) or ""
            usage = getattr(resp, "usage", None)
            pt = getattr(usage, "prompt_tokens", None) if usage else None
            ct = getattr(usage, "completion_tokens", None) if usage else None
            if on_delta:
                if reasoning:
                    on_delta(reasoning, True)
                if text:
                    on_delta(text, False)
            return Reply(text, reasoning, pt, ct, self.price(model, pt, ct), choice.finish_reason, model)

        response = await asyncio.wait_for(lt.acompletion(**kw), timeout=timeout)
        parts: list[str] = []
        rparts: list[str] = []
        pt = ct = None
        finish = None
        iterator = response.__aiter__()
        while True:
            try:
                chunk = await asyncio.wait_for(iterator.__anext__(), timeout=timeout)
            except StopAsyncIteration:
                break
            usage = getattr(chunk, "usage", None)
            if usage and getattr(usage, "prompt_tokens", None) is not None:
                pt, ct = usage.prompt_tokens, usage.completion_tokens
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            delta = choice.delta
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
        return Reply("".join(parts), "".join(rparts), pt, ct, self.price(model, pt, ct), finish, model)
