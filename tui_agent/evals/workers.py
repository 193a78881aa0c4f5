"""Running an eval's cases in several processes: ``tui-agent eval --workers N``.

The eval's own process is worker 1; N-1 more are started with multiprocessing's *spawn* context
(no fork: the eval's process has threads). Each worker has its own event loop, HTTP client,
model client and store connection, and all of them write to the one SQLite database (WAL and a
busy timeout; a case is one session, written only by the worker running it). Cases are handed
out one at a time from a shared counter, so a worker that starts late (a spawned process imports
litellm, about a second of CPU) or draws slow cases simply takes fewer, and no case runs twice.

``--concurrency`` stays what it was, the number of cases at once: it is split across the workers
(16 over 2 workers: 8 each), so the model servers see the same load whatever ``--workers`` is,
and a provider's rate limit is met the same way. A worker costs a process start, so there are
at most ``concurrency`` workers and one per :data:`MIN_CASES_PER_WORKER` cases; a set that small
runs in the eval's process alone.

Results come back over a queue to the eval's process, which shows the progress and prints the
table as before. Ctrl-C (SIGINT, also when sent to the eval's process alone) stops every worker
(the eval sends each SIGTERM; a worker starts with SIGINT ignored, so a terminal's Ctrl-C never
cuts one mid-import): each cancels its running cases, which stay resumable under their ids; finished
cases are kept. A worker that dies (SIGKILL, out of memory) leaves its unfinished cases to the
next run of the label, and the table says so for each of them.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue as queues
import signal
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from tui_agent.evals.cases import Case

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.evals.runs import CaseResult, EvalRun

MIN_CASES_PER_WORKER = 8
"""A worker is started per this many cases at most: starting one costs about as much CPU as
running eight cases (benchmarks/bench_eval.py)."""
STOP_WAIT_S = 10.0
"""Seconds the workers get to cancel their cases after Ctrl-C before they are terminated."""
POLL_S = 0.2


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def shares(workers: int, concurrency: int, cases: int) -> list[int]:
    """Cases at once in each worker: ``concurrency`` split over the workers that are worth starting."""
    n = max(1, min(workers, concurrency, -(-cases // MIN_CASES_PER_WORKER)))
    return [concurrency // n + (1 if i < concurrency % n else 0) for i in range(n)]


@dataclass
class Job:
    """What a spawned worker needs to run its share (pickled to it)."""

    number: int
    settings: "Settings"
    label: str
    set_path: str
    concurrency: int
    replay_label: str | None
    verify: bool
    cases: list[Case]


class _Counter:
    """The next case to run, shared by every worker (a lock-protected integer in shared memory)."""

    def __init__(self, value: Any, cases: list[Case]) -> None:
        self.value, self.cases = value, cases

    def take(self) -> tuple[int, Case] | None:
        with self.value.get_lock():
            index = self.value.value
            if index >= len(self.cases):
                return None
            self.value.value = index + 1
        return index, self.cases[index]


async def run_in_workers(run: "EvalRun", cases: list[Case], workers: int) -> list["CaseResult"]:
    """``run.run(cases)`` spread over ``workers`` processes (fewer when not worth it, see the module doc)."""
    from tui_agent.evals.runs import CaseResult

    split = shares(workers, run.concurrency, len(cases))
    if len(split) == 1 or run.run_kwargs:  # injected tools or model cannot cross a process boundary
        return await run.run(cases)
    run.workers = len(split)
    run.record(cases)
    ctx = multiprocessing.get_context("spawn")
    counter = _Counter(ctx.Value("i", 0), cases)
    inbox = ctx.Queue()
    results: list[CaseResult | None] = [None] * len(cases)
    stopped: list[str] = []  # why workers stopped early
    finished = 0

    def done(index: int, result: CaseResult) -> None:
        nonlocal finished
        results[index] = result
        finished += 1
        if run.on_done is not None:
            run.on_done(result, finished, len(cases))

    procs = [ctx.Process(target=worker_main, name=f"tui-agent-eval-worker-{k}", daemon=True,
                         args=(Job(k, run.settings, run.label, run.set_path, share, run.replay_label, run.verify,
                                   cases), counter.value, inbox))
             for k, share in enumerate(split[1:], start=2)]
    # A worker starts with Ctrl-C ignored (a terminal's Ctrl-C reaches the whole process group), so
    # one still importing is never cut with a traceback; the eval stops its workers itself.
    main = threading.current_thread() is threading.main_thread()  # only there can signals be set
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        for proc in procs:
            proc.start()
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    loop = asyncio.get_running_loop()
    children_done = loop.create_future()
    reader = threading.Thread(target=_read, args=(inbox, procs, loop, done, stopped, children_done),
                              name="eval-results", daemon=True)
    reader.start()
    try:
        def own(index: int, result: CaseResult) -> None:
            result.worker = 1
            done(index, result)

        await run.serve(counter.take, own, slots=split[0])
        await children_done
    finally:
        _stop(procs)
    why = "; ".join(dict.fromkeys(stopped)) or "it stopped"
    return [r if r is not None else CaseResult(c.id, None, c.question, error=f"not finished: the worker process "
                                              f"running it stopped ({why}); run the same command again to resume it")
            for c, r in zip(cases, results)]


def _read(inbox: Any, procs: list[Any], loop: asyncio.AbstractEventLoop, done: Callable[[int, Any], None],
          stopped: list[str], children_done: asyncio.Future) -> None:
    """The eval's thread that takes the workers' results off the queue and hands them to its loop,
    until every worker has said it exited or is gone."""
    exited: set[int] = set()

    def hand_over(fn: Callable[..., Any], *args: Any) -> None:
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the eval's loop has closed (it was interrupted): nobody waits for this
            pass

    while True:
        try:
            item = inbox.get(timeout=POLL_S)
        except queues.Empty:
            if all(not p.is_alive() for p in procs):
                for p in procs:
                    if p.exitcode not in (0, None) and p.pid not in exited:
                        stopped.append(f"worker exit code {p.exitcode}")
                break
            continue
        except (EOFError, OSError):
            break
        match item:
            case ("result", index, result):
                hand_over(done, index, result)
            case ("exit", pid, error):
                exited.add(pid)
                if error:
                    stopped.append(error)
                if len(exited) == len(procs):
                    break
    hand_over(lambda: children_done.done() or children_done.set_result(None))


def _stop(procs: list[Any]) -> None:
    """Ask every live worker to stop (SIGTERM: it cancels its cases, or ends at once while it is
    still starting), then make sure it has."""
    alive = [p for p in procs if p.is_alive()]
    for p in alive:
        try:
            os.kill(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for p in alive:
        p.join(STOP_WAIT_S)
        if p.is_alive():
            p.terminate()
            p.join(STOP_WAIT_S)


# -- inside a spawned worker ------------------------------------------------------------------

_stop_requested: list[int] = []


def _early_signal(signum: int, frame: Any) -> None:
    _stop_requested.append(signum)


def worker_main(job: Job, value: Any, outbox: Any) -> None:
    """A spawned worker: run cases from the shared counter until there are none left, each result
    sent to the eval's process; a signal cancels the running cases (they stay resumable)."""
    signal.signal(signal.SIGINT, _early_signal)  # until the loop runs (then they cancel the cases)
    signal.signal(signal.SIGTERM, _early_signal)
    error = None
    try:
        asyncio.run(_serve(job, _Counter(value, job.cases), outbox))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    except Exception as exc:
        error = f"worker {job.number}: {type(exc).__name__}: {exc}"
    outbox.put(("exit", os.getpid(), error))
    outbox.close()
    outbox.join_thread()


async def _serve(job: Job, counter: _Counter, outbox: Any) -> None:
    from tui_agent.evals.runs import EvalRun
    from tui_agent.safety.redaction import start_warm_up
    from tui_agent.session.store import Store

    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    if _stop_requested:
        return
    start_warm_up()
    store = Store(job.settings.resolved_data_dir())
    try:
        store.batch_steps = True
        run = EvalRun(job.settings, store, job.label, job.set_path, job.concurrency, replay_label=job.replay_label,
                      verify=job.verify)

        def done(index: int, result: Any) -> None:
            result.worker = job.number
            outbox.put(("result", index, result))

        await run.serve(counter.take, done)
    finally:
        store.close()
