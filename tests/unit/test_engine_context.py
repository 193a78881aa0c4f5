"""Context policies at the token gate (scripted model, no server): truncate, summarise, facts,
stacked, citations and pins surviving a compaction, the forced answer as the last exit."""

from __future__ import annotations

import io

import pytest

from tests.helpers import NoteTool, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.cli.headless import TracePrinter
from tui_agent.core.events import ContextCompacted, ContextEdited, ForcedAnswer, Notice

READS = 8  # lookups the question needs; each observation is about 1,000 tokens
NOTE = "Found so far: each note says the answer is 42. Still open: nothing."
FACTS = "- the answer is 42"


class Researcher:
    """A scripted model that reads READS notes, then answers citing the first and the last."""

    def __init__(self, reads: int = READS, on_research=None) -> None:
        self.reads, self.research, self.on_research = reads, 0, on_research
        self.prompts: list[list[dict[str, str]]] = []

    def __call__(self, messages, purpose):
        if purpose == "compact":
            text = messages[-1]["content"]
            return NOTE if "state note" in messages[0]["content"] else f"{FACTS} [{_first_source(text)}]"
        if purpose == "forced":
            return "<answer>forced [1]</answer>"
        self.prompts.append([dict(m) for m in messages])
        self.research += 1
        if self.on_research is not None:
            self.on_research(self.research)
        if self.research <= self.reads:
            return call("lookup", topic=f"t{self.research}")
        return f"<answer>The answer is 42 [1] [{self.reads}].</answer>"


def _first_source(text: str) -> str:
    import re

    m = re.search(r"\[(\d+)\] Notes on", text)
    return m.group(1) if m else "?"


def engine_for(policy: str, model: Researcher | None = None, tool_size: int = 300, **settings):
    model = model or Researcher()
    base = dict(window=9000, answer_reserve=3000, context_policy=policy, context_keep_rounds=2,
                observation_max_tokens=20000)
    base.update(settings)
    engine, rec, scripted = scripted_engine(model, NoteTool(size=tool_size), **base)
    return engine, rec, model, scripted


async def test_without_a_policy_the_long_run_is_forced_at_the_token_gate():
    engine, rec, _, _ = engine_for("none")
    result = await engine.run()
    assert result["termination"] == "token_limit" and result["compactions"] == 0
    assert [e.reason for e in rec.events if isinstance(e, ForcedAnswer)] == ["token_limit"]


@pytest.mark.parametrize("policy", ["truncate", "summarise", "truncate,summarise"])
async def test_a_compacting_policy_lets_the_long_run_answer_under_the_gate(policy):
    engine, rec, model, _ = engine_for(policy)
    result = await engine.run()
    assert result["termination"] == "answer" and result["answer"] == f"The answer is 42 [1] [{READS}]."
    compactions = [e for e in rec.events if isinstance(e, ContextCompacted)]
    assert result["compactions"] == len(compactions) >= 1
    assert all(c.tokens_after < c.tokens_before for c in compactions)
    assert 0 < result["peak_prompt_tokens"] <= engine.threshold()
    assert len(model.prompts) == READS + 1


async def test_truncate_turns_older_rounds_into_stubs_and_keeps_the_last_rounds_verbatim():
    engine, rec, model, scripted = engine_for("truncate")
    await engine.run()
    last = "\n".join(m["content"] for m in model.prompts[-1])
    assert "[cut: observation of lookup" in last and "(source [1])" in last
    assert f"Notes on t{READS}: the answer is 42." in last  # the newest round is whole
    assert all(c.purpose != "compact" for c in scripted.calls)  # truncation makes no model call


async def test_summarise_writes_a_state_note_at_the_top_with_every_source_number():
    engine, rec, model, scripted = engine_for("summarise")
    result = await engine.run()
    compact_calls = [c for c in scripted.calls if c.purpose == "compact"]
    assert compact_calls and result["compactions"] == len(compact_calls)
    question = model.prompts[-1][1]["content"]
    assert NOTE in question
    # Sources and their numbering survive: the note lists every source read before it by its number.
    note = [e for e in rec.events if isinstance(e, ContextCompacted)][-1].note
    assert "[1] Notes on t1 — https://notes.example/t1" in note
    # and a later [n] is still the same source: the numbers keep counting, none is reused
    assert [s for s in result["sources"]] == [f"https://notes.example/t{i}" for i in range(1, READS + 1)]
    assert engine.state.auxiliary_tokens > 0  # the compaction calls are counted


