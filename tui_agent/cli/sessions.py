"""`tui-agent sessions list|show|export|fork|delete|verify|doctor`: stored sessions.

``list`` shows each id's short form, its random part (``--full-ids`` for the whole ids); wherever
an id is taken, the full id, a unique prefix (as git takes commit ids) or a unique suffix is
enough, and an ambiguous one lists the candidates. ``list``, ``show`` and ``export`` open the
database read-only. Unknown ids and a damaged database give a clear message saying what to do,
and exit 2; ``doctor`` checks the database and salvages what is readable.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from tui_agent.cli.common import (
    Parser, UsageError, add_common, add_setting_flags, open_store, prepare_resume, resolve_id, settings_from,
)
from tui_agent.exit_codes import EXIT_NO_ANSWER
from tui_agent.cli.run import run_headless
from tui_agent.cli.verify import add_parser as add_verify_parser, cmd_verify


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="tui-agent sessions", description="Stored sessions.")
    sub = p.add_subparsers(dest="action", required=True, metavar="{list,show,export,fork,delete,verify,doctor}")
    lst = sub.add_parser("list", help="list sessions (ids in their short form: any unique part of an id is taken)")
    lst.add_argument("--filter", help="only sessions whose question contains this text")
    lst.add_argument("--full-ids", action="store_true", help="print ids in full")
    add_common(lst)
    show = sub.add_parser("show", help="show a session's steps")
    show.add_argument("id")
    add_common(show)
    exp = sub.add_parser("export", help="export a session as a Markdown report, JSON or JSONL")
    exp.add_argument("id")
    exp.add_argument("--format", choices=["md", "json", "jsonl"], default="md")
    exp.add_argument("-o", "--output", help="file to write (default: standard output)")
    add_setting_flags(exp, "otel", "otel_content")  # --otel: send its spans instead, with their original times
    add_common(exp)
    fork = sub.add_parser("fork", help="new session from the events before STEP, then continue it")
    fork.add_argument("id")
    fork.add_argument("--at", type=int, required=True, metavar="STEP", help="the step to make again")
    fork.add_argument("--yes", "-y", dest="auto_approve", action="store_const", const=True,
                      help="continue headless, approving every tool call")
    fork.add_argument("--json", action="store_true", help="headless: print the result as JSON")
    fork.add_argument("--live-tools", action="store_true",
                      help="run tools live instead of replaying the parent's recorded observations")
    fork.add_argument("--no-continue", action="store_true", help="only create the fork and print its id")
    add_common(fork)
    delete = sub.add_parser("delete", help="delete a session and its events")
    delete.add_argument("id")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    add_common(delete)
    add_verify_parser(sub)
    doctor = sub.add_parser("doctor", help="check the session database; --recover salvages a damaged one")
    doctor.add_argument("--recover", action="store_true",
                        help="copy every readable row into a fresh database, keeping the damaged file beside it")
    add_common(doctor)
    return p


def _store(ns: argparse.Namespace):
    """The store, read-only: the commands that use this only read."""
    return open_store(settings_from(ns), read_only=True)


def shown_ids(rows: list, full: bool) -> dict[str, str]:
    """Each row's id as a list shows it: the short form, unless another row shares it."""
    from tui_agent.session.store import short_id

    if full:
        return {r.id: r.id for r in rows}
    shorts = Counter(short_id(r.id) for r in rows)
    return {r.id: short_id(r.id) if shorts[short_id(r.id)] == 1 else r.id for r in rows}


def cmd_list(ns: argparse.Namespace) -> int:
    from tui_agent.cli.headless import clean
    from tui_agent.session.store import StoreError

    store = _store(ns)
    try:
        rows = store.list_sessions()
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    if ns.filter:
        rows = [r for r in rows if ns.filter.lower() in r.question.lower()]
    if not rows:
        print(f"no sessions in {store.path}")
        return 0
    ids = shown_ids(rows, ns.full_ids)
    width = max(2, *(len(i) for i in ids.values()))
    print(f"{'ID':<{width}}  {'CREATED':<16}  {'STATUS':<13}  {'STEPS':>5}  {'COST':>9}  {'MODEL':<24}  QUESTION")
    for r in team_order(rows):
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created))
        status = r.shown_status
        cost = f"${r.cost_usd:.4f}" if r.cost_usd is not None else "-"
        question = clean(r.question).replace("\n", " ")
        if r.team_parent:  # a team research's sub-agent, under its parent
            question = f"└ #{r.team_agent} {question.removeprefix('Your sub-question: ')}"
        fork = f" (fork of {r.parent_id} at {r.fork_step})" if r.parent_id else ""
        print(f"{ids[r.id]:<{width}}  {created:<16}  {status:<13}  {r.steps:>5}  {cost:>9}  {clean(r.model)[:24]:<24}  "
              f"{question[:80]}{fork}")
    return 0


def team_order(rows: list) -> list:
    """Each team research's sub-agents right after it, by number (a sub-agent whose parent is not
    listed stays where it is)."""
    listed = {r.id for r in rows}
    children: dict[str, list] = {}
    for r in rows:
        if r.team_parent and r.team_parent in listed:
            children.setdefault(r.team_parent, []).append(r)
    out = []
    for r in rows:
        if r.team_parent and r.team_parent in listed:
            continue
        out.append(r)
        out += sorted(children.get(r.id, []), key=lambda c: c.team_agent or 0)
    return out


def cmd_show(ns: argparse.Namespace) -> int:
    from tui_agent.cli.headless import TracePrinter
    from tui_agent.session.store import StoreError

    store = _store(ns)
    sid = resolve_id(store, ns.id)
    try:
        events = store.events(sid)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    printer = TracePrinter(sys.stdout)
    from tui_agent.cli.team_trace import TeamLines, show_children

    lines = TeamLines(printer)
    for e in events:
        printer(e)
        lines(e)
    show_children(store, sid, sys.stdout)
    return 0


