"""Kingfisher's rules (vendored in tui_agent/safety/secret_rule_data/kingfisher) with their own
examples as tests: what a rule finds in its positive examples is redacted, unless the rule set's
own checks call it a placeholder; a rule does not fire on its negative examples."""

from __future__ import annotations

import re2

from tui_agent.safety import rule_sets
from tui_agent.safety.hygiene import redact
from tui_agent.safety.redaction import find_secrets

KINGFISHER_EXAMPLES_NOT_MATCHING_THEIR_RULE = {
    # Under (?x) the spaces of the pattern are ignored, so the example (with spaces) cannot match:
    # Kingfisher's own rule does not find its example either.
    "kingfisher:kingfisher.plaintext.1",
    # The example "travis_token splendid21RANDOMCONTENT_token" is shorter than the rule's body.
    "kingfisher:kingfisher.travisci.1",
}
WORDS_IN_KINGFISHER_EXAMPLES = {"Availability"}
"""What a rule captures in its example that is an English word, not a secret (linkedin.1's
"LinkedIn ID Availability"): left alone on purpose."""


def _in_use() -> dict[str, list[int]]:
    c = rule_sets.compiled()
    index: dict[str, list[int]] = {}
    for i, rule in enumerate(c.rules):
        index.setdefault(rule.id, []).append(i)
    return index


def _examples(field: str):
    """(index of the compiled rule, example) for every used Kingfisher rule's ``field``."""
    c, index = rule_sets.compiled(), _in_use()
    for rule, raw in rule_sets.kingfisher_entries():
        pattern = rule_sets.re2_pattern(rule.pattern)
        matches = [i for i in index.get(rule.id, []) if c.rules[i].pattern == pattern]
        if matches:
            for example in raw.get(field) or []:
                yield matches[0], example


def _kingfisher_drops(rule: rule_sets.Rule, secret: str) -> bool:
    """Kingfisher itself does not report this secret: its safe list (src/safe_list.rs) or its
    entropy gate (``entropy <= min_entropy``, src/matcher.rs)."""
    return (any(re2.search(a, secret) for a in rule_sets.KINGFISHER_SAFE_LIST)
            or (rule.entropy > 0 and rule_sets.entropy(secret) <= rule.entropy))


def test_redact_masks_every_secret_kingfisher_reports_in_its_rules_examples():
    c = rule_sets.compiled()
    masked, dropped, missed, unmatched = 0, 0, [], set()
    for i, example in _examples("examples"):
        rule, rx = c.rules[i], c.regexes[i]
        m = rx.search(example)
        if m is None:
            unmatched.add(rule.id)
            continue
        found = find_secrets(example, {})
        for start, end in rule_sets._secret_spans(m, rule):
            if _kingfisher_drops(rule, example[start:end]) or example[start:end] in WORDS_IN_KINGFISHER_EXAMPLES:
                dropped += 1
            elif any(f.start <= start + 1 and end - 1 <= f.end for f in found):
                masked += 1
            else:
                missed.append((rule.id, example[start:end], example[:80]))
    assert not missed
    assert unmatched == KINGFISHER_EXAMPLES_NOT_MATCHING_THEIR_RULE
    assert masked > 750 and dropped < masked


def test_kingfisher_rules_do_not_fire_on_their_negative_examples():
    c = rule_sets.compiled()
    negatives = list(_examples("negative_examples"))
    assert len(negatives) >= 15
    fired = [(c.rules[i].id, text[:80]) for i, text in negatives
             if any(f.kind == c.rules[i].id for f in find_secrets(text, {}))]
    assert not fired


def test_kingfisher_rules_are_loaded_beside_the_other_rule_sets():
    ids = {rule.id.split(":")[0] for rule in rule_sets.compiled().rules}
    assert {"gitleaks", "noseyparker", "kingfisher", "tui-agent"} <= ids
    assert sum(r.id.startswith("kingfisher:") for r in rule_sets.compiled().rules) > 650
    assert rule_sets.skipped() == ()


def test_a_rule_re2_cannot_compile_is_skipped_and_reported(monkeypatch):
    bad = rule_sets.Rule("kingfisher:test.lookbehind", r"(?<=secret=)[a-z0-9]{20}", ())
    good = rule_sets.Rule("kingfisher:test.good", r"\b(zq_[a-z0-9]{20})\b", ())
    monkeypatch.setattr(rule_sets, "kingfisher_entries", lambda: iter([(bad, {}), (good, {})]))
    monkeypatch.setattr(rule_sets, "_SKIPPED", [])
    rule_sets._compiled.cache_clear()
    try:
        ids = [r.id for r in rule_sets.compiled().rules]
        assert "kingfisher:test.good" in ids and "kingfisher:test.lookbehind" not in ids
        assert rule_sets.skipped() == ("kingfisher:test.lookbehind",)
        assert redact("key zq_k3j9x8d7c6v5b4n3m2l1", {}) == "key [REDACTED]"
    finally:
        rule_sets._compiled.cache_clear()


def test_kingfisher_patterns_compile_as_re2_without_rewriting_their_meaning():
    # (?x) comments and spaces are dropped, an escaped space is kept
    rx = re2.compile(rule_sets.re2_pattern("(?x)\n  abc\\ def   # a comment\n  (\\d{3})"))
    assert rx.search("abc def123").group(1) == "123"
