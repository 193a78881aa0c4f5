"""Main-content extraction: small pages where readability-lxml fails, and how the analysis and
the arbiter recover (tui_agent/tools/maintext.py)."""

from __future__ import annotations

import lxml.html
import pytest
from readability import Document

from tui_agent.web import content, maintext
from tui_agent.web.content import html_to_markdown, html_to_text

URL = "https://news.example.org/story"
WORDS = ["harbour", "gauge", "record", "spring", "neap", "moon", "sun", "range", "coast", "estuary", "surge", "level"]


def sentences(topic: str, n: int, start: int = 0) -> str:
    """``n`` distinct sentences, every four words of them naming ``topic`` (so a test can tell
    whose text it sees, and texts of different topics share no word 4-gram)."""
    out = []
    for i in range(start, start + n):
        a, b, c = WORDS[i % 12], WORDS[(i * 5 + 3) % 12], WORDS[(i * 7 + 1) % 12]
        out.append(f"The {topic} note {i} says {topic} {a} and {topic} {b} changed {topic} {c} as {topic} "
                   f"observers recorded it.")
    return " ".join(out)


NAV = "<nav>" + "".join(f"<a href='/s/{i}'>Section {i}</a> " for i in range(12)) + "</nav>"

# readability picks the comment thread (neutral class names; only the heading says "comments")
COMMENTS = f"""<html><head><title>Harbour wall repairs</title></head><body>{NAV}
<div class="c0"><div class="c1"><h1>Harbour wall repairs</h1><div class="c4"><p>{sentences('story', 2)}</p></div></div>
<div class="c2"><h3>8 comments</h3>{''.join(f'<div class="c3"><b>reader{i}</b><p>{sentences("reader", 3, i * 3)}</p></div>' for i in range(8))}
</div></div></body></html>"""

# readability picks the consent banner over a short article
CONSENT = f"""<html><head><title>Ferry timetable changes</title></head><body>
<div id="onetrust-banner-sdk" class="otFlat"><div class="ot-sdk-container"><h2>We value your privacy</h2>
<p>{sentences('cookie', 4)}</p><p>{sentences('partner', 4)}</p></div></div>
{NAV}<div class="c0"><div class="c1"><h1>Ferry timetable changes</h1><div class="c4"><p>{sentences('ferry', 2)}</p>
<p>{sentences('timetable', 1)}</p></div></div></div></body></html>"""

# readability drops the lead paragraph, which sits with the title above the body
LEAD = f"""<html><head><title>The estuary survey</title></head><body>{NAV}
<div class="page"><div class="top"><h1>The estuary survey</h1><p class="summary-line">{sentences('lead', 2)}</p></div>
<div class="share-tools">{''.join(f'<a href="/s{i}">Share on network {i}</a> ' for i in range(6))}</div>
<div class="body-copy">{''.join(f'<p>{sentences("body", 3, i * 3)}</p>' for i in range(6))}</div>
<div id="comments">{''.join(f'<div class="comment"><p>{sentences("reader", 2, i * 2)}</p></div>' for i in range(6))}</div>
</div></body></html>"""

# readability keeps one post of a thread whose posts are nested six levels deep
THREAD = f"""<html><head><title>Gauge drift after the update?</title></head><body>{NAV}
<div id="main-outlet"><h1>Gauge drift after the update?</h1><div class="posts">
{''.join(f'<div class="topic-post"><article class="boxed"><div class="row"><div class="topic-avatar"><a href="/u/{i}"><img src="/a.png"></a></div><div class="topic-body"><div class="names"><a href="/u/{i}">user{i}</a></div><div class="regular contents"><div class="cooked"><p>{sentences("post", 2, i * 4)}</p><p>{sentences("detail", 1, i)}</p></div><nav class="post-controls"><button>Like</button><button>Reply</button></nav></div></div></div></article></div>' for i in range(5))}
</div><div class="suggested"><h3>Suggested topics</h3><table>{''.join(f'<tr><td><a href="/t/{i}">Topic {i}</a></td><td>{i}</td></tr>' for i in range(6))}</table></div></div></body></html>"""


def readability_text(html: str) -> str:
    return " ".join(lxml.html.fromstring(Document(html).summary(html_partial=True)).text_content().split())


