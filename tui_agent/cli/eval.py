"""`tui-agent eval`: regression sets.

  tui-agent eval SET.jsonl --label NAME [--concurrency N] [--workers N] [--shard I/N] [--system-prompt FILE]
                 [--replay LABEL] [--verify] [--json] [--router-config FILE] [--rerun-failed] [run flags]
  tui-agent eval compare LABEL_A LABEL_B [--json] [--strict]
  tui-agent eval list
  tui-agent eval merge DIR… [--label NAME]

Exit codes: 0 every case with ``expect`` passed (compare: nothing regressed), 1 a case failed
(compare: a case regressed; with --strict, or a case errored in B), 2 bad usage (a bad line in the set, an unknown label, …).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from tui_agent.cli.common import (
    CommandParser, UsageError, add_common, add_setting_flags, ensure_model, open_store, settings_from,
)
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.safety.hygiene import for_terminal as clean

ANSWER_COLUMN_CHARS = 60
AUXILIARY_NOTE = ("research tokens: the research and forced-answer calls · auxiliary tokens: tools' own model "
                  "calls (page extraction), which a --replay run does not make")


def build_run_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="tui-agent eval", description="Run a regression set: every case a labelled session.")
    p.add_argument("set", metavar="SET.jsonl", help='one case a line: {"id": …, "question": …, "expect": [regex, …]}')
    p.add_argument("--label", required=True, help="the run's name (an existing label continues its unfinished cases)")
    p.add_argument("--concurrency", type=int, default=None, help="cases at once (default 4)")
    p.add_argument("--replay", metavar="LABEL", help="answer tool calls identical to LABEL's recorded ones from "
                   "the recording (no network for them)")
    p.add_argument("--verify", action="store_true", help="check each answer's citations (sessions verify)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    add_setting_flags(p, "plan", "team", "team_concurrency")  # each case plans first; its plan is approved unasked
    add_setting_flags(p, "otel", "otel_content")  # each case's trace, sent from its stored events once the set ends
    p.add_argument("--router-config", metavar="FILE", help="a LiteLLM Router configuration (YAML or JSON "
                   "model_list) to spread calls over several deployments and keys")
    p.add_argument("--rerun-failed", action="store_true", help="with a label run before: also run again the "
                   "cases that ended in format_error or by a limit (model errors and interrupted cases always are)")
    p.add_argument("--workers", type=int, default=None, help="processes running the cases (default: the number "
                   "of cores; --concurrency is split across them; at most one per 8 cases)")
    p.add_argument("--shard", metavar="I/N", help="run only shard I of N of the set (by a stable hash of each case "
                   "id; gather the shards with: tui-agent eval merge DIR…)")
    add_common(p)
    return p


def main(argv: Sequence[str]) -> int:
    argv = list(argv)
    if argv and argv[0] == "compare":
        return cmd_compare(argv[1:])
    if argv and argv[0] == "list":
        return cmd_list(argv[1:])
    if argv and argv[0] == "merge":
        return cmd_merge(argv[1:])
    return cmd_run(argv)


# -- running a set ----------------------------------------------------------------------------


def cmd_run(argv: Sequence[str]) -> int:
    from tui_agent.evals.cases import CaseError, load_cases
    from tui_agent.evals.runs import DEFAULT_CONCURRENCY, EvalRun

    ns = build_run_parser().parse_args(argv)
    if ns.concurrency is not None and ns.concurrency < 1:
        raise UsageError("eval: --concurrency must be 1 or more")
    if ns.workers is not None and ns.workers < 1:
        raise UsageError("eval: --workers must be 1 or more")
    try:
        cases = load_cases(Path(ns.set))
    except CaseError as exc:
        raise UsageError(str(exc)) from None
    whole, shard = cases, None
    if ns.shard:
        from tui_agent.evals.shards import ShardError, parse_shard

        try:
            shard = parse_shard(ns.shard)
        except ShardError as exc:
            raise UsageError(f"eval: {exc}") from None
        cases = shard.select(whole)
    settings = settings_from(ns)
    if ns.router_config:
        from tui_agent.config import ConfigError
        from tui_agent.model.llm import load_router_config

        try:
            load_router_config(ns.router_config)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        settings.router_config = ns.router_config
    settings = ensure_model(settings)
    from tui_agent.cli.otel import open_tracing

    tracing = open_tracing(settings)  # --otel: the SDK is there (or a usage error) before any case runs
    from tui_agent.safety.redaction import start_warm_up

    start_warm_up()  # the secret rules compile (~1 s) beside the model's import
    store = open_store(settings)
    if ns.replay and store.eval_run(ns.replay) is None:
        raise UsageError(f"eval: --replay {ns.replay!r}: no eval run has that label (tui-agent eval list)")
    run = EvalRun(settings, store, ns.label, str(Path(ns.set).resolve()), ns.concurrency or DEFAULT_CONCURRENCY,
                  replay_label=ns.replay, verify=ns.verify, rerun_failed=ns.rerun_failed,
                  shard=str(shard) if shard else None, set_cases=whole)
    progress = _Progress(len(cases), sys.stderr)
    run.on_done = progress.done
    started = time.monotonic()
    from tui_agent.evals.workers import default_workers, run_in_workers

    try:
        results = asyncio.run(run_in_workers(run, cases, ns.workers or default_workers()))
    except KeyboardInterrupt:
        progress.close()
        sys.stderr.write(f"\ninterrupted: finished cases are kept; continue with the same command "
                         f"(--label {ns.label} resumes the unfinished ones)\n")
        return EXIT_NO_ANSWER
    progress.close()
    if ns.json:
        from tui_agent.session.exports import dumps

        sys.stdout.write(dumps({"label": ns.label, "cases": [r.as_json(ns.verify) for r in results]}) + "\n")
    else:
        sys.stdout.write(results_table(results, ns.verify, time.monotonic() - started))
    if tracing is not None:
        _send_traces(tracing, store, results)
    failed = [r for r in results if r.passed is False or r.error]
    return EXIT_NO_ANSWER if failed else EXIT_OK


def _send_traces(tracing: Any, store: Any, results: list[Any]) -> None:
    """``eval --otel``: every case's trace (its team's sub-agents too), from its stored events with
    their original times, by the same fold as a live run's; cases may have run in other workers."""
    for r in results:
        if r.session_id:
            tracing.export(store.events(r.session_id), children=store.events)
    sent = tracing.close()
    sys.stderr.write(f"{sent} spans of {sum(1 for r in results if r.session_id)} cases sent to {tracing.endpoint}\n")


