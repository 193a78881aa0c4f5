"""HTML elements as Markdown and as plain text (tui_agent/tools/render.py), and the tokenizer cache."""

from __future__ import annotations

import lxml.etree
import lxml.html
import pytest

from tui_agent.model import tokens
from tui_agent.web.render import is_layout_table, render

BASE = "https://docs.example.org/guide/page.html"


def md(html: str) -> str:
    return render(lxml.html.fragment_fromstring(html, create_parent="div"), markdown=True, base_url=BASE)


def txt(html: str) -> str:
    return render(lxml.html.fragment_fromstring(html, create_parent="div"), markdown=False)


def test_headings_paragraphs_emphasis_code_and_links():
    html = ("<h2>Tide <em>tables</em></h2><p>Use <strong>gauge</strong> data, <i>not</i> guesses; call "
            "<code>read_tide()</code>. See <a href='../ref/tides.html'>the reference</a>, "
            "<a href='#top'>top</a>, <a href='mailto:x@e.org'>mail</a> and <a href='https://o.org/'> </a>.</p>")
    assert md(html) == ("## Tide *tables*\n\nUse **gauge** data, *not* guesses; call `read_tide()`. See "
                        "[the reference](https://docs.example.org/ref/tides.html), top, mail and .")
    assert txt(html) == "Tide tables\n\nUse gauge data, not guesses; call read_tide(). See the reference, top, mail and ."


def test_nested_and_numbered_lists():
    html = ("<ul><li>first<ul><li>inner one</li><li>inner two</li></ul></li><li>second</li></ul>"
            "<ol start='3'><li>three</li><li><p>four</p><p>more of four</p></li></ol>")
    assert md(html) == "- first\n  - inner one\n  - inner two\n- second\n\n3. three\n4. four\n   more of four"
    assert txt(html) == "first\ninner one\ninner two\nsecond\n\nthree\nfour\nmore of four"


def test_data_tables_become_pipe_tables_and_tab_separated_lines():
    html = ("<table><caption>Ranges</caption><tr><th>Port</th><th>Range | m</th></tr><tr><td>Brest</td>"
            "<td><p>7.0</p></td></tr><tr><td>Dover</td></tr></table>")
    assert md(html) == "Ranges\n\n| Port | Range \\| m |\n| --- | --- |\n| Brest | 7.0 |\n| Dover |  |"
    assert txt(html) == "Ranges\n\nPort\tRange | m\nBrest\t7.0\nDover"


def test_layout_tables_render_their_cells_as_blocks():
    html = ("<table><tr><td><div>user1</div></td><td><div class='post'><p>First paragraph of the post.</p>"
            "<p>Second paragraph.</p></div></td></tr></table>")
    table = lxml.html.fragment_fromstring(html)
    assert is_layout_table(table)
    assert md(html) == "user1\n\nFirst paragraph of the post.\n\nSecond paragraph."
    assert not is_layout_table(lxml.html.fragment_fromstring("<table><tr><td><p>a</p></td><td>b</td></tr></table>"))


def test_code_blocks_keep_their_text_and_language():
    html = ("<pre><code class='language-python'>def f(x):\n    return x  # &lt;ok&gt;\n</code></pre>"
            "<div class='highlight-js'><pre><span class='k'>const</span> a = '```';</pre></div>")
    assert md(html) == "```python\ndef f(x):\n    return x  # <ok>\n```\n\n~~~\nconst a = '```';\n~~~"
    assert txt(html) == "def f(x):\n    return x  # <ok>\n\nconst a = '```';"


def test_a_pre_keeps_blank_lines_indentation_and_line_breaks():
    # a blank line must not take the next line's indentation with it (Python, YAML, configs)
    html = ("<pre>class Users:\n    slots = 1\n\n    def f(self):\n        pass</pre>"
            "<pre>[server]<br>  port = 873<br/>  host = a</pre>")
    assert txt(html) == ("class Users:\n    slots = 1\n\n    def f(self):\n        pass\n\n"
                         "[server]\n  port = 873\n  host = a")
    assert md(html) == ("```\nclass Users:\n    slots = 1\n\n    def f(self):\n        pass\n```\n\n"
                        "```\n[server]\n  port = 873\n  host = a\n```")


def test_a_table_cell_holding_a_pre_of_several_lines_is_not_flattened_into_a_row():
    # code beside its line numbers, as syntax highlighters lay it out
    html = ("<table><tr><td><pre>1\n2</pre></td><td><pre>x = 1\n  y = 2</pre></td></tr></table>")
    assert is_layout_table(lxml.html.fragment_fromstring(html))
    assert txt(html) == "1\n2\n\nx = 1\n  y = 2"
    one_line = "<table><tr><th>Key</th></tr><tr><td><pre>mouse on</pre></td></tr></table>"
    assert not is_layout_table(lxml.html.fragment_fromstring(one_line))


def test_quotes_breaks_and_dropped_elements():
    html = ("<blockquote><p>One line.</p><p>Two<br>lines.</p></blockquote><p>A<img src='x.png' alt='pic'>B"
            "<script>evil()</script><button>Click</button><input value='v'></p><hr><h3><button>Question?</button></h3>")
    assert md(html) == "> One line.\n>\n> Two\n> lines.\n\nAB\n\n---\n\n### Question?"
    assert txt(html) == "One line.\n\nTwo\nlines.\n\nAB\n\nQuestion?"


def test_whitespace_is_collapsed_outside_pre():
    assert txt("<p>  a\n   b\t c  </p><div>   </div><p>d</p>") == "a b c\n\nd"


def test_plain_etree_elements_render_too():
    root = lxml.etree.fromstring("<html><body><h1>T</h1><p>x <a href='/y'>y</a></p></body></html>",
                                 lxml.etree.HTMLParser())
    assert render(root, base_url="https://e.org/a/") == "# T\n\nx [y](https://e.org/y)"


# --- the tokenizer cache ------------------------------------------------------------------------


def test_the_tokenizer_cache_round_trips_and_rejects_damage(tmp_path, monkeypatch):
    encoding = tokens.encoder()
    ranks = encoding._mergeable_ranks
    path = str(tmp_path / "ranks")
    tokens._write_ranks(path, ranks)
    assert tokens._read_ranks(path) == ranks
    with open(path, "r+b") as fh:  # a damaged file is not used
        fh.truncate(1000)
    assert tokens._read_ranks(path) is None
    (tmp_path / "bad").write_bytes(b"\x00not marshal")
    assert tokens._read_ranks(str(tmp_path / "bad")) is None
    assert tokens._read_ranks(str(tmp_path / "missing")) is None


def test_an_encoder_built_from_the_cache_encodes_like_tiktoken(tmp_path, monkeypatch):
    import tiktoken

    monkeypatch.setenv("TUI_AGENT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tokens, "_encoder", None)
    first = tokens.encoder()  # no cache yet: tiktoken's loader, then the cache is written
    assert list(tmp_path.iterdir())
    monkeypatch.setattr(tokens, "_encoder", None)
    cached = tokens.encoder()
    reference = tiktoken.get_encoding(tokens.ENCODING)
    text = "Tides — «marées», 潮汐, <answer>42</answer> and code: def f(x): return x**2\n" * 3
    assert cached.encode(text, disallowed_special=()) == reference.encode(text, disallowed_special=())
    assert first.encode(text, disallowed_special=()) == reference.encode(text, disallowed_special=())
    assert cached.decode(cached.encode(text, disallowed_special=())) == text


@pytest.fixture(autouse=True)
def _restore_encoder():
    saved = tokens._encoder
    yield
    tokens._encoder = saved
