"""The plan pane: the approved (or proposed) plan's sub-questions, each with its status (open,
answered with sources, needs review), or the clarifications; hidden when plan mode is off. It
renders the folded session state (``state.plan``, ``core.plan_progress``) and nothing else."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from tui_agent.kinds import PlanStatus

STYLES = {PlanStatus.OPEN: ("○", "$text-muted"), PlanStatus.ANSWERED: ("✓", "$success"),
          PlanStatus.NEEDS_REVIEW: ("!", "$warning")}


def plan_content(session: Any) -> tuple[Content, str] | None:
    """The pane's text and title for ``session`` (None: nothing to show)."""
    from tui_agent.core.plan_progress import of_state

    p = session.plan
    if not p.active:
        return None
    if p.approved is None:
        if p.pending is not None:
            return Content.styled(f"Plan proposal {p.pending.attempt} waits for your decision.", "italic"), "Plan"
        if p.skipped:
            return Content.styled("Planning was skipped.", "$text-muted italic"), "Plan"
        return Content.styled("Planning…", "$text-muted italic"), "Plan"
    parts: list[Content] = []
    progress = of_state(session)
    for prog in progress:
        mark, style = STYLES[prog.status]
        line = Content.assemble((f"{mark} ", style), f"{prog.number}. {prog.question}")
        if prog.note:
            line = Content.assemble(line, (f" — {prog.note}", "$text-muted"))
        parts.append(line)
    done = sum(1 for x in progress if x.status == PlanStatus.ANSWERED)
    return Content("\n").join(parts), f"Plan · {done}/{len(progress)} answered"


class PlanPane(Static):
    DEFAULT_CSS = """
    PlanPane { height: auto; max-height: 10; padding: 0 1; border-top: solid $accent; border-title-style: bold; }
    """

    def show(self, session: Any) -> None:
        shown = plan_content(session)
        self.display = shown is not None
        if shown is not None:
            content, title = shown
            self.update(content)
            self.border_title = title
