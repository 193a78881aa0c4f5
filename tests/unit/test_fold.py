"""The one fold: the rules every reader of the event log shares."""

from __future__ import annotations

from typing import Callable

from tui_agent.core import events as ev
from tui_agent.core.events import (
    ActionProposed, AnswerEvent, ApprovalModeChanged, ApprovalRequested, ClaimChecked, Correction, Decision, Event,
    ForcedAnswer, ModelCallEnded, ModelCallStarted, ModelDelta, Notice, Observation, ObservationMessage, PromptEdited,
    Retry, RunEnded, RunStarted, SourceAdded, ToolProgress, VerificationEnded, VerificationStarted,
)
from tui_agent.core.fold import Status, disables, fold

# Every event kind has a test of what it does to the state (see the last test of this file).
FOLD_TESTS: dict[type[Event], list[str]] = {}


def folds(*kinds: type[Event]) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def mark(test: Callable[[], None]) -> Callable[[], None]:
        for kind in kinds:
            FOLD_TESTS.setdefault(kind, []).append(test.__name__)
        return test

    return mark


def started(step: int, purpose: str = "research") -> ModelCallStarted:
    return ModelCallStarted(step=step, messages=[], message_tokens=[], prompt_tokens=10, threshold=100,
                            context_window=120, purpose=purpose)


def failed(call_id: str, status: str = "failed") -> Observation:
    return Observation(step=1, call_id=call_id, tool="fetchy", arguments={"q": call_id}, text="down", status=status,
                       executed=True)


@folds(Observation)
def test_a_replayed_result_does_not_reset_a_tools_failures():
    events = [RunStarted(question="q", model="m", settings={"tool_failure_limit": 3}),
              failed("c1"), failed("c2"), failed("c3", status="replayed")]
    state = fold(events)
    assert state.failures["fetchy"] == 2 and "fetchy" not in state.disabled
    state = fold(events + [failed("c4")])
    assert "fetchy" in state.disabled  # three real failures in a row
    assert fold(events + [failed("c4", status="ok")]).failures["fetchy"] == 0


@folds(Decision, ApprovalModeChanged, RunStarted)
def test_approval_policy_holds_for_one_run_and_never_carries_over():
    run = [RunStarted(question="q", model="m"),
           ActionProposed(step=1, call_id="c1", tool="lookup", arguments={}),
           Decision(step=1, call_id="c1", kind="approved", arguments={}, always=True),
           ApprovalModeChanged(step=1, auto=True)]
    state = fold(run)
    assert state.approval.auto and state.approval.always == {"lookup"}
    resumed = fold(run + [RunStarted(question="q", model="m", resumed=True)])
    assert not resumed.approval.auto and resumed.approval.always == set()
    assert fold(run + [RunStarted(question="q", model="m", resumed=True, auto_approve=True)]).approval.auto


@folds(ApprovalRequested)
def test_a_call_waiting_for_a_person_is_pending_until_decided():
    events = [RunStarted(question="q", model="m"), started(1), ModelCallEnded(step=1, text="<tool_call>…"),
              ActionProposed(step=1, call_id="c1", tool="visit", arguments={"url": ["u"]}),
              ApprovalRequested(step=1, call_id="c1")]
    state = fold(events)
    assert state.status == Status.AWAITING and state.pending_approval == "c1"
    assert state.calls["c1"].label == "pending" and state.recorded_calls()[0].call_id == "c1"
    state = fold(events + [Decision(step=1, call_id="c1", kind="rejected", reason="no")])
    assert state.status == Status.RUNNING and state.calls["c1"].label == "rejected"


@folds(ForcedAnswer, ModelCallEnded)
def test_a_forced_answer_takes_the_place_of_a_call_cancelled_before_any_text():
    events = [RunStarted(question="q", model="m"), started(1), ModelCallEnded(step=1, text="<tool_call>x"),
              ObservationMessage(step=1, content="<tool_response>r</tool_response>"),
              started(2), ModelCallEnded(step=2, text="", cancelled=True)]
    state = fold(events)
    assert state.step_numbers == [1]  # the empty cancelled call is not a step anyone sees
    state = fold(events + [ForcedAnswer(step=2, reason="user_submit", content="answer now"), started(2, "forced")])
    assert state.step_numbers == [1, 2] and state.steps[2].purpose == "forced" and not state.steps[2].cancelled
    kept = fold(events[:-1] + [ModelCallEnded(step=2, text="I was thinking", cancelled=True)])
    assert kept.step_numbers == [1, 2]  # a cancelled call that showed text stays


