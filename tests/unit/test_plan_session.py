"""A planned session in the store: a fork keeps the plan and its decisions and the plan still
approves its calls there; the Markdown export, the JSON export and `sessions show` show the plan
with each sub-question's status."""

from __future__ import annotations

import io

from tests.helpers import RecordingApprover, call
from tests.unit.plan_kit import FakeSearch, FakeVisit, plan_reply
from tui_agent.agent.runner import Run
from tui_agent.cli.headless import TracePrinter
from tui_agent.config import Settings
from tui_agent.kinds import PlanDecisionKind
from tui_agent.model.scripted import ScriptedModel
from tui_agent.plan.requests import PlanDecision
from tui_agent.session.exports import export, markdown, result_json
from tui_agent.session.resume import fork, load, prepare_resume
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

PAGE = "https://bridges.example/history"
ANSWER = "<answer>## 1. When did the bridge open?\nIn 1932 [1].\n\n## 2. Who built it?\nAcme [1].</answer>"


def settings() -> Settings:
    return Settings(model="scripted/test", plan="ask", answer_reserve=4000, forced_answer_tokens=1000)


async def _planned_session(tmp_path):
    store = Store(tmp_path / "data")
    search, visit = FakeSearch({"bridge opening year": [PAGE]}), FakeVisit()
    approver = RecordingApprover(PlanDecision(PlanDecisionKind.REPLAN, feedback="fewer"),
                                 PlanDecision(PlanDecisionKind.APPROVED))
    model = ScriptedModel([plan_reply(), plan_reply(), call("search", query=["bridge opening year"]),
                           call("visit", url=[PAGE], goal="year"), ANSWER])
    run = Run(settings(), "When did the bridge open?", store=store, approver=approver, llm=model,
              tools=ToolRegistry([search, visit]))
    await run.start()
    return store, run.session_id, search, visit


async def test_a_fork_keeps_the_plan_and_its_decisions_and_the_plan_still_approves_its_calls(tmp_path):
    store, sid, search, visit = await _planned_session(tmp_path)
    new_id = fork(store, sid, at_step=2)
    state = load(store, new_id)
    assert state.plan.approved is not None and [d.kind for d in state.plan.decisions] == ["replan", "approved"]
    resumed = prepare_resume(store, new_id, {}, live_tools=True)
    model = ScriptedModel([call("visit", url=[PAGE], goal="year"), ANSWER])
    asked = RecordingApprover()
    run = Run(resumed.settings, resumed.question, store=store, approver=asked, llm=model,
              tools=ToolRegistry([search, visit]), **resumed.run_kwargs())
    result = await run.start()
    assert asked.requests == [] and [c.purpose for c in model.calls] == ["research", "research"]
    assert "Research plan" in model.calls[0].messages[1]["content"]
    assert [sq["status"] for sq in result["plan"]["sub_questions"]] == ["needs review", "needs review"]


async def test_the_exports_and_sessions_show_keep_the_plan(tmp_path):
    store, sid, _, _ = await _planned_session(tmp_path)
    events = store.events(sid)
    md = markdown(load(store, sid))
    assert "## Plan" in md and "| 1 | When did the bridge open? | ! needs review |" in md
    assert "2 proposal(s); approved." in md
    plan = result_json(events)["result"]["plan"]
    assert plan["proposals"] == 2 and [sq["note"] for sq in plan["sub_questions"]] == [
        "2 words, under the floor of 30", "1 word, under the floor of 30"]
    assert '"plan_decided"' in export(events, "jsonl")
    out = io.StringIO()
    printer = TracePrinter(out)
    for e in events:
        printer(e)
    shown = out.getvalue()
    assert "plan proposed (attempt 2, after: fewer):" in shown and "plan replan: fewer" in shown
    assert "plan approved" in shown and "queries: bridge opening year; when was the bridge opened" in shown
