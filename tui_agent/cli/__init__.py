"""Command line: parse arguments, pick the front end (the TUI, or one of the subcommands).

``main`` is the console script. Every command's output survives a closed pipe
(``tui-agent sessions list | head``): it stops quietly with the status shells report (141).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Sequence

from tui_agent.cli.common import UsageError, build_tui_parser, open_store, resolve_id, settings_from
from tui_agent.exit_codes import EXIT_BROKEN_PIPE, EXIT_USAGE

# The subcommands with one line each, for `tui-agent --help` and `tui-agent help`.
COMMANDS = {
    "run": "research a question headless: trace on stderr, answer on stdout (also --resume ID)",
    "sessions": "stored sessions: list, show, export, fork, delete, verify",
    "read": "what the model would read from a URL (the visit tool, no model needed)",
    "eval": "run a regression set; eval compare LABEL_A LABEL_B; eval list",
    "tools": "tools list: every tool (built-in, plugin, MCP server) with its source and policy",
    "serve": "the TUI in a browser: each visit runs the app, behind a token (--host, --port, --token)",
    "help": "this help; help COMMAND shows a command's own flags",
}
OVERVIEW = """\
A terminal research assistant: a language model researches your question with web search and
page visits; you watch every step, approve or edit each tool call, and can make it answer now.

commands:
  (none)      open the TUI on QUESTION (asked for when omitted); needs a terminal
{commands}

Run 'tui-agent help COMMAND' (or 'tui-agent COMMAND --help') for a command's flags.
The flags below are the TUI's; the model, limits, tools and storage flags work with every command."""
USAGE = "tui-agent [QUESTION] [flags]\n       tui-agent COMMAND [args]   (COMMAND: " + ", ".join(COMMANDS) + ")"


def tui_parser() -> argparse.ArgumentParser:
    """The TUI's flags, with the overview of every command as its help text."""
    p = build_tui_parser()
    p.usage = USAGE
    p.description = OVERVIEW.format(commands="\n".join(f"  {name:<10}  {line}" for name, line in COMMANDS.items()))
    return p


def cmd_help(argv: Sequence[str]) -> int:
    """`tui-agent help [COMMAND]`: the overview, or the command's own --help."""
    if not argv:
        tui_parser().print_help()
        return 0
    if argv[0] not in COMMANDS or argv[0] == "help":
        if argv[0] == "help":
            tui_parser().print_help()
            return 0
        raise UsageError(f"help: no command {argv[0]!r}; the commands are {', '.join(COMMANDS)}")
    return dispatch([argv[0], *argv[1:], "--help"])


def refuse_without_terminal() -> None:
    """The TUI draws on a terminal and reads keys from one; without it, it could only spin."""
    from tui_agent.cli.serve import use_served_driver

    if use_served_driver():  # started by `tui-agent serve`: it draws in a browser over pipes
        return
    missing = [name for name, stream in (("input", sys.stdin), ("output", sys.stdout))
               if stream is None or not stream.isatty()]
    if missing:
        raise UsageError(f"the TUI needs a terminal, but standard {' and '.join(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not one. To research without a terminal, "
                         "run it headless: tui-agent run \"QUESTION\" --yes (add --json for one JSON object)")


def cmd_tui(argv: Sequence[str]) -> int:
    ns = tui_parser().parse_args(argv)
    settings = settings_from(ns)
    resume = None
    if ns.resume:
        if ns.question:
            raise UsageError("give either a QUESTION or --resume ID, not both")
        store = open_store(settings)
        resume = resolve_id(store, ns.resume)  # a unique prefix is enough; an ambiguous one lists them
        if not store.get_session(resume).resumable:
            row = store.get_session(resume)
            raise UsageError(f"session {resume} is {row.shown_status}; fork it to continue: "
                             f"tui-agent sessions fork {resume} --at STEP")
        store.close()
    refuse_without_terminal()  # after the arguments' own errors, before anything starts
    # Read by Textual when it is imported (next line): its frame rate is a setting of ours.
    os.environ.setdefault("TEXTUAL_FPS", str(settings.max_fps))
    # No garbage collection while the app's modules load and its first frame is drawn: they make
    # objects that live as long as the process, and a full collection over them (with Textual's
    # and pydantic's) is a tenth of the time to the first frame. The app turns it back on then.
    gc.disable()
    from tui_agent.app.leaving import run_app

    return run_app(settings, ns.question, resume=resume, config_file=ns.config_file)


def dispatch(argv: list[str]) -> int:
    command = argv[0] if argv else None
    if command == "run":
        from tui_agent.cli.run import cmd_run

        return cmd_run(argv[1:])
    if command == "sessions":
        from tui_agent.cli.sessions import main as sessions_main

        return sessions_main(argv[1:])
    if command == "read":
        from tui_agent.cli.read import main as read_main

        return read_main(argv[1:])
    if command == "eval":
        from tui_agent.cli.eval import main as eval_main

        return eval_main(argv[1:])
    if command == "tools":
        from tui_agent.cli.tools import main as tools_main

        return tools_main(argv[1:])
    if command == "serve":
        from tui_agent.cli.serve import main as serve_main

        return serve_main(argv[1:])
    if command == "help":
        return cmd_help(argv[1:])
    return cmd_tui(argv)


def _exit_code(exc: SystemExit) -> int:
    """argparse's --help and errors end in SystemExit; keep its code so the pipe is flushed here."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    sys.stderr.write(f"{exc.code}\n")
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        try:
            code = dispatch(argv)
        except SystemExit as exc:
            code = _exit_code(exc)
        except UsageError as exc:
            from tui_agent.settings.shown import text  # the last net: a message never shows a secret

            sys.stderr.write(f"tui-agent: {text(str(exc))}\n")
            code = EXIT_USAGE
        sys.stdout.flush()  # here, not at interpreter exit: a closed pipe is caught below
    except BrokenPipeError:
        # The reader went away (`| head`). Python's recipe: point stdout at devnull so the flush at
        # exit does not fail again, and end quietly with the status a shell reports for SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        code = EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
