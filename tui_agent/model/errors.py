"""What a failed model call was: whether to retry it, its kind and a message for the user, the
server's Retry-After, and whether the endpoint is simply not there (refused, or a host name that
does not resolve), found by walking the exception's cause chain (litellm wraps the OpenAI SDK,
which wraps httpx, which wraps the OSError).

Three failures are read from the server's own error body (``body`` in the chain): a provider that
refused the model's tool call (Groq's ``tool_use_failed``, with the ``failed_generation``: the
model's mistake, for the model to mend, :func:`tool_use_failed`); a reply the client could not read
(kind "unparseable", never retried: the same request gets the same reply); and what a failing
server said (:func:`server_words`), so the same words twice end the retries."""

from __future__ import annotations

import asyncio
import email.utils
import errno
import socket
import sys
import time
from typing import Iterator

from tui_agent.model.litellm_lazy import litellm

UNPARSEABLE = "unparseable"
"""The kind of a reply that came whole (200) but that the client cannot read."""
TOOL_USE_FAILED = "tool_use_failed"
"""Groq's error code for a tool call it could not parse or validate (400, or an error event in a stream)."""
TRANSIENT_STATUSES = (502, 503, 504)
"""5xx statuses that say only that the server is passing or busy: retried whatever their words."""
GENERIC_SERVER_WORDS = ("internal server error", "server had an error", "an error occurred", "unexpected error",
                        "try again", "server error", "bad gateway", "service unavailable")
"""Words of a 5xx that say nothing about why (OpenAI's "The server had an error while processing
your request. Sorry about that!"): such an error keeps its full backoff."""
CAUSE_CHAIN_LIMIT = 32
"""How deep the __cause__/__context__ chain of a model error is searched for the network error."""
REFUSED = "connection refused"
UNRESOLVED = "host name does not resolve"
_DNS_TEXT = ("name or service not known", "nodename nor servname", "temporary failure in name resolution",
             "no address associated with hostname", "getaddrinfo failed", "could not resolve host",
             "failed to resolve", "name resolution")
_REFUSED_TEXT = ("connection refused", "actively refused", "econnrefused")


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


class _NotRaised(Exception):
    """No exception is one of these: the stand-in for litellm's exception classes while litellm is
    not imported (then nothing raised can be one of them)."""


class _NoLitellmExceptions:
    def __getattr__(self, name: str) -> type[Exception]:
        return _NotRaised


def _litellm_exceptions():
    """litellm's exception classes, or stand-ins when litellm was never imported: a call through
    the direct client fails with its own exceptions, and naming them costs no import of seconds."""
    if "litellm" not in sys.modules:
        return _NoLitellmExceptions()
    return litellm().exceptions


