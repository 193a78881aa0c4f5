"""`tui-agent sessions …`: list, show, export, fork and delete stored sessions."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from .cli import UsageError, open_store, settings_from, _add_common


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tui-agent sessions", description="Stored sessions.")
    sub = p.add_subparsers(dest="action", required=True)
    lst = sub.add_parser("list", help="list sessions with their ids in full")
    _add_common(lst)
    return p


def cmd_list(ns: argparse.Namespace) -> int:
    from .headless import clean

    store = open_store(settings_from(ns))
    rows = store.list_sessions()
    if not rows:
        print(f"no sessions in {store.path}")
        return 0
    print(f"{'ID':<22}  {'CREATED':<16}  {'STATUS':<13}  {'STEPS':>5}  {'COST':>9}  QUESTION")
    for r in rows:
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created))
        status = r.termination or r.status
        cost = f"${r.cost_usd:.4f}" if r.cost_usd is not None else "-"
        question = clean(r.question).replace("\n", " ")
        print(f"{r.id:<22}  {created:<16}  {status:<13}  {r.steps:>5}  {cost:>9}  {question[:80]}")
    return 0


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(argv)
    handlers = {"list": cmd_list}
    return handlers[ns.action](ns)
