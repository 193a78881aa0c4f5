"""The plan read leniently and checked against its schema; the progress of each sub-question read
from the answer's sections; which URLs a plan's domains cover."""

from __future__ import annotations

from tui_agent.plan.policy import on_domain
from tui_agent.core.plan_progress import asked_citations, progress
from tui_agent.core.plan_schema import Plan, parse_edited, read_plan

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


def _plan_with(domain: str) -> str:
    return f'{{"sub_questions": [{SUB}], "domains": ["{domain}"]}}'


def test_ip_addresses_and_public_suffixes_alone_are_refused_as_plan_domains_with_the_reason():
    for domain, reason in [("1", "IP address"), ("0.0.1", "IP address"), ("127.0.0.1", "IP address"),
                           ("0x7f.1", "IP address"), ("[::1]", "IP address"), ("com", "public suffix alone"),
                           ("co.uk", "public suffix alone"), ("github.io", "public suffix alone"),
                           ("localhost", "no public suffix")]:
        for error in (read_plan(_plan_with(domain))[1], parse_edited(_plan_with(domain))[1]):
            assert error.startswith("domains.0: ") and reason in error, (domain, error)
    # A plan stored before the check never approves through such a domain either.
    for domain in ("1", "0.0.1", "com"):
        plan = Plan.from_dict({"sub_questions": [{"question": "Q"}], "domains": [domain]})
        assert not any(on_domain(u, plan.domains) for u in
                       ("http://127.0.0.1/latest/meta-data/", "http://0.0.0.1/", "https://anything.com/x"))


def test_a_registrable_domain_covers_its_subdomains_and_an_exact_host_only_itself():
    for domain in ("python.org", "bbc.co.uk", "someone.github.io", "docs.python.org"):
        assert read_plan(_plan_with(domain))[1] == "", domain
    assert on_domain("https://docs.python.org/3/", ["python.org"])
    assert on_domain("https://docs.python.org/3/", ["docs.python.org"])
    assert not on_domain("https://evil.docs.python.org/", ["docs.python.org"])
    assert not on_domain("https://mail.python.org/", ["docs.python.org"])
    assert not on_domain("https://other.github.io/", ["someone.github.io"])


def test_a_lookalike_domain_is_kept_in_punycode_and_never_approves_a_visit_unasked():
    from tui_agent.core.plan_report import plan_lines

    plan, error = read_plan(_plan_with("\u0430pple.com"))  # a Cyrillic а
    assert error == "" and plan.domains == ["xn--pple-43d.com"]
    assert "xn--pple-43d.com" in "\n".join(plan_lines(plan))
    assert not on_domain("https://\u0430pple.com/login", plan.domains)
    assert not on_domain("https://xn--pple-43d.com/login", plan.domains)
    assert not on_domain("https://apple.com/", plan.domains)


def test_the_public_suffix_list_comes_from_the_bundled_snapshot_without_network_or_cache_files(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import socket\n"
            "def refuse(*a, **k): raise OSError('no network in this test')\n"
            "socket.socket.connect = refuse; socket.create_connection = refuse\n"
            "from tui_agent.web.domains import problem\n"
            "assert problem('python.org') is None and 'public suffix alone' in problem('co.uk')\n")
    env = dict(os.environ, HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("TLDEXTRACT_CACHE", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.rglob("*")) == []
