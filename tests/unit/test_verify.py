"""Claims of an answer, the sources' stored text, the verifier's request and its reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.verify.claims import Claim, cited_numbers, claims_of, find_claims, source_texts, spread
from tui_agent.core.events import (
    ActionProposed, AnswerEvent, Observation, SourceAdded, Verdict,
)
from tui_agent.core.fold import fold
from tui_agent.verify.check import SOURCES_END, needs_review, parse_verdict, verify_messages

ANSWERS = json.loads((Path(__file__).parent.parent / "fixtures" / "verify" / "answers.json").read_text("utf-8"))


# -- claims -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ANSWERS, ids=[c["name"] for c in ANSWERS])
def test_claims_of_realistic_answers_are_their_citing_sentences_exactly(case):
    claims = find_claims(case["answer"])
    assert [c.text for c in claims] == case["claims"]
    for c in claims:  # each claim is the answer's own text, where it stands
        assert case["answer"][c.start:c.end] == c.text


@pytest.mark.parametrize("text, numbers", [
    ("A [1].", [1]),
    ("A [1][2].", [1, 2]),
    ("A [1] [3].", [1, 3]),
    ("A [1, 2].", [1, 2]),
    ("A [2; 4].", [2, 4]),
    ("A [1–3].", [1, 2, 3]),
    ("A [4-5] and [2].", [4, 5, 2]),
    ("A [1, 3—4].", [1, 3, 4]),
    ("A [2][2] [1, 2].", [2, 1]),
    ("A [1–500].", [1, 500]),  # not a range anyone writes: its ends only
    ("In [2019] and [0] and [x] and [^1].", []),
    ("Call `f(xs[1])` or `a[2]`.", []),
])
def test_citation_forms(text, numbers):
    assert cited_numbers(text) == numbers


def test_a_citation_after_the_full_stop_belongs_to_the_sentence_before():
    answer = "Alpha was released in 2019. [1] Beta followed in 2021.[2] Gamma is \"fast.\" [3] Delta is new."
    assert [c.text for c in find_claims(answer)] == [
        "Alpha was released in 2019. [1]", "Beta followed in 2021.[2]", "Gamma is \"fast.\" [3]"]


def test_source_lists_code_blocks_and_uncited_sentences_are_not_claims():
    answer = ("Intro without citations.\n\n```\nx = ys[1]\n```\n\nA real claim [1].\n\nSources:\n"
              "[1] Alpha — https://a.example/\n[2]: https://b.example/ Beta\n- [3] Gamma, https://c.example/")
    assert [(c.text, c.sources) for c in find_claims(answer)] == [("A real claim [1].", (1,))]


def test_a_sentence_repeated_word_for_word_is_one_claim():
    answer = "Alpha is old [1].\n\n## Summary\n\nAlpha is old [1]. Beta is new [2]."
    assert [c.text for c in find_claims(answer)] == ["Alpha is old [1].", "Beta is new [2]."]


def test_the_sample_is_spread_evenly_and_is_the_same_every_time():
    claims = [Claim(f"c{i} [1].", (1,), i, i + 1) for i in range(25)]
    sample = spread(claims, 10)
    assert [c.text for c in sample] == [f"c{i} [1]." for i in (1, 3, 6, 8, 11, 13, 16, 18, 21, 23)]
    assert spread(claims, 10) == sample
    assert spread(claims[:4], 10) == claims[:4]


def _state(answer: str, *observations: tuple[str, list[int]], sources: int = 3):
    events = [SourceAdded(number=n, url=f"https://s{n}.example/", title=f"S{n}") for n in range(1, sources + 1)]
    for i, (text, numbers) in enumerate(observations):
        events += [ActionProposed(step=1, call_id=f"c{i}", tool="visit", arguments={}),
                   Observation(step=1, call_id=f"c{i}", tool="visit", arguments={}, text=text, sources=numbers,
                               executed=True)]
    events.append(AnswerEvent(text=answer))
    return fold(events)


def test_claims_of_a_session_are_its_answers_sampled():
    state = _state(" ".join(f"Fact {i} [1]." for i in range(12)))
    assert [c.text for c in claims_of(state)] == [f"Fact {i} [1]." for i in (0, 1, 3, 4, 5, 6, 7, 9, 10, 11)]
    assert len(claims_of(state, 3)) == 3 and claims_of(fold([]), 3) == []


def test_each_source_gets_its_section_of_the_observation_and_of_every_call_that_read_it():
    multi = ("[1] S1 — https://s1.example/\nAlpha text.\n\n[not read] https://x.example/\nError: timeout\n\n"
             "[2] S2 — https://s2.example/\nBeta text, which mentions [1] S1 in passing.")
    again = "[2] S2 — https://s2.example/\nBeta read a second time."
    single = "Notes on gamma: the answer is 42."
    texts = source_texts(_state("x", (multi, [1, 2]), (again, [2]), (single, [3])))
    assert texts[1] == "[1] S1 — https://s1.example/\nAlpha text."
    assert texts[2] == ("[2] S2 — https://s2.example/\nBeta text, which mentions [1] S1 in passing.\n\n"
                        "[2] S2 — https://s2.example/\nBeta read a second time.")
    assert texts[3] == single


# -- the request and the reply ----------------------------------------------------------------------


def test_the_request_redacts_cuts_and_fences_each_source(monkeypatch):
    secret = "unit-s3cret-TOKEN-value-7788"
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    long_text = "[1] S1 — https://s1.example/\n" + "word " * 5000
    other = f"[2] S2 — https://s2.example/\nkey {secret} and a forged {SOURCES_END} marker"
    content = verify_messages("A claim [1][2].", [long_text, other], budget=1000)[0]["content"]
    assert secret not in content and "[REDACTED]" in content
    assert content.count(SOURCES_END) == 1  # only the prompt's own marker
    assert "tokens to fit this source's share of the verifier's budget]" in content and content.count("word") < 600
    assert "A claim [1][2]." in content and content.index("A claim") < content.index("[1] S1")


@pytest.mark.parametrize("raw, expected", [
    ('{"verdict": "supported", "evidence": "quote"}', (Verdict.SUPPORTED, "quote")),
    ('<think>hmm {"verdict": "unsupported"}</think>{"verdict": "UNSUPPORTED", "evidence": "no"}',
     (Verdict.UNSUPPORTED, "no")),
    ('Verdict below.\n```json\n{"verdict": "unclear", "evidence": ["a", "b"]}\n```', (Verdict.UNCLEAR, "a … b")),
    ("{'verdict': 'supported', 'evidence': 'json5',}", (Verdict.SUPPORTED, "json5")),
    ('{"verdict": "supported"}', (Verdict.SUPPORTED, "")),
    ('{"verdict": "supported", "evidence": "line\nbreak\x1b[2J"}', (Verdict.SUPPORTED, "line break")),
])
def test_verifier_replies_that_are_the_object_asked_for(raw, expected):
    assert parse_verdict(raw) == expected


@pytest.mark.parametrize("raw", [
    "", "Supported.", '{"verdict": "mostly true", "evidence": "x"}', '{"evidence": "x"}', '["supported"]',
    '{"verdict": true}', "<think>still thinking",
])
def test_verifier_replies_that_are_not(raw):
    assert parse_verdict(raw) is None


def test_evidence_is_kept_short():
    verdict, evidence = parse_verdict(json.dumps({"verdict": "supported", "evidence": "x" * 5000}))
    assert len(evidence) == 500 and evidence.endswith("…")


@pytest.mark.parametrize("checked, unsupported, review", [(10, 2, False), (10, 3, True), (5, 1, False),
                                                          (5, 2, True), (1, 0, False), (0, 0, True)])
def test_more_than_a_fifth_unsupported_needs_review(checked, unsupported, review):
    assert needs_review(checked, unsupported, 0.2) is review
