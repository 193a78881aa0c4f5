"""The plan mode dialogs: :class:`PlanScreen` (the proposed plan: approve, edit its fields or its
JSON — checked against the plan's schema —, replan with feedback, skip, submit now) and
:class:`ClarifyScreen` (the model's questions, answered before it plans). Both answer the request
the engine awaits through the run's handle (``RunHandle.decide``), as the approval bar answers a tool call."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui_agent.widgets.actions import bindings, button, table, UiAction
from tui_agent.kinds import PlanDecisionKind
from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanDecision, PlanRequest
from tui_agent.core.plan_schema import Plan, checked_plan, normalise
from tui_agent.widgets.approval_bar import JsonArea

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle

DIALOG_CSS = """
PlanScreen > .dialog, ClarifyScreen > .dialog { width: 90%; max-width: 110; height: auto; max-height: 90%; }
#plan-body { height: auto; max-height: 20; }
#plan-fields { height: auto; max-height: 24; }
#plan-fields Input, ClarifyScreen Input { margin-bottom: 0; }
.plan-label { color: $text-muted; }
#plan-json { height: auto; min-height: 5; max-height: 18; }
#plan-error { color: $error; height: auto; }
"""

PLAN_ACTIONS = table(
    UiAction("approve_plan", "a", "Approve", "Approve the plan", "approve the plan: research follows it",
             variant="success"),
    UiAction("edit_fields", "e", "Edit", "Edit the plan's fields", "edit each sub-question, its acceptance and "
             "queries, and the domains (ctrl+s approves)", variant="primary"),
    UiAction("edit_json", "j", "JSON", "Edit the plan as JSON", "edit the plan's JSON, checked against the plan's "
             "schema (ctrl+s approves)"),
    UiAction("approve_edited", "ctrl+s", "Approve edited", "Approve the edited plan", "approve the plan as edited",
             variant="success"),
    UiAction("replan", "r", "Replan", "Ask for another plan", "ask for another plan with written feedback "
             "(Enter sends)", variant="warning"),
    UiAction("skip_plan", "k", "Skip", "Skip planning", "research without a plan, every call asked as usual"),
    UiAction("submit_plan", "s", "Submit now", "Submit now", "skip the research: the model answers at once"),
    UiAction("back", "escape", "Back", "Back to the plan", "leave the editor or the feedback", footer=False),
)


def plan_text(plan: Plan) -> str:
    from tui_agent.core.plan_report import plan_lines

    return "\n".join(plan_lines(plan))


class PlanScreen(ModalScreen[None]):
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = bindings(PLAN_ACTIONS.values())

    def __init__(self, request: PlanRequest, handle: RunHandle) -> None:
        super().__init__(classes="dialog-screen")
        self.request = request
        self.handle = handle  # the run that asks: the answer goes back through it
        self.mode = "view"  # view | fields | json | replan

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Research plan (proposal {self.request.attempt}) — approve it, edit it, ask for another, "
                         "or skip planning", classes="dialog-title")
            with VerticalScroll(id="plan-body"):
                yield Static(plan_text(self.request.plan), id="plan-view", markup=False)  # the model's text
            yield VerticalScroll(id="plan-fields")
            yield JsonArea("", id="plan-json", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
            yield Input(placeholder="what the next plan should change (Enter sends, Esc goes back)",
                        id="plan-feedback")
            yield Static("", id="plan-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                for name in ("approve_plan", "edit_fields", "edit_json", "approve_edited", "replan", "skip_plan"):
                    yield button(PLAN_ACTIONS[name])

    def on_mount(self) -> None:
        self.set_mode("view")

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.query_one("#plan-body").display = mode in ("view", "replan")
        self.query_one("#plan-fields").display = mode == "fields"
        self.query_one("#plan-json").display = mode == "json"
        self.query_one("#plan-feedback").display = mode == "replan"
        self.query_one("#approve_edited").display = mode in ("fields", "json")
        self.query_one("#plan-error", Static).update("")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "approve_edited":
            return self.mode in ("fields", "json")
        if action == "back":
            return self.mode != "view"
        return True

    # -- decisions -------------------------------------------------------------------------------
    def _decide(self, decision: PlanDecision) -> None:
        self.handle.decide(decision)
        self.dismiss()

    def action_approve_plan(self) -> None:
        self._decide(PlanDecision(PlanDecisionKind.APPROVED))

    def action_skip_plan(self) -> None:
        self._decide(PlanDecision(PlanDecisionKind.SKIPPED))

    def action_submit_plan(self) -> None:
        if self.handle.submit_now():
            self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")
        self.dismiss()

    def action_replan(self) -> None:
        self.set_mode("replan")
        box = self.query_one("#plan-feedback", Input)
        box.value = ""
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "plan-feedback":
            feedback = event.value.strip()
            if not feedback:
                self.query_one("#plan-error", Static).update("Write what the next plan should change.")
                return
            self._decide(PlanDecision(PlanDecisionKind.REPLAN, feedback=feedback))
        elif self.mode == "fields":
            self.focus_next()

    def action_back(self) -> None:
        self.set_mode("view")
        self.set_focus(None)

    # -- editing ------------------------------------------------------------------------------------
    async def action_edit_fields(self) -> None:
        box = self.query_one("#plan-fields", VerticalScroll)
        await box.remove_children()
        plan = self.request.plan
        rows: list[Any] = []
        for i, sq in enumerate(plan.sub_questions, 1):
            rows += [Static(f"{i}. sub-question · done when · queries (separated by |)", classes="plan-label"),
                     Input(sq.question, id=f"sq-{i}-question"), Input(sq.acceptance, id=f"sq-{i}-acceptance"),
                     Input(" | ".join(sq.queries), id=f"sq-{i}-queries")]
        rows += [Static("domains (separated by ,)", classes="plan-label"),
                 Input(", ".join(plan.domains), id="plan-domains")]
        await box.mount_all(rows)
        self.set_mode("fields")
        self.query_one("#sq-1-question", Input).focus()

    def action_edit_json(self) -> None:
        area = self.query_one("#plan-json", JsonArea)
        area.text = json.dumps(self.request.plan.to_dict(), indent=2, ensure_ascii=False)
        self.set_mode("json")
        area.focus()

    def edited(self) -> tuple[Plan | None, str]:
        """The plan as edited (fields or JSON), checked against the plan's schema."""
        if self.mode == "json":
            from tui_agent.core.plan_schema import parse_edited

            return parse_edited(self.query_one("#plan-json", JsonArea).text)
        subs = []
        for i, sq in enumerate(self.request.plan.sub_questions, 1):
            question = self.query_one(f"#sq-{i}-question", Input).value.strip()
            if not question:
                continue  # an emptied sub-question is dropped
            queries = [q.strip() for q in self.query_one(f"#sq-{i}-queries", Input).value.split("|") if q.strip()]
            subs.append({"question": question, "acceptance": self.query_one(f"#sq-{i}-acceptance", Input).value.strip(),
                         "queries": queries})
        domains = [d.strip() for d in self.query_one("#plan-domains", Input).value.split(",") if d.strip()]
        obj = normalise({"sub_questions": subs, "domains": domains, "budget": self.request.plan.to_dict()["budget"]})
        return checked_plan(obj)

    def action_approve_edited(self) -> None:
        plan, error = self.edited()
        if plan is None:
            self.app.bell()
            self.query_one("#plan-error", Static).update(Content(error))  # plain: the text may hold brackets
            return
        kind = PlanDecisionKind.EDITED if plan != self.request.plan else PlanDecisionKind.APPROVED
        self._decide(PlanDecision(kind, plan=plan))

    def on_button_pressed(self, event: Any) -> None:
        name = event.button.id or ""
        if name in PLAN_ACTIONS:
            event.stop()
            self.call_later(self.run_action, name)


