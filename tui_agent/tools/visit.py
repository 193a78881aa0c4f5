"""The ``visit`` tool: read 1–5 pages and return what bears on a goal.

Each URL is fetched through :func:`tui_agent.web.net.fetch` (the network guard, redirects,
the download cap), turned into text by :func:`tui_agent.web.content.to_page`, registered as a
source with a stable number, and — when extraction is on and the engine offers a model — read
by a model call that quotes the evidence and summarises it (the extraction ladder below).

Statuses. An HTTP 4xx answer is "http_error": the tool worked and the server said no (a wrong
URL is the model's to fix, and must not count towards disabling the tool), but nothing was read,
and the trace, the TUI and the store say so. Network errors, timeouts and 5xx answers are
"failed". The call is "ok" when any URL was read (or gave a "[no text]" answer), else "failed"
when every URL failed, else "http_error" when a server answered 4xx, else "refused" (every URL
failed and at least one was refused by the guard: the model's doing, not the tool's).

Observation hygiene (size cap, tag escaping, redaction) is applied by the engine to the whole
observation. This module strips control characters from the text it builds, keeps each URL's
section within its share of the observation limit so every URL is represented, and redacts the
page text before it goes to the extraction model.
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui_agent.model import tokens
from tui_agent.core import budgets
from tui_agent.core.budgets import cut_note
from tui_agent.safety.hygiene import escape_tags, redact, strip_controls
from tui_agent.safety.redaction import Redacted
from tui_agent.model.jsonreply import json_object
from tui_agent.model.retrying import excerpt
from tui_agent.kinds import ObservationStatus
from tui_agent.tools.base import FAILED, INVALID, OK, REFUSED, Tool, ToolContext, ToolResult
from tui_agent.web.content import MARKDOWN
from tui_agent.web.net import Guard, fetch
from tui_agent.web.page import Fetcher, PageRead, read_page, timeout_text

MAX_URLS = 5
# Text rendered per page, in characters of plain text per token that will be kept: English
# prose runs about 4 characters a token, and the Markdown around it (link URLs) adds more.
CHARS_PER_TOKEN = 5
# Tokens kept for each section's header and notes when the observation limit is shared out.
SECTION_OVERHEAD_TOKENS = 80
MIN_SECTION_TOKENS = 400
# Seconds after visit_total_timeout_s to collect the sections that are finishing.
GRACE_S = 2.0

# The extraction ladder.
EXTRACT_SHRINK = 0.7  # an empty or too-short reply: retry with 70% of the content …
EXTRACT_SHRINK_STEPS = 3  # … up to three times …
EXTRACT_LAST_CHARS = 25_000  # … then once with at most 25,000 characters.
EXTRACT_PARSE_RETRIES = 3  # a reply that is not JSON: retry as is, up to three times.
EXTRACT_MIN_CHARS = 10  # evidence + summary shorter than this is "too short"

PROMPT_FILE = Path(__file__).resolve().parent.parent / "prompts" / "extract.txt"
HTTP_ERROR = ObservationStatus.HTTP_ERROR

DESCRIPTION = (
    "Read web pages (HTML, plain text, JSON or PDF). Give 1 to 5 URLs at once as a list and the "
    "goal: what you want to learn from them. For each page you get its source number [n], title "
    "and URL, then the evidence quoted from the page and a summary for your goal (or the page "
    "text). Cite sources by their number."
)


@dataclass
class Section:
    """One URL's part of the observation."""

    url: str
    status: ObservationStatus
    text: str
    source: int | None = None
    # (final URL, title) of a page that was read: registered as a source once all are done,
    # so the numbers follow the order of the URLs in the call, not the order they finished in
    cite: tuple[str, str] | None = None


def section_tokens(observation_tokens: int, n_urls: int) -> int:
    """Each URL's share of the call's observation budget, headers and notes set aside."""
    return budgets.share(observation_tokens, n_urls, SECTION_OVERHEAD_TOKENS, MIN_SECTION_TOKENS)


def text_budget(settings, n_urls: int, observation_tokens: int | None = None) -> int:
    """Characters of page text worth rendering: enough for the extraction input or the share."""
    need = section_tokens(observation_tokens or settings.observation_max_tokens, n_urls)
    if settings.extract:
        need = max(need, settings.extract_max_tokens)
    return need * CHARS_PER_TOKEN


