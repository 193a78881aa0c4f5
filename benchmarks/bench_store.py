"""Store figures: appending 10,000 events, listing 1,000 sessions, folding a 100-step session;
opening read-only, resolving an id by its random suffix, the resume claim, the doctor's check.

Goal (issue 5): the session list opens in under 200 ms with 1,000 sessions — here the store
side of it (query + rows); the TUI's own rendering is measured in bench_tui.py.

    .venv/bin/python benchmarks/bench_store.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui_agent.core.events import (  # noqa: E402
    ActionProposed, Decision, ModelCallEnded, ModelCallStarted, Notice, Observation, ObservationMessage,
    RunEnded, RunStarted,
)
from tui_agent.core.fold import fold  # noqa: E402
from tui_agent.session.doctor import diagnose  # noqa: E402
from tui_agent.session.store import SessionStatus, Store  # noqa: E402

OBS = ("Lorem research text about the subject with numbers 12345 and names. " * 400)[:20000]


def median_ms(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def session_events(sid: str, steps: int) -> list:
    evs = [RunStarted(session_id=sid, question="q", model="m", system_prompt="system " * 500)]
    for n in range(1, steps + 1):
        evs.append(ModelCallStarted(session_id=sid, step=n, messages=[], message_tokens=[], prompt_tokens=1000 * n,
                                    threshold=100000, context_window=131072))
        evs.append(ModelCallEnded(session_id=sid, step=n, text=f'<think>t{n}</think><tool_call>{{"name": "search", '
                                  f'"arguments": {{"query": ["q{n}"]}}}}</tool_call>', thought=f"t{n}",
                                  prompt_tokens=1000 * n, completion_tokens=50))
        evs.append(ActionProposed(session_id=sid, step=n, call_id=f"c{n}", tool="search", arguments={"query": [f"q{n}"]}))
        evs.append(Decision(session_id=sid, step=n, call_id=f"c{n}", kind="auto", arguments={"query": [f"q{n}"]}))
        evs.append(Observation(session_id=sid, step=n, call_id=f"c{n}", tool="search", arguments={"query": [f"q{n}"]},
                               text=OBS, executed=True))
        evs.append(ObservationMessage(session_id=sid, step=n, content=f"<tool_response>\n{OBS}\n</tool_response>"))
    return evs


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d))
        store.create_session("append", "q", "m")
        small = [Notice(session_id="append", text=f"event {i}") for i in range(10_000)]
        t0 = time.perf_counter()
        for e in small:
            store.append(e)
        total = (time.perf_counter() - t0) * 1000
        rows.append(("append 10,000 small events", total, total / 10_000))

        for i in range(1000):
            sid = f"s{i:04d}"
            store.create_session(sid, f"question number {i} about something", "openai/gpt-4.1-mini")
            store.append(RunEnded(session_id=sid, termination="answer", result={"tool_calls": 3, "total_tokens": 999}))
        ms = median_ms(lambda: store.list_sessions())
        rows.append(("list 1,001 sessions (all rows)", ms, None))
        ms = median_ms(lambda: Store(Path(d)).list_sessions())
        rows.append(("open database + list 1,001 sessions", ms, None))
        ms = median_ms(lambda: Store(Path(d), read_only=True).list_sessions())
        rows.append(("open read-only + list 1,001 sessions", ms, None))
        ms = median_ms(lambda: store.resolve_id("s0999"))
        rows.append(("resolve a full id", ms, None))
        ms = median_ms(lambda: store.resolve_id("0999"))
        rows.append(("resolve an id by a unique suffix (1,001 sessions)", ms, None))
        ms = median_ms(lambda: (store.claim("s0500"), store.release("s0500", SessionStatus.INTERRUPTED)))
        rows.append(("claim a session for a resume, then release it", ms, None))

        big = session_events("big", 100)
        t0 = time.perf_counter()
        store.create_session("big", "q", "m")
        for e in big:
            store.append(e)
        total = (time.perf_counter() - t0) * 1000
        rows.append((f"append a 100-step session ({len(big)} events, 20 KB observations)", total, total / len(big)))
        ms = median_ms(lambda: fold(store.events("big")))
        rows.append(("fold the 100-step session (its messages and every view)", ms, None))
        ms = median_ms(lambda: diagnose(Path(d)), runs=3)
        rows.append(("sessions doctor: integrity check of the whole database", ms, None))
        state = fold(store.events("big"))
        size = sum(len(m["content"]) for m in state.messages)
        db_mb = sum(f.stat().st_size for f in Path(d).iterdir()) / 1e6

    print(f"{'figure':<62} {'ms':>10} {'ms/event':>10}")
    for name, ms, per in rows:
        print(f"{name:<62} {ms:>10.1f} {'-' if per is None else f'{per:.3f}':>10}")
    print(f"\nfolded {len(state.messages)} messages, {size / 1e6:.1f} MB of text; database {db_mb:.1f} MB")
    print("goal: session list with 1,000 sessions under 200 ms (store side above)")


if __name__ == "__main__":
    main()
