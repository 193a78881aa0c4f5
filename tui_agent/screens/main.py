"""The main screen: header, question, gauge, Thought / Action / Observation / Answer panes and
the list of calls. It shows its run's folded state (``handle.state``) through its ``TraceView``
(``screens/trace_view.py``); its actions come from one table (``screens/main_keys.py``). It reaches
its run only through the run's handle (``agent.handle.RunHandle``: decide, auto, Submit now); the
app's flows (``app.flows``, ``app.models``) start runs and screens. After each event the app
publishes it on ``self.regions`` (``widgets.effects``): each view redraws the regions it changes.
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
from textual.widgets import ContentSwitcher, Input, TextArea

from tui_agent.agent.handle import Request, RunHandle
from tui_agent.widgets.actions import bindings, button, palette_commands
from tui_agent.widgets.effects import Region, RegionBus
from tui_agent.screens.main_approvals import ApprovalInput
from tui_agent.screens.main_keys import MAIN_ACTIONS, available
from tui_agent.screens.tab_keys import TAB_ACTIONS, TAB_BINDINGS, TabActions
from tui_agent.screens.trace_text import NO_CALL, shown
from tui_agent.screens.trace_view import TraceView
from tui_agent.core.events import Event
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

# The regions the trace panes draw (``TraceView.show_event``).
TRACE_REGIONS = frozenset({Region.QUESTION, Region.THOUGHT, Region.ACTION, Region.OBSERVATION, Region.ANSWER,
                           Region.CALLS})
# How many long answers the Answer pane keeps rendered for the tabs shown before (widgets/trace_panes.py).
KEPT_ANSWERS = 4
# How often the Observation pane's "running for m:ss" of a call under way is refreshed (seconds).
RUNNING_TICK_S = 1.0


class MainScreen(TabActions, Screen):
    AUTO_FOCUS = None
    BINDINGS = bindings(MAIN_ACTIONS.values()) + TAB_BINDINGS

    def __init__(self, handle: RunHandle, question: str | None = None, model: str = "", session_id: str = "", *,
                 auto: bool = False, breakpoint: bool = False, gauge: GaugeFigures | None = None,
                 clock: Callable[[], float] = time.monotonic, lean_compositor: bool = True, id: str = "main") -> None:
        super().__init__(id=id)  # a team agent's view is one more (screens/agent_screen.py)
        if lean_compositor:
            self._compositor = LeanCompositor()  # a partial update draws only what it shows
        self._gauge = gauge
        self._flags = (auto, breakpoint)
        self._question = question
        self._model = model
        self._session_id = session_id
        self.handle = handle  # the run shown: the screen's only way to it
        self.view = TraceView(self, new_state(session_id, question or "", model), clock)
        self.approvals = ApprovalInput(self)  # what the approval keys do with the call that waits
        self.ready = asyncio.Event()
        # Published after the app folded an event (None: a session shown anew): each view follows its regions.
        self.regions = RegionBus()
        self.regions.subscribe({Region.HEADER}, self._header_changed)
        self.regions.subscribe(TRACE_REGIONS, self.view.show_event)
        self.regions.subscribe({Region.PLAN}, lambda _e: self._show_plan())
        self.first_frame_at: float | None = None

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        header = StatusHeader(id="header")
        header.model, header.session_id = self._model, self._session_id
        header.auto, header.breakpoint = self._flags
        yield header
        from tui_agent.widgets.tab_strip import TabStrip

        yield TabStrip(id="tabs")  # hidden while one tab is open
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
        from tui_agent.widgets.step_list import StepLists

        lower = self.query_one("#lower", ContentSwitcher)
        answer = MarkdownPane("", id="answer", keep=KEPT_ANSWERS)
        answer.display = False  # ContentSwitcher hides only children it had when mounted
        await lower.mount(MarkdownPane("*No observation yet.*", id="observation"), answer)
        lower.current = "observation"
        approval = [MAIN_ACTIONS[n] for n in ("approve", "edit", "reject", "always")]
        from tui_agent.widgets.plan_pane import PlanPane

        await self.query_one("#right").mount(PlanPane(id="plan"), ActionPane(approval, id="action"),
                                             StepLists(id="steps"))  # a list of calls per run shown
        self.query_one("#steps", StepLists).for_run(self.handle)  # this run's, empty until its first call
        self.query_one(PlanPane).show(self.session)
        await self.query_one("#meters").mount(button(MAIN_ACTIONS["submit_now"], disabled=not self.handle.active))
        from tui_agent.widgets.footer import KeysFooter

        await self.mount(KeysFooter(compact=True))  # its keys updated in place (widgets/footer.py)
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
        """The shown run's list of calls (each run shown keeps its own: ``widgets/step_list.py``)."""
        return self.query_one("#steps").for_run(self.handle)  # type: ignore[attr-defined]

    def forget_run(self, handle: RunHandle) -> None:
        """``handle``'s tab closed: its list of calls goes."""
        if (lists := self.query_one_optional("#steps")) is not None:
            lists.drop(handle)  # type: ignore[attr-defined]

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
        h.auto = self.handle.auto_on()
        h.breakpoint = app.breakpoint  # type: ignore[attr-defined]
        h.waited = app.decisions.waited()  # type: ignore[attr-defined]
        if (b := self.query_one_optional("#submit_now")) is not None:
            b.disabled = not self.handle.active

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
        self.regions.publish(None)

    def show_event(self, e: Event) -> None:
        """The app folded ``e``: every view of a region it changes redraws."""
        self.regions.publish(e)

    def _header_changed(self, e: Event | None) -> None:
        if e is not None and self.ready.is_set():
            self.update_header()

    def _show_plan(self) -> None:
        if (pane := self.query_one_optional("#plan")) is not None:
            pane.show(self.session)  # type: ignore[attr-defined]

    def on_stream(self, step: int, pieces: list[tuple[Part, str]]) -> None:
        self.view.on_stream(step, pieces)

    def show_pending(self, request: Request) -> None:
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
        return "pending" if self.approvals.pending is not None else "none"  # an agent's view: its own requests

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TAB_ACTIONS or action == "go_tab":
            return self.tab_available(action)
        return available(action, self._mode(), self.handle, self.session,
                         verifying=getattr(self.app, "verifying", False), typing=self._typing())

    def commands(self) -> Iterable[Any]:
        return palette_commands(self, [*self.ACTIONS.values(), *TAB_ACTIONS.values()])

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
        """Auto mode on/off for this run only (the next run, a resume or a fork asks again)."""
        on = not self.handle.auto_on()
        if not self.handle.set_auto(on):
            self.notify("Auto mode holds for a running session only; a new run asks again unless started with "
                        "--yes.", severity="warning")
            return
        self.header.auto = on

    def action_submit_now(self) -> None:
        if self.check_action("submit_now", ()) and self.app.team.choose("submit"):
            return  # a team runs: the focused agent or all agents (app/team_front.py)
        if self.check_action("submit_now", ()) and self.handle.submit_now():
            self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")

    # -- the team (app/team_front.py) --------------------------------------------------------------
    def action_team_mode(self) -> None:
        self.app.team.toggle_mode()

    def action_team_pane(self) -> None:
        if (pane := self.query_one_optional("#team")) is not None:
            pane.focus()

    def action_stop_agent(self) -> None:
        self.app.team.choose("stop")

    def on_team_pane_agent_chosen(self, message: Any) -> None:
        self.app.team.open(message.number)

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

        self.app.push_screen(InspectorScreen.of_call(prompt, paused=False, handle=self.handle, regions=self.regions))

    def action_context_view(self) -> None:
        from tui_agent.screens.context_view import ContextViewScreen

        self.app.push_screen(ContextViewScreen(handle=self.handle, regions=self.regions))

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
        from tui_agent.screens.files import copy_answer

        copy_answer(self, self.session)

    def action_verify(self) -> None:
        self.app.flows.verify_answer()

    def action_save_answer(self) -> None:
        from tui_agent.screens.files import save_answer

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
