"""The app's control of one run: the engine's task, the request waiting for a decision, the
breakpoint pause, auto mode and the run's elapsed time. Held by ``ResearchApp`` (``app.control``);
it posts messages and resolves futures, and never touches a widget.

The engine runs on a thread of its own with its own asyncio loop (``engine``, a Textual thread
worker), so its model stream (litellm's per-chunk work) never holds up the app's loop, where keys
are read and the screen is drawn. Everything between the two loops crosses thread-safely: events
and requests are posted (``post_message``), futures are resolved with ``bridge.resolve``, and the
engine is steered through its thread-safe methods or ``call_in_loop``.

Its inputs are declared: ``post`` (the app's thread-safe ``post_message``) and ``breakpoint_on``
(whether every model call pauses)."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from typing import TYPE_CHECKING, Any, Callable

from textual.message import Message

from tui_agent.core.run_control import call_in_loop
from tui_agent.app.bridge import BreakpointHit, BreakpointReleased, RunFinished, resolve
from tui_agent.app.phases import warm_up

if TYPE_CHECKING:
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState

LOADING = "loading model library…"
# How long closing the app waits for a cancelled engine to record its cancellation (seconds).
ENGINE_STOP_S = 5.0
ENGINE_POLL_S = 0.02
# The cyclic garbage collector's thresholds in the TUI once the engine's libraries are loaded
# (Python's defaults are 700, 10, 10): objects freed by reference counting are unaffected.
GC_THRESHOLDS = (20_000, 50, 100)


def approve(arguments: Any, **kw: Any) -> Any:
    """An approval of a tool call with ``arguments`` (``approval.Approve``, imported when needed)."""
    from tui_agent.core.approval import Approve

    return Approve(arguments, **kw)


class RunController:
    """State and control of the current run (one at a time)."""

    def __init__(self, post: Callable[[Message], Any], breakpoint_on: Callable[[], bool]) -> None:
        self.post = post
        self.breakpoint_on = breakpoint_on
        self.research: Any = None  # the current runner.Run
        self.approver: Any = None
        self.pending: Any = None  # the ApprovalRequest waiting for a decision
        self.paused: BreakpointHit | None = None
        self.retrying = False  # the model call is being retried
        self.pause_next = False  # the inspector's "one step": pause before the next call too
        self.auto_wanted: bool | None = None  # y pressed before the engine existed
        self._auto_lock = threading.Lock()  # hands auto_wanted to the run: never stored after it was read
        self.auto_asked: bool | None = None  # y pressed, not yet taken by the engine's loop
        self.begun = False  # the run has started (its approval policy is in the session's state)
        self.elapsed = 0.0
        self._engine_loop: asyncio.AbstractEventLoop | None = None
        self._engine_task: asyncio.Task | None = None
        self._engine_done: threading.Event | None = None  # set when the engine's thread is over
        self._stopping = False

    def reset(self, elapsed: float) -> None:
        """A new run (or a resumed one, ``elapsed`` seconds in)."""
        from tui_agent.core.approval import FutureApprover
        from tui_agent.app.bridge import ApprovalAsked

        self.pending = self.paused = self.research = None
        self.pause_next = self.retrying = self.begun = False
        self.auto_asked = None
        self.elapsed = elapsed
        self.approver = FutureApprover(lambda req: self.post(ApprovalAsked(req)))

    # -- the engine's task ---------------------------------------------------------------------
    def engine(self, question: str, settings: Settings, resume_id: str | None, **kw: Any) -> Callable[[], None]:
        """The engine's thread for a new run (for a Textual thread worker): ``drive`` on an asyncio loop
        of its own. From here on ``stop_engine`` waits for it, even before the thread has started."""
        done = self._engine_done = threading.Event()
        self._stopping = False

        def run() -> None:
            try:
                if not self._stopping:
                    asyncio.run(self.drive(question, settings, resume_id, **kw))
            except asyncio.CancelledError:
                pass  # cancelled by the app (quit, closing): the run recorded its termination
            finally:
                if self._engine_done is done:  # not a newer run's
                    self._engine_loop = self._engine_task = None
                done.set()

        return run

    async def drive(self, question: str, settings: Settings, resume_id: str | None, *, run_kwargs: dict[str, Any],
                    listener: Callable[[Any], None], open_store: Callable[[Settings], Any],
                    note: Callable[[str | None], None], use_settings: Callable[[Settings], None]) -> None:
        """The engine's coroutine, on the engine's own loop (``engine``). It talks to the UI only by
        posting messages (``listener`` is the event bridge; ``note`` posts what the header says)."""
        self._engine_loop, self._engine_task = asyncio.get_running_loop(), asyncio.current_task()
        if self._stopping:  # the app closed before this thread started
            return
        try:
            note(LOADING)
            await asyncio.to_thread(warm_up, settings)  # in a thread still: a cancellation need not wait for it
            note(None)
            # litellm's module graph is huge and lives forever: keep it out of the cyclic GC's
            # full collections, which otherwise stall the UI for hundreds of milliseconds.
            gc.freeze()
            # And collect rarely: while a long reply streams, litellm's per-chunk objects and the
            # screen's strips made the collector run hundreds of times in 8 s, full collections
            # stalling both threads 50-100 ms each (measured; key p95 in tmux about halved).
            gc.set_threshold(*GC_THRESHOLDS)
            from tui_agent.config import Settings
            from tui_agent.agent.runner import Run

            store = open_store(settings)
            kwargs = dict(run_kwargs)
            if resume_id:
                from tui_agent.session.resume import prepare_resume

                # The session's own settings, overridden by what differs from the defaults now.
                defaults = Settings().summary()
                flags = {k: v for k, v in settings.summary().items() if v != defaults.get(k)}
                resumed = prepare_resume(store, resume_id, flags, here=settings)
                kwargs.update(resumed.run_kwargs())
                question, settings = resumed.question, resumed.settings
                use_settings(settings)
            if "tools" in run_kwargs:
                kwargs["tools"] = run_kwargs["tools"]
            run = Run(settings, question, store=store, approver=self.approver, listeners=[listener],
                      before_call=self.before_call, **kwargs)
            with self._auto_lock:
                self.research = run
                if self.auto_wanted is not None:
                    run.set_auto(self.auto_wanted)
            result = await run.start()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the user, the app stays open
            self.post(RunFinished(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            note(None)
        self.post(RunFinished(result))

    async def stop_engine(self, timeout: float = ENGINE_STOP_S) -> bool:
        """Cancel the engine and wait (at most ``timeout`` seconds) until its thread is done; True if it is."""
        self.cancel_engine()
        done = self._engine_done
        deadline = asyncio.get_running_loop().time() + timeout
        while done is not None and not done.is_set():
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(ENGINE_POLL_S)
        return True

    def cancel_engine(self) -> None:
        """Cancel the running engine (thread-safe); it records the ``cancelled`` termination. An engine
        whose thread has not started yet never starts."""
        self._stopping = True
        loop, task = self._engine_loop, self._engine_task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass

    async def before_call(self, messages: list[dict[str, str]], started: Any) -> list[dict[str, str]] | None:
        """The engine's breakpoint hook: pause when asked, until the inspector answers."""
        if not (self.breakpoint_on() or self.pause_next):
            return None
        self.pause_next = False
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.post(BreakpointHit(messages, started, future))
        try:
            return await future
        except asyncio.CancelledError:
            self.post(BreakpointReleased())
            raise

    def interrupt(self, name: str, store: Any, session_id: str) -> None:
        """A signal stops the run: the session is marked interrupted (by the run, else in the store)."""
        run = self.research
        if run is not None:
            call_in_loop(self._engine_loop, lambda: run.interrupt(name))  # the run's task is the engine loop's
        elif store is not None and session_id:
            store.mark_interrupted(session_id, only_if_running=True)

    # -- decisions ------------------------------------------------------------------------------
    def waiting_on(self) -> tuple[object, str, str] | None:
        """The decision that waits for the user, as (the request, its kind, what it asks); None if none."""
        if self.pending is not None:
            from tui_agent.plan.requests import ClarifyRequest, PlanRequest

            req = self.pending
            if isinstance(req, PlanRequest):
                return req, "plan", f"{len(req.plan.sub_questions)} sub-questions to approve"
            if isinstance(req, ClarifyRequest):
                return req, "clarifying questions", f"{len(req.questions)} to answer"
            return req, "tool call", f"{req.tool} {json.dumps(req.arguments, ensure_ascii=False)}"
        if self.paused is not None:
            return self.paused, "breakpoint", "paused before a model call"
        return None

    def decide(self, decision: Any) -> bool:
        """Resolve the waiting request with ``decision``; False if none waits."""
        req = self.pending
        if req is None:
            return False
        self.pending = None
        resolve(req.future, decision)
        return True

    def release(self, hit: BreakpointHit, messages: Any, step: bool) -> bool:
        """The inspector answered the pause ``hit``; False if it is no longer the pause."""
        if self.paused is not hit:
            return False
        self.pause_next = step
        self.paused = None
        resolve(hit.future, messages)
        return True

    # -- auto mode ------------------------------------------------------------------------------
    def auto_on(self, session: SessionState, cli_auto: bool) -> bool:
        """Auto mode as it applies now: the run's policy while one runs (the engine's state is ahead of
        the events still in the queue), else what the run will start with."""
        decided = self.research.auto_approving() if self.research is not None else None
        if decided is not None and session.ended is None:
            if self.auto_asked is not None and decided != self.auto_asked:
                return self.auto_asked  # the engine's thread has not taken the key yet
            self.auto_asked = None
            return decided
        if self.auto_wanted is not None:
            return self.auto_wanted
        # A resumed or forked session's stored policy is its last run's: never this run's until it starts.
        return session.approval.auto if self.begun and not session.ended else cli_auto

    def set_auto(self, on: bool, session: SessionState, active: bool) -> bool:
        """Auto mode on/off for this run; False if no run holds it."""
        with self._auto_lock:
            if self.research is not None and session.ended is None:
                self.auto_asked = on
                self.research.set_auto(on)
            elif active:
                self.auto_wanted = on  # the engine is still starting: it starts with this
            else:
                return False
        return True

    def read_elapsed(self, active: bool) -> float:
        """Seconds the run has worked: a human decision does not count; nothing runs otherwise."""
        waiting = self.pending is not None or self.paused is not None
        engine = self.research.engine if self.research is not None else None
        if active and not waiting and engine is not None and engine._loop is not None:
            self.elapsed = engine.elapsed()
        return self.elapsed