@folds(ModelCallStarted)
def test_counters_continue_from_the_stored_events():
    events = [RunStarted(question="q", model="m"), started(1),
              ModelCallEnded(step=1, text="a", prompt_tokens=50, completion_tokens=5, cost_usd=0.01, elapsed_s=2.5),
              started(2)]
    state = fold(events)
    assert (state.model_calls, state.shown_calls, state.prompt_tokens, state.total_tokens) == (1, 2, 50, 55)
    assert state.cost_usd == 0.01 and state.elapsed_s == 2.5 and state.in_flight


def run(*events: Event) -> list[Event]:
    return [RunStarted(question="q", model="m", system_prompt="sys", settings={"tool_failure_limit": 3}), *events]


@folds(RunStarted)
def test_the_first_run_starts_the_message_list_and_a_resumed_one_keeps_it():
    state = fold(run())
    assert state.messages == [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}]
    assert state.status == Status.RUNNING and state.runs == 1
    again = fold(run(started(1), ModelCallEnded(step=1, text="a")) + [RunStarted(question="other", model="m2")])
    assert again.runs == 2 and again.question == "q" and len(again.messages) == 3 and again.model == "m2"


@folds(ModelDelta)
def test_streamed_text_fills_the_steps_live_parts_and_the_answer_turns_the_status():
    state = fold(run(started(1), ModelDelta(step=1, text="<think>pondering</think><ans"),
                     ModelDelta(step=1, text="wer>It is"), ModelDelta(step=1, text="deep", reasoning=True)))
    rec = state.steps[1]
    assert rec.live_thought.startswith("pondering") and rec.live_thought.endswith("deep")
    assert rec.live_answer == "It is" and state.status == Status.ANSWERING


@folds(ModelCallEnded)
def test_a_completed_research_call_is_counted_and_its_reply_joins_the_messages():
    state = fold(run(started(1), ModelCallEnded(step=1, text="<tool_call>x</tool_call>", prompt_tokens=None,
                                                prompt_tokens_estimate=30, completion_tokens=4)))
    assert state.model_calls == 1 and state.messages[-1] == {"role": "assistant", "content": "<tool_call>x</tool_call>"}
    assert state.prompt_tokens == 30 and state.total_tokens == 34  # the estimate when the provider did not say
    assert state.open_calls == [] and not state.in_flight


@folds(ModelCallEnded, ModelCallStarted)
def test_a_call_stopped_by_a_signal_is_made_again_in_its_place():
    events = run(started(1), ModelCallEnded(step=1, text="<tool_call>a</tool_call>"),
                 ObservationMessage(step=1, content="<tool_response>r</tool_response>"), started(2),
                 ModelCallEnded(step=2, text="<think>half", cancelled=True, interrupted=True))
    state = fold(events)
    assert state.steps[2].unfinished and state.model_calls == 1
    state = fold(events + [started(2), ModelCallEnded(step=2, text="<answer>x</answer>")])
    assert state.steps[2].reply == "<answer>x</answer>" and "model call cancelled" not in state.steps[2].notes
    # Cancelled by Submit now, the text the user saw stays a step of its own.
    kept = fold(events[:-1] + [ModelCallEnded(step=2, text="<think>half", cancelled=True)])
    assert not kept.steps[2].unfinished


@folds(Retry)
def test_a_retry_clears_the_steps_live_text_and_leaves_a_note():
    state = fold(run(started(1), ModelDelta(step=1, text="<think>first try"),
                     Retry(step=1, attempt=1, delay_s=2.0, reason="rate limited (429)")))
    assert state.steps[1].live_thought == "" and state.steps[1].notes == ["retry 1 in 2.0 s: rate limited (429)"]