class _Progress:
    """A progress bar on a terminal (rich), else a line per finished case."""

    def __init__(self, total: int, out: Any) -> None:
        self.out = out
        self.bar = None
        if out.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("eval"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("{task.description}"), console=Console(file=out), transient=True)
            self.task = self.bar.add_task("", total=total)
            self.bar.start()

    def done(self, result: Any, finished: int, total: int) -> None:
        verdict = {True: "passed", False: "FAILED", None: "done"}[result.passed]
        line = f"{result.id}: {verdict} ({result.termination or result.error or 'no termination'})"
        if self.bar is not None:
            self.bar.update(self.task, completed=finished, description=clean(line))
        else:
            self.out.write(f"[{finished}/{total}] {clean(line)}\n")
            self.out.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


ANSWER_PREVIEW = 100  # characters of each answer eval compare shows


def _cost(value: float | None) -> str:
    return f"${value:.4f}" if value is not None else "-"


def results_table(results: list[Any], verify: bool, wall_s: float) -> str:
    head = ["case", "passed", "termination", "calls", "research", "auxiliary", "compactions", "peak prompt", "cost",
            "time"]
    head += ["unsupported"] if verify else []
    rows = []
    for r in results:
        passed = {True: "yes", False: "NO", None: "-"}[r.passed]
        row = [r.id, passed, r.termination or ("error" if r.error else "-"), str(r.model_calls), f"{r.research_tokens:,}",
               f"{r.auxiliary_tokens:,}", str(r.compactions), f"{r.peak_prompt_tokens:,}",
               _cost(r.cost_usd), f"{r.elapsed_s:.1f}s" + (" (kept)" if r.reused else "")]
        if verify:
            row.append("-" if r.unsupported_share is None else f"{r.unsupported_share:.0%}"
                       + (" review" if r.needs_review else ""))
        rows.append([clean(c) for c in row])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    with_expect = [r for r in results if r.passed is not None]
    costs = [r.cost_usd for r in results if r.cost_usd is not None]
    lines.append("")
    lines.append(f"{sum(r.passed is True for r in with_expect)} of {len(with_expect)} cases with expectations passed"
                 f" · {sum(r.research_tokens for r in results):,} research + "
                 f"{sum(r.auxiliary_tokens for r in results):,} auxiliary tokens · {_cost(sum(costs)) if costs else 'cost unknown'}"
                 f" · {wall_s:.1f} s")
    for r in results:
        if r.error:
            lines.append(f"{clean(r.id)}: {clean(r.error)}")
    return "\n".join(lines) + "\n"