def cmd_export(ns: argparse.Namespace) -> int:
    from tui_agent.session.exports import export
    from tui_agent.session.store import StoreError

    settings = settings_from(ns)
    store = open_store(settings, read_only=True)
    sid = resolve_id(store, ns.id)
    if settings.otel:
        return _export_otel(settings, store, sid)
    try:
        text = export(store.events(sid), ns.format)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    if ns.output:
        try:
            Path(ns.output).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {ns.output}: {exc}") from None
        print(ns.output, file=sys.stderr)
    else:
        if sys.stdout.isatty():  # a terminal: page text must not reorder what a person reads
            from tui_agent.safety.hygiene import terminal_safe

            text = terminal_safe(text)
        sys.stdout.write(text)
    return 0


def _export_otel(settings: Any, store: Any, sid: str) -> int:
    """``sessions export ID --otel``: the stored session's spans (its team sub-agents' too), sent
    with their original times."""
    from tui_agent.cli.otel import open_tracing
    from tui_agent.session.store import StoreError

    tracing = open_tracing(settings)
    try:
        tracing.export(store.events(sid), children=store.events)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    finally:
        sent = tracing.close()
    print(f"{sent} spans of session {sid} sent to {tracing.endpoint}", file=sys.stderr)
    return 0 if sent else EXIT_NO_ANSWER


def _tools_block(settings: Any) -> str:
    """The prompt's tools block as a run's would be: the MCP servers are started to list their
    tools (and stopped); one that cannot start is named on stderr and left out, as in a run."""
    import asyncio

    from tui_agent.tools import listed_registry

    registry, problems = asyncio.run(listed_registry(settings))
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    return registry.prompt_block()


def cmd_fork(ns: argparse.Namespace) -> int:
    from tui_agent.session.resume import ResumeError, fork

    settings = settings_from(ns)
    store = open_store(settings)
    ns.id = resolve_id(store, ns.id)
    prompt = None
    if ns.system_prompt_file:
        prompt = Path(ns.system_prompt_file).expanduser().read_text(encoding="utf-8")
        from tui_agent.protocol import render_system_prompt

        prompt = render_system_prompt(prompt, _tools_block(settings))
    try:
        new_id = fork(store, ns.id, ns.at, prompt)
    except ResumeError as exc:
        raise UsageError(str(exc)) from None
    print(new_id, file=sys.stderr if not ns.no_continue else sys.stdout)
    if ns.no_continue:
        return 0
    ns.system_prompt_file = None  # already applied to the fork
    if not ns.auto_approve and sys.stdin.isatty() and sys.stdout.isatty():
        from tui_agent.app.leaving import run_app

        return run_app(settings, None, resume=new_id)
    resumed = prepare_resume(store, new_id, ns)
    return run_headless(resumed.settings, resumed.question, store, resumed.run_kwargs(), json_out=ns.json,
                        config_file=getattr(ns, "config_file", None))


def cmd_delete(ns: argparse.Namespace) -> int:
    from tui_agent.session.store import StoreError

    store = open_store(settings_from(ns))
    ns.id = resolve_id(store, ns.id)
    try:
        row = store.get_session(ns.id)
        if not ns.yes:
            if not sys.stdin.isatty():
                raise UsageError("refusing to delete without confirmation; pass --yes")
            answer = input(f"delete session {row.id} ({row.question[:60]!r})? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("not deleted")
                return 1
        store.delete_session(ns.id)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    print(f"deleted {ns.id}")
    return 0


def cmd_doctor(ns: argparse.Namespace) -> int:
    """Exit 0: the database is sound (or was salvaged); 1: it is not, and what to do is printed."""
    from tui_agent.session.doctor import advice_for, diagnose, recover

    data_dir = settings_from(ns).resolved_data_dir()
    found = diagnose(data_dir)
    if found.ok:
        print(f"{found.path}: ok · {found.sessions} sessions · {found.events} events · integrity check passed")
        return 0
    if not found.path.exists():
        print(f"{found.path}: {found.problems[0]}")
        return 0
    print(f"{found.path}: damaged:\n" + "\n".join(f"  {p}" for p in found.problems))
    if not ns.recover:
        print(advice_for(found))
        return EXIT_NO_ANSWER
    try:
        done = recover(data_dir)
    except (OSError, sqlite3.DatabaseError) as exc:
        raise UsageError(f"the salvage failed: {exc}; the damaged file is unchanged. Move it aside and start "
                         f"afresh: mv {found.path} {found.path}.broken") from None
    copied = " · ".join(f"{n} {table}" for table, n in done.copied.items()) or "nothing"
    lost = " · ".join(f"{table}: {n} damaged stretch(es) skipped" for table, n in done.unreadable.items())
    print(f"salvaged {copied} into {done.path}" + (f" ({lost})" if lost else ""))
    print(f"the damaged file is kept as {done.kept_as}")
    return 0


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(argv)
    handlers = {"list": cmd_list, "show": cmd_show, "export": cmd_export, "fork": cmd_fork, "delete": cmd_delete,
                "verify": cmd_verify, "doctor": cmd_doctor}
    from tui_agent.session.store import StoreError

    try:
        return handlers[ns.action](ns)
    except UsageError:
        raise
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    except sqlite3.DatabaseError as exc:  # a damaged database must not end in a traceback
        from tui_agent.session.store_open import store_error

        raise UsageError(str(store_error(settings_from(ns).resolved_data_dir() / "sessions.sqlite3", exc,
                                         "read"))) from None
