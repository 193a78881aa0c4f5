"""The page pipeline's text helpers give what the regular expressions they replaced gave (the
speed-up of web/render.py and web/maintext.py must not change a character of a page's text, nor
which source is chosen)."""

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


def test_the_text_length_of_a_page_is_counted_as_the_regular_expression_did():
    import lxml.html

    from tui_agent.web.maintext import text_length

    for i, text in enumerate(_texts(3, 400)):
        words = text.split("b")
        root = lxml.html.fragment_fromstring(
            "<div>" + "".join(f"<p>{w}<i>{w[::-1]}</i></p>{w}" for w in words).replace("\r", "") + "</div>")
        expected = len(re.sub(r"\s+", " ", "".join(root.itertext())).strip())
        assert text_length(root) == expected, repr(text)
        for enough in (0, 1, 5, 12, 100):
            size = text_length(root, enough)
            assert size == expected if expected < enough else size >= enough, (repr(text), enough)
