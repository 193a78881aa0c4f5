"""One URL through the network guard, the capped fetch and the conversion to text.

The per-URL pipeline shared by the ``visit`` tool and ``tui-agent read``: :func:`read_page`
fetches through :func:`tui_agent.web.net.fetch` (guard, redirects, download cap, time limits)
and :func:`convert` turns the response into a :class:`PageRead` (HTTP errors, decoding, main
content, PDF, binary), with the message the model reads when there is no text.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

from tui_agent.safety.hygiene import strip_controls
from tui_agent.kinds import ObservationStatus
from tui_agent.web import content
from tui_agent.web.net import EncodingError, FetchError, FetchResult, Guard, GuardError, fetch, human_bytes

if TYPE_CHECKING:  # pragma: no cover
    import httpx

    from tui_agent.config import Settings

OK, FAILED, REFUSED = ObservationStatus.OK, ObservationStatus.FAILED, ObservationStatus.REFUSED


class Fetcher(Protocol):
    """Fetches one URL as :func:`tui_agent.web.net.fetch` does (tests pass their own)."""

    async def __call__(self, client: httpx.AsyncClient, url: str, settings: Settings, *, guard: Guard | None = None,
                       max_bytes: int | None = None, total_timeout_s: float | None = None) -> FetchResult: ...

@dataclass
class PageRead:
    """One URL through the network guard, the fetch with its limits and the conversion to text.

    ``error`` is set when there is no text to show: then it is the whole section the model gets
    ("[not read] URL" or "[no text] URL" and why) and ``status`` says how the tool fared
    (an HTTP 4xx is ``http_error``: the tool worked and the server said no, so it does not count
    towards disabling the tool, but nothing was read; a 5xx is ``failed``; a body whose
    Content-Encoding is refused — stacked layers, an unknown compression — is "[no text]" with
    ``ok``, like a binary file: the server's doing, not a failure of the tool).
    """

    url: str
    status: ObservationStatus = OK
    error: str | None = None
    final_url: str = ""
    title: str = ""
    text: str = ""  # control characters stripped
    full_chars: int | None = None  # the whole text's length when ``text`` was cut to a budget
    notes: list[str] = field(default_factory=list)  # redirect, download cap, early end
    method: str = ""  # how the text was made (content.Page.method)
    result: FetchResult | None = None


def _failed(url: str, status: ObservationStatus, why: str, result: FetchResult | None = None, tag: str = "not read") -> PageRead:
    return PageRead(url, status, f"[{tag}] {url}\n{why}", result=result)


def timeout_text(settings) -> str:
    return f"Timed out: the whole visit call is limited to {settings.visit_total_timeout_s:g} s."


async def read_page(url: str, settings, http, *, guard: Guard | None = None, fetcher: Fetcher = fetch,
                    deadline: float | None = None, max_chars: int | None = None, fmt: str = content.MARKDOWN,
                    progress: Callable[..., None] | None = None) -> PageRead:
    """Fetch ``url`` (guard, redirects, download cap, time limits) and turn it into text.

    ``deadline`` is a ``loop.time()`` bound for the fetch (default: ``visit_total_timeout_s``
    from now); ``max_chars`` bounds the text rendered; ``fmt`` is "markdown" or "text".
    """
    loop = asyncio.get_running_loop()
    if deadline is None:
        deadline = loop.time() + settings.visit_total_timeout_s
    try:
        async with asyncio.timeout_at(deadline):
            result = await fetcher(http, url, settings, guard=guard,
                                   total_timeout_s=max(0.05, deadline - loop.time()))
    except GuardError as exc:
        return _failed(url, REFUSED, exc.message)
    except EncodingError as exc:  # the server answered with a body not decoded: like a binary file
        return _failed(url, OK, fetch_error_text(exc), tag="no text")
    except FetchError as exc:
        return _failed(url, FAILED, fetch_error_text(exc))
    except TimeoutError:
        return _failed(url, FAILED, timeout_text(settings))
    if progress is not None:
        progress(f"fetched {result.final_url}: HTTP {result.status}, {human_bytes(len(result.body))} "
                 f"in {result.elapsed_s:.1f} s")
    return await convert(url, result, settings, max_chars=max_chars, fmt=fmt)


async def convert(url: str, result: FetchResult, settings, *, max_chars: int | None = None,
                  fmt: str = content.MARKDOWN) -> PageRead:
    """A fetched response as a PageRead: HTTP errors, decoding, main content, PDF, binary."""
    if result.status >= 400:
        status = FAILED if result.status >= 500 else ObservationStatus.HTTP_ERROR
        return _failed(url, status, http_error_text(result), result)
    try:
        page = await asyncio.to_thread(content.to_page, result.body, result.content_type, result.final_url,
                                       max_chars, fmt)
    except content.ContentError as exc:
        why = str(exc)
        if result.truncated:
            why += f" (the download stopped at the {human_bytes(settings.visit_max_bytes)} cap)"
        return _failed(url, OK, f"The document could not be read: {why}.", result, "no text")
    except Exception as exc:  # a converter bug on an odd page must not fail the tool
        return _failed(url, OK, f"The page could not be converted to text ({type(exc).__name__}: {exc}).",
                       result, "no text")
    if page.method == content.BINARY:
        kind = content.media_type(result.content_type) or "unknown type"
        return _failed(url, OK, f"Binary content of type {kind}, {_size_text(result, settings)}, not readable.",
                       result, "no text")
    text = strip_controls(page.text).strip()
    if not text:
        return _failed(url, OK, "The page has no readable text.", result, "no text")
    notes = []  # the "[n] Title — URL" header is added by observation()
    if result.final_url != url:
        notes.append(f"(redirected from {url})")
    if result.truncated:
        notes.append(f"[stopped at the {human_bytes(settings.visit_max_bytes)} download cap]")
    if result.incomplete:
        notes.append(f"[the download ended early: {result.incomplete} The text may be partial.]")
    title = " ".join(strip_controls(page.title).split()) or result.final_url
    return PageRead(url, OK, None, result.final_url, title, text, page.full_chars, notes, page.method, result)


def fetch_error_text(exc: FetchError) -> str:
    hint = {
        "timeout": " The server is slow or unreachable; try another source.",
        "dns": " Check the spelling of the host name, or search for the page.",
        "connect": " The server is down or unreachable; try another source.",
        "redirect": " Try another source.",
        "too_many_redirects": " Try another source.",
        "encoding": " Try another source.",
    }.get(exc.kind, "")
    return exc.message + hint


def http_error_text(result: FetchResult) -> str:
    status = result.status
    text = f"HTTP {status} {result.reason}".rstrip() + f" for {result.final_url}."
    if status in (404, 410):
        text += " The page does not exist (any more); check the URL or search for it."
    elif status in (401, 403):
        text += " The server refuses access (a login or bot protection); try another source."
    elif status == 429:
        text += " The server is rate limiting; try another source."
    elif status >= 500:
        text += " The server failed; try again later or another source."
    return text


def _size_text(result: FetchResult, settings) -> str:
    if result.truncated:
        length = result.headers.get("content-length", "") if result.headers else ""
        if length.isdigit():
            return f"{int(length):,} bytes"
        return f"more than {human_bytes(settings.visit_max_bytes)}"
    return f"{len(result.body):,} bytes"
