"""What every subcommand shares: the common flags, settings from all layers, the model, the store.

A bad flag or setting raises :class:`UsageError` (printed plainly by ``main``; exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from tui_agent.config import (
    ConfigError, Settings, config_path, declared, flag_names, flag_of, load_settings, setting_names, shape,
)
from tui_agent.settings.fields import COMMON_GROUPS, STORAGE


class UsageError(Exception):
    """Bad usage or configuration: printed plainly, exit 2."""


def add_common(p: argparse.ArgumentParser) -> None:
    """The flags every subcommand takes: the settings declared with a flag in a common group,
    and --config."""
    for title in COMMON_GROUPS:
        group = p.add_argument_group(title)
        add_setting_flags(group, *(name for name in setting_names() if (f := flag_of(name)) and f.group == title))
        if title == STORAGE:
            group.add_argument("--config", dest="config_file", metavar="FILE", help=f"config file (default {config_path()})")


def add_setting_flags(p: Any, *names: str) -> None:
    """An argument for each named setting, built from its declaration: the flag's name, the type,
    the choices of a Literal, the docstring and default as help; booleans as --x/--no-x. The
    default is None, so a flag not given leaves the file and environment values alone."""
    fields = declared()
    for name in names:
        info, flag = fields[name], flag_of(name)
        assert flag is not None, f"setting {name!r} has no Flag in its declaration"
        form = shape(name)
        kind = str if form.kind is SecretStr else form.kind
        help_text = (info.description or "").replace("%", "%%")
        if info.default is not None and kind is not bool:
            help_text += f" (default: {info.default})"
        kw: dict[str, Any] = {"dest": name, "default": None, "help": help_text}
        if flag.const is not None:
            kw.update(action="store_const", const=flag.const, help=f"{help_text}; this flag sets {flag.const}")
        elif kind is bool:
            kw["action"] = argparse.BooleanOptionalAction if flag.negatable else "store_const"
            if not flag.negatable:
                kw["const"] = True
        else:
            kw["type"] = kind
            if kind in (int, float):
                kw["metavar"] = "N"
            if form.choices:
                kw["choices"] = list(form.choices)
            if flag.metavar:
                kw["metavar"] = flag.metavar
        p.add_argument(*flag_names(name), **kw)


class Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors never show a secret (a key pasted after the wrong flag:
    ``invalid int value: 'sk-…'``): the message is redacted as every printed text is."""

    def error(self, message: str):  # type: ignore[override]
        from tui_agent.settings.shown import text

        super().error(text(message))


class CommandParser(Parser):
    """A subcommand's parser: argparse's own usage errors become a UsageError (exit 2) that names
    the command (main prints ``tui-agent: read: ...``) and repeats its usage line."""

    def error(self, message: str):  # type: ignore[override]
        from tui_agent.settings.shown import text

        raise UsageError(f"{self.prog.removeprefix('tui-agent ')}: {text(message)}\n{self.format_usage().rstrip()}")


# The settings that are flags (given_flags reads these from a parsed command line).
FLAG_KEYS = tuple(name for name in setting_names() if flag_of(name) is not None)


def build_run_parser() -> argparse.ArgumentParser:
    p = Parser(prog="tui-agent run", description="Research a question headless.")
    p.add_argument("question", nargs="?", help="the question to research")
    p.add_argument("--resume", metavar="ID", help="continue an unfinished session")
    add_setting_flags(p, "auto_approve", "notify", "plan", "team", "team_concurrency", "otel", "otel_content")
    p.add_argument("--approve-plan", action="store_true",
                   help="approve the plan without asking; calls outside it are still asked")
    p.add_argument("--clarify", metavar="FILE",
                   help="plan mode with clarifying questions, answered from FILE (a JSON list, or one answer a line)")
    p.add_argument("--json", action="store_true", help="print one JSON object with the result on stdout")
    p.add_argument("--live-tools", action="store_true", help="with --resume of a fork: run tools live")
    add_common(p)
    return p


def build_tui_parser() -> argparse.ArgumentParser:
    p = Parser(prog="tui-agent", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question", nargs="?", help="the question to research (asked for when omitted)")
    p.add_argument("--resume", metavar="ID", help="continue an unfinished session")
    add_setting_flags(p, "auto_approve", "breakpoint", "theme", "notify", "plan", "team", "team_concurrency",
                      "otel", "otel_content")
    add_common(p)
    return p


def settings_from(ns: argparse.Namespace) -> Settings:
    flags = given_flags(ns)
    path = Path(ns.config_file).expanduser() if getattr(ns, "config_file", None) else None
    try:
        return load_settings(flags, path=path, path_required=path is not None)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def ensure_model(settings: Settings) -> Settings:
    """Fill in a model from the environment or a local Ollama; UsageError when there is none, or
    when --budget-usd is set and the model has no price (the budget could never stop the run)."""
    from tui_agent.model import setup as model_setup

    if not settings.model:
        model, api_base = model_setup.detect()
        if not model:
            raise UsageError(model_setup.HOW_TO_CONFIGURE.format(config=config_path()))
        settings.model = model
        if api_base and not settings.api_base:
            settings.api_base = api_base
    if settings.router_config:  # read now: a broken file is a usage error, not a failure of the first call
        from tui_agent.model.routing import load_router_config

        try:
            load_router_config(settings.router_config)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    check_answer_reserve(settings)
    if settings.budget_usd is not None:
        from tui_agent.model.pricing import budget_problem

        try:
            problem = budget_problem(settings)
        except ConfigError as exc:  # an unreadable router file
            raise UsageError(str(exc)) from None
        if problem:
            raise UsageError(problem)
    return settings


def check_answer_reserve(settings: Settings) -> None:
    """The token gate is the window minus answer_reserve: a reserve as large as the window would
    force every run's answer at its first call. A window given is compared when settings load
    (``settings.layers.validate``); here the model's own window is, once the model is known."""
    if settings.context_window is not None:
        return
    from tui_agent.model import known_models
    from tui_agent.model.llm import DEFAULT_CONTEXT_WINDOW, LLM

    window = LLM(settings).context_window(settings.model)
    if settings.answer_reserve < window:
        return
    source = ("the default for a model litellm's model map does not know"
              if window == DEFAULT_CONTEXT_WINDOW and known_models.unknown(settings.model)
              else "from litellm's model map")
    raise UsageError(f"'answer_reserve' ({settings.answer_reserve:,}) must be smaller than the context window of "
                     f"{settings.model} ({window:,} tokens, {source}): the token gate is the window minus the "
                     f"reserve. Give a smaller --answer-reserve, or the model's real window with --context-window")


def given_flags(ns: argparse.Namespace) -> dict[str, Any]:
    return {k: getattr(ns, k) for k in FLAG_KEYS if getattr(ns, k, None) is not None}


def prepare_resume(store: Any, session_id: str, ns: argparse.Namespace):
    """What continuing ``session_id`` (an id or a unique prefix) needs: a ``resume.Resumed`` with
    the session's own settings, overridden by the flags given now."""
    from tui_agent.session.resume import ResumeError, prepare_resume as prepare

    try:
        return prepare(store, session_id, given_flags(ns), live_tools=getattr(ns, "live_tools", False),
                       here=settings_from(ns))
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
