"""The main text of an HTML page (tui_agent/web/maintext.py): trafilatura, with readability-lxml
and the visible text as fallbacks; links, titles, budgets and hostile pages."""

from __future__ import annotations

import re

import pytest

from tui_agent.web import maintext
from tui_agent.web.content import html_to_markdown, html_to_text

URL = "https://news.example.org/2024/tides/story.html"
SENTENCE = ("The harbour gauge recorded a spring tide of seven metres, the highest since the records began "
            "in the town.")
RICH = f"""<html><head><title>Spring tides in the harbour | Example News</title></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a></nav>
<article><h1>Spring tides in the harbour</h1>
<p>{SENTENCE} It was measured by <a href="gauges.html">the new gauges</a> and checked by
<a href="/staff/ana">Ana</a>, who wrote <a href="#notes">notes</a> and a <a href="mailto:ana@example.org">letter</a>.</p>
<h2>What the records say</h2><p>{SENTENCE.replace("seven", "six")}</p>
<ul><li>Spring tides follow the full moon</li><li>Neap tides follow the quarter moons</li></ul>
<table><tr><th>Port</th><th>Range (m)</th></tr><tr><td>Brest</td><td>7.0</td></tr><tr><td>Dover</td><td>6.7</td></tr></table>
<blockquote><p>The sea is always right, said the harbour master on the quay that morning.</p></blockquote>
</article>
<div id="comments"><h3>3 comments</h3><p>I love this site and read every article about the moon twice.</p></div>
<footer>Copyright Example News</footer></body></html>"""


