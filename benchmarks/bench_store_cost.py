"""Store cost per eval case, old against new, side by side in one run (issue 17: "eval store cost
per case halved").

CASES different cases of ``bench_eval_overhead.py`` (3 tool calls of ~1,000 tokens, then an answer: 26 events
each) are recorded once with the current code; then each checkout given appends the same events to
a fresh database, in a child process whose ``sys.path`` starts at that checkout: ``create_session``
and one ``Store.append`` per event, as a run does (``batch_steps=True`` where the store has it, as
``tui-agent eval`` opens it; each old checkout is run both ways). SQL/case counts the statements
SQLite ran (its trace callback, in a second, untimed pass), commits/case the transactions;
CPU ms/case is the child's process time (user + system) over the same appends, less hit by other load. The rule sets are compiled before the clock starts (a one-time cost,
printed apart).

    git -C . archive 040fdbc | (mkdir -p /tmp/old040 && tar -x -C /tmp/old040)
    .venv/bin/python benchmarks/bench_store_cost.py --old /tmp/old040 [--old OTHER] [--cases 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def record(path: Path, cases: int) -> None:
    """``cases`` different cases of bench_eval_overhead (each question, tool argument, source and
    observation its own), run with the store of this checkout; their stored events as JSON."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import bench_eval_overhead as be
    from bench_engine import make_texts
    from tui_agent.agent.runner import Run
    from tui_agent.session.store import Store
    from tui_agent.tools.base import ToolRegistry

    d = tempfile.mkdtemp()
    s, store = be.settings(d), Store(Path(d))
    tool = be.TextTool(make_texts(be.STEPS * cases, be.OBS_TOKENS))
    llm = be.ConversationLLM(s)
    for case in be.cases(cases):
        asyncio.run(Run(s, case.question, store=store, approver=None, tools=ToolRegistry([tool]), llm=llm).start())
    sessions = sorted(store.list_sessions(), key=lambda r: r.created)
    path.write_text(json.dumps([[r.question, list(store.event_dicts(r.id))] for r in sessions]))


def measure(root: str, events_file: str, cases: int, batch: bool) -> None:
    """Child: append the recorded cases with the store found at ``root``."""
    sys.path.insert(0, root)
    from tui_agent.safety import hygiene
    from tui_agent.core.events import event_from_dict
    from tui_agent.session.store import Store

    recorded = json.loads(Path(events_file).read_text())
    t0 = time.perf_counter()
    hygiene.redact("warm up: " + "ghp_" + "a1B2c3D4e5F6" * 3)  # compiles the rules of this checkout
    compile_ms = (time.perf_counter() - t0) * 1000
    with tempfile.TemporaryDirectory() as d:
        kwargs = {"batch_steps": True} if batch and "batch_steps" in inspect.signature(Store).parameters else {}
        store = Store(Path(d), **kwargs)

        runs = [(f"case-{i}", question, [event_from_dict({**data, "session_id": f"case-{i}"}) for data in dicts])
                for i, (question, dicts) in enumerate(recorded)]
        t0, c0 = time.perf_counter(), time.process_time()
        for sid, question, events in runs:
            store.create_session(sid, question, "instant/model")
            for event in events:
                store.append(event)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        if hasattr(store, "flush"):
            store.flush()
        stored = store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        # the same appends again into a second database, counting the SQL statements (not timed)
        with tempfile.TemporaryDirectory() as d2:
            counted = Store(Path(d2), **kwargs)
            statements: list[str] = []
            counted.conn.set_trace_callback(statements.append)
            for sid, question, events in runs:
                counted.create_session(sid, question, "instant/model")
                for event in events:
                    counted.append(event)
            if hasattr(counted, "flush"):
                counted.flush()
            counted.conn.set_trace_callback(None)
            counted.close()
    print(json.dumps({"ms_case": total / len(runs) * 1000, "cpu_ms_case": cpu / len(runs) * 1000, "compile_ms": compile_ms,
                      "events": sum(len(events) for _, _, events in runs) / len(runs),
                      "stored": stored, "batched": bool(kwargs),
                      "statements": len(statements) / len(runs),
                      "commits": sum(st.startswith("COMMIT") for st in statements) / len(runs)}))


def child(root: Path, events_file: Path, cases: int, batch: bool) -> dict:
    cmd = [sys.executable, __file__, "--measure", str(root), str(events_file), str(cases)] + (["--batch"] if batch else [])
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", type=Path, action="append", default=[],
                    help="a checkout of older code (e.g. git archive 040fdbc); may be given again")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3, help="runs of each row, interleaved (median)")
    ap.add_argument("--measure", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--batch", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure[0], args.measure[1], int(args.measure[2]), args.batch)
        return
    with tempfile.TemporaryDirectory() as d:
        events_file = Path(d) / "case.json"
        record(events_file, args.cases)
        specs = []
        for old in args.old:
            specs.append((f"old: {old}", old, False))
            specs.append((f"old, batched: {old}", old, True))
        specs.append(("new, one commit per event (TUI, run)", ROOT, False))
        specs.append(("new, one commit per step (eval)", ROOT, True))
        results: dict[str, list[dict]] = {name: [] for name, _, _ in specs}
        for _ in range(args.rounds):  # rows interleaved round by round: machine noise hits them alike
            for name, root, batch in specs:
                results[name].append(child(root, events_file, args.cases, batch))
        rows = [(name, {**runs[0], "ms_case": statistics.median(r["ms_case"] for r in runs),
                        "cpu_ms_case": statistics.median(r["cpu_ms_case"] for r in runs)})
                for name, runs in results.items()]
    n_events = rows[0][1]["events"]
    print(f"{args.cases} cases of {n_events:.0f} events each (bench_eval_overhead's case); rules compiled before timing; "
          f"median of {args.rounds} rounds\n")
    base = rows[0][1]["ms_case"]
    cpu_base = rows[0][1]["cpu_ms_case"]
    print(f"{'store':<44} {'ms/case':>8} {'ms/event':>9} {'× first':>8} {'CPU ms/case':>12} {'× first':>8} "
          f"{'SQL/case':>9} {'commits/case':>13} {'compile ms':>11}")
    for name, r in rows:
        print(f"{name:<44} {r['ms_case']:>8.2f} {r['ms_case'] / n_events:>9.3f} {r['ms_case'] / base:>8.2f} "
              f"{r['cpu_ms_case']:>12.2f} {r['cpu_ms_case'] / cpu_base:>8.2f} "
              f"{r.get('statements', 0):>9.1f} {r.get('commits', 0):>13.1f} {r['compile_ms']:>11.0f}")


if __name__ == "__main__":
    main()
