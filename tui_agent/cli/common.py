"""What every subcommand shares: the common flags, settings from all layers, the model, the store.

A bad flag or setting raises :class:`UsageError` (printed plainly by ``main``; exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tui_agent.config import ConfigError, Settings, config_path, load_settings


class UsageError(Exception):
    """Bad usage or configuration: printed plainly, exit 2."""


def add_common(p: argparse.ArgumentParser) -> None:
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
    add_common(p)
    return p


def build_tui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tui-agent", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question", nargs="?", help="the question to research (asked for when omitted)")
    p.add_argument("--resume", metavar="ID", help="continue an unfinished session")
    p.add_argument("--yes", "-y", dest="auto_approve", action="store_const", const=True, help="auto mode: approve every tool call")
    p.add_argument("--breakpoint", action="store_const", const=True, help="pause before every model call")
    p.add_argument("--theme", help="theme name")
    add_common(p)
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
    from tui_agent import model_setup

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


def prepare_resume(store: Any, session_id: str, ns: argparse.Namespace):
    """What continuing ``session_id`` (an id or a unique prefix) needs: a ``resume.Resumed`` with
    the session's own settings, overridden by the flags given now."""
    from tui_agent.session.resume import ResumeError, prepare_resume as prepare

    try:
        return prepare(store, session_id, given_flags(ns), live_tools=getattr(ns, "live_tools", False))
    except ResumeError as exc:
        raise UsageError(str(exc)) from None


def resolve_id(store: Any, text: str) -> str:
    """The full id for an id, a unique prefix or a unique suffix; an unknown or ambiguous one is a
    usage error (an ambiguous one lists the candidates)."""
    from tui_agent.session.store import StoreError

    try:
        return store.resolve_id(text)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def open_store(settings: Settings, *, read_only: bool = False):
    """The session store; ``read_only`` for commands that only read (they work on a read-only disk)."""
    from tui_agent.session.store import Store, StoreError

    try:
        return Store(settings.resolved_data_dir(), read_only=read_only)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
