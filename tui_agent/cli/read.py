"""`tui-agent read URL`: show exactly what the model would read, without running a session.

  tui-agent read URL [--format markdown|text] [--max-tokens N] [--goal TEXT] [flags]

The page goes through the visit tool's own pipeline (:func:`tui_agent.web.page.read_page`:
the network guard, the fetch with its limits, decoding, main-content extraction, PDF handling)
and then:

- ``--format markdown`` (default): the observation the visit tool gives the model for this URL
  with goal-directed extraction off — the same section (header, notes, text cut to the
  section's share of the observation limit) after the engine's
  :func:`tui_agent.core.budgets.clean_observation` (control characters, redaction, tag escaping,
  the ``observation_max_tokens`` cap, which ``--max-tokens`` overrides);
- ``--format text``: exactly the same observation with the page rendered as plain text instead
  of Markdown (no Markdown syntax; header, notes, cut, escaping and redaction as above).

``--goal TEXT`` then runs the visit tool's goal-directed extraction with the configured model
(``--model``/``--extract-model``, config.toml, TUI_AGENT_* variables) and prints its result after
the page text, with the model calls' tokens and cost. Without ``--goal`` no model is needed and
litellm is never imported.

A page that cannot be read (refused address or redirect, timeout, HTTP error, refused content
encoding, unsupported type, no text) prints the message the model would get on stderr and exits
1; a page cut at the download cap is read (the note says so, exit 0). Bad usage exits 2. No
failure prints a Python traceback: one that nothing below names is reported as an unexpected
error, exit 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Sequence

from tui_agent.cli.common import CommandParser, UsageError, add_common, settings_from
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK

FORMATS = ("markdown", "text")


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="tui-agent read", description="Show what the model would read from a URL.",
                epilog="Without --goal no model is needed. Exit status: 0 read, 1 not read, 2 bad usage.")
    p.add_argument("url", help="the http(s) URL to read")
    p.add_argument("--format", choices=FORMATS, default="markdown",
                   help="markdown: the visit tool's observation with extraction off, exactly as the model "
                        "reads it (default); text: the same observation with the page as plain text "
                        "(same header, cut, tag escaping and redaction)")
    p.add_argument("--max-tokens", type=int, metavar="N",
                   help="observation token cap (default: observation_max_tokens, 8000)")
    p.add_argument("--goal", metavar="TEXT", help="also run the goal-directed extraction with the configured model")
    add_common(p)  # the model, limits, tools and storage flags, as every command takes them
    return p


def main(argv: Sequence[str]) -> int:
    if "httpx" not in sys.modules:
        # httpx imports its own command-line client on import, and with it rich, click and
        # pygments (~90 ms of a read that should take well under a second); a None entry in
        # sys.modules makes that optional import fail quietly, as when they are not installed
        sys.modules.setdefault("httpx._main", None)  # type: ignore[assignment]
    ns = build_parser().parse_args(list(argv))
    if ns.max_tokens is not None and ns.max_tokens <= 0:
        raise UsageError("read: --max-tokens must be greater than 0")
    if ns.goal is not None and not ns.goal.strip():
        raise UsageError("read: --goal needs some text")
    settings = settings_from(ns)
    if ns.max_tokens is not None:
        settings.observation_max_tokens = ns.max_tokens
    if ns.goal is not None:
        from tui_agent.cli.common import ensure_model

        settings = ensure_model(settings)  # UsageError (exit 2) when no model is configured
    from tui_agent.safety.hygiene import terminal_safe  # every output: no control or bidi character reaches the terminal

    try:
        out, err, code = asyncio.run(read(ns.url, settings, fmt=ns.format, goal=ns.goal))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_NO_ANSWER
    except Exception as exc:  # a failure nothing below named still ends as a message, not a traceback
        sys.stderr.write(terminal_safe(f"[not read] {ns.url.strip()}\nThe page could not be read because of an "
                                       f"unexpected error ({type(exc).__name__}: {exc}).") + "\n")
        return EXIT_NO_ANSWER
    out, err = terminal_safe(out), terminal_safe(err)
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        sys.stdout.flush()
    if err:
        sys.stderr.write(err if err.endswith("\n") else err + "\n")
    return code


async def read(url: str, settings, *, fmt: str = "markdown", goal: str | None = None,
               guard=None) -> tuple[str, str, int]:
    """(stdout text, stderr text, exit code) for reading ``url`` as the visit tool would."""
    from tui_agent.core.budgets import clean_observation
    from tui_agent.safety.hygiene import strip_controls
    from tui_agent.web.net import make_client
    from tui_agent.tools.visit import GRACE_S, page_observation, text_budget
    from tui_agent.web.page import read_page, timeout_text

    url = url.strip()
    # the token cap needs the tokenizer (~0.2 s to load): load it while the page is fetched
    import threading

    from tui_agent.model import tokens

    threading.Thread(target=tokens.encoder, name="tokenizer", daemon=True).start()
    view = _without_extraction(settings)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.visit_total_timeout_s
    async with make_client(settings) as client:
        try:
            page = await asyncio.wait_for(
                read_page(url, settings, client, guard=guard, deadline=deadline, max_chars=text_budget(view, 1),
                          fmt="text" if fmt == "text" else "markdown"),
                timeout=settings.visit_total_timeout_s + GRACE_S)
        except asyncio.TimeoutError:  # what visit reports when its call runs out of time
            return "", strip_controls(f"[not read] {url}\n{timeout_text(settings)}"), EXIT_NO_ANSWER
        if page.error is not None:
            return "", clean_observation(page.error, settings.observation_max_tokens), EXIT_NO_ANSWER
        # both formats: the visit tool's section and the engine's observation hygiene
        result = page_observation(page, settings.observation_max_tokens)
        out = clean_observation(result.text, settings.observation_max_tokens)
        if goal is not None:
            out += "\n\n" + await _goal(page, goal, settings, client, deadline)
    return out, "", EXIT_OK


def _without_extraction(settings):
    import dataclasses

    return dataclasses.replace(settings, extract=False)


async def _goal(page, goal: str, settings, client, deadline: float) -> str:
    """The goal-directed extraction of ``page`` as the visit tool runs it, and what it cost."""
    from tui_agent.core.budgets import clean_observation
    from tui_agent.model.llm import LLM
    from tui_agent.tools import visit as v
    from tui_agent.tools.base import SourceRegistry, ToolContext

    extracting = v.text_budget(_with_extraction(settings), 1)
    # the text the extraction reads: the page rendered as Markdown with the visit tool's budget
    from tui_agent.web.page import convert

    source = await convert(page.url, page.result, settings, max_chars=extracting)
    if source.error is not None:
        return f"--- goal-directed extraction ---\n{source.error}"
    llm = LLM(settings)
    model = settings.extract_model or settings.model
    reports: list[dict] = []

    async def complete(messages, *, purpose="extract", model=None, **_):
        return await llm.complete(messages, purpose=purpose, model=model or settings.extract_model or settings.model,
                                  stream=False)

    def progress(text: str, **usage) -> None:
        reports.append({"text": text, **usage})

    ctx = ToolContext(settings=settings, http=client, sources=SourceRegistry(), progress=progress, complete=complete)
    share = v.section_tokens(ctx.budget, 1)
    body = await v.extract(source.final_url, " ".join(goal.split()), source.text, source.full_chars, ctx, deadline,
                           share)
    calls = [r for r in reports if r.get("prompt_tokens") is not None or r.get("completion_tokens") is not None]
    prompt = sum(r.get("prompt_tokens") or 0 for r in calls)
    completion = sum(r.get("completion_tokens") or 0 for r in calls)
    costs = [r["cost_usd"] for r in calls if r.get("cost_usd") is not None]
    cost = f"${sum(costs):.4f}" if costs else "cost unknown"
    attempts = len([r for r in reports if r["text"].startswith("extract attempt")])
    usage = (f"[extraction with {model}: {attempts} model call{'s' if attempts != 1 else ''}, "
             f"{prompt:,} prompt + {completion:,} completion tokens, {cost}]")
    steps = "\n".join(f"  {r['text']}" for r in reports if r["text"].startswith("extract attempt"))
    text = clean_observation(body, settings.observation_max_tokens)
    return f"--- goal-directed extraction: {' '.join(goal.split())} ---\n{text}\n\n{usage}\n{steps}".rstrip()


def _with_extraction(settings):
    import dataclasses

    return dataclasses.replace(settings, extract=True)