# -- comparing two runs -----------------------------------------------------------------------


def cmd_compare(argv: Sequence[str]) -> int:
    from tui_agent.evals.compare import CompareError, compare

    p = CommandParser(prog="tui-agent eval compare", description="Compare two labelled runs case by case.")
    p.add_argument("label_a")
    p.add_argument("label_b")
    p.add_argument("--json", action="store_true")
    p.add_argument("--strict", action="store_true", help="exit 1 also when a case errored in B (a model error, "
                   "an interrupted case), not only when one regressed")
    add_common(p)
    ns = p.parse_args(argv)
    store = open_store(settings_from(ns), read_only=True)
    try:
        cmp = compare(store, ns.label_a, ns.label_b)
    except CompareError as exc:
        raise UsageError(str(exc)) from None
    protocols = [label_protocol(store, label) for label in (ns.label_a, ns.label_b)]
    if ns.json:
        from tui_agent.session.exports import dumps

        sys.stdout.write(dumps({**cmp.as_json(), "protocol_a": protocols[0], "protocol_b": protocols[1]}) + "\n")
    else:
        sys.stdout.write(comparison_text(cmp, protocols))
    return EXIT_NO_ANSWER if cmp.regressions or (ns.strict and cmp.errors) else EXIT_OK


def label_protocol(store: Any, label: str) -> str:
    """The tool-calling protocol a labelled run used (runs from before the setting: tags)."""
    run = store.eval_run(label) or {}
    return str((run.get("options") or {}).get("protocol") or "tags")


def _call(call: dict[str, Any] | None) -> str:
    if call is None:
        return "(nothing)"
    import json

    return clean(f"{call['tool']} {json.dumps(call['arguments'], ensure_ascii=False)}")


def _delta(value: float | None, money: bool = False) -> str:
    if value is None:
        return "-"
    return (f"{value:+.4f}$" if money else f"{value:+,.0f}") if value else "0"


