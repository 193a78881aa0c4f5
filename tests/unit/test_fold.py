"""The one fold: the rules every reader of the event log shares."""

from __future__ import annotations

from tui_agent.session.events import (
    ActionProposed, ApprovalModeChanged, ApprovalRequested, Decision, ForcedAnswer, ModelCallEnded, ModelCallStarted,
    Observation, ObservationMessage, RunStarted,
)
from tui_agent.session.fold import Status, fold


def started(step: int, purpose: str = "research") -> ModelCallStarted:
    return ModelCallStarted(step=step, messages=[], message_tokens=[], prompt_tokens=10, threshold=100,
                            context_window=120, purpose=purpose)


def failed(call_id: str, status: str = "failed") -> Observation:
    return Observation(step=1, call_id=call_id, tool="fetchy", arguments={"q": call_id}, text="down", status=status,
                       executed=True)


def test_a_replayed_result_does_not_reset_a_tools_failures():
    events = [RunStarted(question="q", model="m", settings={"tool_failure_limit": 3}),
              failed("c1"), failed("c2"), failed("c3", status="replayed")]
    state = fold(events)
    assert state.failures["fetchy"] == 2 and "fetchy" not in state.disabled
    state = fold(events + [failed("c4")])
    assert "fetchy" in state.disabled  # three real failures in a row
    assert fold(events + [failed("c4", status="ok")]).failures["fetchy"] == 0


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


def test_a_call_waiting_for_a_person_is_pending_until_decided():
    events = [RunStarted(question="q", model="m"), started(1), ModelCallEnded(step=1, text="<tool_call>…"),
              ActionProposed(step=1, call_id="c1", tool="visit", arguments={"url": ["u"]}),
              ApprovalRequested(step=1, call_id="c1")]
    state = fold(events)
    assert state.status == Status.AWAITING and state.pending_approval == "c1"
    assert state.calls["c1"].label == "pending" and state.recorded_calls()[0].call_id == "c1"
    state = fold(events + [Decision(step=1, call_id="c1", kind="rejected", reason="no")])
    assert state.status == Status.RUNNING and state.calls["c1"].label == "rejected"


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


def test_counters_continue_from_the_stored_events():
    events = [RunStarted(question="q", model="m"), started(1),
              ModelCallEnded(step=1, text="a", prompt_tokens=50, completion_tokens=5, cost_usd=0.01, elapsed_s=2.5),
              started(2)]
    state = fold(events)
    assert (state.model_calls, state.shown_calls, state.prompt_tokens, state.total_tokens) == (1, 2, 50, 55)
    assert state.cost_usd == 0.01 and state.elapsed_s == 2.5 and state.in_flight