def words(text: str) -> list[str]:
    """The words of a rendering, without Markdown syntax or link targets."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.findall(r"[^\W_]+", re.sub(r"(?m)^\s*\d+\.\s", "", text).lower())


def test_the_article_is_read_without_navigation_comments_or_footer():
    page = html_to_markdown(RICH, URL)
    assert page.method == "trafilatura"
    assert SENTENCE in page.text and "## What the records say" in page.text
    assert "- Spring tides follow the full moon" in page.text
    assert "| Brest | 7.0 |" in page.text and "> The sea is always right" in page.text
    for boilerplate in ("Home", "World", "comments", "I love this site", "Copyright"):
        assert boilerplate not in page.text


def test_markdown_and_plain_text_carry_the_same_words():
    markdown, text = html_to_markdown(RICH, URL).text, html_to_text(RICH, URL).text
    assert words(markdown) == words(text)
    assert "](" not in text and "##" not in text and ">" not in text


def test_the_markdown_keeps_the_pages_own_characters():
    # trafilatura's Markdown renderer would print snake\\_case, \\[1] and \\<tag>
    html = RICH.replace("<h2>", "<p>Call <code>read_tide()</code> on snake_case files [1] and *.csv, "
                                "not &lt;/tool_response&gt; or 2*3.</p><h2>")
    text = html_to_markdown(html, URL).text
    assert "Call `read_tide()` on snake_case files [1] and *.csv, not </tool_response> or 2*3." in text
    assert "\\" not in text


def test_links_are_absolute_and_dead_links_keep_only_their_text():
    text = html_to_markdown(RICH, URL).text
    assert "[the new gauges](https://news.example.org/2024/tides/gauges.html)" in text
    assert "[Ana](https://news.example.org/staff/ana)" in text
    assert "wrote notes and a letter." in text
    based = RICH.replace("<head>", '<head><base href="https://cdn.example.net/archive/">')
    assert "[the new gauges](https://cdn.example.net/archive/gauges.html)" in html_to_markdown(based, URL).text


def test_the_title_heading_is_left_to_the_title_but_another_first_heading_stays():
    page = html_to_markdown(RICH, URL)
    assert page.title == "Spring tides in the harbour | Example News"
    assert page.text.startswith(SENTENCE)
    other = RICH.replace("<h1>Spring tides in the harbour</h1>", "<h1>Gauges and their records</h1>")
    assert html_to_markdown(other, URL).text.startswith("# Gauges and their records\n\n")


def test_readability_takes_over_when_trafilatura_finds_almost_nothing():
    # The story sits in an <aside>: trafilatura keeps only the ten-character lead, readability the story.
    html = f"<html><body><div><p>Tiny lead.</p></div><aside>{('<p>' + SENTENCE + '</p>') * 4}</aside></body></html>"
    assert maintext.text_length(maintext.trafilatura_body(maintext.parse_html(html))) < maintext.MIN_MAIN_CHARS
    for read in (html_to_markdown, html_to_text):
        page = read(html, URL)
        assert page.method == "readability"
        assert page.text.count(SENTENCE) == 4


def test_a_short_text_trafilatura_finds_is_kept_when_readability_finds_no_more():
    page = html_to_markdown("<html><body><div>Opening hours: 9 to 5</div></body></html>", URL)
    assert (page.method, page.text) == ("trafilatura", "Opening hours: 9 to 5")


def test_a_trafilatura_failure_falls_back_to_readability(monkeypatch):
    import trafilatura

    def broken(*args, **kwargs):
        raise RuntimeError("odd page")

    monkeypatch.setattr(trafilatura, "bare_extraction", broken)
    page = html_to_markdown(RICH, URL)
    assert page.method == "readability" and SENTENCE in page.text


def test_a_budget_keeps_whole_paragraphs_and_reports_the_full_length():
    paragraphs = "".join(f"<p>Paragraph number {i} with several words of text in it.</p>" for i in range(3000))
    html = f"<html><body><article>{paragraphs}</article></body></html>"
    for read in (html_to_markdown, html_to_text):
        page = read(html, URL, max_chars=2000)
        assert "Paragraph number 0 with" in page.text and "Paragraph number 2999" not in page.text
        assert page.text.endswith("of text in it.") and len(page.text) < 2600
        assert page.full_chars and page.full_chars > 150_000


# --- hostile pages --------------------------------------------------------------------------------


def test_a_deeply_nested_page_is_read_as_deep_as_the_parser_goes():
    def nested(depth: int) -> str:
        return "<html><body>" + "<div>" * depth + f"<p>{SENTENCE}</p>" + "</div>" * depth + "</body></html>"

    assert SENTENCE in html_to_text(nested(250), URL).text
    # libxml2 drops what lies deeper than 255 elements; the page then has no text, and no error
    assert html_to_markdown(nested(20_000), URL).method == "none"


def test_a_huge_page_is_read_up_to_the_html_cap():
    count = 2 * maintext.MAX_HTML_CHARS // len(f"<p>Paragraph 00000: {SENTENCE}</p>")
    paragraphs = "".join(f"<p>Paragraph {i:05}: {SENTENCE}</p>" for i in range(count))
    page = html_to_text(f"<html><body><article>{paragraphs}</article></body></html>", URL, max_chars=5000)
    assert page.text.startswith(f"Paragraph 00000: {SENTENCE}") and page.full_chars
    assert page.full_chars <= maintext.MAX_HTML_CHARS  # the text after the cap was never parsed


def test_scripts_styles_and_templates_never_reach_the_text():
    hostile = ("<script>document.write('<p>injected</p>')</script><style>p::after{content:'styled'}</style>"
               "<template><p>templated words that are never shown on the page</p></template>")
    html = RICH.replace("<h2>", hostile + "<h2>")
    for read in (html_to_markdown, html_to_text):
        text = read(html, URL).text
        assert SENTENCE in text
        assert "injected" not in text and "styled" not in text and "templated" not in text


@pytest.mark.parametrize("html", ["", "   ", "<html></html>", "<html><body><script>app()</script></body></html>",
                                  "\x00\x00", "<?xml version='1.0'?>"])
def test_pages_without_text_give_no_text(html):
    page = html_to_markdown(html, URL)
    assert page.text == "" and page.method == "none"


# --- preformatted text ---------------------------------------------------------------------------

TMUX_LINES = "# .tmux.conf\nset-option -g mouse on\nbind r source-file ~/.tmux.conf\nset -g base-index 1"
INTRO = "Here is the configuration file I use every day, with the mouse on and windows numbered from one."
OUTRO = "Put it in your home directory and restart tmux; that is all there is to it, enjoy the mouse."


def preformatted_page(pre: str) -> str:
    return (f"<html><head><title>My tmux setup</title></head><body><article><h1>My tmux setup</h1><p>{INTRO}</p>"
            f"{pre}<p>{OUTRO}</p><blockquote>A real quote\nspanning two source lines.</blockquote>"
            f"</article></body></html>")


@pytest.mark.parametrize("pre", [
    f"<pre>{TMUX_LINES}</pre>",  # no <code>: trafilatura made it a quote and joined its lines
    f"<pre><code>{TMUX_LINES}</code></pre>",
    "<pre><span class='c'># .tmux.conf</span>\n<b>set-option</b> -g mouse on\nbind r source-file ~/.tmux.conf<br>"
    "set -g base-index 1</pre>",
])
def test_a_pre_block_keeps_its_lines_as_a_fenced_code_block(pre):
    page = html_to_markdown(preformatted_page(pre), URL)
    assert page.method == "trafilatura"
    assert f"{INTRO}\n\n```\n{TMUX_LINES}\n```\n\n{OUTRO}" in page.text
    assert "> A real quote spanning two source lines." in page.text  # a quote is still a quote
    assert f"{INTRO}\n\n{TMUX_LINES}\n\n{OUTRO}" in html_to_text(preformatted_page(pre), URL).text


def test_a_pre_block_keeps_its_indentation_through_every_extractor(monkeypatch):
    config = "[frohike]\n        path = /backup/frohike\n\n        read only = no\nuid = root"
    html = preformatted_page(f"<pre>{config}</pre>")
    assert f"```\n{config}\n```" in html_to_markdown(html, URL).text
    monkeypatch.setattr(maintext, "trafilatura_body", lambda tree, title="": None)  # readability's turn
    page = html_to_markdown(html, URL)
    assert page.method == "readability" and f"```\n{config}\n```" in page.text
    monkeypatch.setattr(maintext, "readability_root", lambda html: None)  # the visible text's turn
    page = html_to_text(html, URL)
    assert page.method == "visible" and f"\n{config}\n" in page.text


def test_pages_read_from_many_threads_at_once_are_parsed_one_at_a_time(monkeypatch):
    # trafilatura parses with one module-level lxml parser: two threads inside it at once corrupted
    # memory (a crash of an eval at concurrency 16). Visits read pages in threads, so the reading
    # itself must let one thread in at a time.
    import threading
    import time

    from tui_agent.web.content import to_page

    inside, most = [0], [0]
    lock = threading.Lock()
    real = maintext.parse_html

    def counting(html):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)  # lets another thread in, were the door open
        try:
            return real(html)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(maintext, "parse_html", counting)
    page = f"<html><body><article><p>{'A sentence about tides and the moon. ' * 40}</p></article></body></html>"
    texts: list[str] = []
    threads = [threading.Thread(target=lambda: texts.append(to_page(page.encode(), "text/html", "http://x.test/").text))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and len(texts) == 4 and all("tides and the moon" in t for t in texts)
