"""`sessions verify`: a recorded session's answer checked claim by claim against the scripted server.

Sessions are recorded for real (the runner, the visit tool on a local page server, the store);
the verifier is the scripted ChatServer, answering by the claim it is asked about (claims are
checked concurrently, so the order of requests is not the order of claims).
"""

from __future__ import annotations

import json
import re
import threading

import pytest

from tests.helpers import call, settings_for
from tests.integration.test_cli import cli, isolated_env
from tests.servers import Fault
from tui_agent.model.llm import LLM
from tui_agent.agent.runner import Run
from tui_agent.core.events import Verdict
from tui_agent.session.exports import export
from tui_agent.core.fold import fold
from tui_agent.session.store import Store
from tui_agent.verify.check import ATTEMPTS, CONCURRENCY, RETRY_MESSAGE, VerifyModelError, run_check

ALPHA = ("<html><head><title>Alpha</title></head><body><article><p>The alpha project started in 2019 and has "
         "40 contributors. It is written in Rust.</p></article></body></html>")
BETA = ("<html><head><title>Beta</title></head><body><article><p>Beta is a database released in 2021, licensed "
        "under the MIT license.</p></article></body></html>")
ANSWER = ("Alpha started in 2019 [1]. It has 40 contributors [1]. Beta is licensed under the GPL [2]. "
          "Beta was released in 2021 [2]. Both are written in Rust [1][2].")
CLAIMS = ["Alpha started in 2019 [1].", "It has 40 contributors [1].", "Beta is licensed under the GPL [2].",
          "Beta was released in 2021 [2].", "Both are written in Rust [1][2]."]


def verdict(v: str, evidence: str = "") -> str:
    return json.dumps({"verdict": v, "evidence": evidence})


def claim_of(request: dict) -> str:
    """The claim a verifier request asks about."""
    content = request["messages"][0]["content"]
    return re.search(r"refer to the sources below\):\n(.*?)\n\nThe sources", content, re.S).group(1)


def by_claim(replies: dict[str, list[str]]):
    """A scripted reply that answers by claim: each claim's replies in turn."""
    lock = threading.Lock()

    def reply(request: dict) -> str:
        with lock:
            return replies[claim_of(request)].pop(0)
    return reply


async def record(tmp_path, chat, pages, answer: str = ANSWER) -> tuple[Store, str]:
    """A finished session that visited Alpha [1] and Beta [2] in one call, then answered."""
    a, b = pages.add("/alpha", ALPHA), pages.add("/beta", BETA)
    chat.script(call("visit", url=[a, b], goal="facts"), f"<answer>{answer}</answer>")
    store = Store(tmp_path / "data")
    run = Run(settings_for(chat, auto_approve=True), "What are Alpha and Beta?", store=store, approver=None)
    result = await run.start()
    assert result["termination"] == "answer"
    chat.requests.clear()
    return store, run.session_id


async def check(store, sid, chat, *, sample=None, model=None, **overrides):
    settings = settings_for(chat, **overrides)

    async def no_sleep(_):
        return None

    return await run_check(store, sid, settings, sample=sample, model=model, llm=LLM(settings, sleep=no_sleep))


# -- verdicts ---------------------------------------------------------------------------------------


