"""The LLM adapter: the only module that imports litellm, and only when a call is made.

Streaming with usage, stop sequences, our own retries (capped exponential backoff with jitter,
Retry-After honoured; the SDK's retries are off), cost from the provider-reported usage.
Clock and randomness are injectable so backoff tests do not sleep.

An endpoint that is not there fails fast: until a call of this adapter has succeeded, a refused
connection or a host name that does not resolve gets FIRST_CALL_ATTEMPTS quick attempts, then a
ModelError of kind "unreachable" naming the URL and the model. Once a call has succeeded, the same
errors take the full backoff (a server restarting mid-run), like 429, 5xx and timeouts always do.
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

from tui_agent.config import Settings
# The call's types live in tui_agent.model (the seam); imported from here too.
from tui_agent.model.types import ModelError, Reply, RetryInfo  # noqa: F401
from tui_agent.model.errors import (  # noqa: F401 - classify, unreachable_cause and the kinds are the adapter's API
    REFUSED, UNRESOLVED, _request_url, _retry_after, classify, unreachable_cause,
)
from tui_agent.model.retrying import backoff_delay

_litellm = None
DEFAULT_CONTEXT_WINDOW = 131072
# Distinct message contents whose redaction is remembered (one run's history, resent every call).
REDACTION_CACHE_SIZE = 4096
FIRST_CALL_ATTEMPTS = 2
"""Attempts of a call that finds nothing at the endpoint before any call has succeeded."""
FIRST_CALL_RETRY_S = 1.0
"""The pause between those attempts: a server that is just starting gets a second chance."""


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


# -- LiteLLM Router (several deployments and keys behind one model name) -----------------------

_routers: dict[str, Any] = {}


def load_router_config(path: str) -> dict[str, Any]:
    """A Router configuration: ``{"model_list": [...], "router_settings": {...}}`` as LiteLLM's own
    config files write it (YAML or JSON), or a bare model list. Raises ConfigError naming the file."""
    from tui_agent.config import ConfigError

    import yaml

    try:
        data = yaml.safe_load(open(os.path.expanduser(path), encoding="utf-8").read())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"router config {path}: cannot be read: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"router config {path}: not valid YAML or JSON: {exc}") from None
    if isinstance(data, list):
        data = {"model_list": data}
    models = data.get("model_list") if isinstance(data, dict) else None
    if not isinstance(models, list) or not models or not all(
            isinstance(m, dict) and m.get("model_name") and isinstance(m.get("litellm_params"), dict)
            and m["litellm_params"].get("model") for m in models):
        raise ConfigError(f"router config {path}: needs a model_list of entries with model_name and "
                          "litellm_params.model")
    settings = data.get("router_settings") or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"router config {path}: router_settings must be a mapping")
    return {"model_list": models, "router_settings": settings}


def router_for(path: str) -> Any:
    """One LiteLLM Router per configuration file and process; its own retries are off (ours apply)."""
    router = _routers.get(path)
    if router is None:
        config = load_router_config(path)
        settings = {k: v for k, v in config["router_settings"].items() if k not in ("num_retries", "retry_policy")}
        router = _routers[path] = litellm().Router(model_list=config["model_list"], num_retries=0, **settings)
    return router


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
        self._redaction_cache: dict[str, str] = {}
        self._direct = None  # model.direct.DirectChat, made at the first call that takes it
        self._unpriced: set[str] = set()

    def endpoint(self, model: str, exc: BaseException | None = None) -> str:
        """The URL a call goes to: api_base, else the failed request's URL, else litellm's default."""
        if self.settings.api_base:
            return self.settings.api_base
        found = _request_url(exc) if exc is not None else None
        if found:
            return found
        base = None
        for lookup in (lambda: litellm().get_api_base(model, {}), lambda: litellm().get_llm_provider(model)[3]):
            try:
                base = base or lookup()
            except Exception:  # noqa: BLE001 - unknown provider: no default to name
                pass
        return base or "the provider's default endpoint"

    def _unreachable(self, cause: str, model: str, exc: BaseException) -> tuple[str, str]:
        url = self.endpoint(model, exc)
        if cause == UNRESOLVED:
            host = urlsplit(url).hostname if "://" in url else None
            what = f"the host name {host!r} does not resolve" if host else "the host name does not resolve"
            advice = "check --api-base and the network"
        else:
            what, advice = "connection refused: nothing is listening there", "check --api-base and that the server is running"
        return url, f"cannot reach the model server at {url} for model {model} ({what}); {advice}"

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
        if prompt_tokens is None or model in self._unpriced:
            return None
        try:
            p, c = litellm().cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens or 0)
        except Exception:
            self._unpriced.add(model)  # not in the price map: litellm's search is not repeated at every call
            return None
        return float(p) + float(c)

    # -- the call -----------------------------------------------------------------------
    def _redacted(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        """The request's messages with secrets redacted: the boundary before any model request.
        Each distinct content is redacted once per run (a history is resent at every call)."""
        from tui_agent.safety.hygiene import redact

        cache = self._redaction_cache
        out = []
        for m in messages:
            content = m.get("content")
            if isinstance(content, str):
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
    ) -> Reply:
        model = model or self.settings.model
        if not model:
            raise ModelError("not_found", "no model configured")
        messages = self._redacted(messages)
        stream = self.settings.stream if stream is None else stream
        attempts = max(1, self.settings.retry_attempts)
        attempt = 0
        while True:
            try:
                reply = await self._once(messages, model, stream, on_delta, stop)
                self.reached = True
                return reply
            except asyncio.CancelledError:
                raise
            except ModelError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                retryable, kind, message, status = classify(exc)
                cause = unreachable_cause(exc)
                url = None
                if cause:
                    url, message = self._unreachable(cause, model, exc)
                attempt += 1
                if cause and not self.reached:  # a wrong endpoint: fail in seconds, not minutes
                    quick = min(FIRST_CALL_ATTEMPTS, attempts)
                    if attempt >= quick:
                        raise ModelError("unreachable", f"{message} — gave up after {attempt} attempts", status,
                                         url) from None
                    delay = FIRST_CALL_RETRY_S
                else:
                    if not retryable:
                        raise ModelError(kind, message, status) from None
                    if attempt >= attempts:
                        raise ModelError(kind, f"{message} — gave up after {attempts} attempts", status, url) from None
                    delay = backoff_delay(attempt - 1, self.settings.retry_base_s, self.settings.retry_cap_s,
                                          self.rng, _retry_after(exc))
                if on_retry:
                    on_retry(RetryInfo(attempt=attempt, delay_s=delay, reason=message))
                await self.sleep(delay)

    def _kwargs(self, messages: list[dict[str, str]], model: str, stream: bool, stop: list[str] | None) -> dict[str, Any]:
        s = self.settings
        routed = bool(s.router_config)  # the deployment's own api_base and key apply
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
        if s.api_base and not routed:
            kw["api_base"] = s.api_base
        if s.api_key and not routed:
            kw["api_key"] = s.api_key.get_secret_value()
        elif s.api_base and not routed and model.startswith(("openai/", "hosted_vllm/")) and \
                not os.environ.get("OPENAI_API_KEY"):
            kw["api_key"] = "none"  # local OpenAI-compatible servers need some key
        if s.temperature is not None:
            kw["temperature"] = s.temperature
        return kw

    async def _once(self, messages, model, stream, on_delta, stop) -> Reply:
        s = self.settings
        from tui_agent.model import direct

        if direct.chosen(s.transport, model, s.api_base, s.router_config):  # exact there, and cheaper: see direct.py
            if self._direct is None:
                # litellm prices the reply: imported now, before any deadline runs (an import of seconds
                # inside the loop would time out the calls in flight beside this one)
                litellm()
                self._direct = direct.DirectChat(s.model_timeout_s)
            reply = await self._direct.complete(
                messages, model=model, api_base=s.api_base or "", key=s.api_key.get_secret_value() if s.api_key else None,
                stream=stream, stop=stop, temperature=s.temperature, on_delta=on_delta)
            reply.cost_usd = self.price(model, reply.prompt_tokens, reply.completion_tokens)
            return reply
        lt = litellm()
        kw = self._kwargs(messages, model, stream, stop)
        timeout = self.settings.model_timeout_s
        acompletion = router_for(self.settings.router_config).acompletion if self.settings.router_config \
            else lt.acompletion
        if not stream:
            resp = await asyncio.wait_for(acompletion(**kw), timeout=timeout)
            choice = resp.choices[0]
            msg = choice.message
            text = msg.content or ""
            reasoning = getattr(msg, "reasoning_content", None) or ""
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
            return Reply(text, reasoning, pt, ct, self.price(model, pt, ct), choice.finish_reason, model)

        response = await asyncio.wait_for(acompletion(**kw), timeout=timeout)
        parts: list[str] = []
        rparts: list[str] = []
        pt = ct = None
        finish = None
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
