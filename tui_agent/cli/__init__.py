"""Command line: parse arguments, pick the front end.

  tui-agent [QUESTION] [flags]              the TUI
  tui-agent run QUESTION [flags]            headless run (trace on stderr, answer on stdout)
  tui-agent run --resume ID [flags]         continue a session
  tui-agent sessions list|show|export|fork|delete|verify …
  tui-agent read URL […]                    what the model would read
  tui-agent eval SET.jsonl --label NAME …   a regression set; eval compare A B; eval list
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from tui_agent.cli.common import UsageError, build_tui_parser, open_store, resolve_id, settings_from
from tui_agent.cli.exit_codes import EXIT_USAGE


def cmd_tui(argv: Sequence[str]) -> int:
    ns = build_tui_parser().parse_args(argv)
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
    from tui_agent.app.leaving import run_app

    return run_app(settings, ns.question, resume=resume, config_file=ns.config_file)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        if argv and argv[0] == "run":
            from tui_agent.cli.run import cmd_run

            code = cmd_run(argv[1:])
        elif argv and argv[0] == "sessions":
            from tui_agent.cli.sessions import main as sessions_main

            code = sessions_main(argv[1:])
        elif argv and argv[0] == "read":
            from tui_agent.cli.read import main as read_main

            code = read_main(argv[1:])
        elif argv and argv[0] == "eval":
            from tui_agent.cli.eval import main as eval_main

            code = eval_main(argv[1:])
        else:
            code = cmd_tui(argv)
    except UsageError as exc:
        sys.stderr.write(f"tui-agent: {exc}\n")
        code = EXIT_USAGE
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
