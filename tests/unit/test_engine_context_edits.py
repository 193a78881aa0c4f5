"""A person's edits of the context (drop, pin, summarise, restore), through the engine's API, and
the context view's rows (scripted model, no server)."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import NoteTool, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.context.view import context_rows
from tui_agent.kinds import ContextItemKind
from tui_agent.core.events import ContextEdited
from tui_agent.core.fold import fold, prompt


def two_reads_then(edit):
    """Reads t1 and t2; before the third research call, ``edit(engine)`` acts on the context."""
    box = {}
    seen: list[list[dict[str, str]]] = []

    def reply(messages, purpose):
        if purpose == "compact":
            return "The note on t1 says 42 [1]."
        seen.append([dict(m) for m in messages])
        n = len(seen)
        if n == 3:
            edit(box["engine"])
        if n <= 2:
            return call("lookup", topic=f"t{n}")
        return "<answer>42 [1]</answer>" if n > 3 else call("lookup", topic="t3")

    engine, rec, model = scripted_engine(reply, NoteTool(size=200))
    box["engine"] = engine
    return engine, rec, model, seen


def text_of(messages) -> str:
    return "\n".join(m["content"] for m in messages)


async def test_drop_replaces_the_observation_with_a_stub_for_the_next_call_and_restore_brings_it_back():
    engine, rec, _, seen = two_reads_then(lambda e: e.edit_context("drop", "obs:c1"))
    await engine.run()
    assert "Notes on t1: the answer is 42.\nfiller" in text_of(seen[2])  # the call made before the edit
    after = text_of(seen[3])
    assert "Notes on t1: the answer is 42.\nfiller" not in after
    assert "[dropped: observation of lookup {\"topic\": \"t1\"} (source [1])," in after
    edit = rec.of("context_edited")[0]
    assert edit.kind == "drop" and edit.tokens_before > 500 and edit.tokens_after < 40
    engine.edit_context("restore", "obs:c1")
    assert "Notes on t1: the answer is 42.\nfiller" in text_of(engine.prompt())


async def test_summarise_replaces_the_text_with_the_edited_summary_and_propose_applies_nothing():
    engine, rec, model = scripted_engine([call("lookup", topic="t1"), "<answer>42 [1]</answer>",
                                          "The note on t1 says 42 [1]."], NoteTool(size=200))
    await engine.run()
    before = engine.prompt()
    proposed = await engine.propose_summary("obs:c1")
    assert proposed == "The note on t1 says 42 [1]." and model.calls[-1].purpose == "compact"
    assert engine.prompt() == before and not rec.of("context_edited")
    engine.edit_context("summarise", "obs:c1", proposed + " Edited by hand.")
    text = text_of(engine.prompt())
    assert "The note on t1 says 42 [1]. Edited by hand." in text and "filler words" not in text
    with pytest.raises(ValueError):
        engine.edit_context("summarise", "obs:c1", "  ")
    with pytest.raises(ValueError):
        engine.edit_context("drop", "obs:c99")
    with pytest.raises(ValueError):
        engine.edit_context("drop", "system")
    with pytest.raises(ValueError):
        engine.edit_context("squash", "obs:c1")


async def test_a_proposed_summary_counts_in_the_runs_usage_even_when_it_is_not_applied():
    engine, rec, model = scripted_engine([call("lookup", topic="t1"), "<answer>42 [1]</answer>",
                                          "The note on t1 says 42 [1]."], NoteTool(size=200))
    await engine.run()
    aux, spent = engine.state.auxiliary_tokens, engine.state.prompt_tokens + engine.state.completion_tokens
    await engine.propose_summary("obs:c1")
    (proposal,) = rec.of("summary_proposed")
    used = proposal.prompt_tokens + proposal.completion_tokens
    assert proposal.target == "obs:c1" and proposal.text == "The note on t1 says 42 [1]." and used > 200
    assert engine.state.auxiliary_tokens == aux + used
    assert engine.state.prompt_tokens + engine.state.completion_tokens == spent + used
    assert fold(rec.events).auxiliary_tokens == aux + used  # stored: resume, sessions show and exports count it
    assert not rec.of("context_edited")  # nothing applied


async def test_edits_survive_resume_and_a_fork_from_before_the_edit_has_the_original():
    engine, rec, _, _ = two_reads_then(lambda e: e.edit_context("drop", "obs:c1"))
    await engine.run()
    resumed = fold(rec.events)  # what resume, the inspector, sessions show and the exports fold
    assert "[dropped: observation of lookup" in text_of(prompt(resumed))
    edit_step = rec.of("context_edited")[0].step
    forked = fold([e for e in rec.events if e.step < edit_step])  # resume.fork keeps the steps before --at
    assert "Notes on t1: the answer is 42.\nfiller" in text_of(prompt(forked))
    assert "[dropped:" not in text_of(prompt(forked))


async def test_the_context_view_has_a_row_per_item_with_tokens_share_flags_and_totals_first():
    engine, rec, _, _ = two_reads_then(lambda e: (e.edit_context("drop", "obs:c1"), e.edit_context("pin", "obs:c2")))
    await engine.run()
    view = context_rows(engine.state, engine.settings)
    kinds = [r.kind for r in view.rows]
    assert kinds[:2] == [ContextItemKind.SYSTEM, ContextItemKind.QUESTION]
    assert kinds.count(ContextItemKind.OBSERVATION) == 3 and kinds.count(ContextItemKind.CALL) == 3
    assert kinds.count(ContextItemKind.THOUGHT) == 4
    rows = {r.target: r for r in view.rows}
    assert rows["obs:c1"].dropped and rows["obs:c1"].tokens < 40 < rows["obs:c1"].original_tokens
    assert rows["obs:c2"].pinned and not rows["obs:c2"].dropped and rows["obs:c2"].sources == [2]
    assert rows["obs:c2"].share == rows["obs:c2"].tokens / view.window
    assert (view.window, view.gate) == (32768, 32768 - 4000)
    assert view.totals[0].tokens == max(t.tokens for t in view.totals)
    assert sum(t.tokens for t in view.totals) == sum(r.tokens for r in view.rows) <= view.prompt_tokens
    assert isinstance(rec.of("context_edited")[0], ContextEdited)


async def test_edits_go_through_the_store_so_resume_keeps_them_and_fork_before_them_has_the_original(tmp_path):
    from tui_agent.session.resume import fork, load
    from tui_agent.session.store import Store

    engine, rec, _, _ = two_reads_then(lambda e: e.edit_context("summarise", "obs:c1", "t1: the answer is 42 [1]."))
    await engine.run()
    store = Store(tmp_path / "data")
    store.create_session("unit", engine.question, "scripted/test")
    for e in rec.events:
        if e.stored:
            store.append(e)
    resumed = load(store, "unit")
    assert prompt(resumed) == engine.prompt()  # the same context after a resume
    assert "t1: the answer is 42 [1]." in text_of(prompt(resumed))
    edit_step = rec.of("context_edited")[0].step
    before = load(store, fork(store, "unit", edit_step))
    assert "Notes on t1: the answer is 42.\nfiller" in text_of(prompt(before))
    after = load(store, fork(store, "unit", edit_step + 1))
    assert "t1: the answer is 42 [1]." in text_of(prompt(after))


async def test_a_summary_proposed_from_another_loop_is_made_on_the_engines_own_thread():
    # The TUI runs the engine on a thread with its own loop; the context view asks from the UI's
    # loop. The proposal's event must be folded on the engine's thread, never beside it.
    import threading

    from tui_agent.core.approval import Approve

    release, waiting = threading.Event(), threading.Event()

    class SecondCallWaits:
        async def decide(self, request):
            if request.call_id == "c2":
                waiting.set()
                await asyncio.to_thread(release.wait, 30)
            return Approve(request.arguments)

    engine, rec, _ = scripted_engine([call("lookup", topic="t1"), call("lookup", topic="t2"),
                                      "The note on t1 says 42 [1].", "<answer>42 [1]</answer>"],
                                     NoteTool(size=200), approver=SecondCallWaits())
    threads: dict[str, str] = {}
    recorder = engine._emit

    def emit(event):
        threads[event.type] = threading.current_thread().name
        recorder(event)

    engine._emit = emit
    runner = threading.Thread(target=lambda: asyncio.run(engine.run()), name="engine-thread")
    runner.start()
    try:
        assert await asyncio.to_thread(waiting.wait, 30)
        proposed = await engine.propose_summary("obs:c1")
    finally:
        release.set()
        await asyncio.to_thread(runner.join, 30)
    assert proposed == "The note on t1 says 42 [1]."
    assert threads["summary_proposed"] == "engine-thread"
    assert engine.state.ended is not None and engine.state.answer.text == "42 [1]"
