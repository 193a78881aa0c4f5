"""The team's handles for front ends: each agent's status and state, stopping one agent, Submit now
for one agent and for all."""

from __future__ import annotations

import asyncio

from tests.unit.team_kit import agent_key, standard, team_run
from tui_agent.kinds import AgentStatus


def hold_beta(release: asyncio.Event):
    """Beta's agent waits in its first research call until ``release`` (or Submit now) comes."""

    async def held(messages, purpose):
        await release.wait()
        return standard(messages, purpose)

    def script(messages, purpose):
        if purpose == "forced":
            return "<answer>What I have so far.</answer>"
        if purpose == "research" and agent_key(messages) == "beta":
            return held
        return standard(messages, purpose)

    return script


async def until(check) -> None:
    while not check():
        await asyncio.sleep(0)


async def test_stopping_one_agent_fails_it_alone_and_its_section_is_incomplete():
    seen: list[tuple[int, AgentStatus]] = []
    run, team, model, rec = team_run(hold_beta(asyncio.Event()))
    team.changed = lambda h: seen.append((h.number, h.status))
    task = asyncio.ensure_future(run.start())
    await until(lambda: len(team.agents) == 3 and team.agents[1].state is not None and team.agents[1].state.in_flight)
    assert team.agents[1].status == AgentStatus.RUNNING
    team.agents[1].stop()
    result = await asyncio.wait_for(task, 30)
    assert result["termination"] == "answer"
    agents = {a["agent"]: a for a in result["agents"]}
    assert agents[2]["status"] == "failed" and agents[2]["reason"] == "stopped by you"
    assert agents[1]["status"] == agents[3]["status"] == "done"
    assert [s["status"] for s in result["sections"]] == ["answered", "incomplete", "answered"]
    assert (2, AgentStatus.FAILED) in seen
    assert team.agents[0].tokens > 0 and team.agents[0].state.answer is not None  # each agent's own state


async def test_submit_now_for_one_agent_makes_it_answer_while_the_others_go_on():
    run, team, model, rec = team_run(hold_beta(asyncio.Event()))
    followed = []
    task = asyncio.ensure_future(run.start())
    await until(lambda: len(team.agents) == 3 and team.agents[1].state is not None and team.agents[1].state.in_flight)
    team.agents[1].follow(followed.append)
    team.agents[1].submit_now()
    result = await asyncio.wait_for(task, 30)
    agents = {a["agent"]: a for a in result["agents"]}
    assert agents[2]["termination"] == "user_submit" and agents[2]["status"] in ("done", "needs review")
    assert agents[1]["termination"] == agents[3]["termination"] == "answer"
    assert any(e.type == "forced_answer" for e in followed)  # its own event stream


async def test_submit_now_for_all_agents_makes_every_running_one_answer():
    release = asyncio.Event()
    run, team, model, rec = team_run(hold_beta(release), team_concurrency=3)
    task = asyncio.ensure_future(run.start())
    await until(lambda: len(team.agents) == 3 and team.agents[1].state is not None and team.agents[1].state.in_flight)
    team.submit_all()
    result = await asyncio.wait_for(task, 30)
    assert result["termination"] == "answer"
    assert {a["agent"]: a["termination"] for a in result["agents"]}[2] == "user_submit"
    assert len(result["sections"]) == 3


async def test_an_agent_whose_call_waits_for_a_person_shows_waiting_until_decided():
    from tests.helpers import call
    from tui_agent.core.approval import Approve, ApprovalRequest
    from tui_agent.kinds import PlanDecisionKind
    from tui_agent.plan.requests import PlanDecision, PlanRequest

    decide = asyncio.Event()

    class Person:
        async def decide(self, request):
            if isinstance(request, PlanRequest):
                return PlanDecision(PlanDecisionKind.APPROVED)
            await decide.wait()
            return Approve(request.arguments)

    def script(messages, purpose):
        if purpose == "research" and agent_key(messages) == "beta" and len(messages) == 2:
            return call("search", query=["beta elsewhere"])  # outside the plan: asked
        return standard(messages, purpose)

    run, team, model, rec = team_run(script, approver=Person())
    task = asyncio.ensure_future(run.start())
    await until(lambda: len(team.agents) == 3 and team.agents[1].status == AgentStatus.WAITING)
    assert team.agents[1].waiting_since is not None
    await until(lambda: team.agents[0].status in (AgentStatus.DONE, AgentStatus.NEEDS_REVIEW))  # the others go on
    assert team.agents[1].status == AgentStatus.WAITING
    decide.set()
    result = await asyncio.wait_for(task, 30)
    assert [a["status"] for a in result["agents"]] == ["done"] * 3
