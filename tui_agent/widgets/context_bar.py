"""The context view's head: the per-category totals and a bar of the window with the prompt's
share in it, the token gate marked (``┃``) and the window as the bar's end.

Pure rendering of a :class:`~tui_agent.context.view.ContextView`; the screen hands it a new view
whenever the fold's state changed."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from tui_agent.context.view import ContextView
from tui_agent.kinds import ContextItemKind

# Each category's colour in the bar and the totals (theme variables).
CATEGORY_STYLE: dict[ContextItemKind, str] = {
    ContextItemKind.SYSTEM: "$text-muted",
    ContextItemKind.QUESTION: "$accent",
    ContextItemKind.NOTE: "$secondary",
    ContextItemKind.THOUGHT: "$thought-accent",
    ContextItemKind.CALL: "$action-accent",
    ContextItemKind.OBSERVATION: "$observation-accent",
    ContextItemKind.CORRECTION: "$warning",
}
PLURAL = {ContextItemKind.SYSTEM: "system prompt", ContextItemKind.QUESTION: "question",
          ContextItemKind.NOTE: "state note", ContextItemKind.THOUGHT: "thoughts", ContextItemKind.CALL: "calls",
          ContextItemKind.OBSERVATION: "observations", ContextItemKind.CORRECTION: "corrections"}


def totals_line(view: ContextView) -> Content:
    """The per-category totals, largest first: ``observations 12,345 (9.4%, 5 items)``."""
    parts: list = []
    for t in view.totals:
        if parts:
            parts.append("  ·  ")
        parts += [(f"■ {PLURAL.get(t.kind, str(t.kind))} ", CATEGORY_STYLE.get(t.kind, "")),
                  (f"{t.tokens:,}", "bold"), f" ({t.share:.1%}, {t.items})"]
    return Content.assemble(*parts) if parts else Content.styled("Nothing in the context yet.", "$text-muted italic")


def bar_line(view: ContextView, width: int) -> Content:
    """The window as ``width`` cells: each category's tokens in its colour, free room dim, and the
    token gate as ``┃`` (red when the prompt is past it)."""
    width = max(10, width)
    window = max(1, view.window)
    gate_at = min(width - 1, round(view.gate / window * width))
    cells: list[tuple[str, str]] = []
    used = 0.0
    for t in sorted(view.totals, key=lambda t: list(CATEGORY_STYLE).index(t.kind) if t.kind in CATEGORY_STYLE else 99):
        used += t.tokens
        end = min(width, round(used / window * width))
        cells += [("█", CATEGORY_STYLE.get(t.kind, ""))] * max(0, end - len(cells))
    cells += [("░", "$text-disabled")] * (width - len(cells))
    over = view.prompt_tokens > view.gate
    cells[gate_at] = ("┃", "bold $error" if over else "bold $warning")
    return Content.assemble(*cells)


def legend_line(view: ContextView) -> Content:
    share = view.prompt_tokens / max(1, view.window)
    state = ("past the gate", "bold $error") if view.prompt_tokens > view.gate else (
        f"{view.gate - view.prompt_tokens:,} tokens under the gate", "$success")
    compactions = f" · {view.compactions} compaction{'s' if view.compactions != 1 else ''}" if view.compactions else ""
    return Content.assemble(("next prompt ", ""), (f"{view.prompt_tokens:,}", "bold"), f" tokens ({share:.1%}) · ",
                            state, " · gate ┃ ", (f"{view.gate:,}", "bold"), " · window ",
                            (f"{view.window:,}", "bold"), f" · policy {view.policy}{compactions}")


class ContextBar(Widget):
    """Three lines: the totals, the bar, its legend."""

    DEFAULT_CSS = "ContextBar { height: auto; padding: 0 1; }"

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.view: ContextView | None = None

    def show(self, view: ContextView) -> None:
        self.view = view
        self.refresh()

    def render(self) -> Content:
        if self.view is None:
            return Content("")
        return Content("\n").join([totals_line(self.view), bar_line(self.view, self.size.width - 2),
                                   legend_line(self.view)])
