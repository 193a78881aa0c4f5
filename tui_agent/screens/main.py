"""The main screen: header, question, gauge, Thought / Action / Observation / Answer panes and
the list of calls. It renders the app's folded session state (``session.fold.SessionState``),
never talks to the engine, and owns its action table (``screens/main_keys.py``, actions in ``screens/main_actions.py``).

Rendering is a function of the state, the step being viewed and the pending approval: a resumed
or forked session (its stored events folded first) looks exactly as a live one would.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer

from tui_agent.app.actions import bindings, button
from tui_agent.screens.main_actions import MainActions
from tui_agent.screens.main_keys import MAIN_ACTIONS
from tui_agent.screens.trace_text import (
    NO_CALL, action_content, final_answer, no_answer, observation_markdown, pending_content, running_calls, shown,
)
from tui_agent.session.events import (
    ActionProposed, AnswerEvent, ApprovalModeChanged, ApprovalRequested, Correction, Decision, Event, ForcedAnswer,
    ModelCallEnded, ModelCallStarted, Observation, Purpose, Retry, RunEnded, RunStarted,
)
from tui_agent.session.fold import SessionState, new_state
from tui_agent.session.live import ANSWER, CALL, THOUGHT, Part
from tui_agent.widgets.header import QuestionBar, StatusHeader
from tui_agent.widgets.token_gauge import GaugeFigures, TokenGauge
from tui_agent.widgets.trace_panes import MarkdownPane, StreamingText

if TYPE_CHECKING:
    from tui_agent.widgets.approval_bar import ActionPane, ArgumentEditor
    from tui_agent.widgets.step_list import StepList

# How often the Observation pane's "running for m:ss" of a call under way is refreshed (seconds).
RUNNING_TICK_S = 1.0


class MainScreen(MainActions, Screen):
    AUTO_FOCUS = None
    BINDINGS = bindings(MAIN_ACTIONS.values())

    def __init__(self, question: str | None = None, model: str = "", session_id: str = "", *,
                 auto: bool = False, breakpoint: bool = False, gauge: GaugeFigures | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(id="main")
        self.clock = clock  # when a call was first seen running (injectable: tests move it)
        self._running_since: dict[str, float] = {}
        self._gauge = gauge
        self._flags = (auto, breakpoint)
        self._question = question
        self._model = model
        self._session_id = session_id
        self.session: SessionState = new_state(session_id, question or "", model)
        self.view_step: int | None = None  # None: follow the live step
        self._shown_thought_step: int | None = None
        self._live_answer_step: int | None = None  # the step whose answer streams into the pane
        self._pending: Any = None
        self.ready = asyncio.Event()
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
        self.set_interval(RUNNING_TICK_S, self._tick_running, name="running-clock")

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
        await self.query_one("#right").mount(ActionPane(approval, id="action"), StepList(id="steps"))
        await self.query_one("#meters").mount(button(MAIN_ACTIONS["submit_now"], disabled=not self.app.run_active()))  # type: ignore[attr-defined]
        await self.mount(Footer(compact=True))
        self.query_one("#observation").border_title = "Observation"
        self.query_one("#answer").border_title = "Answer"
        self.query_one("#action").border_title = "Action"
        self.query_one("#steps").border_title = "Calls"
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

    # -- a session ------------------------------------------------------------------------------
    def reset(self, session: SessionState) -> None:
        """Show ``session`` from scratch: a new run, or a resumed or forked one with its history."""
        self.session = session
        self.view_step = None
        self._shown_thought_step = None
        self._live_answer_step = None
        self._pending = None
        self._running_since = {}
        if not self.ready.is_set():
            return  # _mount_panes renders it
        self.header.model = session.model
        self.header.session_id = session.session_id
        self.set_question(session.question)
        self.thought.set_text("")
        self.query_one("#observation", MarkdownPane).set_markdown("*No observation yet.*")
        self.query_one("#answer", MarkdownPane).set_markdown("")
        self.query_one("#lower", ContentSwitcher).current = "observation"
        self.set_class(False, "-answer")
        self.steps.reset()
        for call in session.calls.values():
            self.steps.upsert(call)
        self.action.set_mode("none")
        self.action.show(Content.styled(NO_CALL, "$text-muted italic"))
        self.refresh_view()
        self.update_header()

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
        for b in self.query("#submit_now"):
            b.disabled = not self.app.run_active()  # type: ignore[attr-defined]

    def set_gauge(self, figures: GaugeFigures) -> None:
        self.query_one(TokenGauge).set_figures(figures)

    # -- streaming --------------------------------------------------------------------------------
    def on_stream(self, step: int, pieces: list[tuple[Part, str]]) -> None:
        if self.view_step is not None or not self.ready.is_set():
            return
        if self._shown_thought_step != step:
            self._show_thought(step)
            return  # _show_thought rendered the text so far, these pieces included
        for kind, text in pieces:
            if kind == THOUGHT:
                self.thought.append(shown(text))
            elif kind == CALL and self._pending is None:
                rec = self.session.step_state(step)
                self.action.show(Content.assemble(("Writing a tool call…\n", "italic $text-muted"),
                                                  shown(rec.live_call)))
            elif kind == ANSWER:
                self._stream_answer(step, text)

    def _stream_answer(self, step: int, text: str) -> None:
        """A streamed answer is appended to the pane as plain text (never re-rendered whole) and
        rendered as Markdown once it is complete; the first piece of a step's answer, or the first
        after the pane showed something else, shows all of it so far."""
        if self.session.answer is not None:
            return
        if self._live_answer_step == step:
            self.query_one("#answer", MarkdownPane).append(shown(text))
            return
        if self.view_step is not None:
            return
        rec = self.session.step_state(step)
        pane = self.query_one("#answer", MarkdownPane)
        pane.border_title = "Answer (arriving…)"
        pane.stream(shown(rec.live_answer))
        self.query_one("#lower", ContentSwitcher).current = "answer"
        self.set_class(True, "-answer")
        self._live_answer_step = step

    # -- events -------------------------------------------------------------------------------------
    def show_event(self, e: Event) -> None:
        """Called by the app after its state has folded ``e``."""
        if not self.ready.is_set():
            return
        live = self.view_step is None
        if isinstance(e, (RunStarted, RunEnded, ForcedAnswer, ModelCallStarted, Decision, ApprovalRequested,
                          ApprovalModeChanged)):
            self.update_header()
        match e:
            case RunStarted():
                self.set_question(self.session.question)
            case ModelCallStarted():
                self._live_answer_step = None  # the call streams from the start
                if live:
                    self._show_thought(e.step)
                    self._show_action(e.step)
            case ModelCallEnded() if live or self.view_step == e.step:
                rec = self.session.step_state(e.step)
                if shown(rec.thought).strip() != self.thought.text.strip():
                    self.thought.set_text(shown(rec.thought))
                    self.thought.scroll_end(animate=False)
                self._show_action(e.step)
            case ActionProposed() | Decision() | Observation() | ApprovalRequested():
                self._show_call(e, live)
            case Retry():
                self._live_answer_step = None  # the retried call streams again from the start
                if live and e.step == self._shown_thought_step:
                    self._show_thought(e.step)
            case Correction() if live:
                self._show_observation(self._observation_step())
            case AnswerEvent():
                self._show_final_answer()
            case RunEnded():
                self._pending = None
                self.action.set_mode("none")
                if self.session.answer is None:
                    self._show_no_answer()
                elif live:
                    self._show_final_answer()
                if live:
                    latest = self.session.latest_step
                    self._show_action(latest.number if latest else 0)

    def _show_call(self, e: ActionProposed | Decision | Observation | ApprovalRequested, live: bool) -> None:
        call = self.session.calls.get(e.call_id)
        if call is not None:
            self.steps.upsert(call)
            if live:
                self.steps.show_step(None)
        if live:
            self._show_action(e.step)
            if not isinstance(e, ApprovalRequested):
                self._show_observation(self._observation_step())

    # -- approvals -------------------------------------------------------------------------------------
    def show_pending(self, request: Any) -> None:
        self._pending = request
        self.view_step = None
        call = self.session.calls.get(request.call_id)
        if call is not None:
            self.steps.upsert(call)
        self.refresh_view()
        self.action.set_mode("pending")
        self.update_header()

    def clear_pending(self) -> None:
        self._pending = None
        self.action.set_mode("none")
        latest = self.session.latest_step
        self._show_action(latest.number if latest else 0)
        self.update_header()

    # -- steps ------------------------------------------------------------------------------------------
    def _observation_step(self) -> int | None:
        for n in reversed(self.session.step_numbers):
            rec = self.session.steps[n]
            if rec.calls or rec.corrections:
                return n
        return None

    def move(self, delta: int) -> None:
        numbers = self.session.step_numbers
        if not numbers:
            return
        current = self.view_step if self.view_step is not None else numbers[-1]
        index = (numbers.index(current) if current in numbers else len(numbers) - 1) + delta
        if index >= len(numbers) - 1 and delta > 0:
            self.view_step = None
        else:
            self.view_step = numbers[max(0, index)]
        self.refresh_view()

    def go_to(self, step: int) -> None:
        numbers = self.session.step_numbers
        self.view_step = None if not numbers or step == numbers[-1] else step
        self.refresh_view()

    def refresh_view(self) -> None:
        latest = self.session.latest_step
        if latest is None or not self.ready.is_set():
            return
        step = self.view_step if self.view_step is not None else latest.number
        self._show_thought(step)
        self._show_action(step)
        if self.view_step is None:
            self.steps.show_step(None)
            if self.session.answer is not None:
                self._show_final_answer()
            elif self.session.ended is not None:
                self._show_no_answer()
            else:
                self._show_observation(self._observation_step())
        else:
            self.steps.show_step(step)
            self._show_observation(step)

    def _title_suffix(self, step: int | None) -> str:
        if step is None:
            return ""
        numbers = self.session.step_numbers
        if self.view_step is not None and step in numbers:
            return f" · step {step} of {numbers[-1]} · history (→ back to live)"
        return f" · step {step}"

    def _show_thought(self, step: int) -> None:
        rec = self.session.steps.get(step)
        self._shown_thought_step = step
        title = "Thought" + self._title_suffix(step)
        if rec is not None and rec.purpose == Purpose.FORCED:
            title += " · forced answer"
        self.thought.border_title = title
        self.thought.set_text(shown(rec.shown_thought) if rec else "")
        if self.view_step is None:
            self.thought.scroll_end(animate=False)

    def _show_action(self, step: int) -> None:
        pane = self.action
        if self._pending is not None:
            pane.border_title = "Action · waiting for you"
            pane.show(pending_content(self._pending))
            return
        rec = self.session.steps.get(step)
        pane.border_title = "Action" + self._title_suffix(step if rec else None)
        pane.show(action_content(rec, self.session.forced_reason))

    def _show_observation(self, step: int | None) -> None:
        self._live_answer_step = None
        self.query_one("#lower", ContentSwitcher).current = "observation"
        self.set_class(False, "-answer")
        pane = self.query_one("#observation", MarkdownPane)
        pane.border_title = "Observation" + self._title_suffix(step)
        rec = self.session.steps.get(step) if step is not None else None
        pane.set_markdown(observation_markdown(rec, self._running_for(rec)) if rec else "*No observation yet.*")

    def _running_for(self, rec: Any) -> dict[str, float]:
        """Seconds each call of ``rec`` under way has been running (since this screen saw it start)."""
        if rec is None or self.session.ended is not None:
            return {}
        now = self.clock()
        return {c.call_id: now - self._running_since.setdefault(c.call_id, now) for c in running_calls(rec)}

    def _tick_running(self) -> None:
        """Keep the elapsed time of a call under way current in the Observation pane."""
        if not self.ready.is_set() or self.session.ended is not None or self.has_class("-answer"):
            return
        step = self.view_step if self.view_step is not None else self._observation_step()
        rec = self.session.steps.get(step) if step is not None else None
        if rec is not None and running_calls(rec):
            self._show_observation(step)

    def _show_final_answer(self) -> None:
        shown_answer = final_answer(self.session)
        if shown_answer is not None:
            self._show_answer(*shown_answer)

    def _show_no_answer(self) -> None:
        if self.session.ended is not None:
            self._show_answer(*no_answer(self.session.ended))

    def _show_answer(self, markdown: str, title: str) -> None:
        if self.view_step is not None:
            return
        self._live_answer_step = None
        pane = self.query_one("#answer", MarkdownPane)
        pane.border_title = title
        pane.set_markdown(markdown, top=True)
        self.query_one("#lower", ContentSwitcher).current = "answer"
        self.set_class(True, "-answer")