class VisitTool(Tool):
    name = "visit"
    rerun_safe = True  # a visit only reads (GET): one cut short by a stopped process runs again on resume
    description = DESCRIPTION
    parameters = {
        "type": "object",
        "properties": {
            "url": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": MAX_URLS,
                "description": "1 to 5 http(s) URLs to read.",
            },
            "goal": {
                "type": "string",
                "minLength": 1,
                "description": "What to look for on these pages.",
            },
        },
        "required": ["url", "goal"],
        "additionalProperties": False,
    }

    def __init__(self, *, guard: Guard | None = None, fetcher: Fetcher = fetch, fmt: str = MARKDOWN) -> None:
        # guard: None means net.check_url with settings.allow_private_urls (tests pass their own);
        # fmt: how pages are rendered, "markdown" (what the model reads) or "text" (`read --format text`)
        self.guard = guard
        self.fetcher = fetcher
        self.fmt = fmt

    def timeout_s(self, settings) -> float:
        # The call bounds itself by visit_total_timeout_s and reports what it has; the engine's
        # limit must not cut in before that.
        return max(settings.tool_timeout_s, settings.visit_total_timeout_s + GRACE_S + 3)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = arguments.get("url") or []
        if isinstance(raw, str):
            raw = [raw]
        urls: list[str] = []
        for u in raw:
            u = str(u).strip()
            if u and u not in urls:
                urls.append(u)
        goal = " ".join(str(arguments.get("goal") or "").split())
        if not urls:
            return ToolResult("Error: no URL given. Give 1 to 5 http(s) URLs.", INVALID)

        settings = ctx.settings
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.visit_total_timeout_s
        share = section_tokens(ctx.budget, len(urls))
        budget = text_budget(settings, len(urls), ctx.budget)
        tasks = [
            asyncio.create_task(self._visit_one(u, goal, ctx, deadline, share, budget)) for u in urls
        ]
        try:
            await asyncio.wait(tasks, timeout=settings.visit_total_timeout_s + GRACE_S)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        sections = [collect(u, t, settings) for u, t in zip(urls, tasks)]
        return observation(sections, ctx.sources)

    # -- one URL ---------------------------------------------------------------------------
    async def _visit_one(self, url: str, goal: str, ctx: ToolContext, deadline: float, share: int,
                         budget: int) -> Section:
        page = await read_page(url, ctx.settings, ctx.http, guard=self.guard, fetcher=self.fetcher,
                               deadline=deadline, max_chars=budget, fmt=self.fmt, progress=ctx.progress)
        if page.error is not None or not (ctx.settings.extract and ctx.complete is not None):
            return page_section(page, share)
        body = await extract(page.final_url, goal, page.text, page.full_chars, ctx, deadline, share)
        return Section(url, OK, "\n".join([*page.notes, body]), cite=(page.final_url, page.title))


# -- goal-directed extraction (public: ``tui-agent read --goal`` runs the same) ---------------------
async def extract(url: str, goal: str, text: str, full_chars: int | None, ctx: ToolContext,
                  deadline: float, share: int) -> str:
    """The goal-directed extraction of a page's ``text`` for ``goal`` with ``ctx.complete``, as
    the visit tool runs it; ``share``: the tokens the page text may take when extraction fails.
    The ladder: short/empty reply → 70% (×3) → 25,000 chars; not JSON → retry (×3)."""
    settings = ctx.settings
    # Redacting and cutting a long page is CPU work of milliseconds: off the event loop (an eval's
    # other cases, the TUI's engine) like the page's extraction before it.
    current = await asyncio.to_thread(lambda: tokens.truncate(redact(text), settings.extract_max_tokens))
    attempt = shrinks = parse_retries = 0
    last_problem = ""
    while True:
        attempt += 1
        messages = extraction_messages(goal, url, current)
        reply = None
        problem, why = "short", "no reply"
        try:
            async with asyncio.timeout_at(deadline):
                reply = await ctx.complete(messages, purpose="extract", model=settings.extract_model)
        except TimeoutError:
            ctx.progress(f"extract attempt {attempt}: out of time, showing the page text")
            return fallback_text(text, share, full_chars, "the visit's time limit ran out")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any model failure is a failed attempt
            problem, why = "short", f"model error ({excerpt(exc)})"
        usage = _usage(reply)
        if reply is not None:
            raw = str(getattr(reply, "text", "") or "")
            parsed = parse_extraction(raw)
            if not raw.strip():
                problem, why = "short", "empty reply"
            elif parsed is None:
                problem, why = "parse", "reply is not valid JSON"
            elif len(parsed[0].strip()) + len(parsed[1].strip()) < EXTRACT_MIN_CHARS:
                problem, why = "short", "reply too short"
            else:
                ctx.progress(f"extract attempt {attempt}: done", **usage)
                return extracted_text(*parsed)
        last_problem = why
        if problem == "short":
            shrinks += 1
            if shrinks <= EXTRACT_SHRINK_STEPS:
                current = current[: int(len(current) * EXTRACT_SHRINK)]
                step = f"shrinking to {EXTRACT_SHRINK:.0%}"
            elif shrinks == EXTRACT_SHRINK_STEPS + 1:
                current = current[:EXTRACT_LAST_CHARS]
                step = f"cutting to {EXTRACT_LAST_CHARS:,} characters"
            else:
                step = ""
        else:
            parse_retries += 1
            step = "retrying" if parse_retries <= EXTRACT_PARSE_RETRIES else ""
        ctx.progress(f"extract attempt {attempt}: {why}, {step or 'giving up, showing the page text'}", **usage)
        if not step:
            return fallback_text(text, share, full_chars,
                                 f"no usable reply after {attempt} attempts; last: {last_problem}")


