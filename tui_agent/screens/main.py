"""The main screen: header, question, gauge, Thought / Action / Observation / Answer panes and
the list of calls. It shows the app's folded session state (``session.fold.SessionState``)
through its ``TraceView`` (``screens/trace_view.py``), never talks to the engine, and its actions
come from one table (``screens/main_keys.py``). The actions change the UI and hand decisions to
the app (``ResearchApp.decide``, ``submit_now``, ``app.flows``, ``app.models``), which resolves
the futures the engine awaits; they never call into a running engine themselves.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.signal import Signal
from textual.widgets import ContentSwitcher, Footer, Input, TextArea

from tui_agent.app.actions import bindings, button, palette_commands
from tui_agent.screens.main_approvals import ApprovalInput
from tui_agent.screens.main_keys import MAIN_ACTIONS, available
from tui_agent.screens.trace_text import NO_CALL, shown
from tui_agent.screens.trace_view import TraceView
from tui_agent.core.events import (
    AnswerEvent, ClarifyAnswered, Event, PlanDecided, PlanProposed, RunEnded, RunStarted,
)
from tui_agent.core.fold import SessionState, new_state
from tui_agent.core.live import Part
from tui_agent.widgets.compositor import LeanCompositor
from tui_agent.widgets.header import QuestionBar, StatusHeader
from tui_agent.widgets.token_gauge import GaugeFigures, TokenGauge
from tui_agent.widgets.trace_panes import MarkdownPane, StreamingText

if TYPE_CHECKING:
    from textual.widgets import Button, Input

    from tui_agent.widgets.approval_bar import ActionPane, ArgumentEditor
    from tui_agent.widgets.step_list import StepList

# The events after which the plan pane shows the session again.
# the events after which the plan pane shows something new (sub-question statuses follow the answer)
PLAN_SHOWN = (PlanProposed, PlanDecided, ClarifyAnswered, AnswerEvent, RunStarted, RunEnded)
# How often the Observation pane's "running for m:ss" of a call under way is refreshed (seconds).
RUNNING_TICK_S = 1.0


class MainScreen(Screen):
    AUTO_FOCUS = None
    BINDINGS = bindings(MAIN_ACTIONS.values())

    def __init__(self, question: str | None = None, model: str = "", session_id: str = "", *,
                 auto: bool = False, breakpoint: bool = False, gauge: GaugeFigures | None = None,
                 clock: Callable[[], float] = time.monotonic, lean_compositor: bool = True) -> None:
        super().__init__(id="main")
        if lean_compositor:
            self._compositor = LeanCompositor()  # a partial update draws only what it shows
        self._gauge = gauge
        self._flags = (auto, breakpoint)
        self._question = question
        self._model = model
        self._session_id = session_id
        self.view = TraceView(self, new_state(session_id, question or "", model), clock)
        self.approvals = ApprovalInput(self)  # what the approval keys do with the call that waits
        self.ready = asyncio.Event()
        # Published after the app folded an event (or loaded a session): views of the state follow it.
        self.state_changed: Signal[Event | None] = Signal(self, "state-changed")
        self.first_frame_at: float | None = None

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        header = StatusHeader(id="header")
        header.model, header.session_id = self._model, self._session_id
        header.auto, header.breakpoint = self._flags
        yield header
        bar = QuestionBar(id="question")
        bar.set_question(self._question)
        yield bar
        with Horizontal(id="meters"):
            gauge = TokenGauge(id="gauge")
            if self._gauge is not None:
                gauge.figures = self._gauge
            yield gauge
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield StreamingText(id="thought", placeholder="The model's thinking appears here as it streams.")
                yield ContentSwitcher(id="lower")
            yield Vertical(id="right")

    def on_mount(self) -> None:
        self.query_one("#thought").border_title = "Thought"
        # The first frame shows the header, the question and the gauge at once; the heavier
        # panes (Markdown, the list of calls, the action pane) are mounted right after it.
        self.call_after_refresh(self._painted)
        self.call_after_refresh(self._mount_panes)
        self.set_interval(RUNNING_TICK_S, self.view.tick_running, name="running-clock")

    def _painted(self) -> None:
        self.first_frame_at = time.perf_counter()

    async def _mount_panes(self) -> None:
        from tui_agent.widgets.approval_bar import ActionPane
        from tui_agent.widgets.step_list import StepList

        lower = self.query_one("#lower", ContentSwitcher)
        answer = MarkdownPane("", id="answer")
        answer.display = False  # ContentSwitcher hides only children it had when mounted
        await lower.mount(MarkdownPane("*No observation yet.*", id="observation"), answer)
        lower.current = "observation"
        approval = [MAIN_ACTIONS[n] for n in ("approve", "edit", "reject", "always")]
        from tui_agent.widgets.plan_pane import PlanPane

        await self.query_one("#right").mount(PlanPane(id="plan"), ActionPane(approval, id="action"),
                                             StepList(id="steps"))
        self.query_one(PlanPane).show(self.session)
        await self.query_one("#meters").mount(button(MAIN_ACTIONS["submit_now"], disabled=not self.app.run_active()))  # type: ignore[attr-defined]
        await self.mount(Footer(compact=True))
        for pane, title in (("#observation", "Observation"), ("#answer", "Answer"), ("#action", "Action"),
                            ("#steps", "Calls")):
            self.query_one(pane).border_title = title
        self.action.show(Content.styled(NO_CALL, "$text-muted italic"))
        self.ready.set()
        if self.session.steps:
            self.reset(self.session)
        self.app.panes_ready()  # type: ignore[attr-defined]

    # -- widgets --------------------------------------------------------------------------------
    @property
    def header(self) -> StatusHeader:
        return self.query_one(StatusHeader)

    @property
    def thought(self) -> StreamingText:
        return self.query_one("#thought", StreamingText)

    @property
    def action(self) -> "ActionPane":
        return self.query_one("#action")  # type: ignore[return-value]

    @property
    def editor(self) -> "ArgumentEditor":
        return self.query_one("#arg-editor")  # type: ignore[return-value]

    @property
    def steps(self) -> "StepList":
        return self.query_one("#steps")  # type: ignore[return-value]

    def set_question(self, question: str | None) -> None:
        self._question = question
        self.query_one(QuestionBar).set_question(shown(question) if question else question)

    def update_header(self) -> None:
        h = self.header
        app = self.app
        h.state = app.status_label()  # type: ignore[attr-defined]
        # Before a run, the model it will use (configured, found or chosen), not "—".
        h.model = self.session.model or app.settings.model or h.model  # type: ignore[attr-defined]
        h.session_id = self.session.session_id or h.session_id
        h.auto = app.auto_on()  # type: ignore[attr-defined]
        h.breakpoint = app.breakpoint  # type: ignore[attr-defined]
        h.waited = app.decisions.waited()  # type: ignore[attr-defined]
        if (b := self.query_one_optional("#submit_now")) is not None:
            b.disabled = not self.app.run_active()  # type: ignore[attr-defined]

    def update_waiting(self) -> None:
        """The clock's tick: how long the decision has waited (and the bell when it is time). The
        tick may come while the app closes and the header is already gone: then nothing to show."""
        if (header := self.query_one_optional(StatusHeader)) is not None:
            header.waited = self.app.decisions.waited()  # type: ignore[attr-defined]

    def set_gauge(self, figures: GaugeFigures) -> None:
        """The gauge shows ``figures``. Kept for a gauge composed later; the clock's tick may come
        while the app closes and the gauge is already gone (then nothing to show)."""
        self._gauge = figures
        if (gauge := self.query_one_optional(TokenGauge)) is not None:
            gauge.set_figures(figures)

    # -- the trace panes (``self.view``) ----------------------------------------------------------
    @property
    def session(self) -> SessionState:
        return self.view.session

    @property
    def view_step(self) -> int | None:
        return self.view.view_step

    def reset(self, session: SessionState) -> None:
        self.view.reset(session)
        self._show_plan()
        self.state_changed.publish(None)

    def show_event(self, e: Event) -> None:
        self.view.show_event(e)
        if isinstance(e, PLAN_SHOWN):
            self._show_plan()
        self.state_changed.publish(e)

    def _show_plan(self) -> None:
        if (pane := self.query_one_optional("#plan")) is not None:
            pane.show(self.session)  # type: ignore[attr-defined]

    def on_stream(self, step: int, pieces: list[tuple[Part, str]]) -> None:
        self.view.on_stream(step, pieces)

    def show_pending(self, request: Any) -> None:
        self.view.show_pending(request)  # its title says when the call is outside the approved plan

    def clear_pending(self) -> None:
        self.view.clear_pending()

    def refresh_view(self) -> None:
        self.view.refresh_view()

    # -- actions (keys, palette, buttons: ``MAIN_ACTIONS``) -------------------------------------------
    ACTIONS = MAIN_ACTIONS

    # -- availability (footer, palette, buttons) ------------------------------------------------
    def _mode(self) -> str:
        # query_one(_optional) is looked up in Textual's cache; query() walks the screen (~0.14 ms),
        # and this runs on every key and for the footer.
        if not self.ready.is_set() or self.query_one_optional("#action") is None:
            return "none"
        mode = self.action.mode()
        if mode in ("edit", "reject"):
            return mode
        return "pending" if self.app.pending is not None else "none"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return available(action, self._mode(), self.app, self.session, self._typing())

    def commands(self) -> Iterable[Any]:
        return palette_commands(self, self.ACTIONS.values())

    # -- approvals -------------------------------------------------------------------------------
    def _typing(self) -> bool:
        return isinstance(self.focused, (Input, TextArea))

    def action_approve(self) -> None:
        self.approvals.approve()

    def action_always(self) -> None:
        self.approvals.approve(always=True)

    async def action_edit(self) -> None:
        await self.approvals.edit()

    def action_approve_edit(self) -> None:
        self.approvals.approve_edit()

    async def action_reject(self) -> None:
        await self.approvals.reject()

    def on_input_submitted(self, event: "Input.Submitted") -> None:
        if event.input.id == "reject-reason":
            event.stop()
            self.approvals.rejected(event.value)

    def action_cancel_input(self) -> None:
        self.approvals.cancel_input(self._mode())

    def on_button_pressed(self, event: "Button.Pressed") -> None:
        ids = {"approve-edit": "approve_edit", "cancel-edit": "cancel_input"}
        name = ids.get(event.button.id or "", event.button.id or "")
        if name in self.ACTIONS:
            event.stop()
            self.call_later(self.run_action, name)

    # -- control ---------------------------------------------------------------------------------
    def action_toggle_auto(self) -> None:
        self.app.decisions.toggle_auto()

    def action_submit_now(self) -> None:
        if self.check_action("submit_now", ()):
            self.app.decisions.submit_now()

    def action_toggle_breakpoint(self) -> None:
        self.app.breakpoint = not self.app.breakpoint
        self.update_header()

    def action_plan_mode(self) -> None:
        from tui_agent.core.plan_state import next_mode

        self.app.settings.plan = next_mode(self.app.settings.plan)
        self.notify(f"Plan mode {self.app.settings.plan}: from the next question on", title="Plan mode")

    def action_inspect(self) -> None:
        prompt = self.session.last_prompt
        if prompt is None:
            self.notify("No model call yet.")
            return
        from tui_agent.screens.inspector import InspectorScreen

        self.app.push_screen(InspectorScreen.of_call(prompt, paused=False))

    def action_context_view(self) -> None:
        from tui_agent.screens.context_view import ContextViewScreen

        self.app.push_screen(ContextViewScreen())

    def action_step_prev(self) -> None:
        if self._typing():
            raise SkipAction()
        self.view.move(-1)

    def action_step_next(self) -> None:
        if self._typing():
            raise SkipAction()
        self.view.move(+1)

    def on_step_list_step_chosen(self, message: Any) -> None:
        self.view.go_to(message.step)

    # -- the answer --------------------------------------------------------------------------------
    def action_copy_answer(self) -> None:
        from tui_agent.app.files import copy_answer

        copy_answer(self, self.session)

    def action_verify(self) -> None:
        self.app.flows.verify_answer()

    def action_save_answer(self) -> None:
        from tui_agent.app.files import save_answer

        save_answer(self, self.session)

    # -- new runs, screens, quitting ------------------------------------------------------------
    def action_change_model(self) -> None:
        self.app.models.change()

    def action_new_question(self) -> None:
        self.app.flows.new_question(self.app.models.change)

    def action_sessions(self) -> None:
        self.app.flows.open_sessions()

    def action_help(self) -> None:
        from tui_agent.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        await self.app.flows.quit_asking()