@folds(ActionProposed)
def test_a_proposed_call_is_numbered_and_open_until_its_observation_is_sent():
    state = fold(run(started(1), ModelCallEnded(step=1, text="t"),
                     ActionProposed(step=1, call_id="c1", tool="search", arguments={"query": ["x"]})))
    assert state.call_seq == 1 and state.calls["c1"].label == "pending"
    assert [c.call_id for c in state.steps[1].calls] == ["c1"] and state.open_calls == ["c1"]


@folds(ToolProgress)
def test_a_tools_sub_call_adds_its_tokens_and_cost_and_a_progress_line():
    state = fold(run(ActionProposed(step=1, call_id="c1", tool="visit", arguments={}),
                     ToolProgress(step=1, call_id="c1", text="extracting", prompt_tokens=100, completion_tokens=10,
                                  cost_usd=0.002)))
    assert state.calls["c1"].progress == ["extracting"] and state.total_tokens == 110 and state.cost_usd == 0.002


@folds(ev.ToolStarted)
def test_a_started_call_is_marked_started_so_a_resume_never_runs_it_again():
    state = fold(run(ActionProposed(step=1, call_id="c1", tool="visit", arguments={"url": ["u"]}),
                     Decision(step=1, call_id="c1", kind="approved", arguments={"url": ["u"]}),
                     ev.ToolStarted(step=1, call_id="c1", tool="visit")))
    assert state.calls["c1"].started and state.calls["c1"].observation is None
    assert state.tool_calls == 0  # counted when its observation comes


@folds(Observation)
def test_an_executed_observation_counts_a_tool_call_and_remembers_the_call():
    state = fold(run(Observation(step=1, call_id="c1", tool="search", arguments={"query": ["x"]}, text="r",
                                 executed=True),
                     Observation(step=1, call_id="c2", tool="search", arguments={"query": ["y"]}, text="no",
                                 status="rejected")))
    assert state.tool_calls == 1 and state.tool_ran and len(state.seen_calls) == 1
    assert state.calls["c2"].label == "rejected" and state.calls["c1"].observation == "r"


@folds(Observation)
def test_a_cancelled_call_is_shown_cancelled_and_not_counted():
    state = fold(run(ActionProposed(step=1, call_id="c1", tool="visit", arguments={"url": ["u"]}),
                     Decision(step=1, call_id="c1", kind="approved", arguments={"url": ["u"]}),
                     Observation(step=1, call_id="c1", tool="visit", arguments={"url": ["u"]}, text="Cancelled",
                                 status="cancelled")))
    assert state.calls["c1"].label == "cancelled" and state.tool_calls == 0 and not state.seen_calls


def test_the_failure_limit_is_the_runs_setting_and_one_rule_counts():
    state = fold(run(failed("c1")) + [RunStarted(question="q", model="m", settings={"tool_failure_limit": 2})])
    assert state.failure_limit == 2 and disables(state, "fetchy", "failed") and not disables(state, "fetchy", "ok")
    assert "fetchy" in fold(run(failed("c1")) + [RunStarted(question="q", model="m", settings={"tool_failure_limit": 2}),
                                                 failed("c2")]).disabled


@folds(ObservationMessage)
def test_the_observation_message_is_sent_and_resets_the_format_errors():
    state = fold(run(started(1), ModelCallEnded(step=1, text="junk"),
                     Correction(step=1, content="use tags", reason="no_action"), started(2),
                     ModelCallEnded(step=2, text="<tool_call>x</tool_call>"),
                     ObservationMessage(step=2, content="<tool_response>r</tool_response>")))
    assert state.format_errors == 0 and state.open_calls is None
    assert state.last_observation_index == len(state.messages) - 1


@folds(Correction)
def test_corrections_count_format_errors_but_the_evidence_guard_only_once_refuses():
    state = fold(run(Correction(step=1, content="use tags", reason="no_action"),
                     Correction(step=2, content="evidence first", reason="answer_without_evidence")))
    assert state.format_errors == 1 and state.evidence_refused
    assert state.messages[-1] == {"role": "user", "content": "evidence first"}
    assert state.steps[1].corrections == [("no_action", "use tags")]


@folds(SourceAdded)
def test_a_source_is_recorded_under_its_url_with_its_number():
    state = fold(run(SourceAdded(step=1, number=1, url="https://a.example", title="A"),
                     SourceAdded(step=2, number=2, url="https://b.example")))
    assert [(s.number, s.url) for s in state.source_list()] == [(1, "https://a.example"), (2, "https://b.example")]


