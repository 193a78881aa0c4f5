"""Turning fetched bytes into readable text: classify, decode, HTML → Markdown, PDF."""

from __future__ import annotations

import codecs

import pytest

from tests.servers import make_pdf
from tui_agent.web.content import (
    ContentError,
    classify,
    decode,
    html_to_markdown,
    html_to_text,
    pdf_to_text,
    to_page,
)

URL = "https://example.com/news/article.html"

ARTICLE = """<!doctype html><html><head><title>The Tide Report - Example News</title>
<script>var tracking = 1;</script><style>p { color: red }</style></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>The Tide Report</h1>
<p>Tides are driven by the <b>gravity</b> of the Moon and the Sun, as explained in the
<a href="/science/tides">science section</a>, and they repeat about twice a day.</p>
<h2>Measurements</h2>
<p>Harbour gauges record the water level every six minutes, and the records go back more than a
century in some ports, which makes them valuable for studying the rise of the sea level.</p>
<ul><li>Spring tides follow the full and new moon</li><li>Neap tides follow the quarter moons</li></ul>
<ol><li>first step</li><li>second step</li></ol>
<table><tr><th>Port</th><th>Range (m)</th></tr><tr><td>Brest</td><td>7.0</td></tr><tr><td>Dover</td><td>6.7</td></tr></table>
<pre><code class="language-python">def tide(t):
    return 2 * t
</code></pre>
<p>Further reading is on <a href="https://other.example.org/tides">another site</a>.<img src="x.png" alt="chart"></p>
</article><footer>Copyright Example News</footer></body></html>"""


# --- classify ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type, url, body, expected",
    [
        ("text/html; charset=utf-8", URL, b"<html></html>", "html"),
        ("application/xhtml+xml", URL, b"<html></html>", "html"),
        ("application/pdf", URL, b"%PDF-1.4", "pdf"),
        ("text/html", URL, b"%PDF-1.7 binary", "pdf"),
        ("application/octet-stream", "https://e.org/paper.pdf", b"%PDF-1.4", "pdf"),
        (None, "https://e.org/paper.pdf", b"%PDF-1.4", "pdf"),
        ("text/plain", URL, b"hello", "text"),
        ("text/markdown", URL, b"# Title", "text"),
        ("text/csv", URL, b"a,b", "text"),
        ("application/xml", URL, b"<a/>", "text"),
        ("application/rss+xml", URL, b"<rss/>", "text"),
        ("application/json", URL, b"{}", "json"),
        ("application/ld+json", URL, b"{}", "json"),
        ("image/png", URL, b"\x89PNG\r\n\x1a\n", "binary"),
        ("application/zip", URL, b"PK\x03\x04", "binary"),
        (None, URL, b"<!DOCTYPE html><html><body>x</body></html>", "html"),
        (None, URL, b'{"a": 1}', "json"),
        (None, URL, b"just some words", "text"),
        ("application/octet-stream", URL, b"\x00\x01\x02\x03binary", "binary"),
    ],
)
def test_classify_by_type_url_and_sniffing(content_type, url, body, expected):
    assert classify(content_type, url, body) == expected


# --- decode -----------------------------------------------------------------------------------


def test_decode_latin1_page_without_any_declared_charset():
    body = "<html><body><p>café naïve Größe</p></body></html>".encode("latin-1")
    assert "café naïve Größe" in decode(body, "text/html")


def test_decode_latin1_plain_text_without_charset():
    assert decode("café naïve Größe".encode("latin-1"), None) == "café naïve Größe"


def test_decode_uses_the_header_charset():
    assert decode("Grüße".encode("utf-16-le"), "text/plain; charset=utf-16-le") == "Grüße"


def test_decode_latin1_label_means_windows_1252_as_in_browsers():
    # 0x93/0x94 are curly quotes in windows-1252, C1 controls in strict ISO-8859-1
    assert decode(b"\x93quoted\x94", "text/html; charset=iso-8859-1") == "\u201cquoted\u201d"


def test_decode_uses_meta_charset_when_the_header_has_none():
    body = '<html><head><meta charset="windows-1251"></head><body>Привет</body></html>'.encode("cp1251")
    assert "Привет" in decode(body, "text/html")


def test_decode_uses_http_equiv_meta():
    body = ('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15">'
            "<p>€ prix</p>").encode("iso-8859-15")
    assert "€ prix" in decode(body, "text/html")


def test_decode_bom_wins():
    assert decode(codecs.BOM_UTF8 + "naïve".encode(), "text/html; charset=iso-8859-1") == "naïve"
    assert decode(codecs.BOM_UTF16_LE + "naïve".encode("utf-16-le"), None) == "naïve"


def test_decode_utf8_without_declaration():
    assert decode("日本語 and naïve".encode(), "text/html") == "日本語 and naïve"


def test_decode_unknown_charset_label_falls_through_to_detection():
    assert decode("naïve".encode(), "text/html; charset=x-no-such-thing") == "naïve"


