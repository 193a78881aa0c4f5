"""The keys, explained."""

from __future__ import annotations

from typing import Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

def help_text(tool_policies: Mapping[str, str] | None = None) -> str:
    """The help page, made from the screens' action tables (the same ones behind their keys) and
    the tool policies in force."""
    from tui_agent.widgets.actions import help_rows
    from tui_agent.screens.context_keys import CONTEXT_ACTIONS
    from tui_agent.screens.main_keys import MAIN_ACTIONS
    from tui_agent.screens.team_keys import AGENT_ACTIONS
    from tui_agent.screens.sessions import LIST_ACTIONS, VIEW_ACTIONS
    from tui_agent.screens.tab_keys import TAB_ACTIONS

    return f"""\
# tui-agent keys

Every key is also in the command palette (**ctrl+p**). Keys work wherever the focus is,
except while you type in an editor or an input.

| key | what it does |
|---|---|
{help_rows(MAIN_ACTIONS.values())}

## A team research (t, g)

Enter on a team pane line opens that agent's view: its own panes, gauge and context view; the keys
above act on that agent. **s** and **k** ask whether the focused agent or all agents answer now / stop.

| key | what it does |
|---|---|
{help_rows(AGENT_ACTIONS.values())}

## Tabs: several researches at once

The strip under the header marks each tab: ▶ running, ⏸ waiting for you (with how long), ✓
answered, ✗ failed, ■ interrupted, ○ new. A hidden tab's run goes on.

| key | what it does |
|---|---|
{help_rows(TAB_ACTIONS.values())}
| **1** … **9** | show that tab |

## The session browser (o)

Its keys act on the session it shows, never on the live run. A unique prefix of an id is enough
wherever one is typed, as in git.

| key | what it does |
|---|---|
{help_rows(LIST_ACTIONS.values())}

Viewing one session:

| key | what it does |
|---|---|
{help_rows(VIEW_ACTIONS.values())}

## The context view (x)

What the next model call holds: the totals per category, a bar of the window with the token
gate (┃), then one row per item with its tokens, its share of the window and its marks. It follows
the run live. Edits act on the selected row and go to the live run (read-only without one; resume
a session to edit its context); **x** also opens it from the prompt inspector.

| key | what it does |
|---|---|
{help_rows(CONTEXT_ACTIONS.values())}

## At a breakpoint (prompt inspector)

The exact messages about to be sent, with tokens per message and the total. You can edit
the system prompt and the last user message; then **c** continues (pausing again before the
next call only while the breakpoint is on) and **n** runs one step and pauses again.
**s** submits now. **Esc** leaves the editor.

## Approval holds for one run

Auto mode (**y**) and always-approve (**A**) hold for the run in which you gave them: a new
question, a resume or a fork asks again, unless tui-agent was started with **--yes**. The
header shows *auto* while it is on.

## Tool policies

{policies_text(tool_policies or {})}

## The gauge

**ctx** is the prompt of the last model call in tokens: the first figure is *estimated* by the
local tokenizer before the call, *measured* (*meas.*) is what the provider counted once it
answered. The second figure is the gate (past it the model must answer); the bar shows the
window with the reserve kept for the answer (▒). Then calls, time worked (waiting for you does
not count) and cost. Hover the gauge for this legend.

## Run states

*running* · *awaiting approval* (a tool call) · *awaiting plan approval* · *awaiting your
answers* (clarifying questions) · *paused* (breakpoint) · *answering* (the final answer is
being written) · *ended: termination* (answer, token_limit, call_limit, time_limit,
budget_limit, user_submit, format_error, model_error, cancelled). A session whose process
died is *interrupted* in the browser and stays resumable.
"""


def policies_text(tool_policies: Mapping[str, str]) -> str:
    """The ``[tool_policies]`` of the configuration, for the help page."""
    from tui_agent.agent.tool_policy import describe

    intro = ("Set in config.toml (`[tool_policies]`, a tool name or glob each): *allow* runs a call without "
             "asking, *deny* never runs it, not even in auto mode or with **--yes** (deny wins over every "
             "other match), *ask* leaves it to you. A call an allow ran shows as *policy* in the Calls list. "
             "`tui-agent tools list` shows each tool's policy.")
    lines = describe(tool_policies)
    if not lines:
        return intro + "\n\nNone are set: every tool call is yours to decide."
    return intro + "\n\n" + "\n".join(f"- `{line}`" for line in lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss(None)", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            settings = getattr(self.app, "settings", None)
            yield Markdown(help_text(getattr(settings, "tool_policies", None)))