def classify(exc: BaseException, *, key_hint: str | None = None,
             via: str | None = "--api-base") -> tuple[bool, str, str, int | None]:
    """(retryable, kind, plain message, status) for an exception from a model call.

    ``key_hint``: said with a 400 or 401 when the call went to a configured endpoint (a proxy
    answers a missing or wrong key with either); ``via``: where the endpoint is configured (None: the
    provider's own endpoint, nothing to check but the model)."""
    e = _litellm_exceptions()
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
    unread = unreadable(exc)
    if unread:
        return False, UNPARSEABLE, f"the model server's reply could not be read: {unread}", None
    refused = tool_use_failed(exc)
    if refused is not None:
        return False, TOOL_USE_FAILED, f"the provider refused the model's tool call ({TOOL_USE_FAILED}): {refused[0]}", status
    if isinstance(exc, e.ContextWindowExceededError):
        return False, "context", f"the prompt is longer than the model's context window ({text})", status
    if isinstance(exc, e.AuthenticationError) or status == 401:
        if key_hint:
            return False, "auth", f"the endpoint rejected the request (401): {key_hint} ({text})", 401
        return False, "auth", f"the provider rejected the API key (401): check the key for this model ({text})", 401
    if isinstance(exc, e.PermissionDeniedError) or status == 403:
        return False, "auth", f"the provider denied access (403) ({text})", 403
    if isinstance(exc, e.NotFoundError) or status == 404:
        return False, "not_found", f"unknown model or endpoint (404): check --model{' and ' + via if via else ''} ({text})", 404
    if isinstance(exc, e.BadRequestError) or status in (400, 422):
        low = text.lower()
        if "context" in low and ("length" in low or "window" in low or "too long" in low):
            return False, "context", f"the prompt is longer than the model's context window ({text})", status
        if "model" in low and ("not exist" in low or "not found" in low or "unknown" in low or "provider" in low):
            return False, "not_found", f"unknown model: {text}", status
        hint = f"; {key_hint}" if key_hint and status in (None, 400) else ""
        return False, "bad_request", f"the provider refused the request ({status or 400}): {text}{hint}", status
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
        words = server_words(exc)
        return True, "server_down", f"the model server failed ({status or 'connection error'})" + (
            f": {words}" if words else ""), status
    if isinstance(exc, e.APIError):
        return True, "server_down", f"the model server failed: {text}", status
    import httpx

    if isinstance(exc, (httpx.TransportError, ConnectionError, OSError)):
        return True, "server_down", f"connection to the model server dropped ({type(exc).__name__})", status
    return False, "bad_request", f"model call failed: {type(exc).__name__}: {text}", status


def _error_body(exc: BaseException) -> dict | None:
    """The server's error object ({"message", "type", "code", …}) from the first error in the
    chain that carries one (the OpenAI SDK's ``body``; the direct client's HTTPFault too)."""
    for e in _chain(exc):
        body = getattr(e, "body", None)
        if isinstance(body, dict):
            inner = body.get("error")
            return inner if isinstance(inner, dict) else body
    return None


def tool_use_failed(exc: BaseException) -> tuple[str, str] | None:
    """(the provider's message, the model's failed generation) when the provider refused the
    model's tool call (Groq: code "tool_use_failed", 400 or an error event in a stream), else None."""
    body = _error_body(exc)
    if body is None or body.get("code") != TOOL_USE_FAILED:
        return None
    generation = body.get("failed_generation")
    return str(body.get("message") or TOOL_USE_FAILED), generation if isinstance(generation, str) else ""


