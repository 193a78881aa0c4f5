"""tokens.truncate encodes only the head of a long text, and keeps exactly what a cut of the whole
text's tokens keeps; texts counted again in a process are looked up, never encoded again."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tui_agent.model import tokens

ROOT = Path(__file__).resolve().parents[2]
LIMITS = (1, 2, 7, 64, 500, 3000)

CJK = ("全球能源使用在二零二四年增长了百分之二这是根据国际能源机构的年度报告其中可再生能源的份额继续上升"
       "煤炭的使用在亚洲仍然很高而欧洲的需求下降了")
JAPANESE = "世界のエネルギー使用量は二〇二四年に二パーセント増加しました。再生可能エネルギーの割合は引き続き上昇しています。"
EMOJI = "👨‍👩‍👧‍👦 🇫🇷🇯🇵 👍🏽 ❤️‍🔥 🧑🏿‍🚀"
MARKS = "हिन्दी भाषा मेंं अनुवाद العَرَبِيَّة Tiếng Việt cafe\u0301 nai\u0308ve"
CONTRACTIONS = "don't we'll they're I'M THEY'VE it’s O'Neil rock'n'roll 'tis"
FRAGMENTS = [CJK, JAPANESE, EMOJI, MARKS, CONTRACTIONS, "1234567890", "3,141,592.65", "ABCdefGHI", "x" * 50,
             " " * 40, "\t\t", "\n\n\n", "\r\n", "=====", "-----", "......", "!!!?", "/*", "__init__", "https://ex.org/a/b",
             "naïve", "Ωμέγα", "Привет", "ß", "ǅemal", "𝐀𝐁𝐂", "\u00a0", "\u200b", "'", "’"]


def reference(text: str, limit: int) -> str:
    """The old truncate: encode the whole text, keep its first ``limit`` tokens."""
    if limit <= 0:
        return ""
    ids = tokens.encoder().encode(text, disallowed_special=())
    return text if len(ids) <= limit else tokens.encoder().decode(ids[:limit])


def naive(text: str, limit: int) -> str:
    """A cut of a prefix of the estimated length, wherever it falls (no split point, no growth)."""
    ids = tokens.encoder().encode(text[: (limit + tokens.HEAD_MARGIN) * 4], disallowed_special=())
    return text if len(ids) <= limit and len(text) <= (limit + tokens.HEAD_MARGIN) * 4 else tokens.encoder().decode(ids[:limit])


def fuzzed(seed: int, n: int) -> str:
    """``n`` fragments of many scripts and runs, joined by whatever may sit at a cut."""
    rng = random.Random(seed)
    joins = ["", " ", "\n", "'", ".", ", ", "  ", "\u0301"]
    return "".join(rng.choice(FRAGMENTS) + rng.choice(joins) for _ in range(n))


def corpus() -> dict[str, str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    source = (ROOT / "tui_agent" / "model" / "tokens.py").read_text(encoding="utf-8")
    return {
        "readme": readme * 3,
        "source code": source * 4,
        "chinese without spaces": CJK * 300,
        "chinese and japanese": (CJK + "，" + JAPANESE + "\n") * 150,
        "emoji": (EMOJI + " ") * 800,
        "marks": (MARKS + " ") * 400,
        "contractions": (CONTRACTIONS + " ") * 500,
        "spaces then words": " " * 30_000 + "energy use grew " * 2000,
        "punctuation runs": ("=" * 97 + "\n" + "-" * 61 + "....!!!" + "\n") * 300,
        "digits": "12345678901234567890 " * 1500 + "99999999999" * 800,
        "sparse (the guess is too short)": "internationalization counterrevolutionaries " * 3000,
        "letters and marks only (no place to cut)": "a\u0301e\u0308" * 3000 + " tail words",
        **{f"fuzzed {seed}": fuzzed(seed, 3000) for seed in range(12)},
    }


@pytest.mark.parametrize("name", list(corpus()))
def test_truncate_keeps_exactly_the_first_tokens_of_the_whole_text(name):
    text = corpus()[name]
    for limit in LIMITS:
        assert tokens.truncate(text, limit) == reference(text, limit), (name, limit)


def test_truncate_of_a_text_that_fits_is_the_text():
    text = "A short page. " * 200
    assert tokens.truncate(text, 10_000) == text and tokens.truncate("", 5) == "" and tokens.truncate(text, 0) == ""


@pytest.mark.parametrize("name", list(corpus()))
def test_the_head_is_the_start_of_the_whole_texts_ids_and_a_cut_there_keeps_all_tokens(name):
    text = corpus()[name]
    enc = tokens.encoder()
    whole = enc.encode(text, disallowed_special=())
    for want in (5, 700):
        ids, end = tokens.encode_head(text, want)
        assert ids == whole[: len(ids)] and (len(ids) >= want or end == len(text))
        if end < len(text):
            assert enc.encode(text[end:], disallowed_special=()) == whole[len(ids):]


def test_a_sparse_text_grows_its_head_until_it_holds_the_tokens_asked_for():
    text = "internationalization counterrevolutionaries " * 3000  # ~15 characters a token, guessed 4
    ids, end = tokens.encode_head(text, 2000)
    assert 2000 <= len(ids) < 2000 + 400 and end < len(text)


def test_a_long_text_is_encoded_only_as_far_as_its_head():
    text = "Energy use grew by two percent in 2024, the agency said. " * 20_000  # ~1.1 M characters
    ids, end = tokens.encode_head(text, 1000)
    assert len(ids) >= 1000 and end < 20_000


def test_the_corpus_catches_a_cut_that_falls_inside_a_piece():
    """The equality test above has teeth: cutting a prefix of the guessed length wherever it falls
    changes the kept text for some of these texts and limits."""
    texts = corpus()
    wrong = [(name, limit) for name, text in texts.items() for limit in LIMITS
             if naive(text, limit) != reference(text, limit)]
    assert len(wrong) >= 3, wrong


# -- counting each text once --------------------------------------------------------------------
class CountingEncoder:
    """The real encoder, counting what it is asked to encode."""

    def __init__(self, real) -> None:
        self.real, self.name, self.calls = real, real.name, []

    def encode(self, text, **kwargs):
        self.calls.append(text)
        return self.real.encode(text, **kwargs)

    def decode(self, ids):
        return self.real.decode(ids)


@pytest.fixture
def counting(monkeypatch):
    spy = CountingEncoder(tokens.encoder())
    monkeypatch.setattr(tokens, "_encoder", spy)
    tokens._role_tokens.cache_clear()
    yield spy
    tokens._role_tokens.cache_clear()


def test_two_runs_with_the_same_system_prompt_encode_it_and_the_roles_once(counting):
    system = "You are a careful research assistant. " * 60
    cases = [[{"role": "system", "content": system}, {"role": "user", "content": f"How much energy in year {i}?"},
              {"role": "assistant", "content": f"<think>Search {i}.</think>"}] for i in range(3)]
    totals = [tokens.TokenCounter().messages(msgs) for msgs in cases]  # a counter per run, as each case has
    real = counting.real
    expected = [sum(len(real.encode(m["content"])) + len(real.encode(m["role"])) + tokens.MESSAGE_OVERHEAD
                    for m in msgs) + tokens.REPLY_PRIMING for msgs in cases]
    assert [t for t, _ in totals] == expected
    assert counting.calls.count(system) == 1
    assert sorted(c for c in counting.calls if c in ("system", "user", "assistant")) == ["assistant", "system", "user"]


def test_a_page_read_again_is_not_encoded_again_to_learn_that_it_fits(counting):
    page = "A page of the report. " * 3000
    assert tokens.truncate(page, 24_000) == page
    first_read = len(counting.calls)
    assert tokens.truncate(page, 24_000) == page and tokens.count(page) == len(counting.real.encode(page))
    assert first_read > 0 and len(counting.calls) == first_read


def test_the_count_cache_is_bounded_by_entries_and_characters():
    cache = tokens._Counts(max_entries=3, max_chars=400)
    owner = object()
    for i in range(5):
        cache.put(owner, f"text {i}", i)
    assert [cache.get(owner, f"text {i}") for i in range(5)] == [None, None, 2, 3, 4]
    cache.put(owner, "x" * 99, 99)
    cache.put(owner, "y" * 99, 99)
    cache.put(owner, "z" * 99, 99)
    assert cache.get(owner, "text 4") is None and cache._chars <= 400
    cache.put(owner, "w" * 101, 101)  # over a quarter of the room: not kept
    assert cache.get(owner, "w" * 101) is None
    assert cache.get(object(), "z" * 99) is None  # another encoder: nothing known


def test_a_run_of_a_million_spaces_is_counted_cut_and_fitted_where_tiktoken_alone_gives_up():
    from tui_agent.core import budgets
    from tui_agent.tools.visit import cap_section

    text = "Before the gap. " + " " * 1_200_000 + " After the gap."
    with pytest.raises(ValueError):  # what tiktoken does with it: the reason for tokens.encode
        tokens.encoder().encode(text, disallowed_special=())
    ids = tokens.encode(text)
    assert tokens.encoder().decode(ids) == text and tokens.count(text) == len(ids)
    assert tokens.truncate(text, 50).startswith("Before the gap.")
    fitted = budgets.fit(text, 50)
    assert fitted.startswith("Before the gap.") and "cut" in fitted
    assert budgets.cut(text, 50)[1] > 0
    assert "cut" in cap_section(text, 50)


async def test_a_tool_result_of_a_million_spaces_is_an_observation_and_the_run_goes_on():
    from tests.helpers import NoteTool
    from tests.unit.engine_kit import scripted_engine
    from tui_agent.tools.base import OK, ToolResult

    class Spaces(NoteTool):
        async def run(self, arguments, ctx):
            src = ctx.sources.register("https://notes.example/gap", "A gap")
            return ToolResult(f"[{src.number}] The answer is 42." + " " * 1_200_000 + "The end.", OK, [src.number])

    engine, rec, _ = scripted_engine(['<tool_call>{"name": "lookup", "arguments": {"topic": "gap"}}</tool_call>',
                                      "<answer>42 [1]</answer>"], Spaces())
    result = await engine.run()
    assert result["termination"] == "answer" and result["answer"].startswith("42")
    assert "The answer is 42." in rec.of("observation")[0].text
