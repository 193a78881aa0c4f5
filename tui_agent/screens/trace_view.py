"""What the main screen's trace panes show: the Thought, Action, Observation and Answer panes
and the list of calls, as a function of the folded session state, the step being viewed and the
pending approval. Held by ``MainScreen`` (``screen.view``), subscribed to the regions it draws on
the screen's region bus; it dispatches events with ``match`` on their classes. A resumed or forked session (its stored events folded first) looks exactly as a
live one would."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from textual.content import Content
from textual.widgets import ContentSwitcher

from tui_agent.screens.trace_text import (
    NO_CALL, action_content, final_answer, no_answer, observation_markdown, pending_content, running_calls, shown,
)
from tui_agent.core.events import (
    ActionProposed, AnswerEvent, ApprovalRequested, Correction, Decision, Event, ModelCallEnded, ModelCallStarted,
    Observation, Purpose, Retry, RunEnded, RunStarted,
)
from tui_agent.core.fold import SessionState
from tui_agent.core.live import ANSWER, CALL, THOUGHT, Part
from tui_agent.widgets.trace_panes import MarkdownPane

if TYPE_CHECKING:
    from tui_agent.agent.handle import Request
    from tui_agent.screens.main import MainScreen


class TraceView:
    """The trace panes of ``screen`` for ``session``; ``clock`` dates when a call was first seen running."""

    def __init__(self, screen: MainScreen, session: SessionState, clock: Callable[[], float]) -> None:
        self.screen = screen
        self.session = session
        self.clock = clock  # injectable: tests move it
        self.view_step: int | None = None  # None: follow the live step
        self._running_since: dict[str, float] = {}
        self._shown_thought_step: int | None = None
        self._live_answer_step: int | None = None  # the step whose answer streams into the pane
        self._pending: Request | None = None

    # -- a session ------------------------------------------------------------------------------
    def reset(self, session: SessionState) -> None:
        """Show ``session`` from scratch: a new run, or a resumed or forked one with its history."""
        self.session = session
        self.view_step = None
        self._shown_thought_step = None
        self._live_answer_step = None
        self._pending = None
        self._running_since = {}
        if not self.screen.ready.is_set():
            return  # _mount_panes renders it
        self.screen.header.model = session.model
        self.screen.header.session_id = session.session_id
        self.screen.set_question(session.question)
        self.screen.thought.set_text("")
        # No step yet: no step numbers (a new session must not wear the last one's).
        self.screen.thought.border_title = "Thought"
        self.screen.action.border_title = "Action"
        self.screen.query_one("#observation", MarkdownPane).border_title = "Observation"
        self.screen.query_one("#observation", MarkdownPane).set_markdown("*No observation yet.*")
        self.screen.query_one("#answer", MarkdownPane).set_markdown("")
        self.screen.query_one("#lower", ContentSwitcher).current = "observation"
        self.screen.thought.set_class(False, "-answer")  # the thought only: a screen class restyles every pane
        self.screen.steps.sync(session.calls.values())  # the run's own list: only what changed since shown
        self.screen.action.set_mode("none")
        self.screen.action.show(Content.styled(NO_CALL, "$text-muted italic"))
        self.refresh_view()
        self.screen.update_header()

    # -- streaming --------------------------------------------------------------------------------
    def on_stream(self, step: int, pieces: list[tuple[Part, str]]) -> None:
        if self.view_step is not None or not self.screen.ready.is_set():
            return
        if self._shown_thought_step != step:
            self._show_thought(step)
            return  # _show_thought rendered the text so far, these pieces included
        for kind, text in pieces:
            if kind == THOUGHT:
                self.screen.thought.append(shown(text))
            elif kind == CALL and self._pending is None:
                rec = self.session.step_state(step)
                self.screen.action.show(Content.assemble(("Writing a tool call…\n", "italic $text-muted"),
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
            self.screen.query_one("#answer", MarkdownPane).append(shown(text))
            return
        if self.view_step is not None:
            return
        rec = self.session.step_state(step)
        pane = self.screen.query_one("#answer", MarkdownPane)
        pane.border_title = "Answer (arriving…)"
        pane.stream(shown(rec.live_answer))
        self.screen.query_one("#lower", ContentSwitcher).current = "answer"
        self.screen.thought.set_class(True, "-answer")  # the thought only: a screen class restyles every pane
        self._live_answer_step = step

    # -- events -------------------------------------------------------------------------------------
    def show_event(self, e: Event | None) -> None:
        """Published on the screen's region bus after the state has folded ``e`` (None: a session
        shown anew, which ``reset`` drew)."""
        if e is None or not self.screen.ready.is_set():
            return
        live = self.view_step is None
        match e:
            case RunStarted():
                self.screen.set_question(self.session.question)
            case ModelCallStarted():
                self._live_answer_step = None  # the call streams from the start
                if live:
                    self._show_thought(e.step)
                    self._show_action(e.step)
            case ModelCallEnded() if live or self.view_step == e.step:
                rec = self.session.step_state(e.step)
                if shown(rec.thought).strip() != self.screen.thought.text.strip():
                    self.screen.thought.set_text(shown(rec.thought))
                    self.screen.thought.scroll_end(animate=False)
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
                self.screen.action.set_mode("none")
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
            self.screen.steps.upsert(call)
            if live:
                self.screen.steps.show_step(None)
        if live:
            self._show_action(e.step)
            if not isinstance(e, ApprovalRequested):
                self._show_observation(self._observation_step())

    # -- approvals -------------------------------------------------------------------------------------
    def show_pending(self, request: Request) -> None:
        self._pending = request
        self.view_step = None
        call = self.session.calls.get(request.call_id)
        if call is not None:
            self.screen.steps.upsert(call)
        self.refresh_view()
        if self.session.latest_step is None:  # a team's agent asks before the team's run has a step of its own
            self._show_action(0)
        self.screen.action.set_mode("pending")
        self.screen.update_header()

    def clear_pending(self) -> None:
        self._pending = None
        self.screen.action.set_mode("none")
        latest = self.session.latest_step
        self._show_action(latest.number if latest else 0)
        self.screen.update_header()

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
        if latest is None or not self.screen.ready.is_set():
            return
        step = self.view_step if self.view_step is not None else latest.number
        self._show_thought(step)
        self._show_action(step)
        if self.view_step is None:
            self.screen.steps.show_step(None)
            if self.session.answer is not None:
                self._show_final_answer()
            elif self.session.ended is not None:
                self._show_no_answer()
            else:
                self._show_observation(self._observation_step())
        else:
            self.screen.steps.show_step(step)
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
        self.screen.thought.border_title = title
        self.screen.thought.set_text(shown(rec.shown_thought) if rec else "")
        if self.view_step is None:
            self.screen.thought.scroll_end(animate=False)

    def _show_action(self, step: int) -> None:
        pane = self.screen.action
        if self._pending is not None:
            outside = " · outside the plan" if getattr(self._pending, "outside_plan", False) else ""
            pane.border_title = "Action · waiting for you" + outside  # the title is drawn: the pane has no bottom border
            pane.show(pending_content(self._pending))
            return
        rec = self.session.steps.get(step)
        pane.border_title = "Action" + self._title_suffix(step if rec else None)
        pane.show(action_content(rec, self.session.forced_reason))

    def _show_observation(self, step: int | None) -> None:
        self._live_answer_step = None
        self.screen.query_one("#lower", ContentSwitcher).current = "observation"
        self.screen.thought.set_class(False, "-answer")  # the thought only: a screen class restyles every pane
        pane = self.screen.query_one("#observation", MarkdownPane)
        pane.border_title = "Observation" + self._title_suffix(step)
        rec = self.session.steps.get(step) if step is not None else None
        pane.set_markdown(observation_markdown(rec, self._running_for(rec)) if rec else "*No observation yet.*")

    def _running_for(self, rec: Any) -> dict[str, float]:
        """Seconds each call of ``rec`` under way has been running (since this screen saw it start)."""
        if rec is None or self.session.ended is not None:
            return {}
        now = self.clock()
        return {c.call_id: now - self._running_since.setdefault(c.call_id, now) for c in running_calls(rec)}

    def tick_running(self) -> None:
        """Keep the elapsed time of a call under way current in the Observation pane."""
        if not self.screen.ready.is_set() or self.session.ended is not None or self.screen.thought.has_class("-answer"):
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
        pane = self.screen.query_one("#answer", MarkdownPane)
        pane.border_title = title
        pane.set_markdown(markdown, top=True)
        self.screen.query_one("#lower", ContentSwitcher).current = "answer"
        self.screen.thought.set_class(True, "-answer")  # the thought only: a screen class restyles every pane
