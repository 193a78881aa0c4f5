"""Wiring one run: store, tools, HTTP client, engine. Shared by the headless CLI and the TUI."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING, AsyncContextManager, Callable

from tui_agent.core.approval import Approver
from tui_agent.config import Settings
from tui_agent.agent.engine import BreakpointHook, Engine, Replay, ResearchHook, RunResult
from tui_agent.model import Model
from tui_agent.core.events import ApprovalRequested, Event, Notice, NoticeLevel, RunStarted
from tui_agent.core.fold import SessionState
from tui_agent.core.sink import LogError, NotSaved, SessionLog, new_session_id
from tui_agent.tools.base import ToolRegistry

if TYPE_CHECKING:
    import httpx


class Run:
    """One research run; ``engine`` is available once ``start`` has been called."""

    def __init__(
        self,
        settings: Settings,
        question: str,
        *,
        store: SessionLog | None,
        approver: Approver | None,
        listeners: list[Callable[[Event], None]] | None = None,
        session_id: str | None = None,
        before_call: BreakpointHook | None = None,
        llm: Model | None = None,
        state: SessionState | None = None,
        system_prompt: str | None = None,
        replay: Replay | None = None,
        tools: ToolRegistry | None = None,
        http: "httpx.AsyncClient | None" = None,
        eval_label: str | None = None,
        case_id: str | None = None,
        claim_events: int | None = None,
        clock: Callable[[], float] | None = None,
        research: ResearchHook | None = None,
        agent: str = "",
    ) -> None:
        self.settings = settings
        self.question = question
        self.store = store
        self.approver = approver
        self.listeners = list(listeners or [])
        self.session_id = session_id or new_session_id()
        self.before_call = before_call
        self.llm = llm
        self.state = state
        self.system_prompt = system_prompt
        self.replay = replay
        # Injected tools (tests, embedders) bring their own HTTP client (``http``), if they need one;
        # without tools, ``http`` is the client the built-in tools use (else one for this run).
        self.tools = tools
        self.http = http
        self.clock = clock  # the engine's monotonic clock (None: time.monotonic); tests freeze it
        self.eval_label, self.case_id = eval_label, case_id  # a case of a regression set (tui-agent eval)
        self.claim_events = claim_events  # a resumed session: the stored events its state folds
        self.research = research  # a team research once the plan is approved (tui_agent.team)
        self.agent = agent  # a team's sub-agent: named on its approval requests
        self.engine: Engine | None = None
        self.store_error: str | None = None
        self.interrupted: str | None = None  # the signal that stopped the run, if one did
        self._submit_early = False
        self._auto_early: bool | None = None
        # What the UI asks before the engine exists is handed over under this lock: the UI's thread
        # must never see "no engine yet" and store a choice the engine's thread has already read.
        self._early_lock = threading.Lock()
        self._task: asyncio.Task[RunResult] | None = None
        self._tool_notices: list[str] = []  # MCP servers and plugins left out: said once the run has started

    def _emit(self, event: Event) -> None:
        if self.agent and isinstance(event, ApprovalRequested):
            event.agent = self.agent
        if self.store is not None and self.store_error is None:
            try:
                self.store.append(event)
            except Exception as exc:  # noqa: BLE001 - a full disk must not end the run silently
                # Saving stops at the first failure, so the stored session ends at a whole event
                # and stays resumable from there; the run goes on and says so at once.
                self.store_error = f"saving stopped at step {event.step}: {exc}"
                for listener in self.listeners:
                    listener(Notice(session_id=self.session_id, step=event.step, level=NoticeLevel.ERROR,
                                    text=f"{self.store_error} — the run goes on, but what follows is not saved"))
        for listener in self.listeners:
            listener(event)
        if event.durable and self.store is not None and self.store_error is not None:
            raise NotSaved(self.store_error)  # e.g. a tool call whose start is not saved does not run
        if isinstance(event, RunStarted) and self._tool_notices:
            notices, self._tool_notices = self._tool_notices, []
            for text in notices:
                self._emit(Notice(session_id=self.session_id, step=event.step, level=NoticeLevel.WARNING, text=text))

    async def start(self) -> RunResult:
        self._task = asyncio.current_task()  # type: ignore[assignment] - the task running this coroutine
        client: AsyncContextManager[httpx.AsyncClient | None]
        if self.tools is None:
            from tui_agent.tools import build_registry
            from tui_agent.web.net import make_client

            # A client given by the caller (an eval shares one across its cases) stays open after the run.
            tools = build_registry(self.settings)
            client = contextlib.nullcontext(self.http) if self.http is not None else make_client(self.settings)
        else:
            tools, client = self.tools, contextlib.nullcontext(self.http)
        if self.store is not None and self.state is not None:
            # Take the session before anything runs: of two processes resuming it, one runs.
            self.store.claim(self.session_id, seen_events=self.claim_events)
        if self.store is not None and self.state is None:
            self.store.create_session(self.session_id, self.question, self.settings.model or "",
                                      self.settings.summary(), eval_label=self.eval_label, case_id=self.case_id)
        from tui_agent.tools import close_registry, open_registry

        try:
            async with client as http:
                # MCP servers start here: the prompt is written from their tool lists.
                self._tool_notices = await open_registry(tools)
                engine = Engine(
                    self.settings, self.question, tools=tools, llm=self.llm,
                    approver=self.approver, emit=self._emit, session_id=self.session_id, http=http,
                    state=self.state, before_call=self.before_call,
                    system_prompt=self.system_prompt, replay=self.replay, research=self.research,
                    **({"clock": self.clock} if self.clock is not None else {}),
                )
                with self._early_lock:
                    self.engine = engine
                    if self._submit_early:
                        engine.request_submit()
                    if self._auto_early is not None:
                        engine.set_auto(self._auto_early)
                return await engine.run()
        finally:
            await close_registry(tools)  # MCP servers stop with the run, also when it is cancelled
            if self.store is not None and (self.interrupted or self.store_error):
                self._mark_interrupted()

    def _mark_interrupted(self) -> None:
        """Stopped by a signal, or saving stopped: what was saved stays resumable (a full disk may
        refuse even this; the next open finds the owner gone and marks it then)."""
        try:
            self.store.mark_interrupted(self.session_id)
        except LogError:
            pass

    def request_submit(self) -> None:
        """Submit now; before the engine exists the request is kept for it."""
        with self._early_lock:
            if self.engine is not None:
                self.engine.request_submit()
            else:
                self._submit_early = True

    def set_auto(self, on: bool) -> None:
        """Auto mode for this run; before the engine exists the choice is kept for it."""
        with self._early_lock:
            if self.engine is not None:
                self.engine.set_auto(on)
            else:
                self._auto_early = on

    def auto_approving(self) -> bool | None:
        """Whether this run approves calls without asking (None: not decided here yet)."""
        return self.engine.auto_approving if self.engine is not None else self._auto_early

    def interrupt(self, reason: str) -> None:
        """A signal (SIGTERM, SIGHUP) stops the run: the session is marked interrupted at once
        (and again once the engine has stopped) and stays resumable."""
        self.interrupted = reason
        if self.store is not None:
            self._mark_interrupted()
        if self._task is not None and not self._task.done():
            self._task.cancel()
