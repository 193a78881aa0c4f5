"""``RunHandle``: the one typed way from a front end to a run.

A front end (the TUI's app, its screens and widgets) holds one handle per live run and steers the
run only through it: start it, follow its events, decide what it asks (a tool call, a plan,
clarifying questions), release the breakpoint with the prompt as edited, auto mode on or off,
Submit now, edit the context and propose a summary; and it reads the run's folded state
(``state``) from it. A second live run (a tab, a team's agent) is one more handle.

The run goes on a thread of its own with its own asyncio loop (``thread``), so its model stream
never holds up the front end's loop. What crosses back is handed to a ``RunSink`` (the front end's
bridge posts it as messages, thread-safely); futures are resolved with ``resolve``, which is
thread-safe too. The vocabulary the two sides share is in ``run_sink.py``. No Textual here: the
handle sits below the front end.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from typing import TYPE_CHECKING, Callable

from tui_agent.agent.run_sink import (  # noqa: F401 - the handle's vocabulary, importable from here
    Decision, Follower, Messages, Pause, Phase, Request, RunSink, RunSpec, Waiting, resolve,
)
from tui_agent.core import fold as folding
from tui_agent.core.approval import Approve, ApprovalRequest, FutureApprover, Reject, SubmitNow
from tui_agent.core.events import Event, ModelCallStarted
from tui_agent.core.fold import SessionState
from tui_agent.core.live import Part
from tui_agent.core.run_control import call_in_loop
from tui_agent.kinds import ContextEditKind

if TYPE_CHECKING:
    from tui_agent.agent.runner import Run
    from tui_agent.config import Settings
    from tui_agent.core.sink import SessionLog

LOADING = "loading model library…"
# How long closing the front end waits for a cancelled run to record its cancellation (seconds).
ENGINE_STOP_S = 5.0
ENGINE_POLL_S = 0.02
# The cyclic garbage collector's thresholds once the engine's libraries are loaded (Python's
# defaults are 700, 10, 10): objects freed by reference counting are unaffected.
GC_THRESHOLDS = (20_000, 50, 100)


def warm_up(settings: Settings | None = None) -> None:
    """Imports the engine needs, done in a thread after the first frame (litellm takes seconds;
    not imported when ``settings`` need none of it: :func:`tui_agent.model.llm.litellm_needed`)."""
    from tui_agent.model import llm
    from tui_agent.agent import runner  # noqa: F401

    llm.warm_up(settings)
    import tui_agent.tools  # noqa: F401
    import tui_agent.web.net  # noqa: F401


class RunHandle:
    """One run, as its front end holds it (one run at a time per handle; ``reset`` begins the next).

    ``sink`` receives what the run asks and says; ``breakpoint_on`` says whether every model call
    pauses; ``cli_auto`` is the auto mode a run starts with (``--yes``); ``prepare`` does the imports
    a run needs (in the run's thread; the in-memory model needs none)."""

    def __init__(self, sink: RunSink, state: SessionState, *, breakpoint_on: Callable[[], bool] = lambda: False,
                 cli_auto: bool = False, prepare: Callable[[Settings | None], None] | None = None) -> None:
        self.sink = sink
        self.breakpoint_on = breakpoint_on
        self.cli_auto = cli_auto
        self.prepare = prepare
        self._state = state
        self.phase = Phase.NONE
        self.run: Run | None = None
        self.approver = FutureApprover(self._ask)
        self.pending: Request | None = None  # the request waiting for a decision
        self.paused: Pause | None = None
        self.retrying = False  # the model call is being retried
        self.pause_next = False  # the inspector's "one step": pause before the next call too
        self.auto_wanted: bool | None = None  # y pressed before the engine existed
        self._auto_lock = threading.Lock()  # hands auto_wanted to the run: never stored after it was read
        self.auto_asked: bool | None = None  # y pressed, not yet taken by the engine's loop
        self.begun = False  # the run has started (its approval policy is in the state)
        self.elapsed = state.elapsed_s
        self._followers: list[Follower] = []
        self._decided: list[Callable[[], None]] = []
        self._engine_loop: asyncio.AbstractEventLoop | None = None
        self._engine_task: asyncio.Task | None = None
        self._engine_done: threading.Event | None = None  # set when the run's thread is over
        self._stopping = False

    # -- the folded state (read-only to the front end; the front end's thread folds into it) -----------
    @property
    def state(self) -> SessionState:
        return self._state

    def apply(self, e: Event) -> None:
        """Fold an event the front end received (on its own thread, in the order the run emitted)."""
        folding.apply(self._state, e)

    def stream(self, step: int, text: str, reasoning: bool) -> list[tuple[Part, str]]:
        self.retrying = False
        return folding.stream(self._state, step, text, reasoning)

    @property
    def active(self) -> bool:
        """A run is starting or under way."""
        if self.phase is Phase.FAILED:
            return False
        return self.phase is Phase.STARTING or self._state.active

    # -- following ------------------------------------------------------------------------------------
    def follow(self, follower: Follower) -> None:
        """Every event of this handle's runs goes to ``follower`` (on the run's thread), in order."""
        self._followers.append(follower)

    def on_decided(self, callback: Callable[[], None]) -> None:
        """``callback`` runs (on the deciding thread) after each decision the handle resolved."""
        self._decided.append(callback)

    def _ask(self, request: ApprovalRequest) -> None:
        self.sink.asked(request)

    # -- a run's life -----------------------------------------------------------------------------------
    def reset(self, state: SessionState) -> None:
        """A new run (or a resumed one) showing ``state``."""
        self._state = state
        self.phase = Phase.STARTING
        self.pending = self.paused = self.run = None
        self.pause_next = self.retrying = self.begun = False
        self.auto_asked = None
        self.elapsed = state.elapsed_s
        self.approver = FutureApprover(self._ask)

    def started(self) -> None:
        """The run's ``RunStarted`` was folded: the fold's status says where it stands from here on."""
        self.phase = Phase.NONE
        self.auto_wanted = None  # the run's policy is in the state from here on
        self.begun = True

    def failed(self) -> None:
        self.phase = Phase.FAILED

    def thread(self, question: str, settings: Settings, spec: RunSpec) -> Callable[[], None]:
        """The run's thread (for a thread worker): ``drive`` on an asyncio loop of its own. From here
        on ``stop`` waits for it, even before the thread has started."""
        done = self._engine_done = threading.Event()
        self._stopping = False

        def run() -> None:
            try:
                if not self._stopping:
                    asyncio.run(self.drive(question, settings, spec))
            except asyncio.CancelledError:
                pass  # cancelled by the front end (quit, closing): the run recorded its termination
            finally:
                if self._engine_done is done:  # not a newer run's
                    self._engine_loop = self._engine_task = None
                done.set()

        return run

    async def drive(self, question: str, settings: Settings, spec: RunSpec) -> None:
        """The run's coroutine, on its own loop. It talks to the front end only through the sink."""
        self._engine_loop, self._engine_task = asyncio.get_running_loop(), asyncio.current_task()
        if self._stopping:  # the front end closed before this thread started
            return
        sink = self.sink
        try:
            if self.prepare is not None:
                sink.note(LOADING)
                await asyncio.to_thread(self.prepare, settings)  # a thread still: a cancellation need not wait
                sink.note(None)
                # litellm's module graph is huge and lives forever: keep it out of the cyclic GC's
                # full collections, which otherwise stall the UI for hundreds of milliseconds.
                gc.freeze()
                # And collect rarely: while a long reply streams, litellm's per-chunk objects and the
                # screen's strips made the collector run hundreds of times in 8 s (measured).
                gc.set_threshold(*GC_THRESHOLDS)
            from tui_agent.agent.runner import Run
            from tui_agent.config import Settings

            kwargs: dict = {"session_id": spec.session_id}
            if spec.resume_id:
                if spec.prepare_resume is None:
                    raise ValueError("a resume needs RunSpec.prepare_resume (session.resume.prepare_resume)")
                # The session's own settings, overridden by what differs from the defaults now.
                defaults = Settings().summary()
                flags = {k: v for k, v in settings.summary().items() if v != defaults.get(k)}
                resumed = spec.prepare_resume(spec.store, spec.resume_id, flags, here=settings)
                kwargs.update(resumed.run_kwargs())
                question, settings = resumed.question, resumed.settings
                sink.settings_changed(settings)
            for name in ("tools", "clock", "llm", "research"):
                if getattr(spec, name) is not None:
                    kwargs[name] = getattr(spec, name)
            run = Run(settings, question, store=spec.store, approver=self.approver, listeners=[*self._followers, *spec.listeners],
                      before_call=self.before_call, **kwargs)
            with self._auto_lock:
                self.run = run
                if self.auto_wanted is not None:
                    run.set_auto(self.auto_wanted)
            result = await run.start()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the user, the front end stays open
            sink.finished(None, f"{type(exc).__name__}: {exc}")
            return
        finally:
            sink.note(None)
        sink.finished(result, None)

    async def stop(self, timeout: float = ENGINE_STOP_S) -> bool:
        """Cancel the run and wait (at most ``timeout`` seconds) until its thread is done; True if it is."""
        self.pending = None
        self.cancel()
        done = self._engine_done
        deadline = asyncio.get_running_loop().time() + timeout
        while done is not None and not done.is_set():
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(ENGINE_POLL_S)
        return True

    def cancel(self) -> None:
        """Cancel the run (thread-safe); it records the ``cancelled`` termination. A run whose
        thread has not started yet never starts."""
        self._stopping = True
        loop, task = self._engine_loop, self._engine_task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def interrupt(self, name: str, store: SessionLog | None) -> None:
        """A signal stops the run: the session is marked interrupted (by the run, else in the store)."""
        run = self.run
        if run is not None:
            call_in_loop(self._engine_loop, lambda: run.interrupt(name))  # the run's task is the run loop's
        elif store is not None and self._state.session_id:
            store.mark_interrupted(self._state.session_id, only_if_running=True)

    @property
    def store_error(self) -> str | None:
        return self.run.store_error if self.run is not None else None

    # -- the breakpoint -----------------------------------------------------------------------------------
    async def before_call(self, messages: Messages, started: ModelCallStarted) -> Messages | None:
        """The engine's breakpoint hook: pause when asked, until the front end releases it."""
        if not (self.breakpoint_on() or self.pause_next):
            return None
        self.pause_next = False
        future: asyncio.Future[Messages | None] = asyncio.get_running_loop().create_future()
        self.sink.paused(Pause(messages, started, future))
        try:
            return await future
        except asyncio.CancelledError:
            self.sink.released()
            raise

    def release(self, pause: Pause, messages: Messages | None, *, step: bool = False) -> bool:
        """Release ``pause`` with ``messages`` (None: as they were); ``step`` pauses before the next
        call too. False if it is no longer the pause."""
        if self.paused is not pause:
            return False
        self.pause_next = step
        self.paused = None
        resolve(pause.future, messages)
        return True

    # -- decisions -----------------------------------------------------------------------------------------
    def waiting_on(self) -> tuple[object, Waiting, str] | None:
        """The decision that waits for the person, as (the request, its kind, what it asks); None if none."""
        if self.pending is not None:
            from tui_agent.plan.requests import ClarifyRequest, PlanRequest

            req = self.pending
            if isinstance(req, PlanRequest):
                return req, Waiting.PLAN, f"{len(req.plan.sub_questions)} sub-questions to approve"
            if isinstance(req, ClarifyRequest):
                return req, Waiting.CLARIFY, f"{len(req.questions)} to answer"
            asks = f"{req.agent} asks: " if getattr(req, "agent", "") else ""  # a team's sub-agent names itself
            return req, Waiting.TOOL_CALL, f"{asks}{req.tool} {json.dumps(req.arguments, ensure_ascii=False)}"
        if self.paused is not None:
            return self.paused, Waiting.BREAKPOINT, "paused before a model call"
        return None

    def decide(self, decision: Decision) -> bool:
        """Resolve the waiting request with ``decision``; False if none waits."""
        req = self.pending
        if req is None:
            return False
        self.pending = None
        resolve(req.future, decision)
        for callback in self._decided:
            callback()
        return True

    def approve(self, arguments: object | None = None, **kw: bool) -> bool:
        """Approve the waiting tool call (with ``arguments`` when they were edited)."""
        req = self.pending
        if req is None:
            return False
        return self.decide(Approve(req.arguments if arguments is None else arguments, **kw))

    def reject(self, reason: str) -> bool:
        return self.decide(Reject(reason.strip() or "rejected by the user"))

    def submit_now(self) -> bool:
        """The model answers at once from the evidence so far; False when no run takes it."""
        if self.pending is not None:
            self.decide(SubmitNow())
        if self.run is None:
            return False
        self.run.request_submit()
        return True

    @property
    def can_submit(self) -> bool:
        return self.active and self.run is not None and self.run.engine is not None

    # -- auto mode -------------------------------------------------------------------------------------------
    def auto_on(self) -> bool:
        """Auto mode as it applies now: the run's policy while one runs (the engine's state is ahead of
        the events still on their way), else what the run will start with."""
        decided = self.run.auto_approving() if self.run is not None else None
        if decided is not None and self._state.ended is None:
            if self.auto_asked is not None and decided != self.auto_asked:
                return self.auto_asked  # the engine's thread has not taken the key yet
            self.auto_asked = None
            return decided
        if self.auto_wanted is not None:
            return self.auto_wanted
        # A resumed or forked session's stored policy is its last run's: never this run's until it starts.
        return self._state.approval.auto if self.begun and not self._state.ended else self.cli_auto

    def set_auto(self, on: bool) -> bool:
        """Auto mode on/off for this run (a tool call that waits is approved when it comes on);
        False if no run holds it."""
        with self._auto_lock:
            if self.run is not None and self._state.ended is None:
                self.auto_asked = on
                self.run.set_auto(on)
            elif self.active:
                self.auto_wanted = on  # the engine is still starting: it starts with this
            else:
                return False
        if on and self.pending is not None:
            self.approve(auto=True)
        return True

    def auto_approves(self, request: Request) -> bool:
        """A request that reached the front end after auto mode came on is approved at once (True)."""
        if self.run is None or not self.auto_on():
            return False
        return resolve(request.future, Approve(request.arguments, auto=True))

    # -- the context -----------------------------------------------------------------------------------------
    @property
    def context_live(self) -> bool:
        """Whether the context can be edited now (a run is under way and its engine exists)."""
        return (self.run is not None and self.run.engine is not None and self._state.ended is None
                and self.active)

    def edit_context(self, kind: ContextEditKind, target: str, text: str | None = None) -> None:
        """Drop, pin, summarise or restore a context item (the engine checks; ValueError says why not)."""
        engine = self.run.engine if self.run is not None else None
        if engine is None:
            raise ValueError("no run is under way")
        engine.edit_context(kind, target, text)

    async def propose_summary(self, target: str) -> str:
        """A summary of a context item, written by the model on the run's loop."""
        engine = self.run.engine if self.run is not None else None
        if engine is None:
            raise ValueError("no run is under way")
        return await engine.propose_summary(target)

    # -- time ---------------------------------------------------------------------------------------------------
    def read_elapsed(self) -> float:
        """Seconds the run has worked: a human decision does not count; nothing runs otherwise."""
        waiting = self.pending is not None or self.paused is not None
        engine = self.run.engine if self.run is not None else None
        if self.active and not waiting and engine is not None and engine._loop is not None:
            self.elapsed = engine.elapsed()
        return self.elapsed
