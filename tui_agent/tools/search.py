"""The ``search`` tool: web search through ddgs (default, no key) or a SearXNG instance.

The queries of one call run concurrently; each shows up to ``settings.search_results``
numbered results (title, URL, snippet), URLs already shown for an earlier query of the same call
are left out. Rate limits, timeouts and server errors are retried with backoff within
``settings.search_timeout_s``; what still fails becomes an observation that says what happened
and what to try. The tool never raises.

The SearXNG endpoint is configured by the user, so it is not checked by the network guard.

A query is text leaving the machine like a page request: each one is redacted
(:func:`tui_agent.safety.hygiene.redact`, the secret that was in it replaced by ``[REDACTED]``) before
it reaches ddgs or SearXNG, and the results are headed by the query as it was sent, with a note
when redaction changed it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

import httpx

from tui_agent.safety.hygiene import redact, strip_controls
from tui_agent.model.retrying import backoff_delay, excerpt
from tui_agent.tools.base import FAILED, INVALID, OK, Tool, ToolContext, ToolResult
from tui_agent.web.net import is_dns_error

MAX_QUERIES = 5
# Snippets longer than this are cut (search engines sometimes return whole paragraphs).
SNIPPET_MAX_CHARS = 400
# Backoff between attempts: BACKOFF_BASE_S * 2**(attempt-1), capped, plus up to BACKOFF_JITTER_S.
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 4.0
BACKOFF_JITTER_S = 0.25
# Longest Retry-After honoured (the whole query is bounded by search_timeout_s anyway).
RETRY_AFTER_CAP_S = 10.0
# ddgs's own per-request timeout, at most this (it takes whole seconds).
DDGS_TIMEOUT_CAP_S = 10
BROADER = "Try a broader query: fewer or more general words, no quotes, no site: or other operators."

DESCRIPTION = (
    "Search the web. Give 1 to 5 queries at once as a list; they run together. Each query returns "
    "numbered results with title, URL and snippet; a URL already listed for an earlier query is "
    "not repeated. Use visit to read a result."
)


def default_backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
    return backoff_delay(attempt - 1, BACKOFF_BASE_S, BACKOFF_CAP_S, jitter=BACKOFF_JITTER_S)


class SearchError(Exception):
    """One failed search attempt. ``kind``: rate_limit, timeout, server, dns, connect, http, bad_reply."""

    def __init__(self, kind: str, message: str, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass
class Hit:
    title: str
    url: str
    snippet: str


@dataclass
class QueryOutcome:
    query: str  # as it was sent: redacted
    hits: list[Hit] = field(default_factory=list)
    error: SearchError | None = None
    attempts: int = 0
    redacted: bool = False  # redaction changed the query the model wrote


class SearchTool(Tool):
    name = "search"
    rerun_safe = True  # a search only reads: one cut short by a stopped process runs again on resume
    description = DESCRIPTION
    parameters = {
        "type": "object",
        "properties": {
            "query": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": MAX_QUERIES,
                "description": "1 to 5 search queries, each a short phrase of keywords.",
            }
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(
        self,
        *,
        backoff: Callable[[int], float] = default_backoff,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.backoff = backoff
        self.sleep = sleep

    def timeout_s(self, settings) -> float:
        # Queries run concurrently, each bounded by search_timeout_s; leave room to report.
        return max(settings.tool_timeout_s, settings.search_timeout_s + 5)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        queries: dict[str, bool] = {}  # the query to send → whether redaction changed it
        for q in arguments.get("query") or []:
            q = " ".join(strip_controls(str(q)).split())
            sent = " ".join(redact(q).split())
            if sent and sent not in queries:
                queries[sent] = sent != q
        if not queries:
            return ToolResult("Error: every query was empty. Give 1 to 5 non-empty queries.", INVALID)
        outcomes = await asyncio.gather(*(self._search_with_retries(q, ctx, changed)
                                          for q, changed in queries.items()))
        text = format_outcomes(outcomes, ctx.settings.search_results)
        failed = all(o.error is not None for o in outcomes)
        return ToolResult(text, FAILED if failed else OK)

    # -- one query, retried ----------------------------------------------------------------
    async def _search_with_retries(self, query: str, ctx: ToolContext, redacted: bool = False) -> QueryOutcome:
        settings = ctx.settings
        attempts = max(1, settings.search_retries)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.search_timeout_s
        outcome = QueryOutcome(query, redacted=redacted)
        try:
            async with asyncio.timeout_at(deadline):
                for attempt in range(1, attempts + 1):
                    outcome.attempts = attempt
                    try:
                        outcome.hits = await self._search_once(query, ctx)
                        outcome.error = None
                        return outcome
                    except SearchError as exc:
                        outcome.error = exc
                    if not outcome.error.retryable or attempt == attempts:
                        break
                    delay = self.backoff(attempt)
                    if outcome.error.retry_after is not None:
                        delay = max(delay, min(outcome.error.retry_after, RETRY_AFTER_CAP_S))
                    if loop.time() + delay >= deadline:
                        break
                    ctx.progress(f"search {query!r}: {outcome.error.message}; retrying in {delay:.1f} s "
                                 f"(attempt {attempt + 1} of {attempts})")
                    await self.sleep(delay)
        except TimeoutError:
            outcome.error = SearchError(
                "timeout", f"no answer within {settings.search_timeout_s:g} s", retryable=True
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a backend bug must not crash the run
            outcome.error = SearchError("error", f"{type(exc).__name__}: {exc}", retryable=False)
        return outcome

    async def _search_once(self, query: str, ctx: ToolContext) -> list[Hit]:
        settings = ctx.settings
        if settings.search_backend == "searxng":
            return await searxng_search(ctx.http, settings.searxng_url or "", query, settings)
        return await ddgs_search(query, settings)


# --- backends ---------------------------------------------------------------------------------


async def ddgs_search(query: str, settings) -> list[Hit]:
    """ddgs (DuckDuckGo and friends, no key), run in a thread: it is synchronous."""
    timeout = max(1, min(DDGS_TIMEOUT_CAP_S, int(settings.search_timeout_s)))
    rows = await asyncio.to_thread(_ddgs_text, query, settings.search_results, timeout)
    return [
        Hit(str(r.get("title") or ""), str(r.get("href") or r.get("url") or ""), str(r.get("body") or ""))
        for r in rows
        if r.get("href") or r.get("url")
    ]


def _ddgs_text(query: str, n: int, timeout: int) -> list[dict[str, Any]]:
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    try:
        return DDGS(timeout=timeout).text(query, max_results=n, backend="auto") or []
    except RatelimitException as exc:
        raise SearchError("rate_limit", f"rate limited by the search engine ({excerpt(exc)})", True) from None
    except TimeoutException as exc:
        raise SearchError("timeout", f"the search engine timed out ({excerpt(exc)})", True) from None
    except DDGSException as exc:
        text = str(exc)
        low = text.lower()
        if "no results found" in low:
            return []
        if "dns" in low or "resolve" in low or "name or service not known" in low:
            raise SearchError(
                "dns", "the search engines could not be reached: DNS lookup failed (is the network up?)", False
            ) from None
        if "timed out" in low or "timeout" in low:
            raise SearchError("timeout", f"the search engine timed out ({excerpt(exc)})", True) from None
        if "ratelimit" in low or "rate limit" in low or "429" in low:
            raise SearchError("rate_limit", f"rate limited by the search engine ({excerpt(exc)})", True) from None
        if "connect" in low or "error sending request" in low:
            raise SearchError("connect", f"the search engines could not be reached ({excerpt(exc)})", True) from None
        raise SearchError("server", f"the search failed ({excerpt(exc)})", True) from None


async def searxng_search(client: httpx.AsyncClient, base_url: str, query: str, settings) -> list[Hit]:
    """SearXNG's JSON API: GET {base}/search?q=…&format=json."""
    if not base_url:
        raise SearchError("config", "no SearXNG URL is configured (set searxng_url)", False)
    endpoint = base_url.rstrip("/") + "/search"
    timeout = httpx.Timeout(settings.search_timeout_s, connect=min(settings.search_timeout_s, 10.0))
    try:
        response = await client.get(
            endpoint, params={"q": query, "format": "json"}, timeout=timeout, follow_redirects=True
        )
    except httpx.TimeoutException:
        raise SearchError("timeout", f"SearXNG at {base_url} did not answer in time", True) from None
    except httpx.ConnectError as exc:
        if is_dns_error(exc):
            host = urlsplit(base_url).hostname or base_url
            raise SearchError("dns", f"the SearXNG host {host!r} could not be resolved", False) from None
        raise SearchError("connect", f"could not connect to SearXNG at {base_url} (is it running?)", False) from None
    except httpx.HTTPError as exc:
        raise SearchError("connect", f"the connection to SearXNG broke ({excerpt(exc)})", True) from None

    status = response.status_code
    if status == 429:
        raise SearchError("rate_limit", "SearXNG is rate limiting (HTTP 429)", True, _retry_after(response))
    if status >= 500:
        raise SearchError("server", f"SearXNG answered HTTP {status}", True, _retry_after(response))
    if status == 403:
        raise SearchError(
            "http",
            "SearXNG refused the request (HTTP 403); is the json format enabled under search.formats "
            "in its settings.yml?",
            False,
        )
    if status >= 400:
        raise SearchError("http", f"SearXNG answered HTTP {status}", False)
    try:
        payload = response.json()
        rows = payload.get("results") or []
        if not isinstance(rows, list):
            raise ValueError("results is not a list")
    except (ValueError, AttributeError) as exc:
        raise SearchError(
            "bad_reply", f"SearXNG did not return JSON results ({excerpt(exc)}); is format=json enabled?", False
        ) from None
    hits = [
        Hit(str(r.get("title") or ""), str(r.get("url") or ""), str(r.get("content") or ""))
        for r in rows
        if isinstance(r, dict) and r.get("url")
    ][: settings.search_results]
    if not hits:
        dead = payload.get("unresponsive_engines") or []
        if dead:
            names = ", ".join(" ".join(str(x) for x in e) if isinstance(e, (list, tuple)) else str(e) for e in dead[:5])
            raise SearchError("server", f"SearXNG's engines did not answer ({names})", True)
    return hits


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "").strip()
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


