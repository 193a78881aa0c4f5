"""The fold's share for the context (see ``context.items``): the items each event adds and what
``ContextEdited`` and ``ContextCompacted`` do to them. Called by ``core.fold.apply`` only."""

from __future__ import annotations

from tui_agent.core import context_items as ctxitems
from tui_agent.core.context_items import ContextItem
from tui_agent.kinds import ContextEditKind, ContextItemKind
from tui_agent.core.events import ContextCompacted, ContextEdited
from tui_agent.core.state import CallState, SessionState



def call_item(s: SessionState, call: CallState) -> None:
    blocks = s.context.call_blocks.get(call.step)
    if not blocks:
        return
    index = next((i for i in range(len(s.messages) - 1, -1, -1) if s.messages[i]["role"] == "assistant"), 0)
    s.context.add(ContextItem(f"call:{call.call_id}", ContextItemKind.CALL, index, blocks.pop(0),
                              f"call {call.tool} {call.short_arguments(50)}", call.step))


def observation_items(s: SessionState, content: str) -> None:
    index = len(s.messages) - 1
    for call_id in s.context.pending_obs:
        call = s.calls.get(call_id)
        if call is None or not call.observation or call.observation not in content:
            continue
        s.context.add(ContextItem(f"obs:{call_id}", ContextItemKind.OBSERVATION, index, call.observation,
                                  f"observation of {call.tool} {call.short_arguments(50)}", call.step,
                                  list(call.sources)))
    s.context.pending_obs = []


def context_edited(s: SessionState, e: ContextEdited) -> None:
    ctx = s.context
    item = ctx.items.get(e.target)
    if item is None:
        return
    if e.policy and e.kind in (ContextEditKind.SUMMARISE, ContextEditKind.DROP):
        ctx.policy_edits += 1
    match e.kind:
        case ContextEditKind.PIN:
            ctx.pinned.add(e.target)
        case ContextEditKind.UNPIN:
            ctx.pinned.discard(e.target)
        case ContextEditKind.RESTORE:
            ctx.overrides.pop(e.target, None)
        case ContextEditKind.DROP:
            ctx.overrides[e.target] = ctxitems.Override(e.kind, ctxitems.stub(item, e.tokens_before),
                                                        e.tokens_before, e.policy)
        case ContextEditKind.SUMMARISE:
            ctx.overrides[e.target] = ctxitems.Override(
                e.kind, ctxitems.summary_text(item, e.text, e.tokens_before), e.tokens_before, e.policy)


def context_compacted(s: SessionState, e: ContextCompacted) -> None:
    ctx = s.context
    ctx.compactions += 1
    if e.note:
        ctx.note = e.note
    how = "compacted into the state note" if e.note else "cut"
    for i, target in enumerate(e.covered):
        item = ctx.items.get(target)
        if item is None or target in ctx.pinned:
            continue
        tokens = e.covered_tokens[i] if i < len(e.covered_tokens) else 0
        ctx.overrides[target] = ctxitems.Override(ContextEditKind.DROP, ctxitems.stub(item, tokens, how), tokens,
                                                  e.policy)
        if target not in ctx.covered:
            ctx.covered.append(target)