async def test_each_claim_is_checked_against_its_own_source_and_recorded_in_claim_order(
        tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    chat_server.default = by_claim({
        CLAIMS[0]: [verdict("supported", "The alpha project started in 2019")],
        CLAIMS[1]: [verdict("supported", "has 40 contributors")],
        CLAIMS[2]: [verdict("unsupported", "licensed under the MIT license")],
        CLAIMS[3]: [verdict("supported", "released in 2021")],
        CLAIMS[4]: [verdict("unsupported", "It is written in Rust.")],
    })
    result = await check(store, sid, chat_server)
    events = [e for e in store.events(sid) if e.type.startswith(("verification", "claim"))]
    assert [e.type for e in events] == ["verification_started"] + ["claim_checked"] * 5 + ["verification_ended"]
    assert [e.claim for e in events[1:-1]] == CLAIMS
    assert [e.verdict for e in events[1:-1]] == ["supported", "supported", "unsupported", "supported", "unsupported"]
    assert events[3].evidence == "licensed under the MIT license" and events[3].sources == [2]
    assert events[5].sources == [1, 2]
    ended = events[-1]
    assert (ended.checked, ended.supported, ended.unsupported, ended.unclear) == (5, 3, 2, 0)
    assert ended.needs_review and result.needs_review  # 40% unsupported > 20%
    assert result.requests == 5 and len(chat_server.requests) == 5
    prompts = {claim_of(r): r["messages"][0]["content"] for r in chat_server.requests}
    assert "started in 2019" in prompts[CLAIMS[0]] and "licensed under the MIT" not in prompts[CLAIMS[0]]
    assert "licensed under the MIT" in prompts[CLAIMS[2]] and "started in 2019" not in prompts[CLAIMS[2]]
    assert "started in 2019" in prompts[CLAIMS[4]] and "licensed under the MIT" in prompts[CLAIMS[4]]
    assert all(r.get("stream") in (None, False) for r in chat_server.requests)
    state = fold(store.events(sid))
    assert [c.verdict for c in state.verification.claims] == [e.verdict for e in events[1:-1]]


async def test_one_unsupported_claim_of_five_is_fine_and_two_need_review(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    chat_server.default = lambda req: verdict("unsupported" if claim_of(req) == CLAIMS[2] else "supported", "q")
    fine = await check(store, sid, chat_server)
    assert fine.unsupported_share == pytest.approx(0.2) and not fine.needs_review  # 20% is not more than 20%
    chat_server.default = lambda req: verdict("unsupported" if claim_of(req) in CLAIMS[2:4] else "supported", "q")
    review = await check(store, sid, chat_server)
    assert review.unsupported_share == pytest.approx(0.4) and review.needs_review
    lenient = await check(store, sid, chat_server, verify_review_share=0.5)
    assert not lenient.needs_review


async def test_a_reply_garbled_twice_is_unclear_after_exactly_two_requests(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha started in 2019 [1].")
    chat_server.script("I think it is probably true.", "Sure! The claim looks right to me.")
    result = await check(store, sid, chat_server)
    claim = result.verification.claims[0]
    assert claim.verdict == Verdict.UNCLEAR and "JSON object" in claim.note
    assert len(chat_server.requests) == ATTEMPTS == 2
    retry = chat_server.requests[1]["messages"]
    assert retry[1] == {"role": "assistant", "content": "I think it is probably true."}
    assert retry[2]["content"] == RETRY_MESSAGE


async def test_a_reply_garbled_once_then_valid_takes_the_valid_verdict(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha started in 2019 [1].")
    chat_server.script('{"verdict": "probably"}', verdict("supported", "started in 2019"))
    result = await check(store, sid, chat_server)
    claim = result.verification.claims[0]
    assert (claim.verdict, claim.evidence, claim.note) == (Verdict.SUPPORTED, "started in 2019", "")
    assert len(chat_server.requests) == 2


async def test_fenced_json_after_reasoning_is_read(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha started in 2019 [1].")
    chat_server.script('<think>The page says 2019.</think>Here is my verdict:\n```json\n'
                       '{"verdict": "Supported", "evidence": "started in 2019"}\n```')
    result = await check(store, sid, chat_server)
    assert result.verification.claims[0].verdict == Verdict.SUPPORTED and len(chat_server.requests) == 1


async def test_a_source_never_read_is_unclear_without_a_model_call(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server,
                              answer="Gamma is the fastest [3]. Alpha and Gamma are old [1][3].")
    chat_server.default = lambda req: verdict("supported", "started in 2019")
    result = await check(store, sid, chat_server)
    gamma, both = result.verification.claims
    assert gamma.verdict == Verdict.UNCLEAR and gamma.note == "source [3] was never read in this session"
    assert both.verdict == Verdict.SUPPORTED and "checked against [1] only" in both.note
    assert len(chat_server.requests) == 1 and claim_of(chat_server.requests[0]) == both.claim


async def test_claims_are_checked_concurrently(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    assert CONCURRENCY > 1
    barrier = threading.Barrier(CONCURRENCY, timeout=30)  # broken (a 500) unless that many are in flight at once

    def reply(request: dict) -> str:
        if len(chat_server.requests) <= CONCURRENCY:
            barrier.wait()
        return verdict("supported", "q")
    chat_server.default = reply
    result = await check(store, sid, chat_server, retry_attempts=1)
    assert [c.verdict for c in result.verification.claims] == [Verdict.SUPPORTED] * 5
    assert [c.claim for c in result.verification.claims] == CLAIMS


async def test_the_sample_is_spread_over_the_answer_and_says_how_many_there_were(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    chat_server.default = lambda req: verdict("supported", "q")
    result = await check(store, sid, chat_server, sample=2)
    assert [c.claim for c in result.verification.claims] == [CLAIMS[1], CLAIMS[3]]
    assert result.found == 5 and len(chat_server.requests) == 2
    started = [e for e in store.events(sid) if e.type == "verification_started"][-1]
    assert (started.sample, started.claims) == (2, 5)


async def test_a_second_check_replaces_the_first_and_the_report_shows_it(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    chat_server.default = lambda req: verdict("unsupported", "nothing like it")
    await check(store, sid, chat_server)
    assert "**Needs review:**" in export(store.events(sid), "md")
    chat_server.default = lambda req: verdict("supported", "The alpha project started in 2019")
    await check(store, sid, chat_server, model="openai/other-model")
    state = fold(store.events(sid))
    assert state.verification.model == "openai/other-model"
    assert [c.verdict for c in state.verification.claims] == [Verdict.SUPPORTED] * 5
    assert chat_server.requests[-1]["model"] == "other-model"
    report = export(store.events(sid), "md")
    section = report.split("## Citation check", 1)[1].split("## Run", 1)[0]
    assert "1. **supported** — Alpha started in 2019 [1]." in section
    assert "> The alpha project started in 2019" in section
    assert "Fine: 5 supported, 0 unsupported, 0 unclear (0% unsupported)." in section
    assert "Needs review" not in section and "openai/other-model" in section


async def test_a_model_that_cannot_be_used_stops_the_check_and_keeps_the_earlier_one(
        tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    chat_server.default = lambda req: verdict("supported", "q")
    await check(store, sid, chat_server)
    before = len(store.events(sid))
    chat_server.default = Fault(status=401)
    with pytest.raises(VerifyModelError, match="cannot be used"):
        await check(store, sid, chat_server)
    assert len(store.events(sid)) == before
    assert [c.verdict for c in fold(store.events(sid)).verification.claims] == [Verdict.SUPPORTED] * 5


# -- the command ------------------------------------------------------------------------------------


async def test_cli_verify_by_id_prefix_prints_json_and_exits_0_when_fine(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = lambda req: verdict("unsupported" if claim_of(req) == CLAIMS[2] else "supported",
                                              "quoted text")
    # No --model or --api-base: the session's own model and endpoint.
    proc = cli("sessions", "verify", sid[:-2], "--json", env=isolated_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"session_id", "model", "claims", "found", "checked", "supported", "unsupported", "unclear",
                         "unsupported_share", "needs_review", "cost_usd"}
    assert data["session_id"] == sid and data["model"] == "openai/test-model"
    assert (data["checked"], data["supported"], data["unsupported"], data["unclear"]) == (5, 4, 1, 0)
    assert data["unsupported_share"] == pytest.approx(0.2) and data["needs_review"] is False
    assert data["claims"][2] == {"claim": CLAIMS[2], "sources": [2], "verdict": "unsupported",
                                 "evidence": "quoted text", "note": ""}
    assert len(chat_server.requests) == 5
    show = cli("sessions", "show", sid, env=isolated_env(tmp_path))
    assert "claim unsupported: Beta is licensed under the GPL [2]." in show.stdout
    assert "citation check: 5 checked · 4 supported · 1 unsupported · 0 unclear" in show.stdout


async def test_cli_verify_prints_each_claim_and_exits_1_when_it_needs_review(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = lambda req: verdict("unsupported" if "Beta" in claim_of(req) else "supported",
                                              "\x1b[31mred\x1b[0m quote")
    proc = cli("sessions", "verify", sid, "--verify-model", "openai/checker", env=isolated_env(tmp_path))
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out
    assert f"Citation check of session {sid} with openai/checker: 5 claims cite sources, 5 checked" in out
    assert "[3/5] UNSUPPORTED  Beta is licensed under the GPL [2]." in out
    assert "evidence: \u201cred quote\u201d" in out
    assert out.rstrip().splitlines()[-1] == ("5 checked: 3 supported, 2 unsupported, 0 unclear · needs review: "
                                             "40% unsupported, more than 20%")
    assert {r["model"] for r in chat_server.requests} == {"checker"}


async def test_cli_verify_of_an_answer_without_citations_needs_review(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha is old and Beta is new.")
    store.close()
    proc = cli("sessions", "verify", sid, env=isolated_env(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.rstrip().endswith("needs review: the answer cites no sources")
    assert chat_server.requests == []
    report = export(Store(tmp_path / "data").events(sid), "md")
    assert "**Needs review:** the answer cites no sources." in report


def test_cli_verify_bad_usage_exits_2_with_a_message(tmp_path, chat_server):
    env = isolated_env(tmp_path)
    store = Store(tmp_path / "data")
    for sid in ("20260101-000000-aaaaaa", "20260101-000000-aaaaab"):
        store.create_session(sid, "unanswered question", "openai/test-model")
    store.close()
    unknown = cli("sessions", "verify", "nope", env=env)
    assert unknown.returncode == 2 and "no session with an id starting 'nope'" in unknown.stderr
    ambiguous = cli("sessions", "verify", "20260101", env=env)
    assert ambiguous.returncode == 2 and "matches 2 sessions" in ambiguous.stderr
    no_answer = cli("sessions", "verify", "20260101-000000-aaaaaa", "--model", "openai/test-model",
                    "--api-base", chat_server.base_url, env=env)
    assert no_answer.returncode == 2 and "has no answer to check" in no_answer.stderr
    bad_sample = cli("sessions", "verify", "20260101-000000-aaaaaa", "--sample", "0", env=env)
    assert bad_sample.returncode == 2 and "--sample must be at least 1" in bad_sample.stderr
    for proc in (unknown, ambiguous, no_answer, bad_sample):
        assert "Traceback" not in proc.stderr
    assert chat_server.requests == []


async def test_cli_verify_with_a_rejected_key_exits_1_with_a_plain_message(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = Fault(status=401)
    proc = cli("sessions", "verify", sid, env=isolated_env(tmp_path))
    assert proc.returncode == 1
    assert "cannot be used" in proc.stderr and "API key" in proc.stderr and "Traceback" not in proc.stderr


async def test_a_check_from_another_store_and_a_later_append_from_the_first_lose_nothing(
        tmp_path, chat_server, page_server):
    """A session open in a TUI (its store) while `sessions verify` runs elsewhere, then checked again there."""
    tui_store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha started in 2019 [1].")
    chat_server.default = lambda req: verdict("supported", "started in 2019")
    other = Store(tmp_path / "data")
    await check(other, sid, chat_server)
    await check(tui_store, sid, chat_server)
    types = [e.type for e in Store(tmp_path / "data").events(sid)]
    assert types[-6:] == ["verification_started", "claim_checked", "verification_ended"] * 2
    assert types[0] == "run_started" and types.count("answer") == 1
