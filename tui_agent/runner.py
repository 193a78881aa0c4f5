"""Wiring one run: store, tools, HTTP client, engine. Shared by the headless CLI and the TUI."""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from tui_agent.config import Settings
from tui_agent.engine import BreakpointHook, Engine, RunState
from tui_agent.session.events import Event
from tui_agent.llm import LLM
from tui_agent.session.store import Store, new_session_id
from tui_agent.tools.base import SourceRegistry, ToolRegistry


class Run:
    """One research run; ``engine`` is available once ``start`` has been called."""

    def __init__(
        self,
        settings: Settings,
        question: str,
        *,
        store: Store | None,
        approver: Any,
        listeners: list[Callable[[Event], None]] | None = None,
        session_id: str | None = None,
        before_call: BreakpointHook | None = None,
        llm: LLM | None = None,
        state: RunState | None = None,
        sources: SourceRegistry | None = None,
        system_prompt: str | None = None,
        replay: Any = None,
        parent_id: str | None = None,
        fork_step: int | None = None,
        tools: ToolRegistry | None = None,
        http: Any = None,
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
        self.sources = sources
        self.system_prompt = system_prompt
        self.replay = replay
        self.parent_id = parent_id
        self.fork_step = fork_step
        # Injected tools (tests, embedders) bring their own HTTP client (``http``), if they need one.
        self.tools = tools
        self.http = http
        self.engine: Engine | None = None
        self.store_error: str | None = None
        self._submit_early = False

    def _emit(self, event: Event) -> None:
        if self.store is not None:
            try:
                self.store.append(event)
            except Exception as exc:  # noqa: BLE001 - a full disk must not end the run silently
                if self.store_error is None:
                    self.store_error = f"could not save to the session database: {exc}"
        for listener in self.listeners:
            listener(event)

    async def start(self) -> dict[str, Any]:
        if self.tools is None:
            from tui_agent.tools import build_registry
            from tui_agent.web.net import make_client

            tools, client = build_registry(self.settings), make_client(self.settings)
        else:
            tools, client = self.tools, contextlib.nullcontext(self.http)
        if self.store is not None and self.state is None:
            self.store.create_session(self.session_id, self.question, self.settings.model or "",
                                      self.settings.summary(), self.parent_id, self.fork_step)
        async with client as http:
            self.engine = Engine(
                self.settings, self.question, tools=tools, llm=self.llm,
                approver=self.approver, emit=self._emit, session_id=self.session_id, http=http,
                state=self.state, sources=self.sources, before_call=self.before_call,
                system_prompt=self.system_prompt, replay=self.replay,
            )
            if self._submit_early:
                self.engine.request_submit()
            return await self.engine.run()

    def request_submit(self) -> None:
        """Submit now; before the engine exists the request is kept for it."""
        if self.engine is not None:
            self.engine.request_submit()
        else:
            self._submit_early = True