def page_section(page: PageRead, share: int) -> Section:
    """A page's part of the observation without extraction: notes and text cut to ``share`` tokens."""
    if page.error is not None:
        return Section(page.url, page.status, page.error)
    body = cap_section(page.text, share, page.full_chars)
    return Section(page.url, OK, "\n".join([*page.notes, body]), cite=(page.final_url, page.title))


def collect(url: str, task: asyncio.Task, settings) -> Section:
    """The section of a finished, failed or cancelled per-URL task."""
    if task.cancelled():
        return Section(url, FAILED, f"[not read] {url}\n{timeout_text(settings)}")
    exc = task.exception()
    if exc is not None:  # a bug, reported rather than raised so the other pages survive
        return Section(url, FAILED, f"[not read] {url}\nError: {type(exc).__name__}: {exc}")
    return task.result()


def observation(sections: list[Section], sources) -> ToolResult:
    """The tool's result: pages that were read registered as sources (numbered in the order of
    the URLs), each headed "[n] Title — URL", sections separated by a blank line."""
    for section in sections:
        if section.cite is not None:
            final_url, title = section.cite
            section.source = sources.register(final_url, title).number
            section.text = f"[{section.source}] {title} — {final_url}\n{section.text}"
    text = "\n\n".join(s.text for s in sections)
    return ToolResult(text, overall_status([s.status for s in sections]),
                      [s.source for s in sections if s.source is not None])


# --- helpers ----------------------------------------------------------------------------------


def overall_status(statuses: list[str]) -> str:
    """The call's status from its URLs' (see the module docstring)."""
    if not statuses or OK in statuses:
        return OK
    if all(s == FAILED for s in statuses):
        return FAILED
    if HTTP_ERROR in statuses:
        return HTTP_ERROR
    return REFUSED


def page_observation(page, observation_tokens: int):
    """The observation the visit tool gives for one read page with extraction off (``read``)."""
    from tui_agent.tools.base import SourceRegistry

    return observation([page_section(page, section_tokens(observation_tokens, 1))], SourceRegistry())


def cap_section(text: str, max_tokens: int, full_chars: int | None = None) -> str:
    """``text`` cut to ``max_tokens`` with a note; ``full_chars`` says the text was already
    cut from a longer whole (then the totals are estimates)."""
    ids = tokens.encode(text)
    total = len(ids)
    estimated = False
    if full_chars and full_chars > len(text):
        total = round(total * full_chars / max(1, len(text)))
        estimated = True
    if total <= max_tokens:
        return text
    kept = tokens.encoder().decode(ids[:max_tokens]).rstrip() if len(ids) > max_tokens else text
    return kept + "\n" + cut_note(total - max_tokens, total, estimated)


def fallback_text(text: str, share: int, full_chars: int | None, why: str) -> str:
    return (f"[extraction failed ({why}); showing the page text instead]\n"
            + cap_section(text, share, full_chars))


def extracted_text(evidence: str, summary: str) -> str:
    evidence = strip_controls(evidence).strip() or "(none)"
    summary = strip_controls(summary).strip() or "(none)"
    return f"Evidence:\n{evidence}\n\nSummary:\n{summary}"


@functools.lru_cache(maxsize=1)
def prompt_template() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8")


def extraction_messages(goal: str, url: str, page_text: str) -> list[dict[str, str]]:
    """The extraction request: one user message from prompts/extract.txt. ``page_text`` is
    redacted already (:func:`extract` does it once); the goal and URL are redacted here, so the
    message is :class:`Redacted` and the model boundary does not scan the page a second time."""
    template = prompt_template()
    head, _, tail = template.partition("{content}")
    goal, url = redact(goal), redact(url)

    def fill(part: str) -> str:
        return part.replace("{goal}", goal).replace("{url}", url)

    # The page cannot forge the markers around it, a protocol tag or a chat-template token (look-alikes too).
    page_text = escape_tags(page_text)
    return [{"role": "user", "content": Redacted(fill(head) + page_text + fill(tail))}]


def parse_extraction(raw: str) -> tuple[str, str] | None:
    """(evidence, summary) from an extraction reply, or None when it is not such JSON.

    Read by :func:`tui_agent.model.jsonreply.json_object` (reasoning, fences, prose, raw newlines,
    JSON5); a list as evidence and the key spellings "rational"/"rationale" are fine.
    """
    fields = json_object(raw)
    if fields is None:
        return None
    if "evidence" not in fields and "summary" not in fields:
        return None
    return _as_text(fields.get("evidence")), _as_text(fields.get("summary"))


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_as_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _usage(reply: Any) -> dict[str, Any]:
    if reply is None:
        return {}
    return {
        "cost_usd": getattr(reply, "cost_usd", None),
        "prompt_tokens": getattr(reply, "prompt_tokens", None),
        "completion_tokens": getattr(reply, "completion_tokens", None),
    }