def extraction(html: str, second_opinion=None) -> maintext.Extraction:
    tree = content.parse_html(html)
    return maintext.extract(tree, html, content.page_title(tree), content._readability_class(),
                            second_opinion=second_opinion)


class Recorder:
    """A second opinion that records being asked and answers with fixed text (or nothing)."""

    def __init__(self, text: str | None = None) -> None:
        self.calls = 0
        self.text = text

    def __call__(self, html: str):
        self.calls += 1
        if self.text is None:
            return None
        return {line for line in self.text.splitlines()}, self.text


# --- readability's failures, detected and repaired ------------------------------------------


def test_a_comment_thread_picked_by_readability_is_replaced_by_the_article():
    assert "The reader note" in readability_text(COMMENTS) and "The story note" not in readability_text(COMMENTS)
    ex = extraction(COMMENTS)
    assert ex.checks == ["picked boilerplate"] and ex.method == "repaired"
    text = html_to_text(COMMENTS, URL).text
    assert text == sentences("story", 2)
    assert "reader" not in text and "comments" not in text


def test_a_consent_banner_picked_by_readability_is_replaced_and_readability_abstains_from_the_vote():
    assert "We value your privacy" in readability_text(CONSENT)
    second = Recorder()
    ex = extraction(CONSENT, second)
    assert ex.checks == ["picked boilerplate"]
    assert second.calls == 0  # a readability that picked boilerplate has no say on the article
    text = html_to_text(CONSENT, URL).text
    assert text == sentences("ferry", 2) + "\n\n" + sentences("timetable", 1)


def test_a_lead_dropped_by_readability_is_restored_before_the_body():
    assert "The lead note" not in readability_text(LEAD)
    ex = extraction(LEAD)
    assert "dropped the lead" in ex.checks
    text = html_to_text(LEAD, URL).text
    assert text.startswith(sentences("lead", 2) + "\n\n" + sentences("body", 3))
    assert "Share on" not in text and "The reader note" not in text and "The estuary survey" not in text


def test_a_thread_cut_to_one_post_by_readability_keeps_every_post():
    kept = readability_text(THREAD)
    assert kept.count("The post note") == 2  # one post of five
    ex = extraction(THREAD)
    assert "kept a fraction" in ex.checks
    text = html_to_text(THREAD, URL).text
    for i in range(5):
        assert sentences("post", 2, i * 4) in text
    assert "user0" not in text and "Like" not in text and "Suggested topics" not in text and "Topic 3" not in text


def test_when_readability_agrees_its_choice_stands_and_trafilatura_is_not_asked():
    html = (f"<html><head><title>Tide tables</title></head><body>{NAV}<article><h1>Tide tables</h1>"
            f"<p>{sentences('body', 3)}</p><p>{sentences('more', 3)}</p></article>"
            f"<footer><p>{sentences('footer', 1)}</p></footer></body></html>")
    second = Recorder()
    ex = extraction(html, second)
    assert ex.method == "readability" and ex.checks == [] and second.calls == 0
    assert html_to_text(html, URL).text == sentences("body", 3) + "\n\n" + sentences("more", 3)


class _Sidebar(Document):
    """A readability that returns the sidebar (a plausible block of text, not boilerplate)."""

    def summary(self, html_partial=False, keep_all_images=False):
        return f"<div><p>{sentences('side', 4)}</p></div>"


# the sidebar: a paragraph of text and a long list of links (so the analysis leaves it out)
SIDEBAR = (f"<html><head><title>Neap tides</title></head><body>{NAV}<div class='a1'><h1>Neap tides</h1>"
           f"<p>{sentences('body', 4)}</p><p>{sentences('more', 4)}</p></div>"
           f"<div class='a2'><p>{sentences('side', 4)}</p><ul>"
           + "".join(f"<li><a href='/t/{i}'>Another tide story {i}</a></li>" for i in range(30))
           + "</ul></div></body></html>")


def test_a_large_disagreement_goes_to_the_second_opinion_segment_by_segment():
    tree = content.parse_html(SIDEBAR)
    agrees_with_analysis = Recorder(sentences("body", 4) + "\n" + sentences("more", 4))
    ex = maintext.extract(tree, SIDEBAR, "Neap tides", _Sidebar, second_opinion=agrees_with_analysis)
    assert agrees_with_analysis.calls == 1 and ex.method == "vote"
    assert "picked another block" in ex.checks
    assert [s.text for s in ex.selected] == [sentences("body", 4), sentences("more", 4)]


