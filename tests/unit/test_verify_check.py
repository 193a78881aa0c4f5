"""The citation check (verify.check.run_check) of a recorded session, on the in-memory scripted model:
verdicts, retries of a garbled reply, sampling, concurrency, a second check, a model that cannot be
used. Sessions are recorded for real (the runner, the visit tool on a local page server, the store);
only the model is in memory. Moved from tests/integration/test_verify.py (issue 28), which keeps
`sessions verify` as a command against the HTTP chat server."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from tests.helpers import call
from tests.unit.engine_kit import KitModel
from tui_agent.agent.runner import Run
from tui_agent.config import Settings
from tui_agent.core.events import Verdict
from tui_agent.core.fold import fold
from tui_agent.model import ModelError
from tui_agent.session.exports import export
from tui_agent.session.store import Store
from tui_agent.verify.check import ATTEMPTS, CONCURRENCY, RETRY_MESSAGE, VerifyModelError, run_check

from tests.verify_pages import ALPHA, ANSWER, BETA, CLAIMS  # noqa: E402


def settings(**overrides) -> Settings:
    base = dict(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000, extract=False,
                allow_private_urls=True, auto_approve=True)
    return Settings(**(base | overrides))


def verdict(v: str, evidence: str = "") -> str:
    return json.dumps({"verdict": v, "evidence": evidence})


def claim_of(messages: list[dict]) -> str:
    """The claim a verifier call asks about."""
    return re.search(r"refer to the sources below\):\n(.*?)\n\nThe sources", messages[0]["content"], re.S).group(1)


def by_claim(replies: dict[str, list[str]]):
    """A scripted reply that answers by claim: each claim's replies in turn."""
    return lambda messages, purpose: replies[claim_of(messages)].pop(0)


async def record(tmp_path, pages, answer: str = ANSWER) -> tuple[Store, str]:
    """A finished session that visited Alpha [1] and Beta [2] in one call, then answered."""
    a, b = pages.add("/alpha", ALPHA), pages.add("/beta", BETA)
    store = Store(tmp_path / "data")
    run = Run(settings(), "What are Alpha and Beta?", store=store, approver=None,
              llm=KitModel([call("visit", url=[a, b], goal="facts"), f"<answer>{answer}</answer>"]))
    result = await run.start()
    assert result["termination"] == "answer"
    return store, run.session_id


async def check(store, sid, script, *, sample=None, model=None, **overrides) -> tuple:
    """(the check's result, the verifier model and the calls it got)."""
    verifier = KitModel(script)
    result = await run_check(store, sid, settings(**overrides), sample=sample, model=model, llm=verifier)
    return result, verifier


# -- verdicts ---------------------------------------------------------------------------------------


