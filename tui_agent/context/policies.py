"""The context policies at the token gate and the person's edits, for the engine.

:class:`ContextSteward` is the engine's hand on the context. It never changes state by hand: it
emits ``ContextEdited`` and ``ContextCompacted`` events, which the fold applies (so resume, fork
and every view see the same context).

- ``truncate``: the rounds before the last ``context_keep_rounds`` become one-line stubs.
- ``summarise``: one model call (``compact_model``) writes the covered rounds and the previous
  note into a new state note at the top; the covered rounds become stubs. The note always ends
  with the session's source list, so a ``[3]`` after a compaction is the same source as before.
- ``facts``: each observation enters the context as the facts it holds for the question (one
  model call per observation); the page text stays in the store (the ``Observation`` event).

Pinned items are never covered. Truncate and summarise keep ``context_keep_rounds`` rounds, or fewer
(down to the last round) when keeping them all would leave the prompt over the token gate; a notice
says so. When the policies cannot bring the prompt under the gate, or after ``max_compactions``, a
warning says what each tried and the engine's token gate forces the answer as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Protocol

from tui_agent.config import Settings
from tui_agent.core import budgets
from tui_agent.core.context_items import ContextItem
from tui_agent.kinds import ContextEditKind, ContextItemKind, ContextPolicy, NoticeLevel, ObservationStatus, Purpose
from tui_agent.model import ModelError, Reply
from tui_agent.model.tokens import TokenCounter, count
from tui_agent.core import fold
from tui_agent.core.events import ContextCompacted, ContextEdited, Event, Notice, SummaryProposed
from tui_agent.core.state import SessionState

STUB_MIN_TOKENS = 64
"""Items smaller than this are never covered: their stub would save nothing."""
FACTS_MIN_TOKENS = 200
"""Observations smaller than this enter the context as they are under the facts policy."""
COMPACT_REPLY_TOKENS = 1500
"""Room kept for a compaction call's reply when its input is cut to fit."""

NOTE_INSTRUCTION = (
    "You keep the state of a research session. Rewrite the state note below so that it also covers the "
    "new material. Write: the sources found, each with its number in square brackets as given (never "
    "renumber), the facts each gave that bear on the question, and what is still open. Be brief: at "
    "most 300 words. Reply with the note only.")
SUMMARY_INSTRUCTION = (
    "Summarise the tool result below for the research question: keep every fact that bears on it, with "
    "the source numbers in square brackets exactly as given, and say what the result did not answer. "
    "At most 150 words. Reply with the summary only.")
FACTS_INSTRUCTION = (
    "Extract the facts the tool result below holds for the research question, as short bullet points, "
    "each with its source number in square brackets exactly as given. Leave out everything that does "
    "not bear on the question. If nothing does, reply 'No facts for the question.' Reply with the facts only.")


class Complete(Protocol):
    def __call__(self, messages: list[dict[str, str]], *, purpose: Purpose = Purpose.COMPACT,
                 model: str | None = None) -> Awaitable[Reply]: ...


