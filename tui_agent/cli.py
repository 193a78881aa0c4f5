"""Command line: parse arguments, pick the front end.

  tui-agent [QUESTION] [flags]              the TUI
  tui-agent run QUESTION [flags]            headless run (trace on stderr, answer on stdout)
  tui-agent run --resume ID [flags]         continue a session
  tui-agent sessions list|show|export|fork|delete …
  tui-agent read URL […]                    what the model would read
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from .config import ConfigError, Settings, config_path, load_settings

EXIT_OK, EXIT_NO_ANSWER, EXIT_USAGE = 0, 1, 2
SUBCOMMANDS = ("run", "sessions", "read")


class UsageError(Exception):
    """Bad usage or configuration: printed plainly, exit 2."""


def _add_common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model and limits")
    g.add_argument("--model", help="litellm model string, e.g. openai/gpt-4.1-mini, ollama_chat/qwen3")
    g.add_argument("--api-base", help="base URL of the provider (OpenAI-compatible servers, Ollama, …)")
    g.add_argument("--temperature", type=float)
    g.add_argument("--no-stream", dest="stream", action="store_const", const=False, help="do not stream replies")
    g.add_argument("--max-calls", type=int, help="model calls before the forced answer (default 100)")
    g.add_argument("--max-minutes", type=float, help="minutes before the forced answer, human waits excluded (default 150)")
    g.add_argument("--context-window", type=int, help="context window in tokens (default: litellm's model info, else 131072)")
    g.add_argument("--answer-reserve", type=int, help="tokens reserved for the forced answer (default 16384)")
    g.add_argument("--budget-usd", type=float, help="spending limit in USD")
    g.add_argument("--system-prompt", dest="system_prompt_file", metavar="FILE", help="replace the system prompt template")
    t = p.add_argument_group("tools")
    t.add_argument("--search-backend", choices=["ddgs", "searxng"])
    t.add_argument("--searxng-url", help="SearXNG instance (JSON format enabled)")
    t.add_argument("--allow-private-urls", action="store_const", const=True,
                   help="let the model fetch loopback and private-network addresses")
    t.add_argument("--no-extract", dest="extract", action="store_const", const=False,
                   help="no goal-directed extraction of visited pages")
    t.add_argument("--extract-model", help="model for goal-directed extraction (default: the main model)")
    s = p.add_argument_group("storage")
    s.add_argument("--data-dir", help="directory of the session database")
    s.add_argument("--config", dest="config_file", metavar="FILE", help=f"config file (default {config_path()})")


FLAG_KEYS = (
    "model", "api_base", "temperature", "stream", "max_calls", "max_minutes", "context_window", "answer_reserve",
    "budget_usd", "system_prompt_file", "search_backend", "searxng_url", "allow_private_urls", "extract",
    "extract_model", "data_dir", "auto_approve", "theme", "breakpoint",
)


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tui-agent run", description="Research a question headless.")
    p.add_argument("question", nargs="?", help="the question to research")
    p.add_argument("--resume", metavar="ID", help="continue an unfinished session")
    p.add_argument("--yes", "-y", dest="auto_approve", action="store_const", const=True, help="approve every tool call")
    p.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    p.add_argument("--live-tools", action="store_true", help="with --resume of a fork: run tools live")
    _add_common(p)
    return p


def build_tui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tui-agent", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question", nargs="?", help="the question to research (asked for when omitted)")
    p.add_argument("--resume", metavar="ID", help="continue an unfinished session")
    p.add_argument("--yes", "-y", dest="auto_approve", action="store_const", const=True, help="auto mode: approve every tool call")
    p.add_argument("--breakpoint", action="store_const", const=True, help="pause before every model call")
    p.add_argument("--theme", help="theme name")
    _add_common(p)
    return p


def settings_from(ns: argparse.Namespace) -> Settings:
    flags = given_flags(ns)
    path = Path(ns.config_file).expanduser() if getattr(ns, "config_file", None) else None
    if path is not None and not path.is_file():
        raise UsageError(f"config file {path} does not exist")
    try:
        return load_settings(flags, path=path)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def ensure_model(settings: Settings) -> Settings:
    """Fill in a model from the environment or a local Ollama; UsageError when there is none."""
    from . import model_setup

    if settings.model:
        return settings
    model, api_base = model_setup.detect()
    if not model:
        raise UsageError(model_setup.HOW_TO_CONFIGURE.format(config=config_path()))
    settings.model = model
    if api_base and not settings.api_base:
        settings.api_base = api_base
    return settings


def given_flags(ns: argparse.Namespace) -> dict[str, Any]:
    return {k: getattr(ns, k) for k in FLAG_KEYS if getattr(ns, k, None) is not None}


def resume_kwargs(store: Any, session_id: str, ns: argparse.Namespace) -> tuple[dict[str, Any], str, Settings]:
    """Run kwargs, question and settings (the session's own, overridden by the flags given now)."""
    from .resume import ResumeError, prepare_resume

    try:
        return prepare_resume(store, session_id, given_flags(ns), live_tools=getattr(ns, "live_tools", False))
    except ResumeError as exc:
        raise UsageError(str(exc)) from None


def open_store(settings: Settings):
    from .store import Store, StoreError

    try:
        return Store(settings.resolved_data_dir())
    except StoreError as exc:
        raise UsageError(str(exc)) from None


# -- run ------------------------------------------------------------------------------------
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
    from .headless import TracePrinter, clean, render_answer, terminal_approver
    from .runner import Run

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


# -- sessions -------------------------------------------------------------------------------
def cmd_sessions(argv: Sequence[str]) -> int:
    from .sessions_cli import main as sessions_main

    return sessions_main(argv)


def cmd_read(argv: Sequence[str]) -> int:
    from .read_cli import main as read_main

    return read_main(argv)


def cmd_tui(argv: Sequence[str]) -> int:
    ns = build_tui_parser().parse_args(argv)
    settings = settings_from(ns)
    from .app import run_app

    return run_app(settings, ns.question, resume=ns.resume)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        if argv and argv[0] == "run":
            code = cmd_run(argv[1:])
        elif argv and argv[0] == "sessions":
            code = cmd_sessions(argv[1:])
        elif argv and argv[0] == "read":
            code = cmd_read(argv[1:])
        else:
            code = cmd_tui(argv)
    except UsageError as exc:
        sys.stderr.write(f"tui-agent: {exc}\n")
        code = EXIT_USAGE
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
