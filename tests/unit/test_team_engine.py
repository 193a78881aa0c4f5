"""Team research on the in-memory model: agents side by side, isolation, facts with URLs, sections
with their sources bound, failures, the deny policy, the team budget."""

from __future__ import annotations

import asyncio

from tests.unit.team_kit import KEYS, QUESTION, SUBS, started_together, standard, team_run, url
from tui_agent.kinds import AgentStatus, SectionStatus


async def test_three_agents_run_side_by_side_and_the_report_binds_each_sections_sources():
    script = await started_together(3)
    run, team, model, rec = team_run(script)
    # Each agent's first call waits until all three have made theirs: only concurrency ends it.
    result = await asyncio.wait_for(run.start(), 30)
    assert result["termination"] == "answer"
    state = run.engine.state
    assert [a["status"] for a in result["agents"]] == ["done"] * 3
    assert [s["status"] for s in result["sections"]] == ["answered"] * 3
    assert [s["sources"] for s in result["sections"]] == [[url(k)] for k in KEYS]
    report = result["answer"]
    assert report.startswith(f"# {QUESTION}")
    numbers = {s.url: s.number for s in state.sources.values()}
    for i, (q, k) in enumerate(zip(SUBS, KEYS), 1):
        assert f"## {i}. {q}" in report
        assert f"[{numbers[url(k)]}] {url(k)}" in report
    # Facts keep their URL; the N/A line is no fact.
    assert sorted((f.agent, f.url, f.text) for f in state.team.facts) == [
        (i, url(k), f"The {k} figure is 42 units.") for i, k in enumerate(KEYS, 1)]


async def test_no_agent_request_carries_another_sub_question_or_another_agents_findings():
    run, team, model, rec = team_run(standard)
    await run.start()
    for c in model.calls:
        if c.purpose not in ("research", "facts", "section", "forced"):
            continue
        text = "\n".join(m["content"] or "" for m in c.messages)
        own = [k for k in KEYS if k.capitalize() in text.split("Background only")[0] or f"/{k}" in text]
        mine = own[0]
        others = [k for k in KEYS if k != mine]
        for k in others:
            assert SUBS[KEYS.index(k)] not in text, (c.purpose, k)
            assert url(k) not in text
            assert f"The {k} figure" not in text


async def test_an_agent_whose_model_fails_ends_with_its_reason_while_the_others_finish():
    from tui_agent.model import ModelError

    def script(messages, purpose):
        text = messages[1]["content"] if len(messages) > 1 else ""
        if purpose == "research" and "Beta" in text.split("Background only")[0]:
            raise ModelError("unreachable", "connection refused")
        return standard(messages, purpose)

    run, team, model, rec = team_run(script)
    result = await run.start()
    assert result["termination"] == "answer"
    statuses = {a["agent"]: (a["status"], a["termination"]) for a in result["agents"]}
    assert statuses[1][0] == "done" and statuses[3][0] == "done"
    assert statuses[2] == ("failed", "model_error")
    assert "connection refused" in result["agents"][1]["reason"]
    assert [s["status"] for s in result["sections"]] == ["answered", "incomplete", "answered"]
    assert "*Status: incomplete" in result["answer"]


async def test_a_deny_policy_holds_inside_every_sub_agent():
    from tests.unit.team_kit import PageVisit

    visit = PageVisit()
    run, team, model, rec = team_run(standard, visit=visit, tool_policies={"visit": "deny"})
    result = await run.start()
    assert visit.runs == []  # --yes never overrides deny
    assert result["termination"] == "answer"
    assert [s["status"] for s in result["sections"]] == ["needs review"] * 3
    assert all(s["sources"] == [] for s in result["sections"])


async def test_when_the_team_budget_is_spent_every_agent_answers_and_the_report_is_written():
    # Each agent needs 3 research calls; the team has 4 in all: the budget runs out on the way.
    run, team, model, rec = team_run(standard, max_calls=4, team_concurrency=3)
    result = await run.start()
    assert result["termination"] == "answer"
    assert any("team budget is spent" in n.text for n in run.engine.state.notices)
    assert len(result["sections"]) == 3
    forced = [c for c in model.calls if c.purpose == "forced"]
    assert forced  # the agents were made to answer
    research = [c for c in model.calls if c.purpose == "research"]
    assert len(research) <= 4 + 2  # calls already under way when it ran out may finish


async def test_each_approval_request_names_its_agent():
    from tests.helpers import RecordingApprover
    from tests.unit.team_kit import agent_key, research_reply
    from tui_agent.core.approval import ApprovalRequest
    from tui_agent.kinds import PlanDecisionKind
    from tui_agent.plan.requests import PlanDecision
    from tests.helpers import call

    def script(messages, purpose):
        key = agent_key(messages)
        if purpose == "research" and key and not any(m["role"] == "assistant" for m in messages):
            return call("search", query=[f"{key} elsewhere"])  # not the plan's query: asked
        return standard(messages, purpose)

    approver = RecordingApprover(lambda r: PlanDecision(PlanDecisionKind.APPROVED))
    run, team, model, rec = team_run(script, approver=approver)
    result = await run.start()
    assert result["termination"] == "answer"
    asked = sorted(r.agent for r in approver.requests if isinstance(r, ApprovalRequest))
    assert asked == [f"agent {i}: {q}" for i, q in enumerate(SUBS, 1)]
