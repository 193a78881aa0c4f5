"""Store cost per eval case, old against new, side by side in one run (issue 17: "eval store cost
per case halved").

CASES different cases of ``bench_eval_overhead.py`` (3 tool calls of ~1,000 tokens, then an answer: 26 events
each) are recorded once with the current code; then each checkout given appends the same events to
a fresh database, in a child process whose ``sys.path`` starts at that checkout: ``create_session``
and one ``Store.append`` per event, as a run does (``batch_steps=True`` where the store has it, as
``tui-agent eval`` opens it). The rule sets are compiled before the clock starts (a one-time cost,
printed apart).

    git -C . archive 040fdbc | (mkdir -p /tmp/old040 && tar -x -C /tmp/old040)
    .venv/bin/python benchmarks/bench_store_cost.py --old /tmp/old040 [--old OTHER] [--cases 200]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
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
    from tui_agent.session.events import event_from_dict
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
        t0 = time.perf_counter()
        for sid, question, events in runs:
            store.create_session(sid, question, "instant/model")
            for event in events:
                store.append(event)
        total = time.perf_counter() - t0
        if hasattr(store, "flush"):
            store.flush()
        stored = store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    print(json.dumps({"ms_case": total / len(runs) * 1000, "compile_ms": compile_ms,
                      "events": sum(len(events) for _, _, events in runs) / len(runs),
                      "stored": stored, "batched": bool(kwargs)}))


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
    ap.add_argument("--measure", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--batch", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure[0], args.measure[1], int(args.measure[2]), args.batch)
        return
    with tempfile.TemporaryDirectory() as d:
        events_file = Path(d) / "case.json"
        record(events_file, args.cases)
        rows = []
        for old in args.old:
            rows.append((f"old: {old}", child(old, events_file, args.cases, False)))
        rows.append(("new, one commit per event (TUI, run)", child(ROOT, events_file, args.cases, False)))
        rows.append(("new, one commit per step (eval)", child(ROOT, events_file, args.cases, True)))
    n_events = rows[0][1]["events"]
    print(f"{args.cases} cases of {n_events:.0f} events each (bench_eval_overhead's case); rules compiled before timing\n")
    base = rows[0][1]["ms_case"]
    print(f"{'store':<44} {'ms/case':>8} {'ms/event':>9} {'× first':>8} {'compile ms':>11}")
    for name, r in rows:
        print(f"{name:<44} {r['ms_case']:>8.2f} {r['ms_case'] / n_events:>9.3f} {r['ms_case'] / base:>8.2f} "
              f"{r['compile_ms']:>11.0f}")


if __name__ == "__main__":
    main()