async def test_facts_enter_each_observation_as_its_facts_and_keep_the_page_in_the_store():
    engine, rec, model, _ = engine_for("facts")
    result = await engine.run()
    facts = [e for e in rec.events if isinstance(e, ContextEdited) and e.policy == "facts"]
    # each observation rewritten is a compaction in the count (--json, eval), none at the gate
    assert result["termination"] == "answer" and result["compactions"] == len(facts) == READS
    assert engine.state.context.compactions == 0 and not [e for e in rec.events if isinstance(e, ContextCompacted)]
    assert len(facts) == READS and facts[0].text == f"{FACTS} [1]" and facts[0].tokens_after < facts[0].tokens_before
    last = "\n".join(m["content"] for m in model.prompts[-1])
    assert "filler words here" not in last and f"{FACTS} [3]" in last
    stored = [e for e in rec.events if e.type == "observation"]
    assert all("filler words here" in e.text for e in stored)  # the page text stays in the store


async def test_a_pinned_observation_survives_every_compaction():
    engine = None

    def pin_first(n):
        if n == 2:
            engine.edit_context("pin", "obs:c1")

    engine, rec, model, _ = engine_for("truncate,summarise", Researcher(on_research=pin_first))
    result = await engine.run()
    assert result["compactions"] >= 1 and result["termination"] == "answer"
    last = "\n".join(m["content"] for m in model.prompts[-1])
    assert "[1] Notes on t1: the answer is 42.\nfiller words here" in last
    assert "[cut: observation of lookup {\"topic\": \"t2\"} (source [2])" in last or \
        "[compacted into the state note: observation of lookup {\"topic\": \"t2\"}" in last


async def test_the_forced_answer_stays_the_last_exit_when_compaction_cannot_get_under_the_gate():
    # One round alone is over the gate: even keeping only the last round leaves nothing to cut.
    engine, rec, _, _ = engine_for("truncate", tool_size=2000)
    result = await engine.run()
    assert result["termination"] == "token_limit" and result["compactions"] == 0
    engine, rec, _, _ = engine_for("truncate", Researcher(reads=14), max_compactions=1)
    result = await engine.run()
    assert result["termination"] == "token_limit" and result["compactions"] == 1


def warnings(rec) -> list[str]:
    return [e.text for e in rec.events if isinstance(e, Notice) and e.level == "warning"]


async def test_a_window_too_small_for_the_kept_rounds_keeps_fewer_rounds_and_says_so():
    # The numbers: a 12,000-token window, --answer-reserve 4000, context_keep_rounds 4 (the
    # default): three ~3,000-token observations pass the gate before round 5, when truncate could first act.
    engine, rec, model, _ = engine_for("truncate", Researcher(reads=6), window=12000, answer_reserve=4000,
                                       context_keep_rounds=4, tool_size=900)
    result = await engine.run()
    assert result["termination"] == "answer" and result["compactions"] >= 1
    assert result["peak_prompt_tokens"] <= engine.threshold()
    said = [e.text for e in rec.events if isinstance(e, Notice)]
    assert said == ["truncate kept the last 2 rounds instead of context_keep_rounds = 4: keeping more would leave "
                    "the prompt over the token gate (8,000 tokens)."]  # said once, not at every compaction
    last = "\n".join(m["content"] for m in model.prompts[-1])
    assert "Notes on t6: the answer is 42." in last and "[cut: observation of lookup" in last


async def test_when_nothing_is_left_to_cut_a_warning_says_what_each_policy_tried():
    engine, rec, _, _ = engine_for("truncate,summarise", tool_size=2000)
    result = await engine.run()
    assert result["termination"] == "token_limit"
    (warning,) = warnings(rec)
    assert warning.startswith("The context policies could not bring the prompt (")
    assert ("truncate kept the last 1 round and found nothing older left to cut (cut already, pinned or too small); "
            "summarise kept the last 1 round and found nothing older left to cut") in warning
    assert warning.endswith("The answer is forced.")
    out = io.StringIO()  # the headless trace prints it before "forcing the answer"
    printer = TracePrinter(out)
    for e in rec.events:
        printer(e)
    assert f"warning: {warning}\n" in out.getvalue()
    assert out.getvalue().index("could not bring the prompt") < out.getvalue().index("forcing the answer")
    engine, rec, _, _ = engine_for("truncate", Researcher(reads=14), max_compactions=1)
    await engine.run()
    assert "max_compactions (1) reached, nothing more is cut" in warnings(rec)[-1]
    engine, rec, _, _ = engine_for("none")  # no policy asked for: the plain forced answer, no policy warning
    await engine.run()
    assert warnings(rec) == []


async def test_compact_at_compacts_before_the_gate():
    engine, rec, _, _ = engine_for("truncate", compact_at=0.4)
    result = await engine.run()
    assert result["termination"] == "answer"
    assert result["peak_prompt_tokens"] <= 0.4 * 9000 + 1500  # one round past the trigger at most