def server_words(exc: BaseException) -> str | None:
    """What a failing server said about why (its error body's message), unless the words are
    generic or the status only says the server is passing on or busy (TRANSIENT_STATUSES)."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or status < 500 or status in TRANSIENT_STATUSES:
        return None
    body = _error_body(exc)  # only what the server sent: a lost connection says nothing of why
    words = body.get("message") if body else None
    words = " ".join(words.split())[:300] if isinstance(words, str) else ""
    if not words or any(g in words.lower() for g in GENERIC_SERVER_WORDS):
        return None
    return words


def unreadable(exc: BaseException) -> str | None:
    """What could not be read when the server answered with a reply the client cannot parse:
    the direct client's UnreadableReply, or litellm's "Invalid response object" (its pydantic
    validation of the reply failed, e.g. a message content that is a list of parts). Else None."""
    chain = list(_chain(exc))
    for e in chain:
        if type(e).__name__ == "UnreadableReply":
            return str(e)
    if not any(str(e).startswith("Invalid response object") or " - Invalid response object" in str(e).split("\n", 1)[0]
               for e in chain):
        return None
    for e in chain:
        if type(e).__name__ == "ValidationError" and hasattr(e, "errors"):
            try:
                first = e.errors()[0]
            except Exception:  # noqa: BLE001
                continue
            where = ".".join(str(x) for x in first.get("loc", ()))
            got = type(first.get("input")).__name__
            return f"litellm cannot read it: {where or 'a field'}: {first.get('msg', 'invalid')}, got a {got}"
    return "litellm cannot read it (Invalid response object)"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes, outermost first (litellm wraps openai wraps httpx wraps OSError)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen and len(seen) < CAUSE_CHAIN_LIMIT:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def attempts(exc: BaseException) -> list[tuple[str | None, list[BaseException]]]:
    """The chain cut into the attempts it holds: (the deployment's id or None, its errors),
    the attempt that was raised first in the list.

    A Router tries the next deployment inside its except block, so one error's chain also holds
    the earlier attempts; each attempt's error carries its deployment (``failed_deployment_id``).
    A direct call is one attempt (None)."""
    parts: list[tuple[str | None, list[BaseException]]] = []
    for e in _chain(exc):
        stamp = getattr(e, "failed_deployment_id", None) or None
        if not parts or (stamp and parts[-1][0] not in (None, stamp)):
            parts.append((stamp, [e]))
        else:
            if stamp and parts[-1][0] is None:
                parts[-1] = (stamp, parts[-1][1])
            parts[-1][1].append(e)
    return parts


def _cause_in(chain: list[BaseException]) -> str | None:
    for e in chain:
        if isinstance(e, socket.gaierror) or type(e).__name__ == "ClientConnectorDNSError":
            return UNRESOLVED
        if isinstance(e, ConnectionRefusedError) or (isinstance(e, OSError) and e.errno == errno.ECONNREFUSED):
            return REFUSED
    if not any("connect" in type(e).__name__.lower() for e in chain):
        return None
    text = " ".join(str(e) for e in chain).lower()
    if any(t in text for t in _DNS_TEXT):
        return UNRESOLVED
    if any(t in text for t in _REFUSED_TEXT):
        return REFUSED
    return None


def _reads_alike(a: BaseException, b: BaseException) -> bool:
    """The same failure said the same way (the Router adds lines below its last error's first)."""
    return type(a) is type(b) and str(a).split("\n", 1)[0] == str(b).split("\n", 1)[0]


def attempt_causes(exc: BaseException) -> tuple[str | None, dict[str | None, str]]:
    """(the cause of ``exc``'s own attempt, and for each attempt in the chain that found nothing at
    its endpoint its deployment's id (None for a direct call) and REFUSED or UNRESOLVED).

    A cause belongs to the attempt it is found in: a 429 raised after another deployment's refusal
    is not a refusal. The Router keeps the cause chain of its first attempt only; a later attempt
    that is one bare error reading exactly like a refused attempt's error is taken as that same
    failure (two dead deployments both say "Connection error.")."""
    parts = attempts(exc)
    found: dict[str | None, str] = {}
    for owner, chain in parts:
        cause = _cause_in(chain)
        if cause and owner not in found:
            found[owner] = cause
    if not parts:
        return None, found
    own, errors = parts[0]
    if own not in found and len(errors) == 1:
        for owner, chain in parts[1:]:
            if owner in found and _reads_alike(errors[0], chain[0]):
                found[own] = found[owner]
                break
    return found.get(own), found


def unreachable_causes(exc: BaseException) -> dict[str | None, str]:
    """Each attempt's cause by deployment (:func:`attempt_causes`)."""
    return attempt_causes(exc)[1]


def unreachable_cause(exc: BaseException) -> str | None:
    """REFUSED or UNRESOLVED when ``exc`` (its own attempt) means nothing answered at the endpoint,
    else None.

    litellm reports both as InternalServerError/APIConnectionError ("Connection error."), so the
    cause chain is searched: the socket error first, then (only below a connection error, so a
    proxy's 502 that merely mentions a refused upstream does not count) the messages."""
    return attempt_causes(exc)[0]


def _request_url(exc: BaseException) -> str | None:
    """The URL of the request that failed, from the innermost error that carries one (the outer
    litellm wrappers carry placeholder URLs)."""
    url = None
    parts = attempts(exc)
    for e in parts[0][1] if parts else ():  # this attempt's, not an earlier deployment's
        try:
            found = getattr(getattr(e, "request", None), "url", None)
        except Exception:  # noqa: BLE001 - httpx raises RuntimeError when no request is attached
            found = None
        if found:
            url = str(found)
    return url
