"""What the next model call holds, as rows: the data of the context view (no front-end code).

``context_rows(state, settings)`` gives one :class:`ContextRow` per item of the prompt the next
call would send (system prompt, question, state note, each thought, call, observation and
correction), each with its tokens as sent (after drops and summaries), its share of the window
and its flags; :class:`ContextView` adds the per-category totals (first), the token gate
(``context_window - answer_reserve``) and the window. The TUI's view, the inspector's tab and any
other reader call this one function on the folded state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_agent.config import Settings
from tui_agent.context import items as ctxitems
from tui_agent.kinds import ContextEditKind, ContextItemKind
from tui_agent.model.tokens import TokenCounter, count
from tui_agent.session.state import SessionState

DEFAULT_WINDOW = 131072
"""The window assumed when neither the state (a model call) nor the settings say."""


@dataclass
class ContextRow:
    target: str  # the id to pass to Engine.edit_context / propose_summary
    kind: ContextItemKind
    label: str
    tokens: int  # as the next call sends it
    share: float  # of the context window
    step: int = 0
    sources: list[int] = field(default_factory=list)
    pinned: bool = False
    dropped: bool = False
    summarised: bool = False
    by_policy: str = ""  # the policy that dropped or summarised it ("" for a person)
    original_tokens: int = 0  # before a drop or summary
    text: str = ""  # as sent

    @property
    def editable(self) -> bool:
        return self.kind not in (ContextItemKind.SYSTEM, ContextItemKind.NOTE)


@dataclass
class CategoryTotal:
    kind: ContextItemKind
    tokens: int
    share: float
    items: int


@dataclass
class ContextView:
    totals: list[CategoryTotal]  # per category, largest first
    rows: list[ContextRow]  # in prompt order
    prompt_tokens: int  # the whole prompt, message overhead included
    gate: int  # context_window - answer_reserve: the token gate
    window: int
    compactions: int = 0
    policy: str = "none"


def context_rows(state: SessionState, settings: Settings, counter: TokenCounter | None = None) -> ContextView:
    """The context view of ``state``: one row per item of the next prompt, totals, gate, window."""
    ctx = state.context
    window = state.context_window or settings.context_window or DEFAULT_WINDOW
    gate = max(1, window - settings.answer_reserve)
    rows: list[ContextRow] = []
    for item in sorted(ctx.items.values(), key=lambda i: (i.index, _order(i.kind))):
        over = ctx.overrides.get(item.target)
        text = over.text if over is not None else item.text
        tokens = count(text)
        rows.append(ContextRow(
            target=item.target, kind=item.kind, label=item.label, tokens=tokens, share=tokens / window, step=item.step,
            sources=list(item.sources), pinned=item.target in ctx.pinned,
            dropped=over is not None and over.kind == ContextEditKind.DROP,
            summarised=over is not None and over.kind == ContextEditKind.SUMMARISE,
            by_policy=over.policy if over is not None else "", original_tokens=count(item.text), text=text))
        if item.kind == ContextItemKind.QUESTION and ctx.note:
            note = ctxitems.note_block(ctx.note)
            rows.append(ContextRow(target=ctxitems.NOTE, kind=ContextItemKind.NOTE, label="state note",
                                   tokens=count(note), share=count(note) / window, text=note,
                                   original_tokens=count(note)))
    totals: dict[ContextItemKind, CategoryTotal] = {}
    for row in rows:
        t = totals.setdefault(row.kind, CategoryTotal(row.kind, 0, 0.0, 0))
        t.tokens += row.tokens
        t.items += 1
    for t in totals.values():
        t.share = t.tokens / window
    from tui_agent.session.fold import prompt

    total = (counter or TokenCounter()).messages(prompt(state))[0]
    return ContextView(totals=sorted(totals.values(), key=lambda t: -t.tokens), rows=rows, prompt_tokens=total,
                       gate=gate, window=window, compactions=ctx.compactions, policy=settings.context_policy)


def _order(kind: ContextItemKind) -> int:
    return 1 if kind == ContextItemKind.CALL else 0
