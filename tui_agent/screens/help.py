"""The keys, explained."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# tui-agent keys

Every key is also in the command palette (**ctrl+p**). Keys work wherever the focus is,
except while you type in an editor or an input.

| key | what it does |
|---|---|
| **a** / **Enter** | approve the tool call that waits |
| **e** | edit its arguments as JSON (checked against the tool's schema; **ctrl+s** approves, **Esc** cancels) |
| **r** | reject it with a reason the model reads (**Enter** sends, **Esc** cancels) |
| **A** | approve and always approve this tool for the rest of the session |
| **y** | auto mode on/off: approve every call without asking |
| **s** | Submit now: the model answers at once from the evidence so far |
| **b** | breakpoint on/off: pause before every model call |
| **i** | prompt inspector (read-only while the run goes on) |
| **←** / **→** | move through the steps (thought, action, observation of each) |
| **C** / **W** | copy the answer / save it as a Markdown file |
| **m** | change the model and run the question again (a new session) |
| **N** | ask a new question (a new session) |
| **q** | quit (asks first while a run is active; the session stays saved) |

## At a breakpoint (prompt inspector)

The exact messages about to be sent, with tokens per message and the total. You can edit
the system prompt and the last user message; then **c** continues (pausing again before the
next call only while the breakpoint is on) and **n** runs one step and pauses again.
**s** submits now. **Esc** leaves the editor.

## Run states

*running* · *awaiting approval* · *paused* (breakpoint) · *answering* (the final answer is
being written) · *ended: termination* (answer, token_limit, call_limit, time_limit,
budget_limit, user_submit, format_error, model_error, cancelled).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss(None)", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Markdown(HELP)
