"""What the next model call holds, as rows: the data of the context view (no front-end code).

``context_rows(state, settings)`` gives one :class:`ContextRow` per item of the prompt the next
call would send (system prompt, question, state note, each thought, call, observation and
correction), each with its tokens as sent (after drops and summaries), its share of the window
and its flags; :class:`ContextView` adds the per-category totals (first), the token gate
(``context_window - answer_reserve``) and the window. The TUI's view, the inspector's tab and any
other reader call this one function on the folded state.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from tui_agent.config import Settings
from tui_agent.core import context_items as ctxitems
from tui_agent.kinds import ContextEditKind, ContextItemKind
from tui_agent.model.tokens import TokenCounter, count
from tui_agent.core.state import SessionState

DEFAULT_WINDOW = 131072
"""The window assumed when neither the state (a model call) nor the settings say."""
_COUNTS: OrderedDict[str, int] = OrderedDict()  # the live view recounts on every event: remember recent texts
_COUNTS_MAX = 512


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
        tokens = _count(text)
        rows.append(ContextRow(
            target=item.target, kind=item.kind, label=item.label, tokens=tokens, share=tokens / window, step=item.step,
            sources=list(item.sources), pinned=item.target in ctx.pinned,
            dropped=over is not None and over.kind == ContextEditKind.DROP,
            summarised=over is not None and over.kind == ContextEditKind.SUMMARISE,
            by_policy=over.policy if over is not None else "", original_tokens=_count(item.text), text=text))
        if item.kind == ContextItemKind.QUESTION and ctx.note:
            note = ctxitems.note_block(ctx.note)
            rows.append(ContextRow(target=ctxitems.NOTE, kind=ContextItemKind.NOTE, label="state note",
                                   tokens=_count(note), share=_count(note) / window, text=note,
                                   original_tokens=_count(note)))
    totals: dict[ContextItemKind, CategoryTotal] = {}
    for row in rows:
        t = totals.setdefault(row.kind, CategoryTotal(row.kind, 0, 0.0, 0))
        t.tokens += row.tokens
        t.items += 1
    for t in totals.values():
        t.share = t.tokens / window
    from tui_agent.core.fold import prompt

    total = (counter or TokenCounter()).messages(prompt(state))[0]
    return ContextView(totals=sorted(totals.values(), key=lambda t: -t.tokens), rows=rows, prompt_tokens=total,
                       gate=gate, window=window, compactions=ctx.compacted(), policy=settings.context_policy)


def _order(kind: ContextItemKind) -> int:
    return 1 if kind == ContextItemKind.CALL else 0


def _count(text: str) -> int:
    n = _COUNTS.get(text)
    if n is None:
        n = _COUNTS[text] = count(text)
        if len(_COUNTS) > _COUNTS_MAX:
            _COUNTS.popitem(last=False)
    return n


def refusal(row: ContextRow | None, kind: ContextEditKind) -> str | None:
    """Why ``kind`` cannot be done to ``row`` (a sentence for the person), or None when it can.

    The engine refuses unknown targets, empty summaries and the system prompt itself
    (``Engine.edit_context`` raises ValueError); this adds what makes no sense to do (restore what
    was never edited, drop what is pinned or already a stub) so a front end can say so instead."""
    if row is None:
        return "No item is selected."
    name = f"{row.label} ({row.target})"
    if row.kind == ContextItemKind.NOTE:
        return ("The state note is written by the summarise policy and cannot be edited here; restore the rounds "
                "it covers one by one to bring them back.")
    if row.kind == ContextItemKind.SYSTEM and kind in (ContextEditKind.DROP, ContextEditKind.SUMMARISE,
                                                       ContextEditKind.RESTORE):
        return ("The system prompt cannot be dropped, summarised or restored: edit it at a breakpoint "
                "(b, then the prompt inspector).")
    edited = row.dropped or row.summarised
    match kind:
        case ContextEditKind.RESTORE if not edited:
            return f"Nothing to restore: {name} is in the context as it was said."
        case ContextEditKind.DROP | ContextEditKind.SUMMARISE if row.pinned:
            return f"{name} is pinned: unpin it (p) before you {kind} it."
        case ContextEditKind.DROP if row.dropped:
            by = f" by the {row.by_policy} policy" if row.by_policy else ""
            return f"{name} is already dropped{by}; restore it (r) to bring it back."
        case ContextEditKind.PIN if row.pinned:
            return f"{name} is already pinned."
        case ContextEditKind.UNPIN if not row.pinned:
            return f"{name} is not pinned."
    return None
