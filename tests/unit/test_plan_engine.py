"""Plan mode in the engine (scripted model): the plan as an approval policy, a rejection winning
over it, its budget as the run's gates, replans, clarifying questions, resume and fork."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers import Recorder, RecordingApprover, call
from tests.unit.engine_kit import scripted_engine
from tests.unit.plan_kit import PLAN, FakeSearch, FakeVisit, plan_reply
from tui_agent.core.approval import ApprovalRequest, Reject
from tui_agent.agent.engine import Engine
from tui_agent.config import Settings
from tui_agent.kinds import DecisionKind, PlanDecisionKind, Purpose
from tui_agent.model.scripted import ScriptedModel
from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanDecision, PlanRequest
from tui_agent.core.plan_schema import Plan
from tui_agent.core import fold
from tui_agent.core.events import event_from_dict
from tui_agent.tools.base import ToolRegistry

ANSWER = ("<answer>## 1. When did the bridge open?\nIt opened in 1932 [1], after four years of work on the "
          "river crossing, as the city archive and the builders' own records both state in detail today; the "
          "opening ceremony drew large crowds from the whole region.\n\n"
          "## 2. Who built it?\nAcme.</answer>")
PAGE = "https://bridges.example/history"
OTHER = "https://elsewhere.example/page"


def approve_plan(request):
    assert isinstance(request, PlanRequest)
    return PlanDecision(PlanDecisionKind.APPROVED)


def tools(results=None):
    return FakeSearch(results or {"bridge opening year": [PAGE, "https://news.example/bridge"]}), FakeVisit()


async def test_in_plan_calls_run_unasked_and_a_call_outside_the_plan_is_asked_and_marked():
    search, visit = tools()
    approver = RecordingApprover(approve_plan)  # every later request: approve
    engine, rec, model = scripted_engine([
        plan_reply(),
        call("search", query=["bridge opening year"]),  # the plan's query
        call("visit", url=["https://news.example/bridge"], goal="year"),  # returned by the plan's search
        call("visit", url=["https://bridges.example/other"], goal="year"),  # on a plan domain
        call("visit", url=[OTHER], goal="year"),  # outside the plan
        ANSWER,
    ], search, visit, approver=approver, plan="ask")
    result = await engine.run()
    assert result["termination"] == "answer"
    asked = [r for r in approver.requests if isinstance(r, ApprovalRequest)]
    assert [(r.tool, r.arguments["url"], r.outside_plan) for r in asked] == [("visit", [OTHER], True)]
    kinds = [d.kind for d in rec.of("decision")]
    assert kinds == [DecisionKind.PLAN, DecisionKind.PLAN, DecisionKind.PLAN, DecisionKind.APPROVED]
    assert visit.runs == [["https://news.example/bridge"], ["https://bridges.example/other"], [OTHER]]
    # The plan call came first (purpose plan), and the research model reads the plan after the question.
    assert model.calls[0].purpose == Purpose.PLAN
    question = model.calls[1].messages[1]["content"]
    assert "Research plan" in question and "bridge opening year" in question and "## N." in question


async def test_a_search_outside_the_plans_queries_is_asked():
    search, visit = tools()
    approver = RecordingApprover(approve_plan, Reject("no"))
    engine, rec, _ = scripted_engine([plan_reply(), call("search", query=["bridge opening year", "cheap flights"]),
                                      ANSWER], search, visit, approver=approver, plan="ask")
    await engine.run()
    assert search.runs == [] and approver.requests[1].outside_plan


async def test_a_rejection_wins_over_the_plan():
    search, visit = tools()
    approver = RecordingApprover(approve_plan, Reject("not that one"), Reject("still no"))
    engine, rec, _ = scripted_engine([
        plan_reply(),
        call("search", query=["bridge opening year", "cheap flights"]),  # asked (outside), rejected
        call("search", query=["bridge opening year"]),  # the plan covers it, but the person said no to it
        ANSWER,
    ], search, visit, approver=approver, plan="ask")
    await engine.run()
    asked = [r for r in approver.requests if isinstance(r, ApprovalRequest)]
    assert [r.arguments["query"] for r in asked] == [["bridge opening year", "cheap flights"], ["bridge opening year"]]
    assert search.runs == [] and [d.kind for d in rec.of("decision")] == ["rejected", "rejected"]


async def test_the_plans_budget_is_the_runs_call_gate():
    search, visit = tools()
    plan = dict(PLAN, budget={"max_calls": 2})
    engine, rec, _ = scripted_engine([plan_reply(plan)] + [call("search", query=[f"q{i}"]) for i in range(2)]
                                     + ["<answer>forced [1]</answer>"], search, visit, plan="ask")
    result = await engine.run()  # without the plan's budget the third reply would be the answer
    assert result["termination"] == "call_limit" and result["model_calls"] == 2


async def test_the_plan_never_raises_a_limit_the_user_set_lower():
    search, visit = tools()
    plan = dict(PLAN, budget={"max_calls": 50, "budget_usd": 5.0})
    engine, rec, _ = scripted_engine([plan_reply(plan), call("search", query=["q0"]), "<answer>forced [1]</answer>"],
                                     search, visit, plan="ask", max_calls=1)
    result = await engine.run()
    assert result["termination"] == "call_limit" and result["model_calls"] == 1
    assert engine.settings.max_calls == 1 and engine.settings.budget_usd == 5.0


async def test_replan_with_feedback_sends_the_feedback_and_the_edited_plan_is_the_one_in_force():
    search, visit = tools()
    edited = Plan.from_dict(dict(PLAN, domains=["edited.example"]))
    approver = RecordingApprover(PlanDecision(PlanDecisionKind.REPLAN, feedback="add the bridge's cost"),
                                 PlanDecision(PlanDecisionKind.EDITED, plan=edited))
    engine, rec, model = scripted_engine([plan_reply(), plan_reply(fenced=False), ANSWER], search, visit,
                                         approver=approver, plan="ask", require_evidence=False)
    result = await engine.run()
    assert [r.attempt for r in approver.requests] == [1, 2]
    assert "add the bridge's cost" in model.calls[1].messages[-1]["content"]
    proposed = rec.of("plan_proposed")
    assert [p.attempt for p in proposed] == [1, 2] and proposed[1].feedback == "add the bridge's cost"
    assert [d.kind for d in rec.of("plan_decided")] == ["replan", "edited"]
    assert engine.state.plan.approved.domains == ["edited.example"]
    assert result["plan"]["domains"] == ["edited.example"]


async def test_skipping_the_plan_researches_without_one():
    search, visit = tools()
    approver = RecordingApprover(PlanDecision(PlanDecisionKind.SKIPPED))
    engine, rec, model = scripted_engine([plan_reply(), call("search", query=["bridge opening year"]), ANSWER],
                                         search, visit, approver=approver, plan="ask")
    await engine.run()
    asked = [r for r in approver.requests if isinstance(r, ApprovalRequest)]
    assert len(asked) == 1 and not asked[0].outside_plan  # asked as without plan mode
    assert "Research plan" not in model.calls[1].messages[1]["content"]


async def test_an_unreadable_plan_is_asked_again_then_planning_is_skipped():
    search, visit = tools()
    engine, rec, model = scripted_engine(["no json here", "{not: [valid", "still nothing", ANSWER], search, visit,
                                         plan="ask", max_format_errors=3, require_evidence=False)
    result = await engine.run()
    assert [p.error != "" for p in rec.of("plan_proposed")] == [True, True, True]
    assert "no usable plan" in model.calls[1].messages[-1]["content"]
    assert rec.of("plan_decided")[0].kind == "skipped" and result["answer"]


async def test_a_lenient_plan_json5_without_domains_or_budget():
    search, visit = tools()
    raw = "<think>plan it</think>{sub_questions: [{question: 'Q one', queries: 'only one query',},],}"
    engine, rec, _ = scripted_engine([raw, ANSWER], search, visit, plan="ask", require_evidence=False)
    await engine.run()
    plan = engine.state.plan.approved
    assert plan is not None and plan.sub_questions[0].queries == ["only one query"] and plan.domains == []


async def test_clarify_answers_become_part_of_the_question():
    search, visit = tools()
    approver = RecordingApprover(lambda r: ClarifyAnswers(["the Golden Gate", ""]), approve_plan)
    engine, rec, model = scripted_engine(['{"questions": ["Which bridge?", "Which period?", "Why?", "Fourth?"]}',
                                          plan_reply(), ANSWER], search, visit, approver=approver, plan="clarify",
                                         require_evidence=False)
    await engine.run()
    ask = approver.requests[0]
    assert isinstance(ask, ClarifyRequest) and ask.questions == ["Which bridge?", "Which period?", "Why?"]
    assert "Which bridge? — the Golden Gate" in model.calls[1].messages[1]["content"]  # the planner reads it
    assert "the Golden Gate" in model.calls[2].messages[1]["content"]  # and the research
    assert "Which period?" not in model.calls[2].messages[1]["content"]  # unanswered: left out
    assert [e.type for e in rec.events if e.type.startswith("clarify")] == ["clarify_asked", "clarify_answered"]


async def test_sub_question_statuses_in_the_result():
    search, visit = tools()
    engine, rec, _ = scripted_engine([plan_reply(), call("search", query=["bridge opening year"]),
                                      call("visit", url=[PAGE], goal="y"), ANSWER], search, visit, plan="ask")
    result = await engine.run()
    statuses = [(sq["question"], sq["status"], sq.get("note", "")) for sq in result["plan"]["sub_questions"]]
    assert statuses == [("When did the bridge open?", "answered", ""),
                        ("Who built it?", "needs review", "cites no source")]


def _stored(rec: Recorder):
    return [event_from_dict(json.loads(json.dumps(e.stored_dict(), default=str))) for e in rec.events if e.stored]


async def test_resume_keeps_the_plan_its_decisions_and_its_policy():
    search, visit = tools()
    approver = RecordingApprover(PlanDecision(PlanDecisionKind.REPLAN, feedback="shorter"), approve_plan)
    engine, rec, _ = scripted_engine([plan_reply(), plan_reply(), call("search", query=["bridge opening year"])],
                                     search, visit, approver=approver, plan="ask")
    await engine.run()  # the script ends after the search: a model error, the session stays resumable
    state = fold.fold(_stored(rec))
    assert state.plan.approved is not None and [d.kind for d in state.plan.decisions] == ["replan", "approved"]
    # Resumed: no new plan call, and the plan still approves its calls.
    model = ScriptedModel([call("visit", url=[PAGE], goal="y"), ANSWER])
    again = RecordingApprover()
    resumed = Engine(Settings(model="scripted/test", plan="ask", answer_reserve=4000, forced_answer_tokens=1000),
                     "", tools=ToolRegistry([search, visit]), llm=model, approver=again, emit=Recorder(),
                     session_id="unit", state=state)
    result = await resumed.run()
    assert [c.purpose for c in model.calls] == ["research", "research"] and again.requests == []
    assert visit.runs == [[PAGE]] and result["plan"]["sub_questions"][0]["status"] == "answered"


async def test_a_plan_waiting_for_its_decision_is_asked_again_on_resume_not_made_again():
    search, visit = tools()

    class Stop(RecordingApprover):
        async def decide(self, request):
            raise asyncio.CancelledError  # the run is stopped while the plan waits

    engine, rec, _ = scripted_engine([plan_reply()], search, visit, approver=Stop(), plan="ask")
    with pytest.raises(asyncio.CancelledError):
        await engine.run()
    state = fold.fold(_stored(rec))
    assert state.plan.pending is not None
    model = ScriptedModel([ANSWER])
    again = RecordingApprover(approve_plan)
    resumed = Engine(Settings(model="scripted/test", plan="ask", require_evidence=False), "",
                     tools=ToolRegistry([search, visit]), llm=model, approver=again, emit=Recorder(), state=state)
    await resumed.run()
    assert isinstance(again.requests[0], PlanRequest) and [c.purpose for c in model.calls] == ["research"]


async def test_auto_mode_approves_the_plan_without_asking():
    search, visit = tools()
    approver = RecordingApprover()
    engine, rec, _ = scripted_engine([plan_reply(), ANSWER], search, visit, approver=approver, plan="ask",
                                     auto_approve=True, require_evidence=False)
    await engine.run()
    assert approver.requests == [] and rec.of("plan_decided")[0].auto


async def test_submit_now_at_the_plan_skips_planning_and_forces_the_answer():
    from tui_agent.core.approval import SubmitNow

    search, visit = tools()
    engine, rec, model = scripted_engine([plan_reply(), "<answer>at once</answer>"], search, visit,
                                         approver=RecordingApprover(SubmitNow()), plan="ask")
    result = await engine.run()
    assert result["termination"] == "user_submit" and result["answer"] == "at once"
    assert [(d.kind, d.feedback) for d in rec.of("plan_decided")] == [("skipped", "Submit now")]
    assert [c.purpose for c in model.calls] == ["plan", "forced"]


async def test_an_approver_that_approves_whatever_it_is_asked_approves_the_plan():
    search, visit = tools()
    approver = RecordingApprover()  # Approve(request.arguments) for every request
    engine, rec, _ = scripted_engine(['{"questions": ["Which?"]}', plan_reply(), ANSWER], search, visit,
                                     approver=approver, plan="clarify", require_evidence=False)
    result = await engine.run()
    assert result["termination"] == "answer" and engine.state.plan.approved is not None
    assert rec.of("clarify_answered")[0].answers == [] and rec.of("plan_decided")[0].kind == "approved"


LOOKALIKE = "https://\u0430pple.example/"  # a Cyrillic а


class SnippetSearch(FakeSearch):
    """Results in the real search tool's format, with URLs planted in titles and snippets."""

    async def run(self, arguments, ctx):
        from tui_agent.tools.base import ToolResult
        from tui_agent.tools.search import Hit, QueryOutcome, format_outcomes

        self.runs.append(list(arguments["query"]))
        outcomes = [QueryOutcome(q, hits=[Hit("see https://title.example/x", PAGE,
                                               "mirror at https://planted.example/steal and http://127.0.0.1:8080/"),
                                           Hit("Apple", LOOKALIKE, "a look-alike result")])
                    for q in arguments["query"]]
        return ToolResult(format_outcomes(outcomes, 10))


async def test_only_result_urls_of_a_plan_search_run_unasked_not_urls_in_snippets_titles_or_queries():
    query_url = "https://query.example/page"
    plan = dict(PLAN, domains=[], sub_questions=[dict(PLAN["sub_questions"][0], queries=["bridge opening year", query_url])])
    search, visit = SnippetSearch(), FakeVisit()
    planted = ["https://planted.example/steal", "https://title.example/x", "http://127.0.0.1:8080", query_url,
               LOOKALIKE]
    approver = RecordingApprover(approve_plan)  # every later request: approve
    engine, rec, _ = scripted_engine([
        plan_reply(plan), call("search", query=["bridge opening year", query_url]),
        call("visit", url=[PAGE], goal="year"), *[call("visit", url=[u], goal="year") for u in planted], ANSWER,
    ], search, visit, approver=approver, plan="ask")
    await engine.run()
    asked = [r.arguments["url"] for r in approver.requests if isinstance(r, ApprovalRequest)]
    assert asked == [[u] for u in planted]
    assert [d.kind for d in rec.of("decision")][:2] == [DecisionKind.PLAN, DecisionKind.PLAN]