def test_a_vote_can_side_with_readability():
    tree = content.parse_html(SIDEBAR)
    agrees_with_readability = Recorder(sentences("side", 4) + "\n" + sentences("more", 4))
    ex = maintext.extract(tree, SIDEBAR, "Neap tides", _Sidebar, second_opinion=agrees_with_readability)
    assert [s.text for s in ex.selected] == [sentences("more", 4), sentences("side", 4)]


def test_without_a_second_opinion_the_analysis_settles_the_dispute():
    tree = content.parse_html(SIDEBAR)
    ex = maintext.extract(tree, SIDEBAR, "Neap tides", _Sidebar, second_opinion=None)
    assert [s.text for s in ex.selected] == [sentences("body", 4), sentences("more", 4)]


# --- the analysis ---------------------------------------------------------------------------


def test_boilerplate_hints_come_from_class_id_role_and_tag():
    el = lxml.html.fromstring
    assert maintext.negative_hint(el('<div class="comment-list"></div>')) == 2
    assert maintext.negative_hint(el('<div id="cookieBanner"></div>')) == 2  # camelCase tokens
    assert maintext.negative_hint(el('<div role="navigation"></div>')) == 2
    assert maintext.negative_hint(el("<aside></aside>")) == 2
    assert maintext.negative_hint(el('<div class="site-header"></div>')) == 1  # weak
    assert maintext.negative_hint(el('<div class="entry-header"></div>')) == 0  # weak loses to "entry"
    assert maintext.negative_hint(el('<div class="article-header"></div>')) == 0  # weak loses to "article"
    assert maintext.negative_hint(el('<div class="story-body"></div>')) == 0
    assert maintext.negative_hint(el('<div class="commentary"></div>')) == 0  # whole tokens only


def test_a_wrapper_named_like_boilerplate_does_not_hide_the_article_inside_it():
    html = (f"<html><head><title>Spring tides</title></head><body><div class='content-sidebar-wrap'><main>"
            f"<h1>Spring tides</h1><p>{sentences('body', 3)}</p><p>{sentences('more', 2)}</p></main>"
            f"<div class='sidebar'><p>{sentences('side', 3)}</p></div></div></body></html>")
    assert html_to_text(html, URL).text == sentences("body", 3) + "\n\n" + sentences("more", 2)


def test_a_boilerplate_heading_marks_the_rest_of_its_container():
    html = (f"<html><head><title>Surge barriers</title></head><body><div class='text'><h1>Surge barriers</h1>"
            f"<p>{sentences('body', 3)}</p><p>{sentences('more', 3)}</p><h3>Related articles</h3>"
            f"<p>{sentences('teaser', 1)}</p><p>{sentences('teaser', 1, 5)}</p></div></body></html>")
    text = html_to_text(html, URL).text
    assert text == sentences("body", 3) + "\n\n" + sentences("more", 3)


def test_short_lines_and_headings_follow_their_neighbours():
    html = (f"<html><head><title>Gauges</title></head><body><div class='x'><h1>Gauges</h1>"
            f"<div>By A. Writer, 3 May</div><p>{sentences('body', 2)}</p><h2>Readings</h2>"
            f"<div class='mw-heading'><h2>Method</h2><span>[<a href='#e'>edit</a>]</span></div>"
            f"<p>{sentences('method', 2)}</p><div>Product Gauge 3000</div><div>{sentences('desc', 1)}</div>"
            f"<h2>Share this</h2></div></body></html>")
    text = html_to_text(html, URL).text
    assert "By A. Writer" not in text  # a short line at the edge: a byline
    assert "Readings\n\nMethod" in text  # a section heading above its first subsection
    assert "Method\n\n" in text  # an [edit] link between heading and text does not matter
    assert "Product Gauge 3000\n\n" + sentences("desc", 1) in text  # a short line above text: a heading
    assert "Share this" not in text and "Gauges" not in text  # a heading at the end; the title


