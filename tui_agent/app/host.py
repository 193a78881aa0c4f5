"""What the app's held objects (``ModelSetup``, ``Flows``, ``Decisions``, ``RunEvents``) need from
the app: a declared seam instead of a mixin's unwritten contract. ``ResearchApp`` satisfies it.
The run itself is reached through ``handle`` (``agent.handle.RunHandle``) only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import Widget
    from textual.worker import Worker

    from tui_agent.agent.handle import Phase, RunHandle
    from tui_agent.app.flows import Flows
    from tui_agent.config import Settings
    from tui_agent.core.fold import SessionState
    from tui_agent.screens.main import MainScreen
    from tui_agent.session.store import Store
    from tui_agent.tools.base import ToolRegistry


class AppHost(Protocol):
    settings: Settings
    handle: RunHandle  # the app's run
    main: MainScreen | None
    question: str | None
    starting_note: str | None
    phase: Phase
    flows: Flows
    detect: Callable[[], tuple[str | None, str | None]] | None
    verifying: bool
    fixed_session_id: str | None
    resume: str | None
    store: Store | None
    config_file: str | None
    cli_auto: bool
    tools: ToolRegistry | None
    clock: Callable[[], float] | None
    last_result: dict[str, object] | None

    @property
    def session(self) -> SessionState: ...

    # Textual's App
    screen: Screen[object]
    screen_stack: list[Screen[object]]

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None,
               markup: bool = False) -> None: ...
    def push_screen(self, screen: Screen[object], callback: ScreenResultCallbackType[object] | None = None) -> object: ...
    def pop_screen(self) -> object: ...
    def run_worker(self, work: object, name: str | None = "", group: str = "default", description: str = "",
                   exit_on_error: bool = True, start: bool = True, exclusive: bool = False,
                   thread: bool = False) -> Worker[object]: ...
    def call_from_thread(self, callback: Callable[..., object], *args: object) -> object: ...
    def refresh_bindings(self) -> None: ...
    def set_focus(self, widget: Widget | None, scroll_visible: bool = True) -> None: ...
    def exit(self, result: int | None = None, return_code: int = 0, message: object = None) -> None: ...

    # the app's own
    def run_active(self) -> bool: ...
    def retrying(self) -> bool: ...
    def exit_code(self) -> int: ...
    def next_setup_step(self) -> None: ...
    def start_run(self, question: str, settings: Settings, *, resume_id: str | None = None) -> None: ...
    def open_store(self, settings: Settings) -> Store | None: ...
    def refresh_gauge(self) -> None: ...
