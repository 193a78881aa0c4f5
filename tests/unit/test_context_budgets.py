"""One token-budget seam: every cut to a budget says so in the same note."""

from __future__ import annotations

import re

from tui_agent.core import budgets
from tui_agent.model import tokens
from tui_agent.core.budgets import cap_tokens
from tui_agent.verify.check import verify_messages

NOTE = re.compile(r"\[… cut (about )?[\d,]+ of (about )?[\d,]+ tokens to fit [^\]]+\]")
TEXT = "The tide rises twice a day at the harbour, the gauge says. " * 400


def test_the_observation_cap_the_verifier_and_the_answer_room_cut_with_one_note():
    capped = cap_tokens(TEXT, 100)
    verifier = verify_messages("claim [1]", [TEXT], 300)[0]["content"]
    room = budgets.fit_room(TEXT, 200, budgets.ANSWER_ROOM)
    for text, why in ((capped, "the observation limit"), (verifier, "this source's share of the verifier's budget"),
                      (room, "the room left for the answer")):
        notes = NOTE.findall(text)
        assert len(notes) == 1 and f"tokens to fit {why}]" in text
    assert tokens.count(room) <= 200


def test_truncate_keeps_what_the_one_cut_keeps():
    kept = tokens.truncate(TEXT, 50)
    assert (kept, tokens.count(TEXT) - 50) == budgets.cut(TEXT, 50) and tokens.count(kept) == 50


def test_a_share_sets_aside_the_overhead_and_keeps_a_minimum():
    assert budgets.share(8000, 3, overhead=80, minimum=400) == (8000 - 240) // 3
    assert budgets.share(1000, 5, overhead=80, minimum=400) == 400