def test_decode_long_cyrillic_page_without_charset_keeps_the_detected_codepage():
    text = "Это длинная страница на русском языке, записанная в старой кодировке без объявления. " * 8
    assert decode(text.encode("cp1251"), "text/html").startswith("Это длинная страница")


# --- HTML -------------------------------------------------------------------------------------


def test_html_to_markdown_renders_the_article_as_markdown():
    page = html_to_markdown(ARTICLE, URL)
    assert page.method == "trafilatura"
    assert page.title == "The Tide Report - Example News"
    text = page.text
    assert text.startswith("Tides are driven by the gravity")  # the title heading is left to the title
    assert "## Measurements" in text
    assert "[science section](https://example.com/science/tides)" in text
    assert "[another site](https://other.example.org/tides)" in text
    assert "- Spring tides follow the full and new moon" in text
    assert "1. first step\n2. second step" in text
    assert "| Port | Range (m) |\n| --- | --- |\n| Brest | 7.0 |" in text
    assert "```\ndef tide(t):\n    return 2 * t\n```" in text  # trafilatura does not keep the language
    assert "var tracking" not in text and "color: red" not in text
    assert "x.png" not in text and "Copyright" not in text and "About" not in text
    assert "\n\n\n" not in text and " \n" not in text


def test_html_to_text_carries_the_same_content_without_markdown_syntax():
    text = html_to_text(ARTICLE, URL).text
    assert "as explained in the science section, and" in text
    assert "\n\nMeasurements\n\n" in text and "#" not in text
    assert "https://" not in text and "](" not in text
    assert "\n\nfirst step\nsecond step\n\n" in text
    assert "Port\tRange (m)\nBrest\t7.0\nDover\t6.7" in text
    assert "def tide(t):\n    return 2 * t" in text and "```" not in text


def test_html_to_markdown_falls_back_to_visible_text_when_no_extractor_finds_any():
    # A site map in an <aside>: trafilatura and readability both skip it as boilerplate.
    links = "".join(f'<li><a href="/doc/{i}">Document number {i} about tides</a></li>' for i in range(20))
    html = (f"<html><head><title>Index</title><script>evil()</script></head><body>"
            f'<nav><a href="/a">Nav one</a></nav><aside><ul>{links}</ul></aside>'
            f"<noscript>enable js</noscript></body></html>")
    page = html_to_markdown(html, "https://docs.example/")
    assert page.method == "visible"
    assert "- [Document number 0 about tides](https://docs.example/doc/0)" in page.text
    assert "Document number 19" in page.text
    assert "evil()" not in page.text and "enable js" not in page.text and "Nav one" not in page.text
    assert html_to_text(html, "https://docs.example/").text.startswith("Document number 0 about tides\n")


def test_html_to_markdown_keeps_a_short_page():
    page = html_to_markdown("<html><body><div>Opening hours: 9 to 5</div></body></html>", URL)
    assert page.text == "Opening hours: 9 to 5"


def test_html_to_markdown_of_empty_or_invisible_pages_is_empty():
    assert html_to_markdown("", URL).text == ""
    assert html_to_markdown("   \n ", URL).text == ""
    empty = html_to_markdown("<html><head><title>T</title></head><body><script>x()</script></body></html>", URL)
    assert empty.text == "" and empty.method == "none"


def test_html_to_markdown_accepts_an_xml_declaration():
    page = html_to_markdown("<?xml version='1.0' encoding='utf-8'?><html><body><p>Hello there</p></body></html>", URL)
    assert "Hello there" in page.text


def test_html_to_markdown_budget_cuts_the_render_and_reports_the_full_length():
    paragraphs = "".join(f"<p>Paragraph number {i} with several words of text in it.</p>" for i in range(2000))
    page = html_to_markdown(f"<html><body><article>{paragraphs}</article></body></html>", URL, max_chars=5000)
    assert "Paragraph number 0 " in page.text
    assert "Paragraph number 1999" not in page.text
    assert len(page.text) < 7000
    assert page.full_chars and page.full_chars > 100_000


# --- PDF and to_page --------------------------------------------------------------------------


def test_pdf_to_text_marks_each_page():
    text = pdf_to_text(make_pdf(["First page about tides.", "Second page about waves."]))
    assert text.startswith("--- page 1 ---\n")
    assert "First page about tides." in text
    assert "--- page 2 ---\nSecond page about waves." in text


def test_pdf_to_text_of_a_broken_pdf_raises_content_error():
    with pytest.raises(ContentError):
        pdf_to_text(b"%PDF-1.4\nthis is not really a pdf")


def test_to_page_handles_each_kind():
    assert to_page(b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", URL).method == "binary"
    assert to_page(b'{"a": 1}', "application/json", URL).text == '{"a": 1}'
    assert to_page(b"# Notes\n\nplain", "text/markdown", URL).text == "# Notes\n\nplain"
    pdf = to_page(make_pdf(["Hello PDF"]), "application/pdf", URL)
    assert pdf.method == "pdf" and "Hello PDF" in pdf.text
    long = to_page(b"x" * 10_000, "text/plain", URL, max_chars=100)
    assert len(long.text) == 100 and long.full_chars == 10_000
