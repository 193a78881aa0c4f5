"""The plan read leniently and checked against its schema; the progress of each sub-question read
from the answer's sections; which URLs a plan's domains cover."""

from __future__ import annotations

from tui_agent.plan.policy import on_domain
from tui_agent.plan.progress import asked_citations, progress
from tui_agent.plan.schema import Plan, parse_edited, read_plan

SUB = '{"question": "Q?", "acceptance": "a", "queries": ["q"]}'


def test_a_plan_is_read_fenced_bare_json5_or_after_thinking_without_domains_or_budget():
    for raw in (f'```json\n{{"sub_questions": [{SUB}]}}\n```', f'Sure: {{"sub_questions": [{SUB}]}} hope it helps',
                "{sub_questions: [{question: 'Q?', queries: ['q'],}],}", f'<think>x</think>{{"Sub_Questions": [{SUB}]}}'):
        plan, error = read_plan(raw)
        assert error == "" and plan.sub_questions[0].question == "Q?" and plan.domains == [], raw
        assert plan.budget.max_calls is None


def test_what_is_wrong_with_a_plan_names_the_field():
    assert read_plan("no plan at all")[1] == "the reply holds no JSON object"
    assert "sub_questions" in read_plan('{"sub_questions": []}')[1]
    error = read_plan(f'{{"sub_questions": [{SUB}], "budget": {{"max_calls": 0}}}}')[1]
    assert error.startswith("budget.max_calls")
    assert parse_edited("{not json")[0] is None and parse_edited('{"domains": []}')[1].startswith("the plan")


def test_domains_are_hosts_and_cover_their_subdomains_only():
    plan = Plan.from_dict({"sub_questions": [{"question": "Q"}], "domains": ["https://www.Bridges.example/x"]})
    assert plan.domains == ["bridges.example"]
    assert on_domain("https://bridges.example/a", plan.domains)
    assert on_domain("https://docs.bridges.example/a", plan.domains)
    assert not on_domain("https://evilbridges.example/a", plan.domains)
    assert not on_domain("https://bridges.example.evil.test/a", plan.domains)


def test_a_section_needs_the_sources_its_acceptance_names():
    assert asked_citations("a figure from at least 2 sources") == 2
    assert asked_citations("three independent sources") == 3 and asked_citations("a year") == 1
    plan = Plan.from_dict({"sub_questions": [
        {"question": "When did it open?", "acceptance": "a year from at least two sources"},
        {"question": "Who built the bridge?"}, {"question": "What did it cost?"}]})
    long = " ".join(["word"] * 30)
    answer = (f"## 1. When did it open?\nIn 1932 [1] {long}\n\n**Who built the bridge**\nAcme [2][3–4] {long}\n")
    got = progress(plan, answer)
    assert [(p.status, p.note) for p in got] == [
        ("needs review", "cites 1 of the 2 sources its acceptance asks"), ("answered", ""),
        ("needs review", "no section in the answer")]
    assert got[1].citations == 3
    assert [p.status for p in progress(plan, None)] == ["open"] * 3
