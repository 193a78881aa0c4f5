"""The items of the context and the prompt built from them.

The fold keeps the raw message list (``SessionState.messages``, what the model said and was told)
and, beside it, a :class:`ContextState`: one :class:`ContextItem` per piece of a message (the
system prompt, the question, each thought, each call, each observation, each correction), with a
stable target id, and the overrides the ``ContextEdited`` / ``ContextCompacted`` events set. The
prompt of the next model call is :func:`build_prompt`: the raw messages with every override
applied and the state note (if any) at the top, after the question. Resume, fork, the inspector,
``sessions show`` and the exports all read it, so they show the same context.

Imports nothing of the session package (the session state imports this module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tui_agent.kinds import ContextEditKind, ContextItemKind

SYSTEM, QUESTION, NOTE = "system", "question", "note"
NOTE_HEADER = "State of the research so far (older rounds were compacted into this note):"
_CALL_BLOCK = re.compile(r"<\s*tool_call\s*>.*?<\s*/\s*tool_call\s*>", re.S | re.I)


@dataclass
class ContextItem:
    """One piece of one message: ``text`` is its exact text inside ``messages[index]``."""

    target: str  # stable id: "system", "question", "thought:4", "call:c3", "obs:c3", "correction:5"
    kind: ContextItemKind
    index: int  # the message it is part of
    text: str
    label: str
    step: int = 0
    sources: list[int] = field(default_factory=list)


@dataclass
class Override:
    """What replaces an item's text in the prompt (a drop's stub, a summary)."""

    kind: ContextEditKind  # DROP or SUMMARISE
    text: str
    tokens_before: int
    policy: str = ""  # the policy that set it ("" for a person's edit)


@dataclass
class ContextState:
    items: dict[str, ContextItem] = field(default_factory=dict)  # by target, in order of arrival
    overrides: dict[str, Override] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)
    note: str = ""  # the state note (summarise policy), shown after the question
    covered: list[str] = field(default_factory=list)  # targets a compaction has covered, in order
    compactions: int = 0  # at the token gate (ContextCompacted); max_compactions bounds these
    policy_edits: int = 0  # items a policy rewrote one by one (the facts policy's ContextEdited)
    pending_obs: list[str] = field(default_factory=list)  # observations not yet in a message (call ids)
    facts_seen: set[str] = field(default_factory=set)  # observations the facts policy has looked at
    call_blocks: dict[int, list[str]] = field(default_factory=dict)  # a step's call blocks not yet given to a call

    def add(self, item: ContextItem) -> None:
        self.items[item.target] = item

    def rounds(self) -> list[int]:
        """The steps that have items (thoughts, calls, observations, corrections), in order."""
        return sorted({i.step for i in self.items.values() if i.step})

    def compacted(self) -> int:
        """Every compaction: the gate's and each item a policy rewrote (the ``compactions`` reported)."""
        return self.compactions + self.policy_edits

    def editable(self, target: str) -> bool:
        return target in self.items and self.items[target].kind not in (ContextItemKind.SYSTEM,)


def stub(item: ContextItem, tokens: int, how: str = "dropped") -> str:
    """The one-line stub of a dropped item: what was there and how many tokens it held."""
    refs = " ".join(f"[{n}]" for n in item.sources)
    what = f"{item.label}{' (source ' + refs + ')' if refs else ''}"
    return f"[{how}: {what}, {tokens:,} tokens]"


def summary_text(item: ContextItem, summary: str, tokens: int) -> str:
    refs = " ".join(f"[{n}]" for n in item.sources)
    head = f"[summary of {item.label}{' (source ' + refs + ')' if refs else ''}, was {tokens:,} tokens]"
    return f"{head}\n{summary.strip()}"


def note_block(note: str) -> str:
    return f"{NOTE_HEADER}\n{note.strip()}"


def split_reply(text: str) -> tuple[str, list[str]]:
    """A research reply's thought (the text before its first call) and its call blocks."""
    calls = _CALL_BLOCK.findall(text)
    first = _CALL_BLOCK.search(text)
    thought = text[: first.start()] if first else text
    return thought, calls


def build_prompt(messages: list[dict[str, str]], ctx: ContextState) -> list[dict[str, str]]:
    """The messages the next model call sends: the raw ones with every override applied and the
    state note after the question. Indices are kept (one message in, one message out)."""
    out = [dict(m) for m in messages]
    for target, over in ctx.overrides.items():
        item = ctx.items.get(target)
        if item is None or item.index >= len(out) or not item.text:
            continue
        content = out[item.index].get("content", "")
        if item.text in content:
            out[item.index]["content"] = content.replace(item.text, over.text, 1)
    if ctx.note and len(out) > 1 and NOTE_HEADER not in out[1].get("content", ""):  # (a breakpoint edit kept it)
        out[1]["content"] = out[1].get("content", "") + "\n\n" + note_block(ctx.note)
    return out
