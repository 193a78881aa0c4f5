"""What the app's held objects (``ModelSetup``, ``Flows``) need from the app: a declared seam
instead of a mixin's unwritten contract. ``ResearchApp`` satisfies it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui_agent.app.decisions import Decisions
    from tui_agent.app.flows import Flows
    from tui_agent.app.phases import Phase
    from tui_agent.app.controller import RunController
    from tui_agent.config import Settings
    from tui_agent.screens.main import MainScreen
    from tui_agent.core.fold import SessionState
    from tui_agent.session.store import Store


class AppHost(Protocol):
    settings: Settings
    session: SessionState
    main: MainScreen | None
    question: str | None
    starting_note: str | None
    phase: Phase
    control: RunController
    decisions: Decisions
    flows: Flows
    detect: Callable[[], tuple[str | None, str | None]] | None
    verifying: bool
    fixed_session_id: str | None
    resume: str | None
    store: Store | None
    config_file: str | None
    run_kwargs: dict[str, Any]
    tools: Any
    clock: Callable[[], float] | None
    bridge: Any
    last_result: dict[str, Any] | None
    pending: Any
    paused: Any

    # Textual's App
    screen: Screen
    screen_stack: list[Screen]
    workers: Any

    def notify(self, message: str, **kw: Any) -> None: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
    def pop_screen(self) -> Any: ...
    def run_worker(self, work: Any, **kw: Any) -> Any: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...
    def refresh_bindings(self) -> None: ...
    def set_focus(self, widget: Any) -> Any: ...
    def exit(self, result: Any = None, return_code: int = 0) -> None: ...

    # the app's own
    def run_active(self) -> bool: ...
    def retrying(self) -> bool: ...
    def exit_code(self) -> int: ...
    def next_setup_step(self) -> None: ...
    def start_run(self, question: str, settings: Settings, *, resume_id: str | None = None) -> None: ...
    def open_store(self, settings: Settings) -> Any: ...
    def refresh_gauge(self) -> None: ...
    def note(self, text: str | None) -> None: ...
    def use_settings(self, settings: Settings) -> None: ...