@folds(PromptEdited)
def test_a_prompt_edit_changes_the_message_and_the_system_prompt():
    state = fold(run(PromptEdited(step=1, index=0, role="system", content="new sys"),
                     PromptEdited(step=1, index=1, role="user", content="new q")))
    assert state.system_prompt == "new sys" and state.messages[1]["content"] == "new q"
    assert len(state.steps[1].notes) == 2


@folds(ForcedAnswer)
def test_the_forced_answer_keeps_its_reason_and_request():
    state = fold(run(ForcedAnswer(step=3, reason="call_limit", content="answer now")))
    assert (state.forced_reason, state.forced_content, state.status) == ("call_limit", "answer now", Status.ANSWERING)


@folds(AnswerEvent)
def test_the_answer_is_kept():
    state = fold(run(AnswerEvent(step=2, text="42", unsupported=True)))
    assert state.answer is not None and state.answer.text == "42" and state.answer.unsupported


@folds(Notice)
def test_notices_are_kept_in_order():
    state = fold(run(Notice(text="one"), Notice(text="two", level="error")))
    assert [n.text for n in state.notices] == ["one", "two"]


@folds(RunEnded)
def test_the_end_of_a_run_leaves_nothing_under_way():
    state = fold(run(started(1), ActionProposed(step=1, call_id="c1", tool="t", arguments={}),
                     ApprovalRequested(step=1, call_id="c1"), RunEnded(step=1, termination="cancelled")))
    assert state.status == Status.ENDED and state.pending_approval is None and not state.in_flight
    assert not state.calls["c1"].awaiting and state.ended is not None


@folds(VerificationStarted, ClaimChecked, VerificationEnded)
def test_a_citation_check_replaces_the_earlier_one():
    check = [VerificationStarted(model="v", sample=5), ClaimChecked(claim="a", verdict="supported"),
             ClaimChecked(claim="b", verdict="unsupported"),
             VerificationEnded(checked=2, supported=1, unsupported=1, unclear=0, needs_review=True)]
    state = fold(run(*check, VerificationStarted(model="v2", sample=5)))
    assert state.verification is not None and state.verification.claims == [] and state.verification.model == "v2"
    state = fold(run(*check))
    assert state.verification.ended and state.verification.needs_review and state.verification.unsupported_share == 0.5


def test_step_elapsed_and_time_only_go_forward():
    state = fold([Notice(step=3, text="a", elapsed_s=9.0, ts=200.0), Notice(step=2, text="b", elapsed_s=4.0, ts=100.0)])
    assert (state.step, state.elapsed_s, state.last_ts) == (3, 9.0, 200.0)


def _kinds(cls: type[Event]) -> set[type[Event]]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _kinds(sub)
    return out


def test_every_event_kind_has_a_fold_test():
    kinds = _kinds(Event) | set(ev.EVENT_TYPES.values())
    missing = sorted(k.__name__ for k in kinds if k not in FOLD_TESTS)
    assert not missing, f"event kinds without a fold test: {missing}"


# --- the context: edits and compactions -------------------------------------------------------

PAGE = "Page one says the answer is 42. " * 40


def _one_round() -> list[Event]:
    reply = '<think>look it up</think>\n<tool_call>\n{"name": "lookup", "arguments": {"topic": "a"}}\n</tool_call>'
    return [RunStarted(question="q", model="m", system_prompt="sys"), started(1),
            ModelCallEnded(step=1, text=reply),
            ActionProposed(step=1, call_id="c1", tool="lookup", arguments={"topic": "a"}),
            Observation(step=1, call_id="c1", tool="lookup", arguments={"topic": "a"}, text=PAGE, executed=True,
                        sources=[1]),
            ObservationMessage(step=1, content=f"<tool_response>\n{PAGE}\n</tool_response>")]


def _prompt_text(state) -> str:
    from tui_agent.core.fold import prompt

    return "\n".join(m["content"] for m in prompt(state))


