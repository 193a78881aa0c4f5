"""The main screen's action table: its key bindings, command palette entries, buttons and the
help screen are all made from it. A table only (no screen code), so the help screen and the
main screen's actions both import it without importing each other."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tui_agent.widgets.actions import UiAction, table
from tui_agent.screens.context_keys import OPEN_CONTEXT
from tui_agent.screens.team_keys import TEAM_MAIN_ACTIONS

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle
    from tui_agent.core.fold import SessionState

MAIN_ACTIONS = table(
    UiAction("approve", "a,enter", "Approve", "Approve tool call", "approve the tool call that waits",
             variant="success"),
    UiAction("edit", "e", "Edit", "Edit tool call arguments",
             "edit its arguments as JSON, checked against the tool's schema (ctrl+s approves, Esc cancels)",
             variant="primary"),
    UiAction("reject", "r", "Reject", "Reject tool call",
             "reject it with a reason the model reads (Enter sends, Esc cancels)", variant="error"),
    UiAction("always", "A", "Always", "Always approve this tool",
             "approve, and approve this tool without asking for the rest of this run",
             footer=False),  # its button is in the approval bar; the footer has no room at 120 columns
    UiAction("approve_edit", "ctrl+s", "Approve edited", "Approve edited arguments",
             "run the call with the edited arguments", variant="success"),
    UiAction("cancel_input", "escape", "Cancel", "Cancel editing", "leave the editor or the reason input",
             footer=False, palette=False),
    UiAction("submit_now", "s", "Submit now", "Submit now",
             "the model answers at once from the evidence so far", variant="warning"),
    UiAction("toggle_auto", "y", "Auto", "Auto mode on/off",
             "auto mode: approve every call of this run without asking (never carried to another run)"),
    UiAction("toggle_breakpoint", "b", "Break", "Breakpoint on/off", "breakpoint: pause before every model call"),
    UiAction("plan_mode", "p", "Plan", "Plan mode off/ask/clarify",
             "plan mode for the next question: off, ask (a plan to approve first), clarify (questions, then the plan)",
             footer=False),
    UiAction("inspect", "i", "Inspect", "Prompt inspector",
             "the exact messages of the latest model call (read-only while the run goes on)"),
    OPEN_CONTEXT,
    UiAction("step_prev", "left", "Prev step", "Previous step",
             "show the previous step's thought, action and observation", priority=True, key_display="←",
             group="Step"),
    UiAction("step_next", "right", "Next step", "Next step", "show the next step, or go back to live",
             priority=True, key_display="→", group="Step"),
    UiAction("copy_answer", "C", "Copy", "Copy answer", "copy the answer with its sources (terminal clipboard)"),
    UiAction("save_answer", "W", "Save", "Save answer as Markdown", "save the answer as a Markdown file (asks where)"),
    UiAction("verify", "v", "Verify", "Check the answer's citations",
             "check the cited claims of the answer against their sources (a model call each) and mark them"),
    UiAction("change_model", "m", "Model", "Change model and run again",
             "pick another model (and API key); the question runs again as a new session"),
    UiAction("new_question", "N", "New", "New question", "research another question in a new session"),
    UiAction("sessions", "o", "Sessions", "Sessions", "browse saved sessions: view, resume, fork, export, delete"),
    UiAction("help", "question_mark,f1", "Help", "Help", "all keys explained"),
    UiAction("quit", "q", "Quit", "Quit",
             "quit (asks first while a run is active; the session stays saved and resumable)"),
    *TEAM_MAIN_ACTIONS,
)


def _typed(action: UiAction) -> bool:
    """Its keys are all ones a text field would take (a letter, ``?``)."""
    return all(len(k) == 1 or k == "question_mark" for k in action.keys.split(","))


# A typed key acts at once: as a priority binding it is handled where the key arrives, not after
# it has been passed from the focused pane up through its containers to the screen (six message
# hops, each of which can wait behind a frame of a streamed answer). A text field that has focus
# still gets its letters: these actions are unavailable while one does (``available``).
TYPED = frozenset(name for name, a in MAIN_ACTIONS.items() if _typed(a))
MAIN_ACTIONS = {name: replace(a, priority=True) if name in TYPED else a for name, a in MAIN_ACTIONS.items()}

APPROVAL_ACTIONS = ("approve", "edit", "reject", "always")


def available(action: str, mode: str, handle: RunHandle, session: SessionState, *, verifying: bool = False,
              typing: bool = False) -> bool:
    """Whether the main screen's ``action`` applies now (footer, palette, buttons). ``mode`` is the
    action pane's: pending, edit, reject or none; ``handle`` the run shown; ``verifying``: a citation
    check runs; ``typing``: a text field has focus."""
    if typing and action in TYPED:
        return False
    if action in APPROVAL_ACTIONS:
        return mode == "pending"
    if action == "approve_edit":
        return mode == "edit"
    if action == "cancel_input":
        return mode in ("edit", "reject")
    if action == "submit_now":
        return handle.can_submit
    if action in ("step_prev", "step_next"):
        return bool(session.step_numbers)
    if action in ("copy_answer", "save_answer"):
        return session.answer is not None
    if action == "change_model":
        return not handle.active or handle.retrying
    if action == "new_question":
        return not handle.active
    if action == "toggle_auto":
        return handle.active  # auto mode belongs to a run
    if action == "verify":
        return session.answer is not None and not handle.active and not verifying
    if action == "inspect":
        return session.last_prompt is not None
    if action == "stop_agent":
        return handle.active and session.team.active
    if action == "team_pane":
        return session.team.active
    if action == OPEN_CONTEXT.name:
        return bool(session.context.items)
    return True