async def test_each_claim_is_checked_against_its_own_source_and_recorded_in_claim_order(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    result, verifier = await check(store, sid, by_claim({
        CLAIMS[0]: [verdict("supported", "The alpha project started in 2019")],
        CLAIMS[1]: [verdict("supported", "has 40 contributors")],
        CLAIMS[2]: [verdict("unsupported", "licensed under the MIT license")],
        CLAIMS[3]: [verdict("supported", "released in 2021")],
        CLAIMS[4]: [verdict("unsupported", "It is written in Rust.")],
    }))
    events = [e for e in store.events(sid) if e.type.startswith(("verification", "claim"))]
    assert [e.type for e in events] == ["verification_started"] + ["claim_checked"] * 5 + ["verification_ended"]
    assert [e.claim for e in events[1:-1]] == CLAIMS
    assert [e.verdict for e in events[1:-1]] == ["supported", "supported", "unsupported", "supported", "unsupported"]
    assert events[3].evidence == "licensed under the MIT license" and events[3].sources == [2]
    assert events[5].sources == [1, 2]
    ended = events[-1]
    assert (ended.checked, ended.supported, ended.unsupported, ended.unclear) == (5, 3, 2, 0)
    assert ended.needs_review and result.needs_review  # 40% unsupported > 20%
    assert result.requests == 5 and len(verifier.calls) == 5
    prompts = {claim_of(c.messages): c.messages[0]["content"] for c in verifier.calls}
    assert "started in 2019" in prompts[CLAIMS[0]] and "licensed under the MIT" not in prompts[CLAIMS[0]]
    assert "licensed under the MIT" in prompts[CLAIMS[2]] and "started in 2019" not in prompts[CLAIMS[2]]
    assert "started in 2019" in prompts[CLAIMS[4]] and "licensed under the MIT" in prompts[CLAIMS[4]]
    assert all(c.stream in (None, False) for c in verifier.calls)
    state = fold(store.events(sid))
    assert [c.verdict for c in state.verification.claims] == [e.verdict for e in events[1:-1]]


async def test_one_unsupported_claim_of_five_is_fine_and_two_need_review(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    fine, _ = await check(store, sid, lambda m, p: verdict("unsupported" if claim_of(m) == CLAIMS[2] else "supported",
                                                           "q"))
    assert fine.unsupported_share == pytest.approx(0.2) and not fine.needs_review  # 20% is not more than 20%

    def two(m, p):
        return verdict("unsupported" if claim_of(m) in CLAIMS[2:4] else "supported", "q")
    review, _ = await check(store, sid, two)
    assert review.unsupported_share == pytest.approx(0.4) and review.needs_review
    lenient, _ = await check(store, sid, two, verify_review_share=0.5)
    assert not lenient.needs_review


async def test_a_reply_garbled_twice_is_unclear_after_exactly_two_requests(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server, answer="Alpha started in 2019 [1].")
    result, verifier = await check(store, sid, ["I think it is probably true.", "Sure! The claim looks right to me."])
    claim = result.verification.claims[0]
    assert claim.verdict == Verdict.UNCLEAR and "JSON object" in claim.note
    assert len(verifier.calls) == ATTEMPTS == 2
    retry = verifier.calls[1].messages
    assert retry[1] == {"role": "assistant", "content": "I think it is probably true."}
    assert retry[2]["content"] == RETRY_MESSAGE


async def test_a_reply_garbled_once_then_valid_takes_the_valid_verdict(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server, answer="Alpha started in 2019 [1].")
    result, verifier = await check(store, sid, ['{"verdict": "probably"}', verdict("supported", "started in 2019")])
    claim = result.verification.claims[0]
    assert (claim.verdict, claim.evidence, claim.note) == (Verdict.SUPPORTED, "started in 2019", "")
    assert len(verifier.calls) == 2


async def test_fenced_json_after_reasoning_is_read(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server, answer="Alpha started in 2019 [1].")
    result, verifier = await check(store, sid, ['<think>The page says 2019.</think>Here is my verdict:\n```json\n'
                                                '{"verdict": "Supported", "evidence": "started in 2019"}\n```'])
    assert result.verification.claims[0].verdict == Verdict.SUPPORTED and len(verifier.calls) == 1


async def test_a_source_never_read_is_unclear_without_a_model_call(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server, answer="Gamma is the fastest [3]. Alpha and Gamma are old [1][3].")
    result, verifier = await check(store, sid, lambda m, p: verdict("supported", "started in 2019"))
    gamma, both = result.verification.claims
    assert gamma.verdict == Verdict.UNCLEAR and gamma.note == "source [3] was never read in this session"
    assert both.verdict == Verdict.SUPPORTED and "checked against [1] only" in both.note
    assert len(verifier.calls) == 1 and claim_of(verifier.calls[0].messages) == both.claim


async def test_claims_are_checked_concurrently(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    assert CONCURRENCY > 1
    all_in = asyncio.Event()
    arrived = 0

    async def reply(messages, purpose):  # the first CONCURRENCY calls answer only once all are in flight
        nonlocal arrived
        arrived += 1
        if arrived == CONCURRENCY:
            all_in.set()
        if arrived <= CONCURRENCY:
            await asyncio.wait_for(all_in.wait(), 10)  # a TimeoutError when the calls come one at a time
        return verdict("supported", "q")
    result, _ = await check(store, sid, [reply] * len(CLAIMS), retry_attempts=1)
    assert [c.verdict for c in result.verification.claims] == [Verdict.SUPPORTED] * 5
    assert [c.claim for c in result.verification.claims] == CLAIMS


async def test_the_sample_is_spread_over_the_answer_and_says_how_many_there_were(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    result, verifier = await check(store, sid, lambda m, p: verdict("supported", "q"), sample=2)
    assert [c.claim for c in result.verification.claims] == [CLAIMS[1], CLAIMS[3]]
    assert result.found == 5 and len(verifier.calls) == 2
    started = [e for e in store.events(sid) if e.type == "verification_started"][-1]
    assert (started.sample, started.claims) == (2, 5)


async def test_a_second_check_replaces_the_first_and_the_report_shows_it(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    await check(store, sid, lambda m, p: verdict("unsupported", "nothing like it"))
    assert "**Needs review:**" in export(store.events(sid), "md")
    _, verifier = await check(store, sid, lambda m, p: verdict("supported", "The alpha project started in 2019"),
                              model="openai/other-model")
    state = fold(store.events(sid))
    assert state.verification.model == "openai/other-model"
    assert [c.verdict for c in state.verification.claims] == [Verdict.SUPPORTED] * 5
    assert verifier.calls[-1].model == "openai/other-model"
    report = export(store.events(sid), "md")
    section = report.split("## Citation check", 1)[1].split("## Run", 1)[0]
    assert "1. **supported** — Alpha started in 2019 [1]." in section
    assert "> The alpha project started in 2019" in section
    assert "Fine: 5 supported, 0 unsupported, 0 unclear (0% unsupported)." in section
    assert "Needs review" not in section and "openai/other-model" in section


async def test_a_model_that_cannot_be_used_stops_the_check_and_keeps_the_earlier_one(tmp_path, page_server):
    store, sid = await record(tmp_path, page_server)
    await check(store, sid, lambda m, p: verdict("supported", "q"))
    before = len(store.events(sid))
    with pytest.raises(VerifyModelError, match="cannot be used"):
        await check(store, sid, lambda m, p: ModelError("auth", "the provider rejected the API key (401)", 401))
    assert len(store.events(sid)) == before
    assert [c.verdict for c in fold(store.events(sid)).verification.claims] == [Verdict.SUPPORTED] * 5


async def test_a_check_from_another_store_and_a_later_append_from_the_first_lose_nothing(tmp_path, page_server):
    """A session open in a TUI (its store) while `sessions verify` runs elsewhere, then checked again there."""
    tui_store, sid = await record(tmp_path, page_server, answer="Alpha started in 2019 [1].")
    other = Store(tmp_path / "data")
    await check(other, sid, lambda m, p: verdict("supported", "started in 2019"))
    await check(tui_store, sid, lambda m, p: verdict("supported", "started in 2019"))
    types = [e.type for e in Store(tmp_path / "data").events(sid)]
    assert types[-6:] == ["verification_started", "claim_checked", "verification_ended"] * 2
    assert types[0] == "run_started" and types.count("answer") == 1
