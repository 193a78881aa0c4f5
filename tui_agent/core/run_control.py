"""What the engine and its tool runner share while a run goes: Submit now, and the run's one clock.

The clock (monotonic, injectable) gives the run's elapsed time, human waits excluded (frozen while
a person decides, so it never goes back), and every event's timestamp: the wall time read once at
the start, advanced by the same monotonic clock, never before the session's latest event (a
resumed run continues the times of the stored one).
"""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")
Clock = Callable[[], float]


class SubmitRequested(Exception):
    """Submit now was requested while something was in flight."""


class RunControl:
    def __init__(self, clock: Clock = time.monotonic, wall: Clock = time.time, *, elapsed_before: float = 0.0,
                 last_ts: float = 0.0) -> None:
        self.clock = clock
        self.submit = asyncio.Event()
        self._elapsed_before = elapsed_before
        self._start: float | None = None
        self._waited = 0.0
        self._wait_start: float | None = None
        self._mono0 = clock()
        self._wall0 = wall()
        self._last_ts = last_ts

    # -- the clock ------------------------------------------------------------------------------
    def start(self) -> None:
        self._start = self.clock()

    @property
    def started(self) -> bool:
        return self._start is not None

    def elapsed(self) -> float:
        """The run's time so far (the stored runs' included), without the time people took to decide."""
        if self._start is None:
            return self._elapsed_before
        now = self.clock()
        waited = self._waited + (now - self._wait_start if self._wait_start is not None else 0.0)
        return self._elapsed_before + max(0.0, now - self._start - waited)

    def timestamp(self) -> float:
        """An event's time: wall time from the one monotonic clock, never before the previous event's."""
        ts = max(self._last_ts, self._wall0 + (self.clock() - self._mono0))
        self._last_ts = ts
        return ts

    # -- Submit now ------------------------------------------------------------------------------
    def request_submit(self) -> None:
        self.submit.set()

    @property
    def submitted(self) -> bool:
        return self.submit.is_set()

    async def race(self, coro: Awaitable[T]) -> T:
        """Run ``coro`` unless Submit now arrives first (then cancel it and raise SubmitRequested)."""
        task = asyncio.ensure_future(coro)
        if self.submit.is_set():
            task.cancel()
            raise SubmitRequested()
        waiter = asyncio.ensure_future(self.submit.wait())
        try:
            done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            waiter.cancel()
            raise
        if task in done:
            waiter.cancel()
            return task.result()
        task.cancel()
        try:
            await task
        except BaseException:  # noqa: BLE001 - the cancelled call's outcome is irrelevant now
            pass
        raise SubmitRequested()

    async def human(self, coro: Awaitable[T]) -> T:
        """Await a person; the wait does not count against the time gate (nor show on the clock)."""
        self._wait_start = self.clock()
        try:
            return await self.race(coro)
        finally:
            self._waited += self.clock() - self._wait_start
            self._wait_start = None


def call_in_loop(loop: asyncio.AbstractEventLoop | None, fn: Callable[[], None]) -> None:
    """Call ``fn`` in ``loop`` (safe from any thread): now when on that loop or when it is not running."""
    if loop is None or not loop.is_running():
        fn()
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        fn()
    else:
        loop.call_soon_threadsafe(fn)