CLARIFY_ACTIONS = table(
    UiAction("send", "ctrl+s", "Send", "Send the answers", "send the answers: they become part of the question",
             variant="success"),
    UiAction("skip", "escape", "Skip", "Skip the questions", "plan without answering"),
)


class ClarifyScreen(ModalScreen[None]):
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = bindings(CLARIFY_ACTIONS.values())

    def __init__(self, request: ClarifyRequest, handle: RunHandle) -> None:
        super().__init__(classes="dialog-screen")
        self.request = request
        self.handle = handle

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Before it plans, the model asks (your answers become part of the question; Enter moves "
                         "on, an empty answer leaves a question open)", classes="dialog-title")
            for i, q in enumerate(self.request.questions):
                yield Static(f"{i + 1}. {q}", classes="plan-label")
                yield Input(id=f"clarify-{i}")
            with Horizontal(classes="dialog-buttons"):
                for action in CLARIFY_ACTIONS.values():
                    yield button(action)

    def on_mount(self) -> None:
        self.query_one("#clarify-0", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == f"clarify-{len(self.request.questions) - 1}":
            self.action_send()
        else:
            self.focus_next()

    def action_send(self) -> None:
        answers = [self.query_one(f"#clarify-{i}", Input).value.strip() for i in range(len(self.request.questions))]
        self.handle.decide(ClarifyAnswers(answers))
        self.dismiss()

    def action_skip(self) -> None:
        self.handle.decide(ClarifyAnswers([]))
        self.dismiss()

    def on_button_pressed(self, event: Any) -> None:
        name = event.button.id or ""
        if name in CLARIFY_ACTIONS:
            event.stop()
            self.call_later(self.run_action, name)


def plan_dialog(request: PlanRequest | ClarifyRequest, handle: RunHandle) -> PlanScreen | ClarifyScreen:
    """The dialog for a plan mode request (its answer goes back through ``handle``)."""
    return PlanScreen(request, handle) if isinstance(request, PlanRequest) else ClarifyScreen(request, handle)