@dataclass
class ContextSteward:
    settings: Settings
    state: SessionState
    counter: TokenCounter
    emit: Callable[[Event], None]
    complete: Complete
    window: Callable[[], int]
    gate: Callable[[], int]  # the token gate (context_window - answer_reserve)

    # -- queries ------------------------------------------------------------------------------
    def policies(self) -> list[ContextPolicy]:
        return [ContextPolicy(p) for p in self.settings.context_policy.split(",")]

    def prompt_tokens(self) -> int:
        return self.counter.messages(fold.prompt(self.state))[0]

    def trigger(self) -> int:
        """The prompt size at which the policies compact: the gate, or compact_at of the window."""
        return min(self.gate(), max(1, int(self.settings.compact_at * self.window())))

    def tokens_of(self, target: str) -> int:
        item = self.state.context.items.get(target)
        return count(item.text) if item else 0

    # -- a person's edits -----------------------------------------------------------------------
    def edit(self, kind: ContextEditKind, target: str, text: str | None = None) -> ContextEdited:
        """Drop, pin, unpin, summarise (with ``text``) or restore one item; raises ValueError for an
        unknown target or a summary without text."""
        self.check(kind, target, text)
        before = self._shown_tokens(self.state, target)
        probe = ContextEdited(kind=kind, target=target, tokens_before=before, tokens_after=0, text=(text or "").strip())
        probe.tokens_after = self._shown_tokens(_with(self.state, probe), target)
        event = probe
        self.emit(event)
        return event

    def check(self, kind: ContextEditKind, target: str, text: str | None = None) -> None:
        """Raise ValueError when the edit cannot be made (unknown target, empty summary, the system prompt)."""
        ctx = self.state.context
        if target not in ctx.items:
            raise ValueError(f"no context item {target!r}")
        if kind == ContextEditKind.SUMMARISE and not (text or "").strip():
            raise ValueError("a summary needs its text")
        if ctx.items[target].kind == ContextItemKind.SYSTEM and kind in (ContextEditKind.DROP, ContextEditKind.SUMMARISE):
            raise ValueError("the system prompt cannot be dropped or summarised (edit it at a breakpoint)")

    @staticmethod
    def _shown_tokens(state: SessionState, target: str) -> int:
        """The tokens ``target`` takes in the prompt: its override's, or its own."""
        over = state.context.overrides.get(target)
        return count(over.text if over is not None else state.context.items[target].text)

    async def propose_summary(self, target: str) -> str:
        """One model call: a proposed summary of ``target`` for the question (nothing applied)."""
        item = self.state.context.items.get(target)
        if item is None:
            raise ValueError(f"no context item {target!r}")
        reply = await self._call(SUMMARY_INSTRUCTION, _material([item]))
        self.emit(SummaryProposed(target=target, text=reply.text.strip(), **_usage(reply)))  # its tokens count
        return reply.text.strip()

    # -- the policies ------------------------------------------------------------------------------
    async def facts(self) -> None:
        """The facts policy: every new observation that is large enough enters as its facts."""
        if ContextPolicy.FACTS not in self.policies():
            return
        ctx = self.state.context
        for item in list(ctx.items.values()):
            if (item.kind != ContextItemKind.OBSERVATION or item.target in ctx.overrides or item.target in ctx.pinned
                    or item.target in ctx.facts_seen):
                continue
            ctx.facts_seen.add(item.target)
            call = self.state.calls.get(item.target.split(":", 1)[1])
            tokens = count(item.text)
            if call is None or call.status != ObservationStatus.OK or tokens < FACTS_MIN_TOKENS:
                continue
            try:
                reply = await self._call(FACTS_INSTRUCTION, _material([item]))
            except ModelError as exc:
                self.emit(Notice(text=f"facts policy: the extraction call failed ({exc}); the observation stays",
                                 level=NoticeLevel.WARNING))
                continue
            if reply.text.strip():
                self.emit(ContextEdited(kind=ContextEditKind.SUMMARISE, target=item.target, tokens_before=tokens,
                                        tokens_after=count(reply.text), text=reply.text.strip(), policy="facts",
                                        **_usage(reply)))

    async def at_gate(self) -> None:
        """Before a research call: when the prompt passes the trigger, apply the policies in order
        until it is under it (or they have nothing left to cover, or max_compactions is reached).
        A policy cuts what it must: when its ``context_keep_rounds`` would leave the prompt over the
        token gate, it keeps fewer rounds (down to the last one), and says so. When the prompt is still
        over the gate after them all, a warning says what each policy tried (the answer is forced next)."""
        tokens = self.prompt_tokens()
        tried: list[str] = []
        for policy in self.policies():
            if tokens <= self.trigger():
                return
            if self.state.context.compactions >= self.settings.max_compactions:
                tried.append(f"max_compactions ({self.settings.max_compactions}) reached, nothing more is cut")
                break
            if policy in (ContextPolicy.TRUNCATE, ContextPolicy.SUMMARISE):
                tried.append(await self._compact(policy, tokens, summarise=policy == ContextPolicy.SUMMARISE))
            elif policy == ContextPolicy.FACTS:
                tried.append("facts: rewrites each new observation as it arrives, nothing more to cut at the gate")
            tokens = self.prompt_tokens()
        if tried and tokens > self.gate():
            self.emit(Notice(text=f"The context policies could not bring the prompt ({tokens:,} tokens) under the "
                                  f"token gate ({self.gate():,} tokens): {'; '.join(tried)}. The answer is forced.",
                             level=NoticeLevel.WARNING))

    def coverable(self, keep_rounds: int | None = None) -> list[ContextItem]:
        """The items of the rounds before the last ``keep_rounds`` (default ``context_keep_rounds``):
        not pinned, not yet covered or edited, and large enough for a stub to save something."""
        ctx = self.state.context
        rounds = ctx.rounds()
        keep = set(rounds[-(keep_rounds or self.settings.context_keep_rounds):])
        return [i for i in ctx.items.values()
                if i.step and i.step not in keep and i.target not in ctx.pinned and i.target not in ctx.overrides
                and count(i.text) >= STUB_MIN_TOKENS]

    def keep_rounds(self, tokens: int) -> int:
        """The rounds a compaction of a ``tokens`` prompt keeps: ``context_keep_rounds``, or fewer (down to 1)
        when cutting only the older ones would leave the prompt over the token gate."""
        keep = self.settings.context_keep_rounds
        while tokens > self.gate() and keep > 1 and self._tokens_without(self.coverable(keep)) > self.gate():
            keep -= 1
        return keep

    def _tokens_without(self, covered: list[ContextItem]) -> int:
        """The prompt's tokens once ``covered`` are stubs (what a compaction of them leaves, its note aside)."""
        if not covered:
            return self.prompt_tokens()
        probe = ContextCompacted(policy="", tokens_before=0, tokens_after=0, covered=[i.target for i in covered],
                                 covered_tokens=[count(i.text) for i in covered])
        return self.counter.messages(fold.prompt(_with(self.state, probe)))[0]

    async def _compact(self, policy: ContextPolicy, tokens: int, *, summarise: bool) -> str:
        """Cover the older rounds (a stub each, or a state note); returns what it did, for a warning."""
        keep = self.keep_rounds(tokens)
        kept = f"the last {keep} round{'s' if keep != 1 else ''}"
        covered = self.coverable(keep)
        if not covered:
            return f"{policy} kept {kept} and found nothing older left to cut (cut already, pinned or too small)"
        note, usage = "", {}
        if summarise:
            ctx = self.state.context
            material = (f"Previous state note:\n{ctx.note}\n\n" if ctx.note else "") + _material(covered)
            try:
                reply = await self._call(NOTE_INSTRUCTION, material)
            except ModelError as exc:
                self.emit(Notice(text=f"summarise policy: the compaction call failed ({exc})", level=NoticeLevel.WARNING))
                return "summarise: its compaction call failed"
            note, usage = reply.text.strip() + "\n" + self._source_list(), _usage(reply)
        if keep < self.settings.context_keep_rounds:
            said = (f"{policy} kept {kept} instead of context_keep_rounds = {self.settings.context_keep_rounds}: "
                    f"keeping more would leave the prompt over the token gate ({self.gate():,} tokens).")
            if all(n.text != said for n in self.state.notices):  # once a session, not at every compaction
                self.emit(Notice(text=said))
        event = ContextCompacted(policy=str(policy), tokens_before=tokens, tokens_after=0, note=note,
                                 covered=[i.target for i in covered], covered_tokens=[count(i.text) for i in covered],
                                 **usage)
        event.tokens_after = self.counter.messages(fold.prompt(_with(self.state, event)))[0]
        self.emit(event)
        return f"{policy} kept {kept} and cut {len(covered)} items ({tokens:,} → {event.tokens_after:,} tokens)"

    def _source_list(self) -> str:
        lines = [f"[{s.number}] {s.title + ' — ' if s.title else ''}{s.url}" for s in self.state.source_list()]
        return "Sources so far (cite them by these numbers):\n" + "\n".join(lines) if lines else ""

    async def _call(self, instruction: str, material: str) -> Reply:
        room = max(256, self.gate() - COMPACT_REPLY_TOKENS - count(instruction) - count(self.state.question) - 64)
        material = budgets.fit(material, room, "the compaction call")
        messages = [{"role": "system", "content": instruction},
                    {"role": "user", "content": f"Research question: {self.state.question}\n\n{material}"}]
        return await self.complete(messages, purpose=Purpose.COMPACT,
                                   model=self.settings.compact_model or self.settings.model)


def _material(items: list[ContextItem]) -> str:
    return "\n\n".join(f"--- {i.label} ---\n{i.text}" for i in items)


def _usage(reply: Reply) -> dict[str, object]:
    return {"prompt_tokens": reply.prompt_tokens or 0, "completion_tokens": reply.completion_tokens or 0,
            "cost_usd": reply.cost_usd}


def _with(state: SessionState, event: Event) -> SessionState:
    """A copy of the context part of ``state`` with ``event`` folded (to measure its effect)."""
    import copy

    probe = copy.copy(state)
    probe.context = copy.deepcopy(state.context)
    fold.apply(probe, event)
    return probe
