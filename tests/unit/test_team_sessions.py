"""A team research in the store: child sessions under the parent, resume after a crash reruns only
the unfinished agents, a fork of a team session runs."""

from __future__ import annotations

import asyncio

from tests.unit.team_kit import KEYS, PageVisit, agent_key, standard, team_run, url
from tui_agent.model.scripted import Partial
from tui_agent.session.resume import fork, prepare_resume
from tui_agent.session.store import Store


def stuck_on_beta(messages, purpose):
    """Beta's agent hangs in its first research call (a process about to be killed)."""
    if purpose == "research" and agent_key(messages) == "beta":
        return Partial("<think>thinking about beta")
    return standard(messages, purpose)


async def crashed_team(store: Store) -> str:
    run, team, model, rec = team_run(stuck_on_beta, store=store)
    task = asyncio.ensure_future(run.start())
    while len(rec.of("section_written")) < 2:  # alpha and gamma finished; beta hangs
        await asyncio.sleep(0)
        assert not task.done()
    task.cancel()  # the process stops here
    try:
        await task
    except asyncio.CancelledError:
        pass
    return run.session_id


async def test_children_are_listed_under_their_parent(tmp_path):
    store = Store(tmp_path)
    run, team, model, rec = team_run(standard, store=store)
    result = await run.start()
    children = store.team_children(run.session_id)
    assert [c.team_agent for c in children] == [1, 2, 3]
    assert [a["child_id"] for a in result["agents"]] == [c.id for c in children]
    assert all(c.termination == "answer" for c in children)


async def test_resume_after_a_crash_reruns_only_the_unfinished_agent(tmp_path):
    store = Store(tmp_path)
    parent = await crashed_team(store)
    resumed = prepare_resume(store, parent, {})
    assert sorted(a.number for a in resumed.state.team.agents.values() if a.ended) == [1, 3]
    visit = PageVisit()
    run, team, model, rec = team_run(standard, store=store, visit=visit, **resumed.run_kwargs())
    result = await run.start()
    assert result["termination"] == "answer"
    assert visit.runs == [[url("beta")]]  # alpha's and gamma's pages are not read again
    researched = {agent_key(c.messages) for c in model.calls if c.purpose == "research"}
    assert researched == {"beta"}
    assert [s["status"] for s in result["sections"]] == ["answered"] * 3
    facts = {(f.agent, f.url) for f in run.engine.state.team.facts}
    assert facts == {(i, url(k)) for i, k in enumerate(KEYS, 1)}  # the finished agents' facts reused
    beta_child = [c for c in store.team_children(parent) if c.team_agent == 2]
    assert len(beta_child) == 1  # its own child session was continued, not a new one


async def test_a_fork_of_a_team_session_keeps_its_agents_findings_and_writes_the_report_again(tmp_path):
    store = Store(tmp_path)
    run, team, model, rec = team_run(standard, store=store)
    first = await run.start()
    new_id = fork(store, run.session_id, at_step=1)
    resumed = prepare_resume(store, new_id, {})
    run2, team2, model2, rec2 = team_run(standard, store=store, **resumed.run_kwargs())
    result = await run2.start()
    assert result["termination"] == "answer"
    assert [c.purpose for c in model2.calls if c.purpose == "research"] == []  # the agents' findings stand
    assert result["answer"] == first["answer"]
    assert [s["sources"] for s in result["sections"]] == [s["sources"] for s in first["sections"]]


async def test_sessions_verify_checks_the_reports_claims_against_each_sources_facts(tmp_path):
    import json

    from tui_agent.config import Settings
    from tui_agent.model.scripted import ScriptedModel
    from tui_agent.verify.check import verify_session

    store = Store(tmp_path)
    run, team, model, rec = team_run(standard, store=store)
    await run.start()
    seen: list[str] = []

    def verifier(messages, purpose):
        seen.append(messages[-1]["content"])
        return json.dumps({"verdict": "supported", "evidence": "42 units"})

    verification = await verify_session(store, run.session_id, Settings(model="scripted/test"),
                                        llm=ScriptedModel(verifier))
    claims = verification.claims
    assert sorted(c.claim.split()[1] for c in claims) == KEYS  # one claim per section: "The <key> figure …"
    assert all(c.verdict == "supported" for c in claims)
    for c in claims:  # each claim was checked against its own source's facts
        key = c.claim.split()[1]
        assert any(f"The {key} figure is 42 units." in text for text in seen)
