"""`tui-agent run`: research a question headless (trace on stderr, answer on stdout).

Signals: the first Ctrl-C is Submit now, the second cancels (the session stays resumable);
SIGTERM and SIGHUP stop the run and mark the session interrupted at once (resumable too).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any, Sequence

from tui_agent.cli.common import UsageError, build_run_parser, ensure_model, open_store, prepare_resume, settings_from
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.config import Settings

# Exit status after a stopping signal, as shells report it (128 + the signal number).
SIGNAL_EXIT_BASE = 128


def cmd_run(argv: Sequence[str]) -> int:
    ns = build_run_parser().parse_args(argv)
    if not ns.question and not ns.resume:
        raise UsageError("tui-agent run: a QUESTION (or --resume ID) is required")
    if ns.question and ns.resume:
        raise UsageError("tui-agent run: give either a QUESTION or --resume ID, not both")
    settings = settings_from(ns)
    approver_kw = plan_options(ns, settings)
    from tui_agent.safety.redaction import start_warm_up

    start_warm_up()  # the secret rules compile (~1 s) beside the model's import
    store = open_store(settings)
    if ns.resume:
        resumed = prepare_resume(store, ns.resume, ns)
        return run_headless(resumed.settings, resumed.question, store, resumed.run_kwargs(), json_out=ns.json,
                            config_file=ns.config_file, approver_kw=approver_kw)
    return run_headless(settings, ns.question, store, {}, json_out=ns.json, config_file=ns.config_file,
                        approver_kw=approver_kw)


def plan_options(ns: Any, settings: Settings) -> dict[str, Any]:
    """``--approve-plan`` and ``--clarify FILE`` (which turns clarify mode on): the terminal's part."""
    answers = None
    if ns.clarify:
        from tui_agent.plan.terminal import read_answers

        try:
            answers = read_answers(ns.clarify)
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--clarify {ns.clarify}: {exc}") from None
        settings.plan = "clarify"
    return {"approve_plan": bool(ns.approve_plan), "clarify_answers": answers}


def team_research(settings: Settings, store: Any, approver: Any, tracing: Any = None) -> Any:
    """``--team``: the team's executor, its agents' steps printed prefixed by their number; plan
    mode turns on ('ask') when it is off, since the team researches the plan's sub-questions."""
    from tui_agent.cli.team_trace import agent_printers
    from tui_agent.team import TeamResearch

    if settings.plan == "off":
        settings.plan = "ask"
    printers = agent_printers(sys.stderr)
    listeners = printers if tracing is None else (lambda n: [*printers(n), *tracing.agent_listeners(n)])
    return TeamResearch(settings, store=store, approver=approver, listeners=listeners, serial_approvals=True)


def _install(loop: asyncio.AbstractEventLoop, sig: int, handler: Any) -> bool:
    try:
        loop.add_signal_handler(sig, handler)
        return True
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        return False


async def _with_signals(run: Any) -> dict[str, Any]:
    """First Ctrl-C: Submit now (answer from the evidence so far). Second: cancel the run.
    SIGTERM / SIGHUP: mark the session interrupted and stop."""
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

    installed = [s for s, h in ((signal.SIGINT, on_sigint),
                                (signal.SIGTERM, lambda: run.interrupt("SIGTERM")),
                                (signal.SIGHUP, lambda: run.interrupt("SIGHUP"))) if _install(loop, s, h)]
    try:
        return await run.start()
    finally:
        for s in installed:
            loop.remove_signal_handler(s)


def resume_hint(run: Any, store: Any, config_file: str | None = None) -> str:
    """What to tell the user when a run stops before its end: the command that continues it (with
    the data directory and config file this run used), or why there is none (saving failed)."""
    from tui_agent.settings.where import where_flags

    if store is None or run.store_error:
        why = run.store_error or "sessions are not being saved"
        return f"the session was not saved completely ({why}), so it cannot be resumed"
    return (f"the session is saved; continue it with tui-agent run --resume {run.session_id}"
            f"{where_flags(store.path.parent, config_file)}")


def run_headless(settings: Settings, question: str, store: Any, kwargs: dict[str, Any], *, json_out: bool,
                 config_file: str | None = None, approver_kw: dict[str, Any] | None = None) -> int:
    """Run (or continue) a session with the plain-terminal front end; returns the exit code.
    ``config_file``: the --config given, repeated in the printed resume command."""
    from tui_agent.cli.headless import TerminalApprover, TracePrinter, clean, render_answer
    from tui_agent.cli.otel import open_tracing
    from tui_agent.agent.runner import Run
    from tui_agent.session.exports import dumps
    from tui_agent.session.store import StoreError, short_id
    from tui_agent.session.store_open import data_dir_flag

    if not settings.auto_approve and not sys.stdin.isatty():
        raise UsageError("standard input is not a terminal, so tool calls cannot be approved; "
                         "pass --yes to approve them all")
    settings = ensure_model(settings)
    approver = TerminalApprover(notify=settings.notify, notify_after_s=settings.notify_after_s, **(approver_kw or {}))
    printer = TracePrinter(sys.stderr, live=sys.stderr.isatty())
    listeners: list[Any] = [printer]
    tracing = open_tracing(settings)  # --otel: the run's spans (the SDK is not imported otherwise)
    if tracing is not None:
        listeners.append(tracing.listener)
    if settings.team:
        kwargs = {**kwargs, "research": team_research(settings, store, approver, tracing)}
        from tui_agent.cli.team_trace import TeamLines

        listeners.append(TeamLines(printer))
    run = Run(settings, question, store=store, approver=approver, listeners=listeners, **kwargs)
    try:
        result = asyncio.run(_with_signals(run))
    except StoreError as exc:  # another process took the session first; no space to start it
        raise UsageError(str(exc)) from None
    except (KeyboardInterrupt, asyncio.CancelledError):
        how = f"stopped by {run.interrupted}" if run.interrupted else "interrupted"
        sys.stderr.write(f"\n{how}: {resume_hint(run, store, config_file)}\n")
        if run.interrupted:
            return SIGNAL_EXIT_BASE + getattr(signal, run.interrupted)
        return EXIT_NO_ANSWER
    finally:
        if tracing is not None:
            tracing.close()  # what is left is sent, waiting at most the exporter's timeout
    state = run.engine.state if run.engine else None
    if json_out:
        sys.stdout.write(dumps(result) + "\n")
    elif state is not None and state.answer is not None:
        sys.stdout.write(render_answer(state) + "\n")
    if result.get("answer") is None and state is not None and state.ended and state.ended.message:
        sys.stderr.write(f"no answer: {clean(state.ended.message)}\n")
    sys.stdout.flush()
    if run.store_error:  # the answer is shown, but the session is not saved whole: say so, exit 1
        sys.stderr.write(f"warning: the session was not saved whole ({run.store_error}); once the database can be "
                         f"written again, continue it from the last saved step: tui-agent run --resume "
                         f"{short_id(run.session_id)} {data_dir_flag(store.path)}\n")
        return EXIT_NO_ANSWER
    return EXIT_OK if result.get("answer") is not None else EXIT_NO_ANSWER
