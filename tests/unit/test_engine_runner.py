"""A run writes to any SessionLog (here a list in memory) with any Model (here a scripted one)."""

from __future__ import annotations

from tests.helpers import NoteTool, call
from tui_agent.config import Settings
from tui_agent.model.scripted import ScriptedModel
from tui_agent.agent.runner import Run
from tui_agent.core.events import Event
from tui_agent.core.fold import fold
from tui_agent.session.log import SessionLog
from tui_agent.tools.base import ToolRegistry


class ListLog:
    def __init__(self, fail_after: int | None = None, fail_on: str | None = None) -> None:
        self.sessions: list[str] = []
        self.events: list[Event] = []
        self.interrupted: list[str] = []
        self.fail_after = fail_after
        self.fail_on = fail_on  # the type of the first event that cannot be saved (the disk fills there)

    def create_session(self, session_id: str, question: str, model: str, settings: dict | None = None, *,
                       eval_label: str | None = None, case_id: str | None = None) -> None:
        self.sessions.append(session_id)

    def claim(self, session_id: str, *, seen_events: int | None = None) -> None:
        self.sessions.append(session_id)

    def append(self, event: Event) -> None:
        if self.fail_after is not None and len(self.events) >= self.fail_after:
            raise OSError("No space left on device")
        if self.fail_on == event.type:
            self.fail_after = len(self.events)
            raise OSError("No space left on device")
        if event.stored:
            self.events.append(event)

    def mark_interrupted(self, session_id: str) -> None:
        self.interrupted.append(session_id)


def make_run(log: SessionLog) -> Run:
    # (no evidence needed: once saving stops, the lookup is not run, and the model answers anyway)
    return Run(Settings(model="scripted/test", answer_reserve=4000, require_evidence=False), "What is the answer?",
               store=log, approver=None,
               llm=ScriptedModel([call("lookup", topic="a"), "<answer>42 [1]</answer>"]),
               tools=ToolRegistry([NoteTool()]), session_id="s-mem")


async def test_the_stored_events_fold_to_the_runs_own_result():
    log = ListLog()
    result = await make_run(log).start()
    assert log.sessions == ["s-mem"] and result["answer"] == "42 [1]"
    state = fold(log.events)
    assert (state.model_calls, state.tool_calls, state.total_tokens) == \
        (result["model_calls"], result["tool_calls"], result["total_tokens"])
    assert not any(e.type == "model_delta" for e in log.events)


async def test_a_log_that_stops_saving_is_reported_and_the_run_still_ends():
    log = ListLog(fail_after=3)
    run = make_run(log)
    result = await run.start()
    assert result["answer"] == "42 [1]" and run.store_error and "No space left" in run.store_error


async def test_a_call_whose_start_cannot_be_saved_is_not_run_and_the_model_is_told():
    # The disk fills just as a call is about to run: run anyway, and a resume (from what was saved:
    # the call approved, not started) would run it a second time.
    log, tool = ListLog(fail_on="tool_started"), NoteTool()
    run = Run(Settings(model="scripted/test", answer_reserve=4000, require_evidence=False), "What is the answer?",
              store=log, approver=None, llm=ScriptedModel([call("lookup", topic="a"), "<answer>unknown</answer>"]),
              tools=ToolRegistry([tool]), session_id="s-mem")
    result = await run.start()
    assert tool.runs == [] and result["answer"] == "unknown"
    assert run.store_error and "No space left" in run.store_error
    assert [e.type for e in log.events][-1] == "decision"  # saved: the call approved, never started
    assert result["tool_calls"] == 0


async def test_a_resumed_call_that_had_started_is_not_run_again_and_the_model_and_user_are_told():
    first = ListLog(fail_on="observation")  # the call ran; its result was never saved
    tool = NoteTool()
    run = Run(Settings(model="scripted/test", answer_reserve=4000, require_evidence=False), "What is the answer?",
              store=first, approver=None, llm=ScriptedModel([call("lookup", topic="a"), "<answer>42</answer>"]),
              tools=ToolRegistry([tool]), session_id="s-mem")
    await run.start()
    assert len(tool.runs) == 1 and not any(e.type == "observation" for e in first.events)
    again, seen = ListLog(), []
    resumed = Run(Settings(model="scripted/test", answer_reserve=4000, require_evidence=False), "What is the answer?",
                  store=again, approver=None, llm=ScriptedModel(["<answer>42, from before</answer>"]),
                  tools=ToolRegistry([tool]), session_id="s-mem", state=fold(first.events), listeners=[seen.append])
    result = await resumed.start()
    assert len(tool.runs) == 1 and result["answer"] == "42, from before"  # not run a second time
    (obs,) = [e for e in again.events if e.type == "observation"]
    assert obs.status == "interrupted" and "may have run" in obs.text
    assert any(e.type == "notice" and "may have run; it is not run again" in e.text for e in seen)