def test_accordion_questions_in_buttons_and_searchable_hidden_answers_are_read():
    items = "".join(
        f"<div class='item'><h3><button aria-expanded='false'>Question {i} about the tides?</button></h3>"
        f"<div class='panel' hidden='until-found'><p>{sentences('answer', 2, i * 2)}</p></div></div>" for i in range(4))
    html = (f"<html><head><title>Tide questions</title></head><body>{NAV}<main><h1>Tide questions</h1>"
            f"<div class='accordion'>{items}</div><div hidden><p>{sentences('secret', 2)}</p></div></main></body></html>")
    text = html_to_text(html, URL).text
    for i in range(4):
        assert f"Question {i} about the tides?\n\n{sentences('answer', 2, i * 2)}" in text
    assert "secret" not in text


def test_a_layout_table_is_not_kept_whole_but_a_data_table_is():
    post = ("<table class='post'><tr><td class='profile'>user1<br>Joined: 2020<br>Posts: 5</td>"
            f"<td><div class='postbody'>{sentences('post', 3)}</div><div class='signature'>My tide blog</div></td>"
            "</tr><tr><td>3 May</td><td><a href='#q'>Quote</a> <a href='#r'>Report</a></td></tr></table>")
    data = ("<table><tr><th>Port</th><th>Range (m)</th></tr><tr><td>Brest</td><td>7.0</td></tr>"
            "<tr><td>Dover</td><td>6.7</td></tr></table>")
    html = (f"<html><head><title>Ports</title></head><body><div class='t'><h1>Ports</h1>{post}"
            f"<p>{sentences('body', 3)}</p>{data}</div></body></html>")
    text = html_to_text(html, URL).text
    assert sentences("post", 3) in text
    assert "Joined" not in text and "My tide blog" not in text and "Quote" not in text
    assert "Port\tRange (m)\nBrest\t7.0\nDover\t6.7" in text
    md = html_to_markdown(html, URL).text
    assert "| Port | Range (m) |\n| --- | --- |\n| Brest | 7.0 |\n| Dover | 6.7 |" in md


def test_the_title_heading_is_left_to_the_observation_header():
    html = (f"<html><head><title>Neap tides | Tide News</title></head><body><article><h1>Neap tides</h1>"
            f"<p>{sentences('body', 3)}</p><h2>Causes</h2><p>{sentences('more', 3)}</p></article></body></html>")
    md = html_to_markdown(html, URL)
    assert md.title == "Neap tides | Tide News"
    assert md.text.startswith(sentences("body", 3)) and "## Causes" in md.text and "# Neap tides" not in md.text


def test_a_budget_stops_the_output_at_a_whole_segment_and_reports_the_full_length():
    paragraphs = "".join(f"<p>{sentences('p', 2, i * 2)}</p>" for i in range(200))
    html = f"<html><body><article>{paragraphs}</article></body></html>"
    page = html_to_text(html, URL, max_chars=3000)
    assert page.text.endswith("observers recorded it.")
    assert 3000 < len(page.text) < 3600
    assert page.full_chars and page.full_chars > 30_000


@pytest.mark.parametrize("html", ["<html><body></body></html>", "<p>", "<html><body><script>x()</script></body></html>",
                                  "<html><frameset><frame src='a.html'></frameset></html>"])
def test_pages_without_content_give_no_text(html):
    assert html_to_text(html, URL).text == ""


def test_a_page_naming_its_article_overrides_boilerplate_names_on_its_wrappers():
    # Blogger puts every post inside "widget Blog"; "widget" alone would make it boilerplate
    html = (f"<html><head><title>Garden notes</title></head><body><div class='widget Header'><h1>Garden notes</h1></div>"
            f"<div class='widget Blog'><h3 class='post-title'>Planting tides</h3><div class='post-body entry-content'>"
            f"{sentences('body', 3)}<br><br>{sentences('more', 3)}</div></div>"
            f"<div class='widget Profile'><p>{sentences('profile', 1)}</p></div></body></html>")
    assert maintext.named_article(content.parse_html(html)).get("class") == "post-body entry-content"
    text = html_to_text(html, URL).text
    assert text == f"Planting tides\n\n{sentences('body', 3)}\n{sentences('more', 3)}"