def comparison_text(cmp: Any, protocols: Sequence[str] = ()) -> str:
    lines = [f"{cmp.label_a} → {cmp.label_b}"]
    if len(set(protocols)) > 1:  # two protocols on one set (--protocol tags|native)
        lines[0] = f"{cmp.label_a} (protocol {protocols[0]}) → {cmp.label_b} (protocol {protocols[1]})"
    for c in cmp.cases:
        if c.a is None or c.b is None:
            lines.append(f"{clean(c.id)}: only in {cmp.label_a if c.b is None else cmp.label_b}")
            continue
        marks = [m for m, on in (("ERRORED", c.errored), ("REGRESSED", c.regressed), ("fixed", c.fixed),
                                 ("answer changed", c.answer_changed), ("path changed", c.path_changed)) if on] or ["same"]
        lines.append(f"{clean(c.id)}: {', '.join(marks)} · Δcalls {_delta(c.delta('model_calls'))} · Δresearch tokens "
                     f"{_delta(c.delta('research_tokens'))} · Δauxiliary tokens {_delta(c.delta('auxiliary_tokens'))}"
                     f" · Δcost {_delta(c.delta('cost_usd'), money=True)}")
        if c.errored:
            lines.append(f"    {cmp.label_b}: {clean(c.b.error or str(c.b.termination))}")
        for label, r in ((cmp.label_a, c.a), (cmp.label_b, c.b)):  # side by side: answer, sources, tokens, cost
            first = clean(" ".join((r.answer or "(no answer)").split()))[:ANSWER_PREVIEW]
            lines.append(f"    {label}: {len(r.sources)} sources · {r.total_tokens:,} tokens · {_cost(r.cost_usd)} · {first}")
        d = c.divergence()
        if d is not None:
            lines.append(f"    paths diverge at tool call {d['index'] + 1}: {cmp.label_a}: {_call(d['a'])} · "
                         f"{cmp.label_b}: {_call(d['b'])}")
    j = cmp.as_json()
    t = j["totals"]
    rerun = f" (failures, not results: running {cmp.label_b} again runs them again)" if cmp.errors else ""
    lines += ["", AUXILIARY_NOTE, f"{len(cmp.cases)} cases · {cmp.regressions} regressed · {cmp.errors} errored{rerun}"
                  f" · {cmp.fixes} fixed · "
                  f"{j['answers_changed']} answers and {j['paths_changed']} paths changed",
              f"totals {cmp.label_a} → {cmp.label_b}: calls {t['model_calls_a'] or 0} → {t['model_calls_b'] or 0} · "
              f"research tokens {t['research_tokens_a'] or 0:,} → {t['research_tokens_b'] or 0:,} · "
              f"auxiliary tokens {t['auxiliary_tokens_a'] or 0:,} → {t['auxiliary_tokens_b'] or 0:,} · "
              f"cost {_cost(t['cost_usd_a'])} → {_cost(t['cost_usd_b'])}"]
    return "\n".join(lines) + "\n"


# -- gathering shards -------------------------------------------------------------------------


def cmd_merge(argv: Sequence[str]) -> int:
    from tui_agent.evals.merge import MergeError, merge

    p = CommandParser(prog="tui-agent eval merge", description="Copy the labelled runs (shards) of other data directories "
                "into this one, for eval compare and eval list.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="a data directory where shards ran (or its sessions.sqlite3)")
    p.add_argument("--label", action="append", help="merge only this label (repeatable; default: every label)")
    add_common(p)
    ns = p.parse_args(argv)
    store = open_store(settings_from(ns))
    try:
        merged = merge(store, [Path(d) for d in ns.dirs], ns.label)
    except MergeError as exc:
        raise UsageError(str(exc)) from None
    for line in merged.lines() or ["no eval runs there"]:
        print(clean(line))
    return EXIT_OK


# -- listing runs -------------------------------------------------------------------------------


def cmd_list(argv: Sequence[str]) -> int:
    from tui_agent.evals.compare import label_results

    p = CommandParser(prog="tui-agent eval list", description="Labelled runs of regression sets.")
    add_common(p)
    ns = p.parse_args(argv)
    store = open_store(settings_from(ns), read_only=True)
    runs = store.eval_runs()
    if not runs:
        print(f"no eval runs in {store.path}")
        return EXIT_OK
    print(f"{'LABEL':<20}  {'CREATED':<16}  {'CASES':>5}  {'PASSED':>6}  {'FAILED':>6}  {'ERRORED':>7}  {'TOKENS':>9}  "
          f"{'COST':>9}  SET")
    for run in runs:
        results = label_results(store, run["label"]).values()
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(run["created"]))
        costs = [r.cost_usd for r in results if r.cost_usd is not None]
        print(f"{clean(run['label']):<20}  {created:<16}  {len(run['cases']):>5}  "
              f"{sum(r.passed is True for r in results):>6}  {sum(r.passed is False and not r.errored for r in results):>6}  "
              f"{sum(r.errored for r in results):>7}  "
              f"{sum(r.total_tokens for r in results):>9,}  {_cost(sum(costs)) if costs else '-':>9}  "
              f"{clean(run['set_path'])}")
    return EXIT_OK