# --- formatting -------------------------------------------------------------------------------


def normalize_url(url: str) -> str:
    """The form used to spot the same result twice: no fragment, lower-case host, no trailing /."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def _clean(text: str, limit: int | None = None) -> str:
    text = " ".join(strip_controls(text).split())
    if limit and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


_RESULT_HEAD = re.compile(r"^\d+\. ")
_RESULT_URL = re.compile(r"^ {3}(https?://\S+)$")


def result_urls(observation: str) -> list[str]:
    """The result URLs of a search's observation (:func:`format_outcomes`): the line right after
    each numbered title line. URLs inside titles, snippets or the queries are not results (a title
    and a snippet are one line each, so neither can forge the line after a title)."""
    urls = []
    lines = observation.split("\n")
    for head, line in zip(lines, lines[1:]):
        m = _RESULT_URL.match(line) if _RESULT_HEAD.match(head) else None
        if m:
            urls.append(m.group(1))
    return urls


def format_outcomes(outcomes: list[QueryOutcome], per_query: int) -> str:
    seen: set[str] = set()
    blocks = []
    for outcome in outcomes:
        head = f'Results for "{_clean(outcome.query)}"'
        if outcome.redacted:
            head += " (a secret in the query was redacted before it was sent)"
        if outcome.error is not None:
            tries = f" after {outcome.attempts} attempts" if outcome.attempts > 1 else ""
            blocks.append(f"{head}: the search failed{tries}: {outcome.error.message}. "
                          f"Try again later, or rephrase the query.")
            continue
        if not outcome.hits:
            blocks.append(f"{head}: no results. {BROADER}")
            continue
        lines = []
        dropped = 0
        for hit in outcome.hits[:per_query]:
            key = normalize_url(hit.url)
            if key in seen:
                dropped += 1
                continue
            seen.add(key)
            n = len(lines) + 1
            entry = f"{n}. {_clean(hit.title) or '(no title)'}\n   {hit.url.strip()}"
            snippet = _clean(hit.snippet, SNIPPET_MAX_CHARS)
            if snippet:
                entry += f"\n   {snippet}"
            lines.append(entry)
        if not lines:
            blocks.append(f"{head}: all {dropped} results were already listed above. {BROADER}")
            continue
        note = f" ({dropped} already listed above, left out)" if dropped else ""
        blocks.append(f"{head} ({len(lines)}){note}:\n" + "\n".join(lines))
    return "\n\n".join(blocks)