def test_on_a_discussion_page_the_comments_are_the_content():
    comments = "".join(f"<tr class='comtr'><td><span class='user'>u{i}</span><div class='comment'>"
                       f"<span class='commtext'>{sentences('reply', 2, i * 2)}</span></div></td></tr>" for i in range(8))
    html = (f"<html><head><title>Ask: tide tables?</title></head><body>{NAV}<table><tr><td class='title'>"
            f"<a href='/x'>Ask: tide tables?</a></td></tr><tr><td class='toptext'>{sentences('ask', 1)}</td></tr></table>"
            f"<table class='comment-tree'>{comments}</table></body></html>")
    ex = extraction(html)
    assert ex.analysis.discussion
    text = html_to_text(html, URL).text
    assert sentences("ask", 1) in text
    for i in range(8):
        assert sentences("reply", 2, i * 2) in text
    assert "Section 3" not in text


def test_an_article_with_a_long_comment_thread_is_not_a_discussion_page():
    comments = "".join(f"<li class='comment'><p>{sentences('reader', 3, i * 3)}</p></li>" for i in range(10))
    html = (f"<html><head><title>Short post</title></head><body><article class='post'><h1>Short post</h1>"
            f"<div class='entry-content'><p>{sentences('body', 2)}</p></div></article>"
            f"<ol class='comment-list'>{comments}</ol></body></html>")
    ex = extraction(html)
    assert not ex.analysis.discussion
    assert html_to_text(html, URL).text == sentences("body", 2)


def test_when_the_analysis_finds_no_container_readabilitys_choice_stands_without_a_vote():
    html = "<html><body>" + "".join(f"<p>short line {i} of filler text here</p>" for i in range(200)) + "</body></html>"
    second = Recorder()
    ex = extraction(html, second)
    assert ex.analysis.container is None and second.calls == 0 and ex.method == "readability"
    assert len(ex.selected) == 200
    assert html_to_text(html, URL).text.splitlines()[0] == "short line 0 of filler text here"


# --- the majority rule: a structural exclusion against readability and trafilatura together -----

# A discussion page whose <main> is named like an article ("main-content", so the discussion
# rule does not apply) and whose replies sit in elements with "comment" in their id: the
# analysis hints them as boilerplate, readability keeps them ("content" in the id outweighs
# "comment" in its class weights).
REPLIES = (f"<html><head><title>Which tide gauge do you trust?</title></head><body>{NAV}<main id='main-content'>"
           f"<div class='post'><h1>Which tide gauge do you trust?</h1><div class='md'><p>{sentences('post', 2)}</p></div></div>"
           f"<div class='tree'>"
           + "".join(f"<div class='entry'><span class='who'>user{i}</span><div id='t1-comment-{i}-content' class='md'>"
                     f"<p>{sentences('reply', 3, i * 3)}</p></div></div>" for i in range(6))
           + f"</div></main><footer><p>{sentences('footer', 1)}</p></footer></body></html>")


def _replies_in(text: str) -> int:
    return sum(sentences("reply", 3, i * 3) in text for i in range(6))


def test_a_structural_exclusion_does_not_overrule_readability_and_trafilatura_agreeing():
    assert _replies_in(readability_text(REPLIES)) == 6  # readability keeps the replies
    analysis = maintext.analyse(content.parse_html(REPLIES), "Which tide gauge do you trust?")
    assert not any(sentences("reply", 3) == s.text for s in analysis.selected())  # the analysis does not
    both = Recorder(sentences("post", 2) + "\n" + "\n".join(sentences("reply", 3, i * 3) for i in range(6)))
    ex = extraction(REPLIES, both)
    assert both.calls == 1 and ex.method == "vote"
    text = " ".join(s.text for s in ex.selected)
    assert sentences("post", 2) in text and _replies_in(text) == 6
    assert "user0" not in text and "The footer note" not in text


def test_the_exclusion_stands_when_trafilatura_sides_with_the_analysis():
    post_only = Recorder(sentences("post", 2))
    ex = extraction(REPLIES, post_only)
    text = " ".join(s.text for s in ex.selected)
    assert post_only.calls == 1 and sentences("post", 2) in text and _replies_in(text) == 0


def test_a_cookie_banner_both_keep_stays_out():
    # exclusions resting on more than comment names (here a consent banner) are not put to the vote
    both = Recorder(sentences("cookie", 4) + "\n" + sentences("partner", 4) + "\n" + sentences("ferry", 2))
    text = " ".join(s.text for s in extraction(CONSENT, both).selected)
    assert "The cookie note" not in text and sentences("ferry", 2) in text
