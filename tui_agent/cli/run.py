"""`tui-agent run`: research a question headless (trace on stderr, answer on stdout)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Sequence

from tui_agent.cli.common import (
    UsageError, build_run_parser, ensure_model, open_store, resume_kwargs, settings_from,
)
from tui_agent.cli.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.config import Settings


def cmd_run(argv: Sequence[str]) -> int:
    ns = build_run_parser().parse_args(argv)
    if not ns.question and not ns.resume:
        raise UsageError("tui-agent run: a QUESTION (or --resume ID) is required")
    if ns.question and ns.resume:
        raise UsageError("tui-agent run: give either a QUESTION or --resume ID, not both")
    settings = settings_from(ns)
    store = open_store(settings)
    kwargs: dict[str, Any] = {}
    question = ns.question
    if ns.resume:
        kwargs, question, settings = resume_kwargs(store, ns.resume, ns)
    return run_headless(settings, question, store, kwargs, json_out=ns.json)


async def _with_interrupts(run: Any) -> dict[str, Any]:
    """First Ctrl-C: Submit now (answer from the evidence so far). Second: cancel the run."""
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            sys.stderr.write("\nsubmitting now: the model answers from the evidence so far (Ctrl-C again to cancel)\n")
            run.request_submit()
        elif task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        pass
    try:
        return await run.start()
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError, ValueError):
            pass


def run_headless(settings: Settings, question: str, store: Any, kwargs: dict[str, Any], *, json_out: bool) -> int:
    """Run (or continue) a session with the plain-terminal front end; returns the exit code."""
    from tui_agent.cli.headless import TracePrinter, clean, render_answer, terminal_approver
    from tui_agent.runner import Run

    if not settings.auto_approve and not sys.stdin.isatty():
        raise UsageError("standard input is not a terminal, so tool calls cannot be approved; "
                         "pass --yes to approve them all")
    settings = ensure_model(settings)
    run = Run(settings, question, store=store, approver=terminal_approver(settings.auto_approve),
              listeners=[TracePrinter(sys.stderr, live=sys.stderr.isatty())], **kwargs)
    try:
        result = asyncio.run(_with_interrupts(run))
    except (KeyboardInterrupt, asyncio.CancelledError):
        sys.stderr.write("\ninterrupted: the session is saved; continue it with "
                         f"tui-agent run --resume {run.session_id}\n")
        return EXIT_NO_ANSWER
    if run.store_error:
        sys.stderr.write(f"warning: {run.store_error}\n")
    if json_out:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    elif result.get("answer") is not None:
        engine = run.engine
        srcs = [(s.number, s.url, s.title) for s in engine.sources.all()] if engine else []
        sys.stdout.write(render_answer(result, srcs) + "\n")
    if result.get("answer") is None:
        ended = run.engine.ended if run.engine else None
        if ended and ended.message:
            sys.stderr.write(f"no answer: {clean(ended.message)}\n")
    sys.stdout.flush()
    return EXIT_OK if result.get("answer") is not None else EXIT_NO_ANSWER
