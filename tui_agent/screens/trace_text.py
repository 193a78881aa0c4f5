"""What the main screen's panes say about a step: the Action pane's call (or state), the
Observation pane's Markdown (a call's result, or that it waits for a decision or is running and
for how long), all outside text cleaned for the terminal first."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from tui_agent.core.events import DecisionKind, Purpose
from tui_agent.core.fold import CallState, StepState

NO_CALL = "No tool call yet."
# Decisions after which a call runs (until its observation arrives).
RUNS_AFTER = frozenset({DecisionKind.APPROVED, DecisionKind.EDITED, DecisionKind.AUTO, DecisionKind.POLICY})
# What the Action pane says of a decision where the list's one word is not enough.
DECISION_WORDS = {"policy": "allowed by policy"}


def shown(text: Any) -> str:
    """Outside text as the panes show it: controls, escapes and bidi overrides removed, secrets
    redacted (imported when first needed: the redaction rules are not on the way to the first frame)."""
    from tui_agent.safety.hygiene import for_terminal

    return for_terminal(text)


def pretty(arguments: Any) -> str:
    import json

    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(arguments)


def action_content(rec: StepState | None, forced_reason: Any) -> Content:
    """What the Action pane shows for a step."""
    if rec is None:
        return Content.styled(NO_CALL, "$text-muted italic")
    if rec.calls:
        parts: list = []
        for i, call in enumerate(rec.calls):
            if i:
                parts.append("\n")
            parts += [(shown(call.tool) or "?", "bold $action-accent"), "  ",
                      (DECISION_WORDS.get(call.label, call.label), _label_style(call.label)),
                      "\n", shown(pretty(call.arguments))]
            if call.reason:
                parts += ["\n", ("reason: ", "italic"), shown(call.reason)]
            if call.error:
                parts += ["\n", (shown(call.error), "$error")]
        return Content.assemble(*parts)
    if rec.purpose == Purpose.FORCED:
        return Content.styled(f"Forced answer ({forced_reason or ''}): the model answers from the evidence so far.",
                              "italic $accent")
    if rec.live_call and not rec.ended:
        return Content.assemble(("Writing a tool call…\n", "italic $text-muted"), shown(rec.live_call))
    if rec.ended:
        return Content.styled("No tool call in this step.", "$text-muted italic")
    return Content.styled("Thinking…", "$text-muted italic")


def _label_style(label: str) -> str:
    from tui_agent.widgets.step_list import STATUS_STYLES

    return STATUS_STYLES.get(label, "")


def _md_escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def running_calls(rec: StepState) -> list[CallState]:
    """The calls of ``rec`` that were let run and have no result yet."""
    return [c for c in rec.calls if c.status is None and c.observation is None and c.decision in RUNS_AFTER]


def clock_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def observation_markdown(rec: StepState, running_s: dict[str, float] | None = None) -> str:
    """The Observation pane for a step; ``running_s``: seconds each call under way has run."""
    parts: list[str] = []
    for call in rec.calls:
        parts.append(_call_heading(call))
        if call.observation:
            parts.append(shown(call.observation))
        elif call.decision in RUNS_AFTER and call.status is None:
            since = (running_s or {}).get(call.call_id)
            parts.append(f"*Running… {clock_text(since)}*" if since is not None else "*Running…*")
        elif call.label == "pending":
            parts.append("*Waiting for your decision.*")
        elif call.status is None:
            parts.append("*Running…*")
        for line in call.progress[-5:]:
            parts.append(f"> {shown(line)}")
    for reason, content in rec.corrections:
        parts.append(f"> correction ({reason}): {shown(content)}")
    return "\n\n".join(parts) if parts else "*No observation in this step.*"


def _call_heading(call: CallState) -> str:
    dur = f" · {call.duration_s:.1f} s" if call.duration_s is not None else ""
    return f"#### {shown(call.tool) or '?'} · {call.label}{dur}\n\n`{shown(call.short_arguments(100))}`"


def pending_content(request: Any) -> Content:
    """The Action pane for the call waiting for a decision."""
    from tui_agent.web.domains import lookalike_addresses

    agent = getattr(request, "agent", "")  # a team's sub-agent that asks
    parts: list = [("Waiting for your decision", "bold reverse $warning"), f"  step {request.step}\n",
                   (f"{shown(agent)} asks\n" if agent else "", "bold $warning"),
                   (shown(request.tool), "bold $action-accent"), "\n", shown(pretty(request.arguments))]
    for note in lookalike_addresses(request.arguments):  # аpple.com may read as apple.com: its real name
        parts += ["\n", ("look-alike address: ", "bold $warning"), shown(note)]
    return Content.assemble(*parts)


def final_answer(session: Any) -> tuple[str, str] | None:
    """(Markdown, title) of the Answer pane for the session's answer; None without one."""
    ans = session.answer
    if ans is None:
        return None
    from tui_agent.session.exports import answer_markdown, answer_notes, checked_answer

    flags = ([f"forced: {session.forced_reason}"] if session.forced_reason else []) + answer_notes(ans)
    v = session.verification
    if v is not None and v.ended:
        flags.append("citations: needs review" if v.needs_review else "citations checked")
    title = "Answer" + (" · " + " · ".join(flags) if flags else "") + " · C copy · W save · v verify"
    if v is not None and v.claims:
        return shown(checked_answer(session)), title
    return shown(answer_markdown(ans.text, session.source_list())), title


def no_answer(ended: Any) -> tuple[str, str]:
    """(Markdown, title) of the Answer pane for a run that ended without an answer."""
    text = f"**No answer.** The run ended with `{ended.termination}`."
    if ended.message:
        text += f"\n\n{_md_escape(ended.message)}"
    if ended.termination == "model_error":
        text += "\n\nPress **m** to change the model and run the question again (a new session)."
    return text, f"Answer · ended: {ended.termination}"