@folds(ev.ContextEdited)
def test_context_edits_change_the_next_prompt_and_restore_brings_the_text_back():
    base = _one_round()
    state = fold(base)
    assert set(state.context.items) == {"system", "question", "thought:1", "call:c1", "obs:c1"}
    dropped = fold(base + [ev.ContextEdited(step=1, kind="drop", target="obs:c1", tokens_before=321, tokens_after=20)])
    text = _prompt_text(dropped)
    assert PAGE not in text and "[dropped: observation of lookup" in text and "(source [1]), 321 tokens]" in text
    assert dropped.messages[-1]["content"].count("answer is 42") == 40  # the raw message is kept (the store's)
    summarised = fold(base + [ev.ContextEdited(step=1, kind="summarise", target="obs:c1", tokens_before=321,
                                               tokens_after=9, text="The answer is 42 [1].")])
    assert "The answer is 42 [1]." in _prompt_text(summarised) and PAGE not in _prompt_text(summarised)
    restored = fold(base + [ev.ContextEdited(step=1, kind="drop", target="obs:c1", tokens_before=321, tokens_after=20),
                            ev.ContextEdited(step=1, kind="restore", target="obs:c1", tokens_before=20,
                                             tokens_after=321)])
    assert PAGE in _prompt_text(restored)
    pinned = fold(base + [ev.ContextEdited(step=1, kind="pin", target="obs:c1", tokens_before=321, tokens_after=321)])
    assert pinned.context.pinned == {"obs:c1"}
    assert not fold(base + [ev.ContextEdited(step=1, kind="pin", target="obs:c1", tokens_before=1, tokens_after=1),
                            ev.ContextEdited(step=1, kind="unpin", target="obs:c1", tokens_before=1,
                                             tokens_after=1)]).context.pinned


@folds(ev.SummaryProposed)
def test_a_proposed_summary_counts_its_tokens_and_changes_no_context():
    base = _one_round()
    before = fold(base)
    state = fold(base + [ev.SummaryProposed(step=1, target="obs:c1", text="42 [1].", prompt_tokens=350,
                                            completion_tokens=12, cost_usd=0.001)])
    assert state.auxiliary_tokens == before.auxiliary_tokens + 362
    assert state.prompt_tokens == before.prompt_tokens + 350 and state.cost_usd == (before.cost_usd or 0) + 0.001
    assert _prompt_text(state) == _prompt_text(before) and not state.context.overrides


@folds(ev.ContextCompacted)
def test_a_compaction_stubs_the_covered_items_puts_the_note_at_the_top_and_spares_pinned_ones():
    base = _one_round()
    compacted = fold(base + [ev.ContextCompacted(step=1, policy="summarise", tokens_before=900, tokens_after=200,
                                                 note="Found [1]: the answer is 42.", covered=["obs:c1"],
                                                 covered_tokens=[321], prompt_tokens=400, completion_tokens=20)])
    msgs = __import__("tui_agent.core.fold", fromlist=["prompt"]).prompt(compacted)
    assert "Found [1]: the answer is 42." in msgs[1]["content"]  # the state note, after the question
    assert PAGE not in msgs[-1]["content"] and "321 tokens]" in msgs[-1]["content"]
    assert compacted.context.compactions == 1 and compacted.auxiliary_tokens == 420
    pinned = fold(base + [ev.ContextEdited(step=1, kind="pin", target="obs:c1", tokens_before=321, tokens_after=321),
                          ev.ContextCompacted(step=1, policy="truncate", tokens_before=900, tokens_after=200,
                                              covered=["obs:c1"], covered_tokens=[321])])
    assert PAGE in _prompt_text(pinned)


# --- plan mode: proposals, decisions, clarifying questions ---------------------------------------

_PLAN = {"sub_questions": [{"question": "When?", "acceptance": "a year", "queries": ["opening year"]}],
         "domains": ["bridges.example"], "budget": {"max_calls": 9}}


def _planned(*events: Event):
    return fold([RunStarted(question="q", model="m", system_prompt="sys"), *events])


