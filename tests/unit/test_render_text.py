"""The renderer's text helpers give what the regular expressions they replaced gave (the speed-up
of web/render.py must not change a character of a page's text)."""

import random
import re

from tui_agent.web.render import _spaces, collapse, tidy

ALPHABET = ["a", "b", " ", "  ", "\t", "\n", "\n\n", "\r", "\f", "\v", "\xa0", "\u2003", "\x85", "é", "|", "`"]


def _texts(seed: int, count: int = 3000):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 24)))


def _tidy_by_regex(text: str) -> str:
    text = re.sub(r"[ \t]+\n", "\n", text.replace("\xa0", " "))
    return re.sub(r"\n(?:[ \t]*\n)+", "\n\n", text).strip()


def test_whitespace_is_collapsed_as_the_regular_expressions_did():
    for text in _texts(1):
        assert collapse(text) == re.sub(r"[ \t\n\r\f\v]+", " ", text), repr(text)
        assert _spaces(text) == re.sub(r"[ \t]+", " ", text), repr(text)


def test_a_text_is_tidied_as_the_regular_expressions_did():
    for text in _texts(2):
        assert tidy(text) == _tidy_by_regex(text), repr(text)