@folds(ev.PlanProposed)
def test_a_proposed_plan_waits_for_its_decision_and_its_call_is_counted():
    state = _planned(ev.PlanProposed(plan=_PLAN, raw="{…}", prompt_tokens=40, completion_tokens=10, cost_usd=0.01))
    assert state.plan.pending is not None and state.plan.pending.plan.queries == ["opening year"]
    assert state.auxiliary_tokens == 50 and state.cost_usd == 0.01
    unreadable = _planned(ev.PlanProposed(plan=None, raw="no", error="no JSON object"))
    assert unreadable.plan.pending is None and unreadable.plan.unreadable == 1


@folds(ev.PlanDecided)
def test_an_approved_plan_is_in_force_and_the_model_reads_it_after_the_question():
    proposed = ev.PlanProposed(plan=_PLAN, raw="{…}")
    state = _planned(proposed, ev.PlanDecided(kind="approved", plan=_PLAN, plan_text="Research plan:\n1. When?"))
    assert state.plan.approved.budget.max_calls == 9 and state.plan.pending is None
    assert state.messages[1]["content"] == "q\n\nResearch plan:\n1. When?"  # the text the event carries
    assert state.context.items["question"].text == state.messages[1]["content"]
    replan = _planned(proposed, ev.PlanDecided(kind="replan", feedback="shorter"))
    assert replan.plan.approved is None and replan.plan.next_feedback == "shorter" and replan.messages[1]["content"] == "q"
    skipped = _planned(proposed, ev.PlanDecided(kind="skipped"))
    assert skipped.plan.decided and skipped.plan.approved is None


@folds(ev.ClarifyAsked)
def test_clarifying_questions_are_kept_and_their_call_counted():
    state = _planned(ev.ClarifyAsked(questions=["Which one?"], raw="{}", prompt_tokens=5, completion_tokens=5))
    assert state.plan.asked and state.plan.questions == ["Which one?"] and state.plan.answers is None
    assert state.auxiliary_tokens == 10


@folds(ev.ClarifyAnswered)
def test_clarifying_answers_become_part_of_the_question():
    state = _planned(ev.ClarifyAsked(questions=["Which one?", "When?"]),
                     ev.ClarifyAnswered(answers=["the red one", ""], text="Clarifications:\n- Which one? — the red one"))
    assert state.plan.answers == ["the red one", ""]
    assert state.messages[1]["content"] == "q\n\nClarifications:\n- Which one? — the red one"
    from tui_agent.core.fold import prompt

    assert "the red one" in prompt(state)[1]["content"]


# --- team research ---------------------------------------------------------------------------


@folds(ev.AgentStarted, ev.FactsExtracted, ev.AgentEnded, ev.SectionWritten)
def test_team_events_fold_into_agents_facts_and_sections_and_count_their_usage():
    events = [RunStarted(question="q", model="m"),
              ev.AgentStarted(agent=1, question="sub one", child_id="child-1"),
              ev.FactsExtracted(agent=1, url="https://a.example/", facts=["A is 1."], prompt_tokens=10,
                                completion_tokens=2),
              ev.FactsExtracted(agent=1, url="https://b.example/", facts=[], prompt_tokens=5, completion_tokens=1),
              ev.AgentEnded(agent=1, status="done", termination="answer", model_calls=3, prompt_tokens=100,
                            completion_tokens=20, sources=["https://a.example/", "https://b.example/"]),
              ev.SectionWritten(agent=1, question="sub one", text="A is 1 [1].", status="needs review",
                                note="1 of the 2 sources its acceptance names", sources=["https://a.example/"],
                                prompt_tokens=7, completion_tokens=3)]
    state = fold(events)
    agent = state.team.agents[1]
    assert (agent.child_id, agent.model_calls, agent.tokens, agent.ended) == ("child-1", 3, 120, True)
    assert agent.status == "needs review"  # done, but its section misses its acceptance
    assert state.team.facts_of(1) == {"https://a.example/": ["A is 1."]}
    assert state.team.pages[1] == {"https://a.example/", "https://b.example/"}  # the unrelated page was pressed too
    assert state.team.sections[1].sources == ["https://a.example/"]
    assert state.model_calls == 3
    assert state.total_tokens == 12 + 6 + 120 + 10
    assert state.auxiliary_tokens == 12 + 6 + 10  # the agents' calls are research, facts and sections auxiliary
    assert fold(events[:2]).team.agents[1].status == "running"
