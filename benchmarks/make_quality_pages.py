"""Build the extraction-quality corpus: realistic article pages with their true body text.

Run ``.venv/bin/python benchmarks/make_quality_pages.py`` to (re)write
``benchmarks/quality_pages/`` — ``NAME.html`` (the page), ``NAME.txt`` (the human-marked body:
what a reader would call the article, one block per paragraph) and ``manifest.json`` (family,
split, URL, what the variant exercises). The output is deterministic (fixed seeds) and committed.

Sixteen template families, three variants each (48 pages). Each family is a different kind of
site with its own markup habits, class names and boilerplate:

dev (tuned on)              held-out (never used for tuning; see SPLIT below)
- news_classic              - news_divsoup   (React-style div soup, obfuscated classes)
- wp_blog                   - medium_blog    (nested sections, responses, "more from")
- forum_discourse           - wiki           (infobox, TOC, references, navboxes)
- docs_sphinx               - docs_mdn       (left tree, right TOC, compat table)
- listicle                  - forum_table    (phpBB-style table layout, signatures)
- news_textblocks           - recipe_blog    (story + recipe card + rated comments)
- qa_site                   - faq_gov        (accordion FAQ, side nav, heavy footer)
- magazine_longread         - changelog      (release notes: lists under version headings)

What counts as the body (the same rule for every family, written before any extractor was
run on the pages): the lead/standfirst, body paragraphs, subheadings inside the body, lists,
tables, code blocks and quotations that belong to the text; for threads every post's text
(without user names, dates, counters or signatures); for Q&A the question and the answers.
Not the body: the page title (h1), bylines and dates, captions, navigation and breadcrumbs,
share/follow/print buttons, newsletter and membership boxes, ads, "read more" and related
links, tags, author bios, comments under articles and posts, sidebars, cookie banners, footers,
tables of contents, infoboxes, reference lists, previous/next links.
"""

from __future__ import annotations

import html as htmlmod
import json
import random
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality_prose import Prose  # noqa: E402

OUT = Path(__file__).resolve().parent / "quality_pages"
VARIANTS = 3
SEED = 20240611

DEV_FAMILIES = ["news_classic", "wp_blog", "forum_discourse", "docs_sphinx", "listicle", "news_textblocks",
                "qa_site", "magazine_longread"]
HELDOUT_FAMILIES = ["news_divsoup", "medium_blog", "wiki", "docs_mdn", "forum_table", "recipe_blog", "faq_gov",
                    "changelog"]
HELDOUT2_FAMILIES = ["news_amp", "newsletter_post", "repo_readme", "hn_thread", "blogspot_post", "docs_gitbook",
                     "press_release", "journal_abstract"]
HELDOUT3_FAMILIES = ["reddit_thread", "elementor_page", "howto_steps", "mail_archive", "product_page", "report_html",
                     "hugo_blog", "live_sports"]
HELDOUT4_FAMILIES = ["stackexchange_qa", "substack_post", "gov_notice", "science_blog", "docs_tabs", "shop_category",
                     "podcast_notes"]
SPLIT = {**{f: "dev" for f in DEV_FAMILIES}, **{f: "heldout" for f in HELDOUT_FAMILIES},
         **{f: "heldout2" for f in HELDOUT2_FAMILIES}, **{f: "heldout3" for f in HELDOUT3_FAMILIES},
         **{f: "heldout4" for f in HELDOUT4_FAMILIES}}


def esc(text: str) -> str:
    return htmlmod.escape(text, quote=False)


def attr(text: str) -> str:
    return htmlmod.escape(text, quote=True)


class Builder:
    """HTML for one page, with the true body recorded as blocks are written."""

    def __init__(self, rng: random.Random, prose: Prose, host: str) -> None:
        self.rng = rng
        self.prose = prose
        self.host = host
        self.truth: list[str] = []

    # -- inline markup that leaves the text as it is -----------------------------------------
    def slug(self, text: str) -> str:
        words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
        return "-".join(words[:6]) or "page"

    def href(self, text: str = "") -> str:
        r = self.rng.random()
        if r < 0.6:
            return f"/{self.rng.choice(['news', 'story', 'topics', 'guides', 'blog', 'wiki'])}/{self.slug(text or self.prose.short())}"
        if r < 0.85:
            return f"https://{self.rng.choice(['www.example.org', 'data.example.net', 'research.example.edu'])}/{self.slug(text)}"
        return f"https://{self.host}/{self.rng.randint(1000, 99999)}"

    def inline(self, text: str, link_p: float = 0.25, fmt_p: float = 0.15) -> str:
        """Escape ``text`` and wrap a few word spans in links or emphasis."""
        words = text.split(" ")
        out: list[str] = []
        i = 0
        while i < len(words):
            r = self.rng.random()
            n = self.rng.randint(2, 4)
            if r < link_p / 6 and i + n <= len(words):
                span = " ".join(words[i:i + n])
                out.append(f'<a href="{attr(self.href(span))}">{esc(span)}</a>')
                i += n
            elif r < (link_p + fmt_p) / 6 and i + n <= len(words):
                span = " ".join(words[i:i + n])
                tag = self.rng.choice(["em", "strong", "b", "i"])
                out.append(f"<{tag}>{esc(span)}</{tag}>")
                i += n
            else:
                out.append(esc(words[i]))
                i += 1
        return " ".join(out)

    # -- body blocks (recorded in the truth unless truth=False) -------------------------------
    def p(self, text: str, *, tag: str = "p", cls: str | None = None, truth: bool = True, link_p: float = 0.25) -> str:
        if truth:
            self.truth.append(text)
        c = f' class="{cls}"' if cls else ""
        return f"<{tag}{c}>{self.inline(text, link_p)}</{tag}>"

    def h(self, level: int, text: str, *, cls: str | None = None, truth: bool = True, anchor: bool = False) -> str:
        if truth:
            self.truth.append(text)
        c = f' class="{cls}"' if cls else ""
        ident = f' id="{self.slug(text)}"' if anchor or self.rng.random() < 0.4 else ""
        link = f'<a class="headerlink" href="#{self.slug(text)}" title="Permalink">¶</a>' if anchor else ""
        return f"<h{level}{ident}{c}>{esc(text)}{link}</h{level}>"

    def ul(self, items: list[str], *, ordered: bool = False, cls: str | None = None, truth: bool = True,
           li_cls: str | None = None, wrap_p: bool = False) -> str:
        if truth:
            self.truth.extend(items)
        tag = "ol" if ordered else "ul"
        c = f' class="{cls}"' if cls else ""
        lc = f' class="{li_cls}"' if li_cls else ""
        inner = "".join(f"<li{lc}>{'<p>' if wrap_p else ''}{self.inline(i, 0.2)}{'</p>' if wrap_p else ''}</li>"
                        for i in items)
        return f"<{tag}{c}>{inner}</{tag}>"

    def table(self, header: list[str], rows: list[list[str]], *, cls: str | None = None, truth: bool = True,
              caption: str | None = None) -> str:
        if truth:
            self.truth.append(" ".join(header))
            self.truth.extend(" ".join(r) for r in rows)
        c = f' class="{cls}"' if cls else ""
        cap = f"<caption>{esc(caption)}</caption>" if caption else ""
        head = "<thead><tr>" + "".join(f"<th>{esc(x)}</th>" for x in header) + "</tr></thead>"
        body = "<tbody>" + "".join("<tr>" + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in rows) + "</tbody>"
        return f"<table{c}>{cap}{head}{body}</table>"

    def pre(self, code: str, lang: str = "python", *, truth: bool = True, style: str = "plain") -> str:
        if truth:
            self.truth.append(code)
        if style == "sphinx":
            return f'<div class="highlight-{lang} notranslate"><div class="highlight"><pre><span></span>{esc(code)}</pre></div></div>'
        if style == "mdn":
            return f'<div class="code-example"><div class="example-header"><span class="language-name">{lang}</span><button class="copy-icon" type="button">Copy to Clipboard</button></div><pre class="brush: {lang} notranslate"><code>{esc(code)}</code></pre></div>'
        return f'<pre><code class="language-{lang}">{esc(code)}</code></pre>'

    def quote(self, text: str, *, truth: bool = True, cite: str | None = None) -> str:
        if truth:
            self.truth.append(text)
        c = f"<footer>— {esc(cite)}</footer>" if cite else ""
        return f"<blockquote><p>{self.inline(text, 0.1)}</p>{c}</blockquote>"

    # -- boilerplate (never in the truth) -------------------------------------------------------
    def menu(self, n: int, cls: str = "menu", item_cls: str = "menu-item", nested: int = 0) -> str:
        items = []
        for _ in range(n):
            label = self.prose.short(1, 3)
            sub = ""
            if nested and self.rng.random() < 0.4:
                sub = "<ul class='sub-menu'>" + "".join(
                    f"<li><a href='{self.href()}'>{esc(self.prose.short(1, 4))}</a></li>" for _ in range(nested)) + "</ul>"
            items.append(f"<li class='{item_cls}'><a href='{attr(self.href(label))}'>{esc(label)}</a>{sub}</li>")
        return f"<ul class='{cls}'>{''.join(items)}</ul>"

    def head(self, title: str, description: str, extra_css: int = 40, scripts: int = 3) -> str:
        css = "".join(f".c{i}{{margin:{i % 7}px;padding:{i % 5}px;color:#{i * 2731 % 0xFFFFFF:06x}}}" for i in range(extra_css))
        js = "".join(f"<script>window.__cfg{i}={json.dumps({'id': self.rng.randint(1, 10**8), 'ab': self.rng.random() < 0.5, 'slots': list(range(self.rng.randint(2, 9)))})};"
                      f"(function(w,d){{var s=d.createElement('script');s.async=1;s.src='/static/chunk-{self.rng.randint(100, 999)}.js';d.head.appendChild(s)}})(window,document);</script>"
                      for i in range(scripts))
        return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
                f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
                f"<title>{esc(title)}</title><meta name='description' content='{attr(description)}'>"
                f"<meta property='og:title' content='{attr(title.split(' | ')[0].split(' - ')[0])}'>"
                f"<meta property='og:type' content='article'><link rel='stylesheet' href='/static/site.css'>"
                f"<link rel='canonical' href='https://{self.host}/{self.slug(title)}'>"
                f"<style>{css}</style>{js}</head>")

    def cookie_banner(self, style: int) -> str:
        pr = self.prose
        text = (f"We and our {self.rng.randint(120, 900)} partners use cookies and similar technologies to store and "
                f"access information on your device, to personalise content and ads, to provide social media features "
                f"and to analyse our traffic. {pr.sentence('promo')} You can change your choices at any time by "
                f"visiting the privacy settings at the bottom of every page. Some partners process data on the basis "
                f"of legitimate interest, which you can object to in the vendor list.")
        more = ("Strictly necessary cookies are required for the site to work and cannot be switched off. Performance "
                "cookies let us count visits and traffic sources so we can measure and improve the performance of our "
                "site. Targeting cookies may be set through our site by our advertising partners to build a profile "
                "of your interests and show you relevant adverts on other sites.")
        if style == 0:
            return (f"<div id='cookie-consent' class='cmp-banner' role='dialog' aria-label='Cookie consent'>"
                    f"<h2>We value your privacy</h2><p>{esc(text)}</p><p>{esc(more)}</p>"
                    f"<button class='accept'>Accept all</button><button>Manage preferences</button></div>")
        if style == 1:
            return (f"<div class='fc-consent-root'><div class='fc-dialog'><div class='fc-dialog-content'>"
                    f"<div class='fc-header'>This site asks for consent to use your data</div>"
                    f"<div class='fc-body'><p>{esc(text)}</p><div>{esc(more)}</div></div>"
                    f"<div class='fc-footer'><button>Consent</button><button>Do not consent</button></div></div></div></div>")
        return (f"<section class='gdpr' aria-live='polite'><p>{esc(text)}</p>"
                f"<a href='/privacy'>Privacy policy</a> <a href='/cookies'>Cookie settings</a> <button>OK</button></section>")

    def fat_footer(self, style: int, site: str) -> str:
        pr = self.prose
        about = (f"{site} is an independent publication founded in {self.rng.randint(1990, 2015)}. "
                 f"{pr.paragraph('news', 2, 3)} Our journalism is funded by readers, and we do not accept money from "
                 f"the companies we write about.")
        legal = (f"© {self.rng.randint(2019, 2024)} {site} Ltd. All rights reserved. Registered in England and Wales, "
                 f"company number {self.rng.randint(10**6, 10**7)}. Registered office: {self.rng.randint(1, 200)} "
                 f"{self.rng.choice(['Market Street', 'Harbour Road', 'King Street', 'Mill Lane'])}, {pr.pick('place')}. "
                 "Use of this site constitutes acceptance of our terms of service and privacy policy. The material on "
                 "this site may not be reproduced, distributed, transmitted, cached or otherwise used, except with the "
                 "prior written permission of the publisher.")
        cols = "".join(f"<div class='footer-col'><h4>{esc(pr.short(1, 2))}</h4>{self.menu(self.rng.randint(4, 8), 'footer-links', 'footer-link')}</div>"
                       for _ in range(4))
        if style == 0:
            return (f"<footer class='site-footer'><div class='footer-about'><p>{esc(about)}</p></div>{cols}"
                    f"<div class='footer-legal'><p>{esc(legal)}</p></div></footer>")
        if style == 1:
            return f"<div id='footer'><div class='container'>{cols}<p class='about'>{esc(about)}</p><small>{esc(legal)}</small></div></div>"
        return f"<footer>{cols}<p>{esc(legal)}</p></footer>"

    def most_read(self, n: int, with_summary: bool, cls: str = "most-read") -> str:
        items = []
        for i in range(n):
            hl = self.prose.headline()
            summ = f"<p class='summary'>{esc(self.prose.sentence())} {esc(self.prose.sentence())}</p>" if with_summary else ""
            items.append(f"<li><span class='rank'>{i + 1}</span><a href='{attr(self.href(hl))}'><h3>{esc(hl)}</h3></a>{summ}</li>")
        return f"<aside class='{cls}'><h2>Most read</h2><ol>{''.join(items)}</ol></aside>"

    def related_grid(self, n: int, cls: str = "related-posts", excerpt: bool = True, title: str = "You might also like") -> str:
        cards = []
        for _ in range(n):
            hl = self.prose.headline()
            ex = f"<p>{esc(self.prose.paragraph('blog', 1, 2))}</p>" if excerpt else ""
            cards.append(f"<div class='card'><a href='{attr(self.href(hl))}'><img src='/img/{self.rng.randint(1, 9999)}.jpg' alt=''>"
                         f"<h3>{esc(hl)}</h3></a>{ex}<span class='date'>{self.date()}</span></div>")
        return f"<section class='{cls}'><h2>{esc(title)}</h2><div class='grid'>{''.join(cards)}</div></section>"

    def comments(self, n: int, style: int, nested: bool = True) -> str:
        def one(depth: int) -> str:
            who = self.prose.person()
            body = " ".join(self.prose.sentence("comment") for _ in range(self.rng.randint(1, 4)))
            kids = ""
            if nested and depth < 2 and self.rng.random() < 0.3:
                kids = "<ol class='children'>" + "".join(one(depth + 1) for _ in range(self.rng.randint(1, 2))) + "</ol>"
            if style == 0:
                return (f"<li class='comment depth-{depth + 1}'><article class='comment-body'><footer class='comment-meta'>"
                        f"<b class='fn'>{esc(who)}</b> <time>{self.date()}</time></footer>"
                        f"<div class='comment-content'><p>{esc(body)}</p></div>"
                        f"<div class='reply'><a class='comment-reply-link' href='#'>Reply</a></div></article>{kids}</li>")
            if style == 1:
                return (f"<div class='comment'><div class='comment__author'>{esc(who)}</div>"
                        f"<div class='comment__text'>{esc(body)}</div><div class='comment__actions'>"
                        f"<button>Reply</button><button>Recommend ({self.rng.randint(0, 300)})</button></div>{kids}</div>")
            return (f"<div class='cmt'><span class='user'>{esc(who)}</span><p>{esc(body)}</p>"
                    f"<span class='votes'>▲ {self.rng.randint(0, 99)}</span>{kids}</div>")

        inner = "".join(one(0) for _ in range(n))
        if style == 0:
            return (f"<div id='comments' class='comments-area'><h2 class='comments-title'>{n} thoughts on this post</h2>"
                    f"<ol class='comment-list'>{inner}</ol><div id='respond'><h3>Leave a Reply</h3>"
                    f"<form><textarea name='comment'></textarea><input type='submit' value='Post Comment'></form></div></div>")
        if style == 1:
            return f"<section class='comments' id='comments'><h2>Comments ({n})</h2>{inner}<button>Load more comments</button></section>"
        return f"<div class='discussion'><h3>Reader comments</h3>{inner}</div>"

    def share(self) -> str:
        nets = ["Facebook", "Twitter", "LinkedIn", "WhatsApp", "Email", "Copy link"]
        return "<div class='share-bar'>" + "".join(f"<a class='share-{n.lower().replace(' ', '-')}' href='#'>Share on {n}</a>" for n in nets) + "</div>"

    def newsletter(self) -> str:
        return (f"<div class='newsletter-signup'><h3>Get the briefing</h3><p>{esc(self.prose.sentence('promo'))}</p>"
                f"<form><input type='email' placeholder='Your email'><button>Sign up</button></form>"
                f"<p class='small'>By signing up you agree to our privacy policy.</p></div>")

    def ad(self) -> str:
        return f"<div class='ad-slot' data-slot='{self.rng.randint(1, 99)}'><span class='ad-label'>Advertisement</span><div id='gpt-ad-{self.rng.randint(1000, 9999)}'></div></div>"

    def tags(self, n: int) -> str:
        return "<div class='tags'><span>Topics:</span>" + "".join(f"<a rel='tag' href='{attr(self.href())}'>{esc(self.prose.short(1, 3))}</a>" for _ in range(n)) + "</div>"

    def author_bio(self) -> str:
        who = self.prose.person()
        return (f"<div class='author-bio'><img src='/a.jpg' alt=''><h4>About {esc(who)}</h4><p>{esc(who)} is {self.prose.pick('role')} "
                f"who has written about {self.prose.pick('obj')} for {self.rng.randint(3, 20)} years. {esc(self.prose.sentence('blog'))}</p>"
                f"<a href='#'>More by {esc(who.split()[0])}</a></div>")

    def date(self) -> str:
        return f"{self.rng.randint(1, 28)} {self.rng.choice(['January', 'March', 'May', 'July', 'September', 'November'])} {self.rng.randint(2019, 2024)}"

    def figure(self) -> str:
        cap = self.prose.sentence()[:90]
        return f"<figure class='wp-block-image'><img src='/img/{self.rng.randint(1, 99999)}.jpg' alt='{attr(cap)}'><figcaption>{esc(cap)} Photograph: {esc(self.prose.person())}</figcaption></figure>"

    def site_header(self, site: str, n: int = 10, cls: str = "site-header") -> str:
        return (f"<header class='{cls}'><a class='skip-link' href='#main'>Skip to content</a><a class='logo' href='/'>{esc(site)}</a>"
                f"<nav class='primary-nav' aria-label='Primary'>{self.menu(n, nested=3)}</nav>"
                f"<form class='search' action='/search'><input name='q' placeholder='Search'><button>Search</button></form>"
                f"<a href='/login'>Sign in</a> <a class='btn' href='/subscribe'>Subscribe</a></header>")


# ------------------------------------------------------------------------------------------------
# dev families
# ------------------------------------------------------------------------------------------------


def news_classic(b: Builder, v: int) -> tuple[str, str]:
    """Headline and standfirst above the body container; sidebar with summaries; comments; v1 is a
    short item beside a heavy sidebar; v2 has a comment thread longer than the article."""
    pr = b.prose
    title = pr.headline()
    site = "The Daily Ledger"
    nsec = [4, 0, 2][v]
    lead = pr.paragraph("news", 2, 3)
    body = []
    if v == 1:  # a short item: two paragraphs
        body = [b.p(pr.paragraph("news", 2, 3)), b.p(pr.paragraph("news", 1, 2))]
    else:
        body.append(b.p(pr.paragraph("news", 3, 5)))
    for s in range(nsec):
        body.append(b.p(pr.paragraph("news", 3, 5)))
        if s == 1:
            body.append(b.figure())
            body.append(f"<aside class='read-more'><strong>Read more:</strong> <a href='{b.href()}'>{esc(pr.headline())}</a></aside>")
        body.append(b.h(2, pr.heading()))
        body.append(b.p(pr.paragraph("news", 2, 5)))
        if s == 2:
            body.append(b.newsletter())
        if s == 3:
            body.append(b.ul(pr.list_items(4)))
    if v != 1:
        body.append(b.p(pr.paragraph("news", 1, 3)))
    lead_html = f"<p class='standfirst'>{b.inline(lead, 0.05)}</p>"
    b.truth.insert(0, lead)
    sidebar = b.most_read(10 if v == 1 else 6, with_summary=True)
    if v == 1:
        sidebar += b.related_grid(6, cls="more-stories", title="More from this section")
    page = (b.head(f"{title} | {site}", lead[:150]) + "<body class='article-page'>" + b.cookie_banner(v % 3)
            + b.site_header(site, 14) + "<div class='breadcrumbs'><a href='/'>Home</a> › <a href='/news'>News</a> › "
            + f"<a href='/news/{pr.topic}'>{pr.topic.title()}</a></div>"
            + "<main id='main' class='container'><div class='row'><div class='col-main'>"
            + f"<div class='article-header'><h1 class='headline'>{esc(title)}</h1>{lead_html}"
            + f"<div class='byline'>By <a href='/authors/x'>{esc(pr.person())}</a>, {pr.pick('role')} · <time>{b.date()}</time></div>"
            + b.share() + "</div>"
            + f"<div class='article-body' itemprop='articleBody'>{''.join(body)}</div>"
            + b.tags(5) + b.author_bio()
            + (b.comments(6 if v != 2 else 28, 1) if v != 1 else "")
            + f"</div><div class='col-side'>{sidebar}{b.ad()}</div></div></main>"
            + b.fat_footer(0, site) + "</body></html>")
    return page, title


def wp_blog(b: Builder, v: int) -> tuple[str, str]:
    """WordPress: entry-content, widget sidebar, related grid, nested comment list (v0: the comments
    outweigh a short post; v1: long post with lists and code; v2: related grid with long excerpts)."""
    pr = b.prose
    title = pr.headline()
    site = f"{pr.person().split()[0]}'s Notebook"
    parts = []
    n = [2, 7, 4][v]
    for i in range(n):
        parts.append(b.p(pr.paragraph("blog", 2, 5)))
        if v == 1 and i == 2:
            parts.append(b.h(2, pr.heading()))
            parts.append(b.ul(pr.list_items(5, "blog")))
        if v == 1 and i == 4:
            parts.append(b.pre(pr.code("python")))
            parts.append(b.h(3, pr.heading()))
        if v == 2 and i == 1:
            parts.append(b.figure())
            parts.append(b.h(2, pr.heading()))
    parts.append(b.p(pr.sentence("blog")))
    widgets = (f"<section class='widget widget_text'><h2 class='widget-title'>About me</h2><div class='textwidget'><p>{esc(pr.paragraph('blog', 3, 4))}</p></div></section>"
               f"<section class='widget widget_recent_entries'><h2 class='widget-title'>Recent Posts</h2>{b.menu(6, 'recent', 'r')}</section>"
               f"<section class='widget widget_archive'><h2 class='widget-title'>Archives</h2>{b.menu(10, 'archive', 'a')}</section>"
               f"<section class='widget widget_tag_cloud'><h2 class='widget-title'>Tags</h2>{b.tags(14)}</section>")
    page = (b.head(f"{title} – {site}", title) + "<body class='post-template-default single single-post'>"
            + "<div id='page' class='site'>" + b.site_header(site, 6)
            + "<div id='content' class='site-content'><div id='primary' class='content-area'><main id='main' class='site-main'>"
            + f"<article id='post-{b.rng.randint(10, 9999)}' class='post type-post status-publish format-standard hentry'>"
            + f"<header class='entry-header'><h1 class='entry-title'>{esc(title)}</h1><div class='entry-meta'>"
            + f"<span class='posted-on'>Posted on <time>{b.date()}</time></span> <span class='byline'>by {esc(pr.person())}</span></div></header>"
            + f"<div class='entry-content'>{''.join(parts)}{b.share() if v != 1 else ''}</div>"
            + f"<footer class='entry-footer'><span class='cat-links'>Posted in <a href='#'>{esc(pr.short(1, 2))}</a></span>{b.tags(4)}</footer></article>"
            + "<nav class='navigation post-navigation'><div class='nav-previous'><a href='#'>" + esc(pr.headline()) + "</a></div>"
            + "<div class='nav-next'><a href='#'>" + esc(pr.headline()) + "</a></div></nav>"
            + b.related_grid(6 if v == 2 else 3, excerpt=True)
            + b.comments([22, 5, 9][v], 0)
            + f"</main></div><aside id='secondary' class='widget-area'>{widgets}</aside></div>"
            + b.fat_footer(2, site) + "</div></body></html>")
    return page, title


def forum_discourse(b: Builder, v: int) -> tuple[str, str]:
    """A Discourse-like thread: posts as article.boxed > div.cooked, quotes of earlier posts,
    suggested topics below. The body is every post."""
    pr = b.prose
    title = pr.headline() + "?"
    n = [4, 11, 2][v]
    posts = []
    previous = ""
    for i in range(n):
        who = pr.person().replace(" ", "_").lower()
        inner = []
        if i > 0 and previous and b.rng.random() < 0.3:
            inner.append(f"<aside class='quote'><div class='title'>{esc(who)}:</div><blockquote><p>{esc(previous[:120])}</p></blockquote></aside>")
        k = b.rng.randint(1, 3) if v != 2 else 4
        for _ in range(k):
            text = pr.paragraph("forum", 1, 4)
            inner.append(b.p(text, link_p=0.1))
            previous = text
        if i == 0 and v != 1:
            inner.append(b.pre(pr.code(b.rng.choice(["python", "shell"]))))
        posts.append(
            f"<div class='topic-post clearfix regular' data-post-number='{i + 1}'><article class='boxed onscreen-post' id='post_{i + 1}'>"
            f"<div class='row'><div class='topic-avatar'><a class='trigger-user-card' href='/u/{who}'><img src='/a/{who}.png' alt=''></a></div>"
            f"<div class='topic-body clearfix'><div class='topic-meta-data'><div class='names'><span class='first username'><a href='/u/{who}'>{esc(who)}</a></span></div>"
            f"<div class='post-infos'><div class='post-info post-date'><a class='post-date' href='#'><span title='{b.date()}'>{b.rng.randint(1, 30)}d</span></a></div></div></div>"
            f"<div class='regular contents'><div class='cooked'>{''.join(inner)}</div>"
            f"<section class='post-menu-area clearfix'><nav class='post-controls'><button class='like'>♥ {b.rng.randint(0, 40)}</button><button>Share</button><button>Reply</button></nav></section>"
            f"</div></div></div></article></div>")
    suggested = "".join(f"<tr><td><a href='{b.href()}'>{esc(pr.headline())}</a></td><td>{b.rng.randint(1, 80)}</td><td>{b.rng.randint(50, 9000)}</td><td>{b.rng.randint(1, 30)}d</td></tr>" for _ in range(8))
    page = (b.head(f"{title} - Community Forum", title, scripts=6) + "<body class='crawler'>"
            + b.site_header("Community", 5, "d-header")
            + "<div id='main-outlet' class='wrap' role='main'><div id='topic-title'><h1><a href='#'>" + esc(title) + "</a></h1>"
            + f"<div class='topic-category'><span class='badge-category'>{esc(pr.short(1, 2))}</span></div></div>"
            + f"<div class='posts-wrapper'>{''.join(posts)}</div>"
            + f"<div class='suggested-topics'><h3>Suggested Topics</h3><table><thead><tr><th>Topic</th><th>Replies</th><th>Views</th><th>Activity</th></tr></thead><tbody>{suggested}</tbody></table></div>"
            + "</div><footer class='noscript-footer-nav'><a href='/'>Home</a> <a href='/categories'>Categories</a> <a href='/guidelines'>Guidelines</a> <a href='/tos'>Terms of Service</a> <a href='/privacy'>Privacy Policy</a></footer>"
            + "<p class='powered-by-link'>Powered by <a href='https://www.discourse.org'>Discourse</a>, best viewed with JavaScript enabled</p></body></html>")
    return page, title


def docs_sphinx(b: Builder, v: int) -> tuple[str, str]:
    """Read the Docs theme: a big navigation tree, a section with code, tables, admonitions;
    v1 is an API reference (dl.py.function) with little running prose; v2 is table-heavy."""
    pr = b.prose
    title = f"{pr.short(2, 3).title()} — toolkit {b.rng.randint(1, 5)}.{b.rng.randint(0, 20)} documentation"
    h1 = title.split(" — ")[0]
    content = [f"<h1>{esc(h1)}<a class='headerlink' href='#' title='Permalink to this heading'>¶</a></h1>"]
    if v == 0:
        for _ in range(4):
            content.append(b.p(pr.tech_paragraph(2, 4), link_p=0.1))
            content.append(f"<section id='s{b.rng.randint(1, 999)}'>" + b.h(2, pr.heading(), anchor=True))
            content.append(b.p(pr.tech_paragraph(2, 4), link_p=0.1))
            content.append(b.pre(pr.code(b.rng.choice(["python", "shell"])), style="sphinx"))
            if b.rng.random() < 0.5:
                note = pr.tech_sentence()
                b.truth.append("Note")
                b.truth.append(note)
                content.append(f"<div class='admonition note'><p class='admonition-title'>Note</p><p>{esc(note)}</p></div>")
            content.append("</section>")
    elif v == 1:
        content.append(b.p(pr.tech_paragraph(1, 2), link_p=0.05))
        for _ in range(7):
            name = b.rng.choice(["parse_config", "load_index", "fetch_batch", "merge_records", "flush_cache", "spawn_worker", "diff_trees", "stream_rows", "sign_payload"])
            sig = f"toolkit.{name}(path, *, retries=3, strict=False)"
            params = [f"{p} – {pr.tech_sentence()}" for p in ("path", "retries", "strict")]
            b.truth.append(sig)
            desc = pr.tech_paragraph(1, 2)
            b.truth.append(desc)
            b.truth.append("Parameters:")
            b.truth.extend(params)
            content.append(
                f"<dl class='py function'><dt class='sig sig-object py' id='toolkit.{name}'><span class='sig-prename descclassname'>toolkit.</span>"
                f"<span class='sig-name descname'>{name}</span>(path, *, retries=3, strict=False)<a class='headerlink' href='#'>¶</a></dt>"
                f"<dd><p>{esc(desc)}</p><dl class='field-list simple'><dt class='field-odd'>Parameters:</dt><dd class='field-odd'><ul class='simple'>"
                + "".join(f"<li><p>{esc(x)}</p></li>" for x in params) + "</ul></dd></dl></dd></dl>")
    else:
        content.append(b.p(pr.tech_paragraph(2, 3), link_p=0.05))
        for _ in range(3):
            content.append(b.h(2, pr.heading(), anchor=True))
            content.append(b.p(pr.tech_sentence(), link_p=0.05))
            rows = [[b.rng.choice(["--timeout", "--workers", "--retries", "--format", "--color", "--jobs", "--since"]),
                     b.rng.choice(["int", "str", "bool", "float"]), str(b.rng.randint(0, 100)), pr.tech_sentence()] for _ in range(b.rng.randint(5, 9))]
            content.append(b.table(["Option", "Type", "Default", "Description"], rows, cls="docutils align-default"))
    tree = "".join(f"<li class='toctree-l1'><a class='reference internal' href='{b.href()}'>{esc(pr.short(1, 3).title())}</a>"
                   + ("<ul>" + "".join(f"<li class='toctree-l2'><a class='reference internal' href='#'>{esc(pr.short(1, 4))}</a></li>" for _ in range(b.rng.randint(2, 6))) + "</ul>" if b.rng.random() < 0.5 else "")
                   + "</li>" for _ in range(22))
    page = (b.head(title, h1, scripts=2) + "<body class='wy-body-for-nav'><div class='wy-grid-for-nav'>"
            + "<nav data-toggle='wy-nav-shift' class='wy-nav-side'><div class='wy-side-scroll'><div class='wy-side-nav-search'>"
            + "<a href='#' class='icon icon-home'>toolkit</a><div class='version'>latest</div><div role='search'><form><input name='q' placeholder='Search docs'></form></div></div>"
            + f"<div class='wy-menu wy-menu-vertical' role='navigation'><p class='caption'><span class='caption-text'>Contents</span></p><ul class='current'>{tree}</ul></div></div></nav>"
            + "<section data-toggle='wy-nav-shift' class='wy-nav-content-wrap'><nav class='wy-nav-top'><a href='#'>toolkit</a></nav>"
            + "<div class='wy-nav-content'><div class='rst-content'><div role='navigation' aria-label='Page navigation'><ul class='wy-breadcrumbs'>"
            + f"<li><a href='#'>Docs</a> »</li><li>{esc(h1)}</li><li class='wy-breadcrumbs-aside'><a href='#'>Edit on GitHub</a></li></ul><hr></div>"
            + f"<div role='main' class='document' itemscope itemtype='http://schema.org/Article'><div itemprop='articleBody'><section id='main-sec'>{''.join(content)}</section></div></div>"
            + "<footer><div class='rst-footer-buttons' role='navigation'><a href='#' class='btn btn-neutral float-left'>Previous</a><a href='#' class='btn btn-neutral float-right'>Next</a></div><hr>"
            + f"<div role='contentinfo'><p>© Copyright {b.rng.randint(2015, 2024)}, the toolkit developers. Revision <code>{b.rng.randint(10**6, 10**7):x}</code>.</p></div>"
            + "Built with <a href='https://www.sphinx-doc.org/'>Sphinx</a> using a <a href='#'>theme</a> provided by <a href='#'>Read the Docs</a>.</footer>"
            + "</div></div></section></div></body></html>")
    return page, h1


def listicle(b: Builder, v: int) -> tuple[str, str]:
    """"The N best …": items as headings with short text, spec lists and buy buttons; little
    running prose, so paragraph-based scoring sees a weak article."""
    pr = b.prose
    n = [10, 8, 12][v]
    title = f"The {n} best {pr.pick('obj').replace('the ', '')} options for {b.rng.randint(2022, 2025)}"
    items = [b.p(pr.paragraph("blog", 2, 3))]
    for i in range(n):
        name = pr.short(2, 4).title()
        if v == 0:
            items.append(b.h(2, f"{i + 1}. {name}"))
            items.append(b.p(pr.paragraph("blog", 1, 2), link_p=0.1))
            items.append(f"<a class='btn-buy' href='https://shop.example.com/{b.slug(name)}' rel='sponsored'>Check price at Retailer</a>")
        elif v == 1:
            items.append(b.h(3, name))
            items.append(b.ul([f"Best for: {pr.short(2, 3)}", f"Price: {b.rng.randint(20, 900)} euros", f"Rating: {b.rng.randint(30, 50) / 10} out of 5"], cls="specs"))
            items.append(b.p(pr.sentence("blog")))
            items.append(f"<div class='pros-cons'><a class='btn' href='#'>Buy now</a></div>")
        else:
            b.truth.append(f"{name}")
            desc = pr.sentence("blog")
            b.truth.append(desc)
            items.append(f"<div class='product-card'><div class='product-card__title'>{esc(name)}</div>"
                         f"<div class='product-card__desc'>{b.inline(desc, 0.1)}</div><span class='price'>€{b.rng.randint(20, 900)}</span>"
                         f"<a class='cta' href='#'>View deal</a></div>")
    items.append(b.h(2, "How we tested"))
    items.append(b.p(pr.paragraph("blog", 2, 4)))
    page = (b.head(title + " | Reviewed", title) + "<body>" + b.cookie_banner(1) + b.site_header("Reviewed", 12)
            + "<div class='page'><main><article class='review-article'>"
            + f"<h1>{esc(title)}</h1><p class='disclosure'>We may earn a commission when you buy through links on our site.</p>"
            + f"<div class='byline'>{esc(pr.person())} · Updated {b.date()}</div>"
            + f"<div class='article-content'>{''.join(items)}</div></article>"
            + b.related_grid(4, excerpt=True, title="Related guides")
            + f"</main><aside class='sidebar'>{b.most_read(8, with_summary=True)}{b.newsletter()}</aside></div>"
            + b.fat_footer(1, "Reviewed") + "</body></html>")
    return page, title


def news_textblocks(b: Builder, v: int) -> tuple[str, str]:
    """BBC-style: every paragraph in its own div[data-component=text-block], with image blocks,
    "related" link blocks and ads between them (v2: a live page of timestamped posts)."""
    pr = b.prose
    title = pr.headline()
    blocks = []
    n = [9, 14, 6][v]
    if v == 2:
        for i in range(n):
            hl = pr.headline()
            entry = [f"<div class='lx-post__time'>{b.rng.randint(8, 20)}:{b.rng.randint(10, 59)}</div>",
                     b.h(3, hl, cls="lx-post__title"), b.p(pr.paragraph("news", 1, 3))]
            if i % 2:
                entry.append(b.p(pr.paragraph("news", 1, 2)))
            blocks.append(f"<li class='lx-stream__post-container'><article class='lx-stream-post'>{''.join(entry)}"
                          f"<div class='lx-share-tools'><button>Share</button></div></article></li>")
        body = f"<ol class='lx-stream__feed'>{''.join(blocks)}</ol>"
    else:
        for i in range(n):
            text = pr.paragraph("news", 1, 3) if i else pr.paragraph("news", 1, 2)
            inner = b.p(text, tag="p", cls="ssrcss-1q0x1qg-Paragraph e1jhz7w10" if i else "ssrcss-1q0x1qg-Paragraph e1jhz7w10 intro")
            if i == 0:
                inner = f"<b>{b.inline(text, 0.0)}</b>"
                inner = f"<p class='ssrcss-1q0x1qg-Paragraph'>{inner}</p>"
            blocks.append(f"<div data-component='text-block' class='ssrcss-11r1m41-RichTextComponentWrapper ep2nwvo0'><div class='ssrcss-7uxr49-RichTextContainer e5tfeyi1'>{inner}</div></div>")
            if i == 2:
                blocks.append(f"<div data-component='image-block' class='ssrcss-1dp1ejh'><figure><img src='/i.jpg' alt=''><figcaption>{esc(pr.sentence()[:80])}</figcaption></figure></div>")
            if i in (4, 10):
                blocks.append(f"<div data-component='links-block' class='ssrcss-1ocoo3l-Wrap'><h2>Related Topics</h2>{b.menu(4, 'ssrcss-links', 'l')}</div>")
            if i in (3, 8):
                blocks.append(f"<div data-component='ad-slot'>{b.ad()}</div>")
            if v == 1 and i in (5, 11):
                blocks.append(f"<div data-component='subheadline-block'>{b.h(2, pr.heading())}</div>")
        body = "".join(blocks)
    page = (b.head(f"{title} - World Service News", title, scripts=8) + "<body><div id='__next'>"
            + b.cookie_banner(0) + b.site_header("World Service", 16, "ssrcss-header")
            + "<div class='ssrcss-wrapper'><main id='main-content' class='ssrcss-main'><article class='ssrcss-pv1rh6-ArticleWrapper'>"
            + f"<header data-component='headline-block'><h1 id='main-heading' class='ssrcss-15xko80-StyledHeading'>{esc(title)}</h1></header>"
            + f"<div data-component='byline-block'><span>{esc(pr.person())}</span><span>{esc(pr.pick('role'))}, {esc(pr.pick('place'))}</span><time>{b.date()}</time></div>"
            + body
            + f"<div data-component='tag-list'>{b.tags(5)}</div></article>"
            + f"<section data-component='related-stories'>{b.related_grid(4, excerpt=False, title='More on this story')}</section></main>"
            + f"<div class='ssrcss-sidebar'>{b.most_read(10, with_summary=v != 2)}</div></div>"
            + b.fat_footer(1, "World Service") + "</div></body></html>")
    return page, title


def qa_site(b: Builder, v: int) -> tuple[str, str]:
    """StackExchange-like: question and answers with code, vote cells, short comments under posts
    (not the body), and a "Hot network questions" sidebar."""
    pr = b.prose
    title = f"How do I {b.rng.choice(['call', 'configure', 'debug', 'speed up', 'test', 'cache'])} {b.rng.choice(['parse_config', 'load_index', 'fetch_batch', 'render_page', 'merge_records'])} with {b.rng.choice(['--timeout', '--workers', '--strict', '--no-cache'])}?"

    def post(kind: str, paras: int) -> str:
        inner = []
        for k in range(paras):
            inner.append(b.p(pr.tech_paragraph(1, 3) if k % 2 == 0 else pr.paragraph("forum", 1, 2), link_p=0.1))
            if k == 0 and b.rng.random() < 0.7:
                inner.append(b.pre(pr.code(b.rng.choice(["python", "js", "shell"]))))
        comments = "".join(f"<li class='comment'><div class='comment-body'><span class='comment-copy'>{esc(pr.sentence('forum'))}</span> – "
                           f"<a class='comment-user' href='#'>{esc(pr.person())}</a> <span class='comment-date'>{b.date()}</span></div></li>"
                           for _ in range(b.rng.randint(0, 3)))
        return (f"<div class='{kind} js-{kind}'><div class='post-layout'><div class='votecell'><div class='js-vote-count'>{b.rng.randint(-2, 300)}</div>"
                f"<button class='js-vote-up-btn' aria-label='Up vote'></button></div><div class='postcell post-layout--right'>"
                f"<div class='s-prose js-post-body' itemprop='text'>{''.join(inner)}</div>"
                f"<div class='post-signature'><div class='user-info'><div class='user-action-time'>answered {b.date()}</div>"
                f"<div class='user-details'><a href='#'>{esc(pr.person())}</a><div class='-flair'><span class='reputation-score'>{b.rng.randint(1, 90)},{b.rng.randint(100, 999)}</span></div></div></div></div>"
                f"</div><div class='comments js-comments-container'><ul class='comments-list'>{comments}</ul><a class='js-add-link' href='#'>Add a comment</a></div></div></div>")

    answers = "".join(post("answer", b.rng.randint(1, 3)) for _ in range([3, 1, 6][v]))
    hot = "".join(f"<li><a href='{b.href()}'>{esc(pr.headline())}?</a></li>" for _ in range(14))
    page = (b.head(f"{title} - Stack Overflow", title, scripts=5) + "<body class='question-page'>"
            + b.site_header("Stack Overflow", 8, "s-topbar") + "<div class='container'><div id='left-sidebar'>" + b.menu(8, 'nav-links', 'nav') + "</div>"
            + f"<div id='content'><div id='question-header'><h1 itemprop='name'><a class='question-hyperlink' href='#'>{esc(title)}</a></h1></div>"
            + f"<div class='question-stats'>Asked {b.date()} · Viewed {b.rng.randint(100, 90000)} times</div><div id='mainbar' role='main'>"
            + post("question", 2 if v != 2 else 3)
            + f"<div id='answers'><div id='answers-header'><h2>{[3, 1, 6][v]} Answers</h2><select><option>Highest score (default)</option></select></div>{answers}</div>"
            + "<h2 class='bottom-notice'>Not the answer you're looking for? Browse other questions tagged or ask your own question.</h2></div>"
            + f"<div id='sidebar'><div class='s-sidebarwidget'><ul><li>The Overflow Blog</li>{b.menu(3, 'blog', 'b')}</ul></div><div id='hot-network-questions'><h4>Hot Network Questions</h4><ul>{hot}</ul></div></div></div></div>"
            + b.fat_footer(2, "Stack Exchange") + "</body></html>")
    return page, title


def magazine_longread(b: Builder, v: int) -> tuple[str, str]:
    """A long feature: many sections (h2/h3), pull quotes that repeat body text (not body), drop
    caps, an "in this series" box inside the article, a footnotes list and heavy comments."""
    pr = b.prose
    title = pr.headline()
    standfirst = pr.sentence()
    b.truth.append(standfirst)
    sections = [8, 12, 6][v]
    out = []
    first = pr.paragraph("news", 3, 4)
    b.truth.append(first)
    out.append(f"<p class='has-dropcap'><span class='dropcap'>{esc(first[0])}</span>{b.inline(first[1:], 0.1)}</p>")
    for s in range(sections):
        out.append(b.h(2 if s % 3 else 3, pr.heading()))
        for k in range(b.rng.randint(2, 4)):
            text = pr.paragraph("news", 2, 5)
            out.append(b.p(text))
            if k == 1 and s % 4 == 1:
                out.append(f"<aside class='pullquote'><blockquote>{esc(text.split('. ')[0])}.</blockquote></aside>")
        if s == 2:
            out.append(f"<div class='series-box'><h4>In this series</h4>{b.menu(5, 'series', 's')}</div>")
        if s == 4 and v != 2:
            out.append(b.quote(pr.paragraph("news", 1, 2), cite=pr.person()))
        if s == 5:
            out.append(b.table(["Year", "Value", "Change"], [[str(2015 + i), str(b.rng.randint(100, 999)), f"{b.rng.randint(-20, 30)}%"] for i in range(6)], cls="data-table"))
    page = (b.head(f"{title} | The Long Read", title, scripts=4) + "<body class='longread'>" + b.site_header("The Long Read", 9)
            + f"<div class='hero'><img src='/hero.jpg' alt=''><div class='hero__text'><span class='kicker'>The long read</span><h1>{esc(title)}</h1>"
            + f"<p class='hero__standfirst'>{esc(standfirst)}</p></div></div>"
            + "<div class='content-wrap'><div class='article-container'>"
            + f"<div class='meta'><a href='#'>{esc(pr.person())}</a><time>{b.date()}</time>{b.share()}</div>"
            + f"<div class='article-body-commercial-selector article-body-viewer-selector'>{''.join(out)}</div>"
            + "<ol class='footnotes'>" + "".join(f"<li>{esc(pr.person())}, {esc(pr.headline())} ({b.rng.randint(1990, 2023)}).</li>" for _ in range(6)) + "</ol>"
            + b.author_bio() + "</div>" + b.comments([12, 30, 4][v], 1) + "</div>"
            + b.related_grid(6, excerpt=True, title="Most viewed") + b.fat_footer(0, "The Long Read") + "</body></html>")
    return page, title


# ------------------------------------------------------------------------------------------------
# held-out families
# ------------------------------------------------------------------------------------------------


def news_divsoup(b: Builder, v: int) -> tuple[str, str]:
    """React/CSS-in-JS news: obfuscated class names, paragraphs as <div>s in some variants, lead
    paragraph in the header, a related-stories carousel and "Advertisement" between blocks."""
    pr = b.prose
    title = pr.headline()

    def cls() -> str:
        return f"css-{b.rng.randint(10**5, 10**6):x} e{b.rng.randint(10**5, 10**6):x}{b.rng.randint(0, 9)}"

    lead = pr.paragraph("news", 1, 2)
    b.truth.append(lead)
    parts = []
    for i in range([10, 7, 5][v]):
        text = pr.paragraph("news", 2, 4)
        if v == 1:
            b.truth.append(text)
            parts.append(f"<div class='{cls()}' data-testid='paragraph'>{b.inline(text)}</div>")
        else:
            parts.append(b.p(text, cls=cls()))
        if i == 2:
            parts.append(f"<div class='{cls()}' data-testid='related-carousel'><h3>Related</h3>"
                         + "".join(f"<a class='{cls()}' href='{b.href()}'><div>{esc(pr.headline())}</div><div>{esc(pr.sentence())}</div></a>" for _ in range(4)) + "</div>")
        if i in (1, 5):
            parts.append(f"<div class='{cls()}'><p class='{cls()}'>Advertisement</p><div class='{cls()}'></div></div>")
        if v == 0 and i == 6:
            parts.append(b.h(2, pr.heading(), cls=cls()))
    trending = "".join(f"<li class='{cls()}'><a href='{b.href()}'><p class='{cls()}'>{esc(pr.headline())}</p><p class='{cls()}'>{esc(pr.paragraph('news', 1, 2))}</p></a></li>" for _ in range(7))
    page = (b.head(f"{title} - Metro Courier", lead[:120], extra_css=120, scripts=10) + "<body><div id='root'><div class='" + cls() + "'>"
            + f"<header class='{cls()}'><nav class='{cls()}'>{b.menu(18)}</nav><button class='{cls()}'>Log in</button></header>"
            + (b.cookie_banner(2) if v != 1 else "")
            + f"<main class='{cls()}'><div class='{cls()}'><div class='{cls()}'><h1 class='{cls()}' data-testid='headline'>{esc(title)}</h1>"
            + f"<p class='{cls()}' data-testid='summary'>{b.inline(lead, 0.0)}</p>"
            + f"<div class='{cls()}'><span>By {esc(pr.person())}</span><span>{b.date()}</span></div></div>"
            + f"<figure class='{cls()}'><img src='/x.jpg' alt=''><figcaption>{esc(pr.sentence()[:70])}</figcaption></figure>"
            + f"<section name='articleBody' class='{cls()}'><div class='{cls()}'>{''.join(parts)}</div></section>"
            + f"<div class='{cls()}'>{b.share()}</div></div>"
            + f"<aside class='{cls()}'><h2>Trending</h2><ol>{trending}</ol></aside>"
            + (b.comments(15, 2) if v == 2 else "")
            + f"</main><footer class='{cls()}'>{b.menu(20)}<p>© Metro Courier Media. {esc(pr.paragraph('news', 2, 2))}</p></footer></div></div></body></html>")
    return page, title


def medium_blog(b: Builder, v: int) -> tuple[str, str]:
    """Medium-like: article > div > section > div > div nesting, pw-post-body-paragraph, claps,
    "More from the author" with excerpts, responses."""
    pr = b.prose
    title = pr.headline()
    sub = pr.sentence("blog")
    body = []
    for i in range([8, 5, 12][v]):
        body.append(b.p(pr.paragraph("blog", 2, 5), cls="pw-post-body-paragraph lm ln gv lo b lp lq"))
        if i == 2:
            body.append(b.h(2, pr.heading(), cls="mt mu gv be mv mw"))
        if i == 4 and v != 1:
            body.append(b.pre(pr.code("js")))
        if i == 6:
            body.append(b.ul(pr.list_items(3, "blog"), cls="ny nz"))
    more = "".join(f"<div class='ab'><a href='{b.href()}'><h2>{esc(pr.headline())}</h2><h3>{esc(pr.paragraph('blog', 1, 2))}</h3></a><span>{b.rng.randint(2, 15)} min read</span></div>" for _ in range(4))
    page = (b.head(f"{title} | by {pr.person()} | Medium", sub, scripts=7) + "<body><div id='root'><div class='a b c'>"
            + f"<div class='l'><nav class='n'>{b.menu(4)}<a href='#'>Write</a><a href='#'>Sign up</a></nav></div>"
            + "<article><div class='l'><div class='ab ca'><section><div class='gn go gp gq gr'><div class='ab ca'><div class='ch bg fz ga gb gc'>"
            + f"<div><h1 class='pw-post-title'>{esc(title)}</h1></div><div><h2 class='pw-subtitle-paragraph'>{esc(sub)}</h2></div>"
            + f"<div class='speechify-ignore'><a href='#'>{esc(pr.person())}</a> · <span>Follow</span> · <span>{b.rng.randint(3, 14)} min read</span> · <span>{b.date()}</span>"
            + f"<div class='pw-multi-vote-count'>{b.rng.randint(10, 9000)}</div><button>Listen</button><button>Share</button></div>"
            + "".join(body) + "</div></div></div></section></div></div></article>"
            + f"<div class='tags'>{b.tags(5)}</div><div class='pw-responses'><h2>Responses ({[4, 0, 9][v]})</h2>{b.comments([4, 0, 9][v], 2) if v != 1 else ''}</div>"
            + f"<div class='more-from'><h2>More from {esc(pr.person())}</h2>{more}</div>"
            + f"<div class='recommended'><h2>Recommended from Medium</h2>{b.related_grid(6, excerpt=True, title='Lists')}</div>"
            + f"<footer>{b.menu(8)}</footer></div></div></body></html>")
    b.truth.insert(0, sub)
    return page, title


def wiki(b: Builder, v: int) -> tuple[str, str]:
    """Wikipedia-like: infobox, hatnote, TOC, sections with [edit] links, reference list, navbox,
    categories, and a tools sidebar."""
    pr = b.prose
    title = pr.short(2, 4).title()
    content = [f"<div class='hatnote'>For other uses, see <a href='#'>{esc(title)} (disambiguation)</a>.</div>"]
    rows = "".join(f"<tr><th scope='row'>{esc(pr.short(1, 2))}</th><td>{esc(pr.short(1, 5))}</td></tr>" for _ in range(10))
    content.append(f"<table class='infobox vcard'><caption>{esc(title)}</caption><tbody>{rows}</tbody></table>")
    lead = [pr.paragraph("news", 3, 5) for _ in range([2, 1, 3][v])]
    for t in lead:
        content.append(b.p(t, link_p=0.5))
    toc = "<div id='toc' class='toc'><div class='toctitle'><h2>Contents</h2></div><ul>" + "".join(
        f"<li class='toclevel-1'><a href='#'><span class='tocnumber'>{i + 1}</span> <span class='toctext'>{esc(pr.heading())}</span></a></li>" for i in range(6)) + "</ul></div>"
    content.append(toc)
    for s in range([6, 3, 8][v]):
        head = pr.heading()
        b.truth.append(head)
        content.append(f"<div class='mw-heading mw-heading2'><h2 id='{b.slug(head)}'>{esc(head)}</h2><span class='mw-editsection'><span>[</span><a href='#'>edit</a><span>]</span></span></div>")
        for _ in range(b.rng.randint(1, 3)):
            text = pr.paragraph("news", 2, 5)
            marks = []
            for _ in range(b.rng.randint(0, 2)):
                target, shown = b.rng.randint(1, 60), b.rng.randint(1, 60)
                marks.append((target, shown))
            refs = "".join(f"<sup class='reference'><a href='#cite-{t}'>[{n}]</a></sup>" for t, n in marks)
            b.truth.append(text + "".join(f"[{n}]" for _, n in marks))  # inline markers are the paragraph's
            content.append(f"<p>{b.inline(text, 0.5)}{refs}</p>")
        if s == 1:
            content.append(b.ul(pr.list_items(4)))
        if s == 2 and v != 1:
            content.append(b.table(["Year", pr.short(1, 2).title(), "Notes"], [[str(1990 + 3 * i), str(b.rng.randint(10, 900)), pr.short(2, 4)] for i in range(5)], cls="wikitable"))
    refs = "".join(f"<li id='cite-{i}'><span class='reference-text'>{esc(pr.person())} ({b.rng.randint(1990, 2023)}). “{esc(pr.headline())}”. <i>{esc(pr.pick('org'))}</i>. Retrieved {b.date()}.</span></li>" for i in range(25))
    content.append(f"<div class='mw-heading mw-heading2'><h2 id='References'>References</h2></div><div class='reflist'><ol class='references'>{refs}</ol></div>")
    navbox = "<div class='navbox'><table class='nowraplinks'><tr><th class='navbox-title'>" + esc(pr.short(2, 3).title()) + "</th></tr>" + "".join(
        f"<tr><th class='navbox-group'>{esc(pr.short(1, 2))}</th><td class='navbox-list'>" + " · ".join(f"<a href='#'>{esc(pr.short(1, 3))}</a>" for _ in range(9)) + "</td></tr>" for _ in range(5)) + "</table></div>"
    content.append(navbox)
    page = (b.head(f"{title} - Wikipedia", title, scripts=3) + "<body class='mediawiki skin-vector'><div class='vector-header-container'><header class='vector-header'>"
            + f"<a class='mw-logo' href='/'>Wikipedia</a><div id='p-search'><form><input name='search'></form></div></header></div>"
            + f"<div class='mw-page-container'><div class='vector-main-menu'><div class='vector-menu'>{b.menu(12)}</div><div class='vector-menu'>{b.menu(8)}</div></div>"
            + f"<main id='content' class='mw-body'><h1 id='firstHeading' class='firstHeading'><span class='mw-page-title-main'>{esc(title)}</span></h1>"
            + "<div id='bodyContent' class='vector-body'><div id='siteSub'>From Wikipedia, the free encyclopedia</div>"
            + f"<div id='mw-content-text' class='mw-body-content'><div class='mw-content-ltr mw-parser-output'>{''.join(content)}</div></div>"
            + f"<div id='catlinks' class='catlinks'>Categories: " + " | ".join(f"<a href='#'>{esc(pr.short(2, 4))}</a>" for _ in range(6)) + "</div></div></main>"
            + f"<div class='vector-column-end'><nav class='vector-page-tools'><h2>Tools</h2>{b.menu(10)}</nav></div></div>"
            + "<footer id='footer' class='mw-footer'><ul><li>This page was last edited on " + b.date() + ".</li><li>Text is available under the Creative Commons Attribution-ShareAlike License 4.0; additional terms may apply. By using this site, you agree to the Terms of Use and Privacy Policy.</li></ul></footer></body></html>")
    return page, title


def docs_mdn(b: Builder, v: int) -> tuple[str, str]:
    """MDN-like reference page: left sidebar tree, right "In this article" TOC, syntax block,
    parameter dl, examples, browser-compatibility table, "See also"."""
    pr = b.prose
    name = b.rng.choice(["fetchBatch", "renderPage", "openSession", "mergeRecords", "streamRows", "watchFiles"])
    title = f"Toolkit: {name}() method"
    c = [b.p(pr.tech_paragraph(1, 3), link_p=0.1)]
    c.append(b.h(2, "Syntax"))
    c.append(b.pre(f"{name}(options)\n{name}(options, signal)", "js", style="mdn"))
    c.append(b.h(3, "Parameters"))
    params = []
    for p in ("options", "signal", "limit", "timeout")[: [4, 2, 3][v]]:
        d = pr.tech_sentence()
        b.truth.extend([f"{p} Optional", d])  # the badge is part of the term's line
        params.append(f"<dt id='{p}'><code>{p}</code> <span class='badge inline optional'>Optional</span></dt><dd><p>{esc(d)}</p></dd>")
    c.append(f"<dl>{''.join(params)}</dl>")
    c.append(b.h(3, "Return value"))
    c.append(b.p(pr.tech_sentence()))
    c.append(b.h(2, "Examples"))
    for _ in range([2, 1, 3][v]):
        c.append(b.h(3, pr.heading()))
        c.append(b.p(pr.tech_paragraph(1, 3)))
        c.append(b.pre(pr.code("js"), "js", style="mdn"))
    c.append(b.h(2, "Specifications"))
    c.append(b.table(["Specification"], [[f"Toolkit Standard § {name}"]], cls="standard-table"))
    compat = [[n, str(b.rng.randint(40, 120)), str(b.rng.randint(40, 120)), b.rng.choice(['No', 'Yes', '16.4'])] for n in (name, "options", "signal")]
    c.append(b.h(2, "Browser compatibility"))
    c.append(f"<div class='bc-table-wrapper'>{b.table(['Feature', 'Chrome', 'Firefox', 'Safari'], compat, cls='bc-table')}"
             f"<p class='bc-legend'>Full support · No support · See implementation notes.</p></div>")
    side = "<nav class='sidebar'><ol>" + "".join(f"<li><details><summary>{esc(pr.short(1, 3).title())}</summary>{b.menu(b.rng.randint(4, 12), 'sub', 's')}</details></li>" for _ in range(10)) + "</ol></nav>"
    toc = "<aside class='toc'><nav><h2>In this article</h2><ul>" + "".join(f"<li><a href='#'>{x}</a></li>" for x in ("Syntax", "Examples", "Specifications", "Browser compatibility", "See also")) + "</ul></nav></aside>"
    page = (b.head(f"{title} - Web APIs | MDN", title, scripts=4) + "<body><div class='page-wrapper'>"
            + f"<div class='top-navigation'><a class='logo' href='/'>MDN</a>{b.menu(6)}</div>"
            + f"<div class='article-actions-container'><nav class='breadcrumbs-container'><ol><li><a href='#'>References</a></li><li><a href='#'>Toolkit</a></li><li>{name}()</li></ol></nav></div>"
            + f"<div class='main-wrapper'><div class='sidebar-container'>{side}</div><div class='toc-container'>{toc}</div>"
            + f"<main id='content' class='main-content'><article class='main-page-content' lang='en-US'><header><h1>{esc(title)}</h1></header>"
            + f"<div class='section-content'>{''.join(c)}</div>"
            + f"<aside class='metadata'><div class='metadata-content-container'><div id='on-github' class='on-github'><h3>Found a content problem with this page?</h3><ul><li><a href='#'>Edit the page on GitHub</a>.</li><li><a href='#'>Report the content issue</a>.</li><li><a href='#'>View the source on GitHub</a>.</li></ul>Want to get more involved? Learn how to contribute.</div>"
            + f"<p class='last-modified-date'>This page was last modified on {b.date()} by MDN contributors.</p></div></aside></article></main></div>"
            + f"<footer id='nav-footer' class='page-footer'><p>Your blueprint for a better internet.</p>{b.menu(12)}<p>Portions of this content are ©1998–{b.rng.randint(2020, 2024)} by individual contributors. Content available under a Creative Commons license.</p></footer></div></body></html>")
    return page, title


def forum_table(b: Builder, v: int) -> tuple[str, str]:
    """phpBB/vBulletin: posts as table rows, a user-info column (rank, join date, post count),
    signatures under posts, pagination and a "who is online" block."""
    pr = b.prose
    title = pr.headline()
    rows = []
    for i in range([6, 3, 12][v]):
        who = pr.person().replace(" ", "")
        content = []
        if i and b.rng.random() < 0.25:
            content.append(f"<div class='quotetitle'>{esc(who)} wrote:</div><div class='quotecontent'>{esc(pr.sentence('forum'))}</div>")
        k = b.rng.randint(1, 3)
        texts = [pr.paragraph("forum", 1, 3) for _ in range(k)]
        b.truth.extend(texts)
        content.append("<br><br>".join(b.inline(t, 0.05) for t in texts))
        sig = f"<div class='signature'>{esc(pr.sentence('comment'))}<br>{esc(pr.person())} — {esc(pr.pick('place'))}</div>"
        rows.append(
            f"<table class='tablebg' width='100%' cellspacing='1'><tr class='row{i % 2 + 1}'><td valign='top' class='profile'><b class='postauthor'>{esc(who)}</b>"
            f"<br><span class='postdetails'>{b.rng.choice(['Member', 'Senior Member', 'Moderator'])}<br>Joined: {b.date()}<br>Posts: {b.rng.randint(1, 9000)}<br>Location: {esc(pr.pick('place'))}</span></td>"
            f"<td width='100%' valign='top'><div class='postsubject'>Re: {esc(title[:40])}</div><div class='postbody'>{''.join(content)}</div>"
            f"<br clear='all'>{sig}</td></tr><tr><td class='gensmall'>{b.date()}</td><td class='gensmall'><a href='#'>Quote</a> <a href='#'>Report</a> <a href='#'>Top</a></td></tr></table>")
    page = (b.head(f"{title} - Hobby Forums", title, extra_css=10, scripts=1) + "<body><div id='wrapheader'><a href='/'><img src='/logo.gif' alt='Hobby Forums'></a>"
            + f"<table width='100%'><tr><td>{b.menu(7)}</td></tr></table></div><div id='wrapcentre'>"
            + f"<div class='nav'><a href='#'>Board index</a> » <a href='#'>{esc(pr.short(1, 3))}</a></div>"
            + f"<h2><a class='titles' href='#'>{esc(title)}</a></h2><div class='pagination'>Page <b>1</b> of {b.rng.randint(1, 9)} [ {b.rng.randint(5, 90)} posts ] <a href='#'>2</a> <a href='#'>3</a> <a href='#'>Next</a></div>"
            + "".join(rows)
            + f"<div class='pagination'>Page <b>1</b> of 3 <a href='#'>Next</a></div>"
            + f"<table class='tablebg'><tr><td class='cat'><h4>Who is online</h4></td></tr><tr><td class='row1'><p class='gensmall'>Users browsing this forum: {', '.join(pr.person() for _ in range(6))} and {b.rng.randint(10, 90)} guests</p></td></tr></table>"
            + f"<table class='tablebg'><tr><td><p class='gensmall'>You cannot post new topics in this forum. You cannot reply to topics in this forum. You cannot edit your posts in this forum. You cannot delete your posts in this forum.</p></td></tr></table></div>"
            + "<div id='wrapfooter'><span class='copyright'>Powered by phpBB © 2000, 2002, 2005, 2007 phpBB Group</span></div></body></html>")
    return page, title


def recipe_blog(b: Builder, v: int) -> tuple[str, str]:
    """Food blog: long personal story, "jump to recipe" button, ads between paragraphs, a recipe
    card (ingredients ul, instructions ol, nutrition table), rated comments, a sidebar."""
    pr = Prose(b.rng, "food")
    b.prose = pr
    title = f"{pr.short(2, 3).title()} {b.rng.choice(['Stew', 'Sourdough Loaf', 'Tart', 'Salad', 'Soup', 'Curry'])}"
    story = []
    for i in range([6, 3, 9][v]):
        story.append(b.p(pr.paragraph("blog", 2, 5)))
        if i % 2 == 1:
            story.append(b.ad())
        if i == 2:
            story.append(b.h(2, pr.heading()))
    ingredients = [f"{b.rng.randint(1, 500)} {b.rng.choice(['g', 'ml', 'tbsp', 'tsp', 'cups'])} {pr.pick('obj').replace('the ', '')}" for _ in range(b.rng.randint(6, 11))]
    steps = [pr.sentence("blog") for _ in range(b.rng.randint(4, 7))]
    b.truth.append("Ingredients")
    b.truth.extend(ingredients)
    b.truth.append("Instructions")
    b.truth.extend(steps)
    card = (f"<div class='wprm-recipe-container' id='recipe'><div class='wprm-recipe'><h2 class='wprm-recipe-name'>{esc(title)}</h2>"
            f"<div class='wprm-recipe-rating'>★★★★★ {b.rng.randint(3, 5)}.{b.rng.randint(0, 9)} from {b.rng.randint(5, 400)} votes</div>"
            f"<div class='wprm-recipe-times'>Prep {b.rng.randint(5, 40)} mins · Cook {b.rng.randint(10, 120)} mins · Servings {b.rng.randint(2, 8)}</div>"
            f"<a class='wprm-recipe-print' href='#'>Print Recipe</a><a class='wprm-recipe-pin' href='#'>Pin Recipe</a>"
            f"<div class='wprm-recipe-ingredients-container'><h3 class='wprm-recipe-header'>Ingredients</h3><ul class='wprm-recipe-ingredients'>"
            + "".join(f"<li class='wprm-recipe-ingredient'>{esc(x)}</li>" for x in ingredients) + "</ul></div>"
            f"<div class='wprm-recipe-instructions-container'><h3 class='wprm-recipe-header'>Instructions</h3><ol class='wprm-recipe-instructions'>"
            + "".join(f"<li class='wprm-recipe-instruction'><div class='wprm-recipe-instruction-text'>{esc(x)}</div></li>" for x in steps) + "</ol></div>"
            f"<div class='wprm-nutrition-label-container'><span>Calories: {b.rng.randint(100, 900)}kcal</span> <span>Protein: {b.rng.randint(2, 40)}g</span></div></div></div>")
    page = (b.head(f"{title} - Kitchen Diaries", title, scripts=9) + "<body class='single-post'>" + b.site_header("Kitchen Diaries", 9)
            + "<div class='site-inner'><div class='content-sidebar-wrap'><main class='content'><article class='post entry'>"
            + f"<header class='entry-header'><h1 class='entry-title'>{esc(title)}</h1><p class='entry-meta'>By {esc(pr.person())} · {b.date()} · <a href='#comments'>{b.rng.randint(3, 90)} Comments</a></p></header>"
            + f"<div class='entry-content'><a class='wprm-jump-to-recipe' href='#recipe'>Jump to Recipe</a><p class='disclosure'><em>This post may contain affiliate links.</em></p>"
            + "".join(story) + card + "</div></article>"
            + b.comments([14, 25, 6][v], 0) + "</main>"
            + f"<aside class='sidebar'><section class='widget'><h3>Hi, I'm {esc(pr.person().split()[0])}!</h3><p>{esc(pr.paragraph('blog', 3, 4))}</p></section>{b.related_grid(5, excerpt=False, title='Popular recipes')}</aside></div></div>"
            + b.fat_footer(1, "Kitchen Diaries") + "</body></html>")
    return page, title


def faq_gov(b: Builder, v: int) -> tuple[str, str]:
    """A government service page: side navigation, accordion of questions (button + panel),
    "Was this page useful?" survey, a heavy footer with licence text."""
    pr = b.prose
    title = f"{pr.short(2, 4).title()}: questions and answers"
    intro = pr.paragraph("news", 2, 3)
    b.truth.append(intro)
    acc = []
    for i in range([8, 5, 12][v]):
        q = pr.fill(b.rng.choice(["Who is eligible for {O}?", "When will {S} review {O}?", "How do I apply for {O}?",
                                  "What happens to {O} if I move to {PL}?", "Can I appeal a decision about {O}?",
                                  "Why did {S} change {O}?"]))
        answers = [pr.paragraph("news", 1, 3) for _ in range(b.rng.randint(1, 2))]
        b.truth.append(q)
        b.truth.extend(answers)
        acc.append(f"<div class='govuk-accordion__section'><div class='govuk-accordion__section-header'><h2 class='govuk-accordion__section-heading'>"
                   f"<button type='button' class='govuk-accordion__section-button' aria-expanded='false'>{esc(q)}</button></h2></div>"
                   f"<div class='govuk-accordion__section-content' hidden='until-found'>" + "".join(f"<p class='govuk-body'>{b.inline(a, 0.1)}</p>" for a in answers) + "</div></div>")
    side = f"<nav class='side-nav' aria-label='Section'><h2>In this section</h2>{b.menu(12, 'side', 's', nested=4)}</nav>"
    page = (b.head(f"{title} - GOV.EXAMPLE", intro[:140], scripts=2) + "<body class='govuk-template__body'>" + b.cookie_banner(0)
            + "<a href='#main-content' class='govuk-skip-link'>Skip to main content</a><header class='govuk-header'><a href='/'>GOV.EXAMPLE</a>"
            + f"{b.menu(8)}</header><div class='govuk-phase-banner'><strong>BETA</strong> This is a new service – your feedback will help us to improve it.</div>"
            + f"<div class='govuk-width-container'><div class='govuk-breadcrumbs'>{b.menu(3, 'govuk-breadcrumbs__list', 'b')}</div>"
            + f"<main class='govuk-main-wrapper' id='main-content'><div class='govuk-grid-row'><div class='govuk-grid-column-one-third'>{side}</div>"
            + f"<div class='govuk-grid-column-two-thirds'><h1 class='govuk-heading-xl'>{esc(title)}</h1><p class='govuk-body-l'>{b.inline(intro, 0.05)}</p>"
            + f"<div class='govuk-accordion' data-module='govuk-accordion'>{''.join(acc)}</div>"
            + f"<div class='gem-c-print-link'><button>Print this page</button></div></div></div>"
            + "<div class='gem-c-feedback'><h2>Is this page useful?</h2><button>Yes</button><button>No</button><a href='#'>Report a problem with this page</a></div></main></div>"
            + f"<footer class='govuk-footer'><div class='govuk-footer__navigation'>{b.menu(16)}{b.menu(12)}</div>"
            + f"<p>{esc(pr.paragraph('news', 3, 4))}</p><p>All content is available under the Open Government Licence v3.0, except where otherwise stated. © Crown copyright</p></footer></body></html>")
    return page, title


def changelog(b: Builder, v: int) -> tuple[str, str]:
    """Release notes: version headings followed by bullet lists (Added / Fixed / Changed), almost
    no paragraphs, beside a long navigation tree."""
    pr = b.prose
    title = f"Changelog — toolkit"
    out = [b.p(pr.tech_paragraph(1, 2), link_p=0.05)]
    major = b.rng.randint(2, 6)
    for r in range([5, 3, 8][v]):
        ver = f"{major}.{9 - r}.{b.rng.randint(0, 4)}"
        out.append(b.h(2, f"Version {ver}", anchor=True))
        released = f"Released {b.date()}"
        b.truth.append(released)  # in the text flow of a changelog, not page metadata
        out.append(f"<p class='release-date'><em>{released}</em></p>")
        for group in b.rng.sample(["Added", "Fixed", "Changed", "Deprecated", "Removed", "Security"], b.rng.randint(1, 3)):
            out.append(b.h(3, group))
            out.append(b.ul([pr.tech_sentence() for _ in range(b.rng.randint(2, 6))]))
    tree = "".join(f"<li><a href='{b.href()}'>{esc(pr.short(1, 3).title())}</a>{b.menu(b.rng.randint(0, 6), 'nav-sub', 'ns')}</li>" for _ in range(16))
    page = (b.head(title, "Release notes", scripts=2) + "<body><div class='md-container'>"
            + f"<header class='md-header'><a href='/'>toolkit</a><input placeholder='Search'></header>"
            + f"<div class='md-main'><div class='md-main__inner md-grid'><div class='md-sidebar md-sidebar--primary'><nav class='md-nav md-nav--primary'><ul class='md-nav__list'>{tree}</ul></nav></div>"
            + f"<div class='md-content' data-md-component='content'><article class='md-content__inner md-typeset'><h1>{esc(title)}</h1>{''.join(out)}</article></div></div></div>"
            + "<footer class='md-footer'><div class='md-footer-meta'><div class='md-copyright'>Copyright © the toolkit authors. Made with Material for MkDocs.</div></div></footer></div></body></html>")
    return page, title


# ------------------------------------------------------------------------------------------------
# held-out-2 families: written after the first held-out run, before any change it prompted;
# never run through an extractor until the final evaluation
# ------------------------------------------------------------------------------------------------


def news_amp(b: Builder, v: int) -> tuple[str, str]:
    """An AMP news page: amp-img/amp-ad custom elements, a sticky header, the article in
    div.amp-wp-article-content, "Related" links and a "View comments" link at the end."""
    pr = b.prose
    title = pr.headline()
    body = []
    for i in range([8, 4, 11][v]):
        body.append(b.p(pr.paragraph("news", 2, 4)))
        if i == 1:
            body.append(f"<amp-img src='/a.jpg' width='640' height='360' layout='responsive'></amp-img>")
        if i in (2, 6):
            body.append(f"<amp-ad width='300' height='250' type='doubleclick' data-slot='/1/amp'></amp-ad>")
        if i == 3 and v != 1:
            body.append(b.h(2, pr.heading()))
        if i == 5:
            body.append(b.quote(pr.sentence(), cite=pr.person()))
    related = "".join(f"<li><a href='{b.href()}'>{esc(pr.headline())}</a></li>" for _ in range(5))
    page = (b.head(f"{title} | Coastline Gazette", title, extra_css=80, scripts=2)
            + "<body><header id='top' class='amp-wp-header'><div><a href='/'>Coastline Gazette</a></div></header>"
            + f"<amp-sidebar id='sidebar' layout='nodisplay' side='left'>{b.menu(14)}</amp-sidebar>"
            + "<article class='amp-wp-article'><header class='amp-wp-article-header'>"
            + f"<h1 class='amp-wp-title'>{esc(title)}</h1><div class='amp-wp-meta amp-wp-byline'><span class='amp-wp-author'>{esc(pr.person())}</span></div>"
            + f"<div class='amp-wp-meta amp-wp-posted-on'><time>{b.date()}</time></div></header>"
            + f"<div class='amp-wp-article-content'>{''.join(body)}</div>"
            + f"<footer class='amp-wp-article-footer'><div class='amp-wp-meta amp-wp-tax-category'>Categories: <a href='#'>{esc(pr.short(1, 2))}</a></div>"
            + f"<div class='amp-wp-comments-link'><a href='#'>View comments</a></div></footer></article>"
            + f"<section class='amp-related'><h3>Related</h3><ul>{related}</ul></section>"
            + f"<footer class='amp-wp-footer'><div><p>© {b.rng.randint(2018, 2024)} Coastline Gazette</p><a href='#top' class='back-to-top'>Back to top</a></div></footer></body></html>")
    return page, title


def newsletter_post(b: Builder, v: int) -> tuple[str, str]:
    """A newsletter post (Substack-like): subtitle, subscribe widgets inside the post, footnote
    anchors and footnotes, a "Discussion" section with comments, a "Ready for more?" footer."""
    pr = b.prose
    title = pr.headline()
    sub = pr.sentence("blog")
    b.truth.append(sub)
    body = []
    notes = []
    for i in range([9, 6, 12][v]):
        text = pr.paragraph("blog", 2, 5)
        if i % 3 == 1:
            n = len(notes) + 1
            b.truth.append(text + str(n))
            body.append(f"<p>{b.inline(text)}<a class='footnote-anchor' id='footnote-anchor-{n}' href='#footnote-{n}'>{n}</a></p>")
            notes.append(pr.sentence("blog"))
        else:
            body.append(b.p(text))
        if i == 2:
            body.append("<div class='subscription-widget-wrap'><div class='subscription-widget'><p class='cta-caption'>Thanks for reading! Subscribe for free to receive new posts and support my work.</p>"
                        "<form class='subscription-widget-subscribe'><input type='email' placeholder='Type your email…'><input type='submit' value='Subscribe'></form></div></div>")
        if i == 4:
            body.append(b.h(2, pr.heading(), cls="header-anchor-post"))
        if i == 7:
            body.append(b.ul(pr.list_items(3, "blog")))
    foot = "".join(f"<div class='footnote'><a class='footnote-number' href='#footnote-anchor-{k + 1}'>{k + 1}</a><div class='footnote-content'><p>{esc(t)}</p></div></div>" for k, t in enumerate(notes))
    comments = "".join(f"<div class='comment'><div class='comment-meta'><a href='#'>{esc(pr.person())}</a> <span>{b.date()}</span></div><div class='comment-body'><p>{esc(pr.paragraph('comment', 1, 3))}</p></div><div class='comment-actions'><button>Like ({b.rng.randint(0, 40)})</button><button>Reply</button></div></div>" for _ in range([6, 2, 10][v]))
    page = (b.head(f"{title} - by {pr.person()}", sub, scripts=6) + "<body><div id='entry'><div class='main-menu'><a href='/'>The Weekly Margin</a>" + b.menu(4) + "<button>Subscribe</button><a href='/signin'>Sign in</a></div>"
            + "<div class='single-post-container'><div class='container'><div class='single-post'><div class='post'>"
            + f"<div class='post-header'><h1 class='post-title'>{esc(title)}</h1><h3 class='subtitle'>{esc(sub)}</h3>"
            + f"<div class='post-meta'><a href='#'>{esc(pr.person())}</a><div class='post-date'>{b.date()}</div></div>"
            + f"<div class='post-ufi'><a href='#'>{b.rng.randint(5, 400)}</a><a href='#'>Share</a></div></div>"
            + f"<div class='available-content'><div dir='auto' class='body markup'>{''.join(body)}<div class='footnotes'>{foot}</div></div></div>"
            + "<div class='subscribe-footer'><p>Ready for more?</p><form><input type='email'><input type='submit' value='Subscribe'></form></div>"
            + f"</div></div></div><div id='discussion' class='container'><h4>Discussion about this post</h4><div class='comments-page'>{comments}</div></div></div>"
            + "<div class='footer-wrap'><div class='footer'>© 2024 The Weekly Margin · Privacy · Terms · Collection notice</div><div class='footer-substack'>Start Writing · Get the app · Substack is the home for great culture</div></div></div></body></html>")
    return page, title


def repo_readme(b: Builder, v: int) -> tuple[str, str]:
    """A code-hosting repository page: file list table, README in article.markdown-body
    (headings, code, tables, lists), an "About" sidebar, releases, contributors, footer."""
    pr = b.prose
    repo = b.rng.choice(["toolkit", "fastq", "gridwatch", "tidewire", "pathkit", "logbook"])
    title = f"GitHub - example/{repo}: {pr.tech_sentence().rstrip('.')}"
    files = "".join(f"<tr class='react-directory-row'><td><a href='#'>{n}</a></td><td><a href='#' class='Link--secondary'>{esc(pr.tech_sentence()[:50])}</a></td><td><relative-time>{b.rng.randint(2, 30)} days ago</relative-time></td></tr>"
                    for n in ("src", "tests", "docs", ".github", "README.md", "LICENSE", "pyproject.toml")[: [7, 5, 6][v]])
    md = [b.h(1, repo, cls="heading-element"), b.p(pr.tech_paragraph(1, 2))]
    md.append(b.h(2, "Installation", cls="heading-element"))
    md.append(b.pre(f"pip install {repo}", "shell"))
    md.append(b.h(2, "Usage", cls="heading-element"))
    md.append(b.p(pr.tech_paragraph(1, 3)))
    md.append(b.pre(pr.code("python")))
    if v != 1:
        md.append(b.h(2, "Options", cls="heading-element"))
        rows = [[o, b.rng.choice(["int", "str", "bool"]), pr.tech_sentence()] for o in b.rng.sample(["--timeout", "--workers", "--format", "--since", "--jobs", "--quiet"], 4)]
        md.append(b.table(["Option", "Type", "Description"], rows))
    md.append(b.h(2, "Contributing", cls="heading-element"))
    md.append(b.ul([pr.tech_sentence() for _ in range(3)]))
    md.append(b.p(pr.tech_sentence()))
    about = (f"<div class='BorderGrid-cell'><h2 class='mb-3 h4'>About</h2><p class='f4 my-3'>{esc(pr.tech_sentence())}</p>"
             f"<div class='topics'>{b.tags(5)}</div><a href='#'>Readme</a> <a href='#'>MIT license</a> <a href='#'>Activity</a>"
             f"<span>{b.rng.randint(10, 9000)} stars</span> <span>{b.rng.randint(2, 300)} watching</span> <span>{b.rng.randint(1, 900)} forks</span></div>")
    page = (b.head(title, title, scripts=8) + "<body class='logged-out env-production page-responsive'>"
            + f"<div class='position-relative js-header-wrapper'><header class='HeaderMktg'>{b.menu(10)}<a href='/login'>Sign in</a></header></div>"
            + "<div class='application-main'><main id='js-repo-pjax-container'><div id='repository-container-header'>"
            + f"<strong itemprop='name'><a href='#'>{repo}</a></strong> <span class='Label'>Public</span>{b.menu(6, 'UnderlineNav-body', 'nav-item')}</div>"
            + "<div class='Layout Layout--sidebarPosition-end'><div class='Layout-main'>"
            + f"<div class='Box'><table aria-labelledby='folders-and-files'><tbody>{files}</tbody></table></div>"
            + f"<div id='readme' class='Box'><div class='Box-header'><h2 class='Box-title'>README.md</h2></div>"
            + f"<article class='markdown-body entry-content container-lg' itemprop='text'>{''.join(md)}</article></div></div>"
            + f"<div class='Layout-sidebar'><div class='BorderGrid'>{about}<div class='BorderGrid-cell'><h2 class='h4'>Releases {b.rng.randint(1, 40)}</h2><a href='#'>v{b.rng.randint(1, 5)}.{b.rng.randint(0, 9)}.0 Latest</a></div>"
            + f"<div class='BorderGrid-cell'><h2 class='h4'>Contributors</h2>{b.menu(5)}</div><div class='BorderGrid-cell'><h2 class='h4'>Languages</h2><span>Python 97.1%</span><span>Shell 2.9%</span></div></div></div>"
            + "</div></main></div><footer class='footer'><h2 class='sr-only'>Footer</h2>© 2024 GitHub, Inc. <a href='#'>Terms</a> <a href='#'>Privacy</a> <a href='#'>Security</a> <a href='#'>Status</a> <a href='#'>Docs</a> <a href='#'>Contact</a></footer></body></html>")
    # the h1 of a README is its project name, not the page title: it is body text here
    return page, title


def hn_thread(b: Builder, v: int) -> tuple[str, str]:
    """A link-aggregator thread laid out with tables (Hacker News style): the story's own text,
    then nested comments as table rows indented by spacer images; user names, ages, reply links."""
    pr = b.prose
    title = pr.headline()
    story = pr.paragraph("forum", 2, 3)
    b.truth.append(story)
    rows = []
    for i in range([10, 5, 16][v]):
        indent = 0 if i == 0 else b.rng.choice([0, 40, 80, 40])
        paras = [pr.paragraph("forum", 1, 3) for _ in range(b.rng.randint(1, 2))]
        b.truth.extend(paras)
        text = esc(paras[0]) + "".join(f"<p>{esc(x)}</p>" for x in paras[1:])
        rows.append(
            f"<tr class='athing comtr' id='{b.rng.randint(10**7, 10**8)}'><td><table border='0'><tr><td class='ind' indent='{indent // 40}'><img src='s.gif' height='1' width='{indent}'></td>"
            f"<td valign='top' class='votelinks'><center><a id='up_{i}' href='#'><div class='votearrow' title='upvote'></div></a></center></td>"
            f"<td class='default'><div style='margin-top:2px; margin-bottom:-10px;'><span class='comhead'><a href='#' class='hnuser'>{esc(pr.person().replace(' ', '').lower())}</a> "
            f"<span class='age'><a href='#'>{b.rng.randint(1, 23)} hours ago</a></span> <span class='navs'> | <a href='#'>parent</a> | <a href='#'>next</a> [–]</span></span></div><br>"
            f"<div class='comment'><span class='commtext c00'>{text}</span><div class='reply'><p><font size='1'><u><a href='#'>reply</a></u></font></p></div></div></td></tr></table></td></tr>")
    page = (b.head(f"{title} | Hacker News", title, extra_css=5, scripts=1) + "<body><center><table id='hnmain' border='0' cellpadding='0' cellspacing='0' width='85%' bgcolor='#f6f6ef'>"
            + "<tr><td bgcolor='#ff6600'><table border='0' width='100%'><tr><td><a href='/'><b class='hnname'>Hacker News</b></a> <span class='pagetop'><a href='#'>new</a> | <a href='#'>past</a> | <a href='#'>comments</a> | <a href='#'>ask</a> | <a href='#'>show</a> | <a href='#'>jobs</a> | <a href='#'>submit</a></span></td><td style='text-align:right'><a href='#'>login</a></td></tr></table></td></tr>"
            + f"<tr id='pagespace' title='{attr(title)}' style='height:10px'></tr><tr><td><table class='fatitem' border='0'><tr class='athing'><td class='title'><span class='titleline'><a href='#'>{esc(title)}</a></span></td></tr>"
            + f"<tr><td class='subtext'><span class='score'>{b.rng.randint(5, 900)} points</span> by <a class='hnuser' href='#'>{esc(pr.person().split()[0].lower())}</a> <span class='age'>{b.rng.randint(1, 9)} hours ago</span> | <a href='#'>hide</a> | <a href='#'>{b.rng.randint(5, 300)}&nbsp;comments</a></td></tr>"
            + f"<tr><td><div class='toptext'>{esc(story)}</div></td></tr><tr><td><form action='comment'><textarea name='text'></textarea><br><input type='submit' value='add comment'></form></td></tr></table>"
            + f"<table border='0' class='comment-tree'>{''.join(rows)}</table></td></tr>"
            + "<tr><td><img src='s.gif' height='10' width='0'><table width='100%' cellspacing='0' cellpadding='1'><tr><td bgcolor='#ff6600'></td></tr></table><br><center><span class='yclinks'><a href='#'>Guidelines</a> | <a href='#'>FAQ</a> | <a href='#'>Lists</a> | <a href='#'>API</a> | <a href='#'>Security</a> | <a href='#'>Legal</a> | <a href='#'>Apply to YC</a> | <a href='#'>Contact</a></span><br><br><form method='get' action='//hn.algolia.com/'>Search: <input type='text' name='q'></form></center></td></tr>"
            + "</table></center></body></html>")
    return page, title


def blogspot_post(b: Builder, v: int) -> tuple[str, str]:
    """An old Blogger blog: text in div.post-body separated by <br><br> (no <p>), a sidebar of
    widgets (profile, archive tree, followers, labels), comments in div.comment-block."""
    pr = b.prose
    title = pr.headline()
    chunks = []
    for i in range([7, 4, 10][v]):
        text = pr.paragraph("blog", 2, 4)
        b.truth.append(text)
        chunks.append(b.inline(text))
        if i == 1:
            chunks.append("<div class='separator' style='clear: both; text-align: center;'><a href='/x.jpg'><img src='/x.jpg' border='0' width='400'></a></div>")
    body = "<br /><br />".join(chunks)
    archive = "<ul class='hierarchy'>" + "".join(f"<li class='archivedate'><a class='toggle' href='#'>►</a> <a class='post-count-link' href='#'>{y}</a> <span class='post-count'>({b.rng.randint(1, 40)})</span></li>" for y in range(2024, 2010, -1)) + "</ul>"
    comments = "".join(f"<dt class='comment-author'><a href='#'>{esc(pr.person())}</a> said...</dt><dd class='comment-body'><p>{esc(pr.paragraph('comment', 1, 3))}</p></dd><dd class='comment-footer'><span class='comment-timestamp'><a href='#'>{b.date()}</a></span></dd>" for _ in range([8, 3, 12][v]))
    page = (b.head(f"{pr.person().split()[0]}'s Garden Notes: {title}", title, extra_css=20, scripts=3) + "<body><div class='outer-wrapper'><div id='header-wrapper'><div class='header section' id='header'>"
            + f"<div class='widget Header'><h1 class='title'><a href='/'>Garden Notes</a></h1><p class='description'>{esc(pr.sentence('blog'))}</p></div></div></div>"
            + "<div id='main-wrapper'><div class='main section' id='main'><div class='widget Blog'><div class='blog-posts hfeed'>"
            + f"<h2 class='date-header'><span>{b.date()}</span></h2><div class='post-outer'><div class='post hentry'>"
            + f"<h3 class='post-title entry-title'>{esc(title)}</h3><div class='post-header'></div>"
            + f"<div class='post-body entry-content' id='post-body-{b.rng.randint(10**6, 10**7)}'>{body}<div style='clear: both;'></div></div>"
            + f"<div class='post-footer'><span class='post-author vcard'>Posted by {esc(pr.person())}</span> at <a class='timestamp-link' href='#'>{b.rng.randint(1, 12)}:{b.rng.randint(10, 59)} PM</a> <span class='post-comment-link'><a href='#comments'>{[8, 3, 12][v]} comments</a></span>"
            + f"<div class='post-share-buttons'><a href='#'>Email This</a><a href='#'>BlogThis!</a><a href='#'>Share to X</a></div><span class='post-labels'>Labels: <a href='#'>{esc(pr.short(1, 2))}</a></span></div></div>"
            + f"<div class='comments' id='comments'><h4>{[8, 3, 12][v]} comments:</h4><div id='comments-block'><dl>{comments}</dl></div><p class='comment-footer'><a href='#'>Post a Comment</a></p></div></div></div>"
            + "<div class='blog-pager' id='blog-pager'><a class='blog-pager-newer-link' href='#'>Newer Post</a> <a class='blog-pager-older-link' href='#'>Older Post</a> <a class='home-link' href='/'>Home</a></div></div></div></div>"
            + f"<div id='sidebar-wrapper'><div class='sidebar section'><div class='widget Profile'><h2>About Me</h2><div class='widget-content'><dl class='profile-datablock'><dt class='profile-data'>{esc(pr.person())}</dt><dd class='profile-textblock'>{esc(pr.paragraph('blog', 2, 3))}</dd></dl></div></div>"
            + f"<div class='widget BlogArchive'><h2>Blog Archive</h2><div class='widget-content'>{archive}</div></div>"
            + f"<div class='widget Label'><h2>Labels</h2>{b.tags(12)}</div></div></div>"
            + "<div id='footer-wrapper'><div class='footer section'>Simple theme. Powered by <a href='https://www.blogger.com'>Blogger</a>.</div></div></div></body></html>")
    return page, title


def docs_gitbook(b: Builder, v: int) -> tuple[str, str]:
    """A Docusaurus/GitBook-like docs page: left sidebar, right TOC, admonitions, tabs (the
    inactive tab panels carry the hidden attribute), "Edit this page", "Was this helpful?", pager."""
    pr = b.prose
    h1 = pr.short(2, 4).title()
    title = f"{h1} | Gridwire Docs"
    c = [b.p(pr.tech_paragraph(1, 3))]
    for i in range([4, 2, 5][v]):
        c.append(b.h(2, pr.heading(), anchor=True))
        c.append(b.p(pr.tech_paragraph(1, 3)))
        if i == 0:
            tip = pr.tech_sentence()
            b.truth.extend(["tip", tip])
            c.append(f"<div class='theme-admonition theme-admonition-tip alert alert--success'><div class='admonitionHeading'><span class='admonitionIcon'><svg viewBox='0 0 12 16'><path d='M6 0'></path></svg></span>tip</div><div class='admonitionContent'><p>{esc(tip)}</p></div></div>")
        if i == 1:
            code_py, code_js = pr.code("python"), pr.code("js")
            b.truth.extend(["Python", "JavaScript", code_py])
            c.append("<div class='tabs-container'><ul role='tablist' class='tabs'><li role='tab' class='tabs__item tabs__item--active' aria-selected='true'>Python</li><li role='tab' class='tabs__item'>JavaScript</li></ul>"
                     f"<div class='margin-top--md'><div role='tabpanel' class='tabItem'><pre><code class='language-python'>{esc(code_py)}</code></pre></div>"
                     f"<div role='tabpanel' class='tabItem' hidden><pre><code class='language-js'>{esc(code_js)}</code></pre></div></div></div>")
        if i == 2:
            c.append(b.ul([pr.tech_sentence() for _ in range(4)]))
    side = "<nav aria-label='Docs sidebar' class='menu thin-scrollbar'><ul class='theme-doc-sidebar-menu menu__list'>" + "".join(
        f"<li class='theme-doc-sidebar-item-category menu__list-item'><div class='menu__list-item-collapsible'><a class='menu__link menu__link--sublist' href='#'>{esc(pr.short(1, 3).title())}</a></div>{b.menu(b.rng.randint(2, 7), 'menu__list', 'menu__list-item')}</li>" for _ in range(9)) + "</ul></nav>"
    toc = "<div class='tableOfContents_bqdL thin-scrollbar theme-doc-toc-desktop'><ul class='table-of-contents table-of-contents__left-border'>" + "".join(f"<li><a href='#' class='table-of-contents__link toc-highlight'>{esc(pr.heading())}</a></li>" for _ in range(4)) + "</ul></div>"
    page = (b.head(title, h1, scripts=5) + "<body class='navigation-with-keyboard'><div id='__docusaurus'>"
            + f"<nav aria-label='Main' class='navbar navbar--fixed-top'><div class='navbar__inner'><a class='navbar__brand' href='/'>Gridwire</a>{b.menu(5)}</div></nav>"
            + f"<div class='main-wrapper docsWrapper_hBAB'><div class='docRoot_UBD9'><aside class='theme-doc-sidebar-container'>{side}</aside>"
            + "<main class='docMainContainer_TBSr'><div class='container padding-top--md padding-bottom--lg'><div class='row'><div class='col docItemCol_VOVn'>"
            + f"<div class='docItemContainer_Djhp'><article><nav class='theme-doc-breadcrumbs' aria-label='Breadcrumbs'><ul class='breadcrumbs'><li class='breadcrumbs__item'><a href='/'>Home</a></li><li class='breadcrumbs__item'>{esc(h1)}</li></ul></nav>"
            + f"<div class='theme-doc-markdown markdown'><header><h1>{esc(h1)}</h1></header>{''.join(c)}</div></article>"
            + "<div class='theme-doc-footer-edit-meta-row row'><a href='#' class='theme-edit-this-page'>Edit this page</a><span class='theme-last-updated'>Last updated on <b>" + b.date() + "</b></span></div>"
            + "<div class='feedback'><p>Was this helpful?</p><button>Yes</button><button>No</button></div>"
            + f"<nav class='pagination-nav docusaurus-mt-lg' aria-label='Docs pages'><a class='pagination-nav__link pagination-nav__link--prev' href='#'><div class='pagination-nav__sublabel'>Previous</div><div class='pagination-nav__label'>{esc(pr.short(2, 3))}</div></a></nav></div></div>"
            + f"<div class='col col--3'>{toc}</div></div></div></main></div></div>"
            + f"<footer class='footer footer--dark'><div class='container'>{b.menu(9)}<div class='footer__copyright'>Copyright © {b.rng.randint(2020, 2024)} Gridwire, Inc. Built with Docusaurus.</div></div></footer></div></body></html>")
    return page, title


def press_release(b: Builder, v: int) -> tuple[str, str]:
    """A corporate newsroom release: dateline lead, quotes, an "About the company" paragraph and
    media contact (part of the release), share tools, "More news" cards, a mega footer."""
    pr = b.prose
    company = b.rng.choice(["Northwind Energy", "Harbor Health", "Meridian Rail", "Quanta Labs", "Oakline Foods"])
    title = f"{company} announces {pr.pick('obj').replace('the ', '')} for {pr.pick('place')}"
    body = []
    lead = f"{pr.pick('place').upper()}, {b.date()} — " + pr.paragraph("news", 2, 3)
    body.append(b.p(lead))
    for i in range([4, 2, 6][v]):
        body.append(b.p(pr.paragraph("news", 2, 4)))
        if i == 0:
            body.append(b.p(f"“{pr.sentence('blog')}” said {pr.person()}, {pr.pick('role')} at {company}."))
        if i == 2:
            body.append(b.ul(pr.list_items(4)))
    body.append(b.h(3, f"About {company}"))
    body.append(b.p(f"{company} is {pr.paragraph('news', 2, 2)}"))
    body.append(b.h(3, "Media contact"))
    body.append(b.p(f"{pr.person()}, press office, press@{company.split()[0].lower()}.example, +44 20 {b.rng.randint(1000, 9999)} {b.rng.randint(1000, 9999)}"))
    cards = "".join(f"<div class='news-card'><span class='news-card__date'>{b.date()}</span><a class='news-card__title' href='#'>{esc(pr.headline())}</a><p class='news-card__teaser'>{esc(pr.sentence())}</p></div>" for _ in range(4))
    page = (b.head(f"{title} | {company} Newsroom", title, scripts=4) + "<body>" + b.cookie_banner(1) + b.site_header(company, 11, "global-header")
            + "<main id='main-content'><div class='newsroom-detail'><div class='newsroom-detail__hero'><span class='eyebrow'>Press release</span>"
            + f"<h1 class='newsroom-detail__title'>{esc(title)}</h1><div class='newsroom-detail__date'>{b.date()}</div></div>"
            + f"<div class='newsroom-detail__body rich-text'>{''.join(body)}</div>"
            + f"<div class='newsroom-detail__tools'>{b.share()}<a href='#' class='download'>Download PDF</a></div></div>"
            + f"<section class='newsroom-more'><h2>More news</h2><div class='news-cards'>{cards}</div></section></main>"
            + b.fat_footer(0, company) + "</body></html>")
    return page, title


def journal_abstract(b: Builder, v: int) -> tuple[str, str]:
    """A journal article landing page: authors and affiliations, the abstract and keywords (the
    body), "Cite this article", metrics, a references list and "Related articles"."""
    pr = Prose(b.rng, "science")
    b.prose = pr
    title = pr.headline()
    authors = "".join(f"<li class='c-article-author-list__item'><a href='#'>{esc(pr.person())}</a><sup>{k + 1}</sup></li>" for k in range(b.rng.randint(3, 7)))
    abstract = [pr.paragraph("news", 4, 7) for _ in range([1, 1, 2][v])]
    b.truth.append("Abstract")
    b.truth.extend(abstract)
    sections = []
    if v == 2:
        for _ in range(3):
            head = pr.heading()
            paras = [pr.paragraph("news", 3, 5) for _ in range(2)]
            b.truth.append(head)
            b.truth.extend(paras)
            sections.append(f"<section><h2 class='c-article-section__title'>{esc(head)}</h2><div class='c-article-section__content'>" + "".join(f"<p>{b.inline(x, 0.1)}</p>" for x in paras) + "</div></section>")
    keywords = [pr.short(1, 3) for _ in range(5)]
    refs = "".join(f"<li class='c-article-references__item'><p class='c-article-references__text'>{esc(pr.person())} et al. {esc(pr.headline())}. <i>J. {esc(pr.short(1, 2).title())}</i> {b.rng.randint(1, 99)}, {b.rng.randint(1, 999)} ({b.rng.randint(1990, 2023)}).</p><p class='c-article-references__links'><a href='#'>Article</a> <a href='#'>Google Scholar</a></p></li>" for _ in range([14, 8, 25][v]))
    page = (b.head(f"{title} | Journal of Field Studies", abstract[0][:150], scripts=6) + "<body>" + b.cookie_banner(0)
            + f"<header class='c-header'><a href='/'>Journal of Field Studies</a>{b.menu(7)}</header>"
            + "<div class='c-article-main'><main class='c-article-main-column' id='main'><article lang='en'><div class='c-article-header'>"
            + f"<ul class='c-article-identifiers'><li>Article</li><li>Open access</li><li>Published: <time>{b.date()}</time></li></ul>"
            + f"<h1 class='c-article-title'>{esc(title)}</h1><ul class='c-article-author-list'>{authors}</ul>"
            + f"<p class='c-article-info-details'><i>Journal of Field Studies</i> <b>{b.rng.randint(1, 40)}</b>, Article number: {b.rng.randint(1000, 9999)} ({b.rng.randint(2019, 2024)})</p>"
            + f"<div class='c-article-metrics-bar'><p>{b.rng.randint(100, 9000)} Accesses</p><p>{b.rng.randint(1, 90)} Citations</p><a href='#'>Metrics details</a></div></div>"
            + "<div class='c-article-body'><section aria-labelledby='Abs1' data-title='Abstract'><div class='c-article-section' id='Abs1-section'><h2 class='c-article-section__title' id='Abs1'>Abstract</h2>"
            + "<div class='c-article-section__content'>" + "".join(f"<p>{b.inline(x, 0.05)}</p>" for x in abstract) + "</div></div></section>"
            + "".join(sections)
            + f"<section data-title='References'><div class='c-article-section'><h2 class='c-article-section__title'>References</h2><ol class='c-article-references'>{refs}</ol></div></section>"
            + f"<section data-title='Keywords'><h3 class='c-article__sub-heading'>Keywords</h3><ul class='c-article-subject-list'>" + "".join(f"<li class='c-article-subject-list__subject'><a href='#'>{esc(k)}</a></li>" for k in keywords) + "</ul></section>"
            + "<section data-title='Rights and permissions'><h2>Rights and permissions</h2><p>Open Access This article is licensed under a Creative Commons Attribution 4.0 International License, which permits use, sharing, adaptation, distribution and reproduction in any medium or format.</p></section>"
            + f"<section><h2>About this article</h2><p class='c-bibliographic-information__citation'>{esc(pr.person())} et al. {esc(title)}. <i>J. Field Stud.</i> ({b.rng.randint(2019, 2024)}). https://doi.org/10.{b.rng.randint(1000, 9999)}/{b.rng.randint(10**5, 10**6)}</p><a href='#'>Download citation</a></section>"
            + "</div></article></main>"
            + f"<aside class='c-article-extras'><div class='c-reading-companion'><h2>Related articles</h2><ul>" + "".join(f"<li><a href='#'>{esc(pr.headline())}</a><p>{esc(pr.sentence())}</p></li>" for _ in range(4)) + "</ul></div></aside></div>"
            + b.fat_footer(2, "Journal of Field Studies") + "</body></html>")
    return page, title


# ------------------------------------------------------------------------------------------------
# held-out-3 families: written after the first held-out-2 run, before the changes it prompted;
# never run through an extractor until the final evaluation
# ------------------------------------------------------------------------------------------------


def reddit_thread(b: Builder, v: int) -> tuple[str, str]:
    """A discussion page with custom elements (new-Reddit style): the post's text, then nested
    comments (shreddit-comment with a text slot), action rows, a community sidebar, "More posts
    you may like". A discussion page: the post and its comments are the content."""
    pr = b.prose
    title = pr.headline() + "?"
    post = [pr.paragraph("forum", 2, 3) for _ in range([2, 1, 3][v])]
    b.truth.extend(post)
    comments = []
    for i in range([9, 5, 14][v]):
        depth = 0 if i == 0 else b.rng.choice([0, 1, 1, 2])
        texts = [pr.paragraph("forum", 1, 3) for _ in range(b.rng.randint(1, 2))]
        b.truth.extend(texts)
        comments.append(
            f"<shreddit-comment author='{pr.person().replace(' ', '_')}' depth='{depth}' score='{b.rng.randint(-3, 900)}'>"
            f"<div slot='commentMeta'><faceplate-tracker><a href='#'>{esc(pr.person().replace(' ', '_'))}</a></faceplate-tracker> · <faceplate-timeago>{b.rng.randint(1, 23)}h ago</faceplate-timeago></div>"
            f"<div slot='comment' id='t1-comment-rtjson-content' class='md text-14'>" + "".join(f"<p>{b.inline(t, 0.05)}</p>" for t in texts) + "</div>"
            f"<shreddit-comment-action-row slot='actionRow'><button>Reply</button><button>Award</button><button>Share</button></shreddit-comment-action-row></shreddit-comment>")
    more = "".join(f"<li><a href='#'>{esc(pr.headline())}</a><span>{b.rng.randint(2, 900)} upvotes · {b.rng.randint(1, 300)} comments</span></li>" for _ in range(6))
    page = (b.head(f"{title} : r/{pr.topic}", title, scripts=9) + "<body><shreddit-app><reddit-header-large><nav>" + b.menu(5) + "<a href='#'>Log In</a></nav></reddit-header-large>"
            + "<div class='main-container'><main id='main-content'>"
            + f"<shreddit-post post-title='{attr(title)}' author='{pr.person().replace(' ', '_')}' score='{b.rng.randint(10, 9000)}'>"
            + f"<h1 slot='title' id='post-title'>{esc(title)}</h1><div slot='text-body' class='md'>" + "".join(f"<p>{b.inline(t, 0.05)}</p>" for t in post) + "</div>"
            + f"<div slot='post-actions'><button>{b.rng.randint(10, 900)} votes</button><button>{len(comments)} comments</button><button>Share</button></div></shreddit-post>"
            + f"<shreddit-comment-tree>{''.join(comments)}</shreddit-comment-tree>"
            + f"<faceplate-partial><h2>More posts you may like</h2><ul>{more}</ul></faceplate-partial></main>"
            + f"<aside class='sidebar'><h2>r/{pr.topic}</h2><p>{esc(pr.paragraph('blog', 2, 2))}</p><p>{b.rng.randint(10, 900)}K members</p>{b.menu(6)}</aside></div>"
            + "<footer><a href='#'>Reddit Rules</a> <a href='#'>Privacy Policy</a> <a href='#'>User Agreement</a> © 2024 Reddit, Inc.</footer></shreddit-app></body></html>")
    return page, title


def elementor_page(b: Builder, v: int) -> tuple[str, str]:
    """A page built with a WordPress page builder: every block an elementor-widget (heading,
    text editor, image, button, divider), sections and columns, a site header and footer made
    of widgets too."""
    pr = b.prose
    title = pr.headline()

    def widget(kind: str, inner: str) -> str:
        return (f"<div class='elementor-element elementor-widget elementor-widget-{kind}' data-widget_type='{kind}.default'>"
                f"<div class='elementor-widget-container'>{inner}</div></div>")

    cols = []
    cols.append(widget("heading", f"<h1 class='elementor-heading-title elementor-size-default'>{esc(title)}</h1>"))
    for i in range([5, 3, 7][v]):
        paras = "".join(b.p(pr.paragraph("blog", 2, 4)) for _ in range(b.rng.randint(1, 2)))
        cols.append(widget("text-editor", paras))
        if i == 1:
            cols.append(widget("image", f"<img src='/w.jpg' alt=''>"))
            cols.append(widget("heading", b.h(2, pr.heading(), cls="elementor-heading-title")))
        if i == 2:
            cols.append(widget("button", "<a class='elementor-button' href='#'><span class='elementor-button-text'>Book a consultation</span></a>"))
            cols.append(widget("divider", "<div class='elementor-divider'><span class='elementor-divider-separator'></span></div>"))
        if i == 3:
            cols.append(widget("icon-list", b.ul(pr.list_items(4, "blog"), cls="elementor-icon-list-items")))
    header = ("<header class='elementor elementor-location-header'><div class='elementor-section'>"
              + widget("theme-site-logo", "<a href='/'><img src='/logo.png' alt='Studio'></a>")
              + widget("nav-menu", f"<nav class='elementor-nav-menu--main'>{b.menu(7)}</nav>") + "</div></header>")
    footer = ("<footer class='elementor elementor-location-footer'><div class='elementor-section'>"
              + widget("text-editor", f"<p>{esc(pr.paragraph('news', 2, 2))}</p>")
              + widget("social-icons", "<a href='#'>Facebook</a> <a href='#'>Instagram</a>")
              + widget("text-editor", "<p>© 2024 Studio North. All rights reserved.</p>") + "</div></footer>")
    page = (b.head(f"{title} – Studio North", title, scripts=7) + "<body class='page-template elementor-default elementor-kit-5'>" + header
            + f"<div data-elementor-type='wp-page' class='elementor elementor-{b.rng.randint(10, 999)}'><section class='elementor-section elementor-top-section'>"
            + f"<div class='elementor-container'><div class='elementor-column elementor-col-100'><div class='elementor-widget-wrap'>{''.join(cols)}</div></div></div></section></div>"
            + footer + "</body></html>")
    return page, title


def howto_steps(b: Builder, v: int) -> tuple[str, str]:
    """A how-to page (wikiHow style): intro, numbered steps each with a bold lead sentence and
    text, "Tips" and "Things You'll Need" (content), references and related how-tos (not)."""
    pr = b.prose
    title = f"How to {b.rng.choice(['Fix', 'Plan', 'Measure', 'Prepare', 'Check'])} {pr.pick('obj').replace('the ', '').title()}"
    intro = pr.paragraph("blog", 2, 3)
    b.truth.append(intro)
    steps = []
    for i in range([6, 4, 9][v]):
        lead = pr.sentence("blog")
        rest = pr.paragraph("blog", 1, 3)
        b.truth.append(f"{i + 1} {lead} {rest}")
        steps.append(f"<li id='step-id-{i}' class='hasimage'><div class='mwimg'><img src='/s{i}.jpg' alt=''></div>"
                     f"<div class='step_num' aria-label='Step {i + 1}'>{i + 1}</div><div class='step'><b class='whb'>{esc(lead)}</b> {b.inline(rest, 0.1)}</div><div class='clearall'></div></li>")
    tips = [pr.sentence("blog") for _ in range(3)]
    need = [pr.short(2, 4) for _ in range(4)]
    b.truth.append("Tips")
    b.truth.extend(tips)
    b.truth.append("Things You'll Need")
    b.truth.extend(need)
    refs = "".join(f"<li><a href='#'>{esc(pr.headline())}</a></li>" for _ in range(5))
    related = "".join(f"<div class='related_box'><a href='#'><div class='related_title'>How to {esc(pr.short(2, 4).title())}</div></a></div>" for _ in range(6))
    page = (b.head(f"{title}: {b.rng.randint(5, 12)} Steps (with Pictures) - wikiHow", title, scripts=5) + "<body class='mediawiki'><div id='header_container'>"
            + f"<div id='header'><a id='logo_link' href='/'>wikiHow</a>{b.menu(6)}</div></div><div id='main'><div id='article_shell'>"
            + f"<div id='intro' class='section'><h1 id='section_0'>{esc(title)}</h1><div class='coauthor_byline'>Co-authored by {esc(pr.person())} · Last Updated: {b.date()}</div>"
            + f"<div class='mf-section-0'><p>{b.inline(intro, 0.1)}</p></div></div>"
            + f"<div class='section steps'><h2><span class='mw-headline'>Steps</span></h2><div class='section_text'><ol class='steps_list_2'>{''.join(steps)}</ol></div></div>"
            + f"<div class='section tips'><h2><span class='mw-headline'>Tips</span></h2><div class='section_text'><ul>" + "".join(f"<li>{esc(t)}</li>" for t in tips) + "</ul></div></div>"
            + f"<div class='section thingsyoullneed'><h2><span class='mw-headline'>Things You'll Need</span></h2><div class='section_text'><ul>" + "".join(f"<li>{esc(t)}</li>" for t in need) + "</ul></div></div>"
            + f"<div class='section sourcesandcitations'><h2><span class='mw-headline'>References</span></h2><div class='section_text'><ol class='references'>{refs}</ol></div></div>"
            + "<div id='article_rating'><p>Did this article help you?</p><button>Yes</button><button>No</button></div></div>"
            + f"<div id='sidebar'><div id='side_related_articles'><h3>Related wikiHows</h3>{related}</div></div></div>"
            + "<div id='footer'><p>wikiHow is where trusted research and expert knowledge come together.</p>" + b.menu(8) + "</div></body></html>")
    return page, title


def mail_archive(b: Builder, v: int) -> tuple[str, str]:
    """A mailing-list archive message (Pipermail): header lines, the message in <pre>, and
    message navigation links above and below."""
    pr = b.prose
    subject = f"[dev] {pr.headline()}"
    paras = [pr.tech_paragraph(2, 4) if k % 2 else pr.paragraph("forum", 2, 3) for k in range([4, 2, 6][v])]
    quoted = [f"> {pr.sentence('forum')}" for _ in range(2)] if v != 1 else []
    body = ("\n".join(quoted) + "\n\n" if quoted else "") + "\n\n".join(paras) + f"\n\n-- \n{pr.person()}"
    b.truth.append(body)
    nav = (f"<ul><li>Previous message (by thread): <a href='#'>{esc(pr.headline())}</a></li><li>Next message (by thread): <a href='#'>{esc(pr.headline())}</a></li>"
           "<li><b>Messages sorted by:</b> <a href='#'>[ date ]</a> <a href='#'>[ thread ]</a> <a href='#'>[ subject ]</a> <a href='#'>[ author ]</a></li></ul>")
    page = ("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><html><head><title>" + esc(subject) + "</title>"
            f"<meta http-equiv='Content-Type' content='text/html; charset=us-ascii'></head><body bgcolor='#ffffff'>"
            f"<h1>{esc(subject)}</h1><b>{esc(pr.person())}</b> <a href='mailto:x@example.org' title='{esc(subject)}'>x at example.org</a><br>"
            f"<i>{b.date()} 10:{b.rng.randint(10, 59)}:00 UTC</i><p>{nav}<hr><!--beginarticle--><pre>{esc(body)}</pre><!--endarticle--><hr><p>{nav}"
            f"<hr><a href='#'>More information about the dev mailing list</a><br></body></html>")
    return page, subject


def product_page(b: Builder, v: int) -> tuple[str, str]:
    """A shop's product page: gallery, price and buy box, the description and a specification
    table (the content), customer reviews (user comments: not the body), "Customers also bought"."""
    pr = b.prose
    name = f"{pr.short(2, 3).title()} {b.rng.choice(['Kettle', 'Lamp', 'Backpack', 'Speaker', 'Jacket'])}"
    desc = [pr.paragraph("blog", 2, 4) for _ in range([2, 1, 3][v])]
    specs = [[k, f"{b.rng.randint(1, 90)} {u}"] for k, u in (("Weight", "kg"), ("Width", "cm"), ("Height", "cm"), ("Warranty", "years"), ("Power", "W"))[: [5, 3, 4][v]]]
    b.truth.append("Description")
    b.truth.extend(desc)
    b.truth.append("Specifications")
    b.truth.extend(" ".join(r) for r in specs)
    reviews = "".join(f"<div class='review' data-hook='review'><div class='review-header'><span class='a-profile-name'>{esc(pr.person())}</span><span class='review-rating'>{b.rng.randint(1, 5)}.0 out of 5 stars</span></div>"
                      f"<span class='review-title'>{esc(pr.short(2, 5))}</span><div class='review-text'><span>{esc(pr.paragraph('comment', 2, 4))}</span></div><div class='review-actions'><button>Helpful</button><a href='#'>Report</a></div></div>" for _ in range([6, 3, 9][v]))
    also = "".join(f"<li class='carousel-card'><a href='#'>{esc(pr.short(2, 3).title())}</a><span class='price'>€{b.rng.randint(9, 300)}</span></li>" for _ in range(8))
    page = (b.head(f"{name} | Northfield Store", name, scripts=8) + "<body>" + b.cookie_banner(1) + b.site_header("Northfield Store", 12)
            + "<div id='dp-container'><div id='breadcrumbs'>" + b.menu(3) + "</div><div id='ppd'>"
            + f"<div id='imageBlock'><img src='/p1.jpg' alt=''><img src='/p2.jpg' alt=''></div><div id='centerCol'><h1 id='title'><span id='productTitle'>{esc(name)}</span></h1>"
            + f"<div id='averageCustomerReviews'>{b.rng.randint(30, 50) / 10} out of 5 stars · {b.rng.randint(10, 9000)} ratings</div>"
            + f"<div id='corePrice'><span class='a-price'>€{b.rng.randint(19, 400)}.99</span></div><div id='availability'>In stock</div></div>"
            + "<div id='rightCol'><div id='buybox'><button>Add to Basket</button><button>Buy Now</button><p>Ships from and sold by Northfield.</p></div></div></div>"
            + "<div id='productDescription_feature_div'><h2>Description</h2><div id='productDescription'>" + "".join(f"<p>{b.inline(t, 0.05)}</p>" for t in desc) + "</div></div>"
            + "<div id='prodDetails'><h2>Specifications</h2><table><tbody>"
            + "".join(f"<tr><th>{esc(k)}</th><td>{esc(val)}</td></tr>" for k, val in specs) + "</tbody></table></div>"
            + f"<div id='sims-consolidated'><h2>Customers who bought this item also bought</h2><ol class='a-carousel'>{also}</ol></div>"
            + f"<div id='reviewsMedley'><h2>Top reviews</h2>{reviews}</div></div>"
            + b.fat_footer(0, "Northfield Store") + "</body></html>")
    return page, name


def report_html(b: Builder, v: int) -> tuple[str, str]:
    """A long HTML report: a contents list at the top, numbered sections, footnote markers in
    the text (part of it) and the footnotes at the end (not), figures with captions, "Download
    the PDF" boxes."""
    pr = b.prose
    title = f"{pr.short(2, 4).title()}: Annual Review {b.rng.randint(2019, 2024)}"
    secs = []
    heads = [pr.heading() for _ in range([5, 3, 7][v])]
    toc = "<nav class='report-toc'><h2>Contents</h2><ol>" + "".join(f"<li><a href='#s{i}'>{esc(h)}</a></li>" for i, h in enumerate(heads)) + "</ol></nav>"
    fn = 0
    for i, h in enumerate(heads):
        b.truth.append(f"{i + 1}. {h}")
        part = [f"<section id='s{i}'><h2>{i + 1}. {esc(h)}</h2>"]
        for k in range(b.rng.randint(2, 4)):
            text = pr.paragraph("news", 2, 5)
            if k == 1:
                fn += 1
                b.truth.append(f"{text}{fn}")
                part.append(f"<p>{b.inline(text, 0.1)}<sup><a href='#fn{fn}' id='ref{fn}'>{fn}</a></sup></p>")
            else:
                part.append(b.p(text, link_p=0.1))
        if i == 1:
            part.append(f"<figure><img src='/fig{i}.png' alt=''><figcaption>Figure {i}: {esc(pr.sentence()[:70])}</figcaption></figure>")
        if i == 2:
            part.append(b.table(["Indicator", str(b.rng.randint(2019, 2021)), str(b.rng.randint(2022, 2024))], [[pr.short(2, 3), str(b.rng.randint(1, 99)), str(b.rng.randint(1, 99))] for _ in range(4)]))
        part.append("</section>")
        secs.append("".join(part))
    notes = "<section class='footnotes'><h2>Notes</h2><ol>" + "".join(f"<li id='fn{k + 1}'>{esc(pr.person())}, {esc(pr.headline())}, {b.rng.randint(2010, 2023)}. <a href='#ref{k + 1}'>↩</a></li>" for k in range(fn)) + "</ol></section>"
    page = (b.head(f"{title} | {pr.pick('org')}", title, scripts=3) + "<body>" + b.site_header("Policy Institute", 8)
            + f"<div class='report'><header class='report-header'><p class='report-type'>Report</p><h1>{esc(title)}</h1><p class='report-date'>Published {b.date()}</p>"
            + "<div class='download-box'><a href='#'>Download the full report (PDF, 2.4 MB)</a></div></header>"
            + f"<div class='report-layout'>{toc}<div class='report-body'>{''.join(secs)}{notes}</div></div></div>"
            + b.fat_footer(2, "Policy Institute") + "</body></html>")
    return page, title


def hugo_blog(b: Builder, v: int) -> tuple[str, str]:
    """A minimal static-site blog post: plain <main><article> without classes, a tag list,
    previous/next links, a "Likes and mentions" block, a footer with an RSS link."""
    pr = b.prose
    title = pr.headline()
    parts = []
    for i in range([6, 3, 9][v]):
        parts.append(b.p(pr.paragraph("blog", 2, 5)))
        if i == 1:
            parts.append(b.h(2, pr.heading()))
        if i == 3:
            parts.append(b.pre(pr.code("shell")))
        if i == 5:
            parts.append(b.quote(pr.sentence("blog")))
    mentions = "".join(f"<li><a href='#'>{esc(pr.person())}</a> liked this</li>" for _ in range(5))
    page = (b.head(f"{title} · notes", title, extra_css=10, scripts=0) + f"<body><header><a href='/'>~/notes</a> <nav><a href='/posts/'>posts</a> <a href='/about/'>about</a></nav></header>"
            + f"<main><article><h1>{esc(title)}</h1><p><time>{b.date()}</time> · {b.rng.randint(2, 12)} min read</p>{''.join(parts)}</article>"
            + f"<p>Tags: {' '.join(f'<a href=#>#{esc(pr.short(1, 1).lower())}</a>' for _ in range(3))}</p>"
            + f"<p><a href='#'>← {esc(pr.headline())}</a> | <a href='#'>{esc(pr.headline())} →</a></p>"
            + f"<section><h2>Likes and mentions</h2><ul>{mentions}</ul></section></main>"
            + "<footer><p>© 2024 · <a href='/index.xml'>RSS</a> · Made with Hugo</p></footer></body></html>")
    return page, title


def live_sports(b: Builder, v: int) -> tuple[str, str]:
    """A live sports report: scoreboard widget, a summary, then key events as a timeline list
    (minute + text), a line-ups table, and "Latest scores" in the sidebar."""
    pr = b.prose
    home, away = b.rng.sample(["Harbour FC", "Riverside", "North United", "Coast Rovers", "Valley Town", "Port Athletic"], 2)
    title = f"{home} {b.rng.randint(0, 4)}-{b.rng.randint(0, 4)} {away}: match report"
    summary = [pr.paragraph("news", 2, 4) for _ in range([2, 1, 3][v])]
    b.truth.extend(summary)
    # (the two subheadings were missing from the true body until after the held-out-3 run)
    b.truth.append("Key events")
    events = []
    for _ in range([10, 6, 14][v]):
        minute = b.rng.randint(1, 90)
        text = pr.sentence("news")
        b.truth.append(f"{minute}' {text}")
        events.append(f"<li class='event'><span class='event__minute'>{minute}'</span><div class='event__text'>{b.inline(text, 0.05)}</div></li>")
    lineups = [[f"{home} {k}", f"{away} {k}"] for k in range(1, [6, 4, 8][v])]
    b.truth.append("Line-ups")
    b.truth.append(f"{home} {away}")
    b.truth.extend(" ".join(r) for r in lineups)
    scores = "".join(f"<li><a href='#'>{esc(t1)} {b.rng.randint(0, 5)}-{b.rng.randint(0, 5)} {esc(t2)}</a></li>" for t1, t2 in [b.rng.sample(['A', 'B', 'C', 'D', 'E'], 2) for _ in range(6)])
    page = (b.head(f"{title} - Sport", title, scripts=8) + "<body>" + b.site_header("Sport", 10)
            + f"<div class='scoreboard' aria-label='Scoreboard'><span class='team'>{esc(home)}</span><span class='score'>{b.rng.randint(0, 4)} - {b.rng.randint(0, 4)}</span><span class='team'>{esc(away)}</span><span class='status'>FT</span></div>"
            + f"<main><article><h1>{esc(title)}</h1><div class='report-summary'>" + "".join(f"<p>{b.inline(t, 0.05)}</p>" for t in summary) + "</div>"
            + f"<h2>Key events</h2><ol class='timeline'>{''.join(events)}</ol>"
            + f"<h2>Line-ups</h2>{b.table([home, away], lineups, truth=False)}</article></main>"
            + f"<aside class='scores-panel'><h2>Latest scores</h2><ul>{scores}</ul></aside>"
            + b.fat_footer(1, "Sport") + "</body></html>")
    return page, title


# ------------------------------------------------------------------------------------------------
# held-out-4 families: written after the held-out-3 run and before the arbiter fix;
# run through the extractors once, with the final extractor
# ------------------------------------------------------------------------------------------------


def stackexchange_qa(b: Builder, v: int) -> tuple[str, str]:
    """A Stack Exchange question page: vote cells, the question (postcell), comments under each
    post (not), the accepted answer and other answers (content), "Linked"/"Hot Network Questions"
    in the sidebar. Body: the question and the answers (the corpus rule for Q&A)."""
    pr = b.prose
    title = pr.headline() + "?"

    def post(kind: str, paras: list[str], code: bool, accepted: bool = False) -> str:
        inner = []
        for i, t in enumerate(paras):
            inner.append(b.p(t, link_p=0.1))
            if code and i == 0:
                inner.append(b.pre(pr.code("python")))
        comments = "".join(f"<li class='comment'><div class='comment-body'><span class='comment-copy'>{esc(pr.sentence('comment'))}</span> – <a class='comment-user' href='#'>{esc(pr.person())}</a> <span class='comment-date'>{b.date()}</span></div></li>" for _ in range(b.rng.randint(1, 3)))
        acc = " accepted-answer" if accepted else ""
        return (f"<div class='{kind}{acc}' id='{kind}-{b.rng.randint(1000, 99999)}'><div class='post-layout'><div class='votecell'><button>Up vote</button><div class='js-vote-count'>{b.rng.randint(-2, 400)}</div><button>Down vote</button>"
                + ("<div class='js-accepted-answer-indicator' title='accepted'>✓</div>" if accepted else "")
                + f"</div><div class='{'postcell' if kind == 'question' else 'answercell'} post-layout--right'><div class='s-prose js-post-body' itemprop='text'>{''.join(inner)}</div>"
                + f"<div class='mt24'><div class='post-menu'><a href='#'>Share</a> <a href='#'>Improve this answer</a> <a href='#'>Follow</a></div><div class='post-signature'><div class='user-info'><a href='#'>{esc(pr.person())}</a> <span class='reputation-score'>{b.rng.randint(1, 99)},{b.rng.randint(100, 999)}</span></div></div></div>"
                + f"<div class='comments js-comments-container'><ul class='comments-list'>{comments}</ul><a class='js-add-link comments-link' href='#'>Add a comment</a></div></div></div></div>")

    q = post("question", [pr.paragraph("forum", 2, 4) for _ in range([2, 1, 3][v])], code=v != 1)
    answers = []
    for k in range([3, 1, 4][v]):
        if k == 0:
            answers.append(f"<h2 class='answers-header'>{[3, 1, 4][v]} Answer{'s' if v != 1 else ''}</h2><div class='sorting'>Sorted by: Highest score</div>")
        answers.append(post("answer", [pr.paragraph("forum", 2, 4) for _ in range(b.rng.randint(1, 3))], code=k == 0 and v != 2, accepted=k == 0))
    hot = "".join(f"<li><a href='#'>{esc(pr.headline())}?</a></li>" for _ in range(10))
    page = (b.head(f"{title} - Stack Exchange", title, scripts=6) + "<body class='question-page'><header class='s-topbar'>" + b.menu(6) + "</header>"
            + "<div class='container'><div id='left-sidebar' class='left-sidebar'><nav role='navigation'>" + b.menu(7) + "</nav></div>"
            + f"<div id='content'><div id='question-header'><h1 itemprop='name'><a href='#' class='question-hyperlink'>{esc(title)}</a></h1></div>"
            + f"<div class='d-flex'><div>Asked {b.date()}</div><div>Viewed {b.rng.randint(100, 90000)} times</div></div>"
            + f"<div id='mainbar' role='main' aria-label='question and answers'>{q}<div id='answers'>{''.join(answers)}</div>"
            + "<h2 class='bottom-notice'>Not the answer you're looking for? Browse other questions tagged or ask your own question.</h2></div>"
            + f"<div id='sidebar'><div class='s-sidebarwidget'><h4>The Overflow Blog</h4>{b.menu(3)}</div><div id='hot-network-questions' class='module'><h4>Hot Network Questions</h4><ul>{hot}</ul></div></div></div></div>"
            + b.fat_footer(2, "Stack Exchange") + "</body></html>")
    return page, title


def substack_post(b: Builder, v: int) -> tuple[str, str]:
    """A Substack newsletter post: publication header, title and subtitle (subtitle is the
    lead: content), post body in div.body.markup with a subscription widget and captioned image
    in the middle, footnotes (not), like/comment/restack bar, comments and "Ready for more?"."""
    pr = b.prose
    title = pr.headline()
    subtitle = pr.sentence("blog")
    b.truth.append(subtitle)
    parts = []
    nfn = 0
    for i in range([7, 4, 10][v]):
        text = pr.paragraph("blog", 2, 5)
        if i in (2, 5):
            nfn += 1
            b.truth.append(f"{text}{nfn}")
            parts.append(f"<p>{b.inline(text, 0.1)}<a class='footnote-anchor' id='footnote-anchor-{nfn}' href='#footnote-{nfn}'>{nfn}</a></p>")
        else:
            parts.append(b.p(text, link_p=0.1))
        if i == 1:
            parts.append(f"<div class='subscription-widget-wrap'><div class='subscription-widget show-subscribe'><div class='preamble'><p>{esc(pr.sentence('promo'))}</p></div><form><input type='email' placeholder='Type your email…'><button>Subscribe</button></form></div></div>")
        if i == 3:
            parts.append(b.h(3, pr.heading(), cls="header-anchor-post"))
            parts.append(f"<div class='captioned-image-container'><figure><img src='/i.jpg' alt=''><figcaption class='image-caption'>{esc(pr.sentence()[:80])}</figcaption></figure></div>")
        if i == 4:
            parts.append(b.quote(pr.sentence("blog")))
    notes = "".join(f"<div class='footnote'><a class='footnote-number' href='#footnote-anchor-{k + 1}'>{k + 1}</a><div class='footnote-content'><p>{esc(pr.sentence('blog'))}</p></div></div>" for k in range(nfn))
    page = (b.head(f"{title} - by {pr.person()}", title, scripts=5) + "<body><div id='entry'><div class='main-menu'><div class='topbar'><a class='navbar-title' href='/'>The Weekly Ledger</a><a class='button primary' href='#'>Subscribe</a><a href='#'>Sign in</a></div></div>"
            + f"<div class='container'><div class='single-post'><article class='typography newsletter-post post'><div class='post-header'><h1 class='post-title published'>{esc(title)}</h1><h3 class='subtitle'>{esc(subtitle)}</h3>"
            + f"<div class='post-meta'><a href='#'>{esc(pr.person())}</a><div class='pencraft'>{b.date()}</div></div>"
            + f"<div class='post-ufi'><a class='like-button' href='#'>{b.rng.randint(5, 900)}</a><a class='post-ufi-comment-button' href='#'>{b.rng.randint(1, 99)}</a><a href='#'>Share</a></div></div>"
            + f"<div class='available-content'><div dir='auto' class='body markup'>{''.join(parts)}<div class='footnote-list'>{notes}</div></div></div>"
            + f"<div class='post-footer'><div class='subscribe-widget'><p>{esc(pr.sentence('promo'))}</p><button>Subscribe</button></div></div></article>"
            + f"<div id='discussion' class='comments-page'><h4>Discussion about this post</h4>{b.comments([6, 3, 9][v], 1)}</div>"
            + f"<div class='post-end-cta'><h3>Ready for more?</h3><button>Subscribe</button></div></div></div>"
            + "<div class='footer-wrap'><p>© 2024 The Weekly Ledger · Privacy ∙ Terms ∙ Collection notice</p><a href='#'>Start Writing</a> <a href='#'>Get the app</a></div></div></body></html>")
    return page, title


def gov_notice(b: Builder, v: int) -> tuple[str, str]:
    """A government notice (GOV.UK style): breadcrumbs, title, a summary lead, metadata
    ("From", "Published"), a contents list (not), the notice body in govspeak with numbered
    sections, a callout and a table; "Is this page useful?", related content, a heavy footer."""
    pr = b.prose
    title = f"{pr.short(2, 4).title()}: notice {b.rng.randint(1, 40)} of {b.rng.randint(2019, 2024)}"
    lead = pr.sentence("news")
    b.truth.append(lead)
    heads = [pr.heading() for _ in range([4, 2, 6][v])]
    body = []
    for i, h in enumerate(heads):
        body.append(b.h(2, f"{i + 1}. {h}"))
        for k in range(b.rng.randint(1, 3)):
            body.append(b.p(f"{i + 1}.{k + 1} {pr.paragraph('news', 2, 4)}", link_p=0.05))
        if i == 0:
            t = pr.sentence("news")
            b.truth.append(t)
            body.append(f"<div class='call-to-action'><p>{esc(t)}</p></div>")
        if i == 1:
            body.append(b.table(["Category", "Fee", "Deadline"], [[pr.short(1, 3), f"£{b.rng.randint(10, 900)}", b.date()] for _ in range(3)]))
    toc = "<nav class='gem-c-contents-list' aria-label='Contents'><h2 class='gem-c-contents-list__title'>Contents</h2><ol>" + "".join(f"<li><a href='#'>{i + 1}. {esc(h)}</a></li>" for i, h in enumerate(heads)) + "</ol></nav>"
    related = "<div class='gem-c-related-navigation'><h2>Related content</h2><ul>" + "".join(f"<li><a href='#'>{esc(pr.headline())}</a></li>" for _ in range(5)) + "</ul><h3>Explore the topic</h3>" + b.menu(3) + "</div>"
    page = (b.head(f"{title} - GOV.UK", title, scripts=2) + "<body class='govuk-template__body'>" + b.cookie_banner(2)
            + "<header class='govuk-header' role='banner'><a href='/' class='govuk-header__logotype'>GOV.UK</a>" + b.menu(4) + "</header>"
            + "<div class='govuk-width-container'><div class='govuk-breadcrumbs'><ol>" + "".join(f"<li><a href='#'>{esc(pr.short(1, 2))}</a></li>" for _ in range(4)) + "</ol></div>"
            + "<main class='govuk-main-wrapper' id='main-content' role='main'><div class='govuk-grid-row'><div class='govuk-grid-column-two-thirds'>"
            + f"<span class='govuk-caption-xl'>Notice</span><h1 class='gem-c-title__text govuk-heading-l'>{esc(title)}</h1><p class='gem-c-lead-paragraph'>{esc(lead)}</p></div></div>"
            + f"<div class='gem-c-metadata'><dl><dt>From:</dt><dd><a href='#'>{esc(pr.pick('org'))}</a></dd><dt>Published</dt><dd>{b.date()}</dd></dl></div>"
            + f"<div class='govuk-grid-row'><div class='govuk-grid-column-two-thirds'>{toc}<div class='govspeak'>{''.join(body)}</div>"
            + "<div class='gem-c-print-link'><button>Print this page</button></div></div>"
            + f"<div class='govuk-grid-column-one-third'>{related}</div></div>"
            + "<div class='gem-c-feedback'><h2>Is this page useful?</h2><button>Yes</button><button>No</button><a href='#'>Report a problem with this page</a></div></main></div>"
            + "<footer class='govuk-footer' role='contentinfo'>" + b.fat_footer(2, "GOV.UK") + "</footer></body></html>")
    return page, title


def science_blog(b: Builder, v: int) -> tuple[str, str]:
    """A science blog post: figures with long captions (not), inline footnote markers and a
    footnotes section (not), an equation block and a references list (not), author box."""
    pr = b.prose
    title = pr.headline()
    parts = []
    fn = 0
    for i in range([8, 5, 11][v]):
        text = pr.paragraph("news", 2, 5)
        if i % 3 == 1:
            fn += 1
            b.truth.append(f"{text}[{fn}]")
            parts.append(f"<p>{b.inline(text, 0.1)}<sup class='footnote-ref'><a href='#fn{fn}' id='fnref{fn}'>[{fn}]</a></sup></p>")
        else:
            parts.append(b.p(text, link_p=0.1))
        if i == 1:
            parts.append(f"<figure class='figure'><img src='/fig{i}.png' alt='Figure'><figcaption><strong>Figure 1.</strong> {esc(pr.paragraph('news', 2, 3))}</figcaption></figure>")
        if i == 2:
            parts.append(b.h(2, pr.heading()))
            eq = f"E = {b.rng.randint(2, 9)} k T ln(N / N0)"
            b.truth.append(eq)
            parts.append(f"<div class='math display'>{esc(eq)}</div>")
        if i == 4:
            parts.append(f"<figure class='figure'><img src='/fig{i}.png' alt='Figure'><figcaption><strong>Figure 2.</strong> {esc(pr.paragraph('news', 1, 2))}</figcaption></figure>")
            parts.append(b.h(2, pr.heading()))
    notes = "<section class='footnotes' role='doc-endnotes'><hr><ol>" + "".join(f"<li id='fn{k + 1}'><p>{esc(pr.sentence('blog'))} <a href='#fnref{k + 1}' class='footnote-back'>↩︎</a></p></li>" for k in range(fn)) + "</ol></section>"
    refs = "<h2>References</h2><ol class='references'>" + "".join(f"<li>{esc(pr.person())} et al. ({b.rng.randint(1990, 2023)}). {esc(pr.headline())}. <i>J. {esc(pr.short(1, 2).title())}</i> {b.rng.randint(1, 99)}:{b.rng.randint(1, 999)}.</li>" for _ in range(6)) + "</ol>"
    page = (b.head(f"{title} | Field Notes in Physics", title, scripts=3) + "<body>" + b.site_header("Field Notes", 6)
            + f"<div class='page'><main class='content'><article class='post h-entry'><header class='post-header'><h1 class='post-title p-name'>{esc(title)}</h1><p class='post-meta'><time>{b.date()}</time> • {esc(pr.person())}</p></header>"
            + f"<div class='post-content e-content'>{''.join(parts)}{notes}{refs}</div>"
            + f"<div class='author-box'><p>{esc(pr.person())} is {pr.pick('role')}. {esc(pr.sentence('blog'))}</p></div></article></main>"
            + f"<aside class='sidebar'><h3>Recent posts</h3>{b.menu(6)}<h3>Archive</h3>{b.menu(8)}</aside></div>"
            + b.fat_footer(2, "Field Notes") + "</body></html>")
    return page, title


def docs_tabs(b: Builder, v: int) -> tuple[str, str]:
    """A documentation page (Docusaurus style): sidebar tree, admonitions (note/warning:
    content), code tabs (only the selected tab is visible: content; the hidden tabs are not),
    "Edit this page", previous/next, table of contents on the right."""
    pr = b.prose
    title = pr.short(2, 4).title()
    parts = []
    for i in range([6, 4, 8][v]):
        if i % 2 == 0 and i:
            parts.append(b.h(2, pr.heading(), anchor=True))
        parts.append(b.p(pr.tech_paragraph(2, 4), link_p=0.1))
        if i == 1:
            kind = b.rng.choice(["note", "warning", "tip"])
            t = pr.tech_sentence()
            b.truth.append(kind)
            b.truth.append(t)
            parts.append(f"<div class='theme-admonition theme-admonition-{kind} admonition_xJq3 alert alert--info'><div class='admonitionHeading_Gvgb'><span class='admonitionIcon_Rf37'><svg></svg></span>{kind}</div><div class='admonitionContent_BuS1'><p>{esc(t)}</p></div></div>")
        if i == 2:
            langs = ["npm", "yarn", "pnpm"]
            codes = [f"{l} {'install' if l != 'yarn' else 'add'} @acme/{b.slug(pr.short(1, 2))}" for l in langs]
            b.truth.append(codes[0])
            tabs = "<ul role='tablist' class='tabs'>" + "".join(f"<li role='tab' class='tabs__item{' tabs__item--active' if k == 0 else ''}' aria-selected='{'true' if k == 0 else 'false'}'>{l}</li>" for k, l in enumerate(langs)) + "</ul>"
            panels = "".join(f"<div role='tabpanel' class='tabItem_Ymn6'{'' if k == 0 else ' hidden'}><div class='codeBlockContainer'><pre class='prism-code'><code>{esc(c)}</code></pre><button class='clean-btn'>Copy</button></div></div>" for k, c in enumerate(codes))
            parts.append(f"<div class='tabs-container tabList__CuJ'>{tabs}<div class='margin-top--md'>{panels}</div></div>")
        if i == 3:
            parts.append(b.pre(pr.code("python")))
    toc = "<div class='col col--3'><div class='tableOfContents_bqdL thin-scrollbar'><ul class='table-of-contents'>" + "".join(f"<li><a class='table-of-contents__link' href='#'>{esc(pr.heading())}</a></li>" for _ in range(4)) + "</ul></div></div>"
    page = (b.head(f"{title} | Acme Docs", title, scripts=6) + "<body class='navigation-with-keyboard'><div id='__docusaurus'><nav class='navbar navbar--fixed-top'>" + b.menu(5) + "</nav>"
            + "<div class='main-wrapper docsWrapper_hBAB'><div class='docRoot_UBD9'><aside class='theme-doc-sidebar-container'><nav class='menu thin-scrollbar'>" + b.menu(14, nested=4) + "</nav></aside>"
            + "<main class='docMainContainer_TBSr'><div class='container padding-top--md'><div class='row'><div class='col docItemCol_VOVn'>"
            + "<nav class='theme-doc-breadcrumbs' aria-label='Breadcrumbs'>" + b.menu(3) + "</nav>"
            + f"<article><div class='theme-doc-markdown markdown'><header><h1>{esc(title)}</h1></header>{''.join(parts)}</div></article>"
            + "<div class='theme-doc-footer docusaurus-mt-lg'><a href='#' class='theme-edit-this-page'>Edit this page</a><span class='theme-last-updated'>Last updated on " + b.date() + "</span></div>"
            + f"<nav class='pagination-nav docusaurus-mt-lg' aria-label='Docs pages'><a class='pagination-nav__link' href='#'><div class='pagination-nav__sublabel'>Previous</div><div class='pagination-nav__label'>{esc(pr.short(2, 3))}</div></a><a class='pagination-nav__link' href='#'><div class='pagination-nav__sublabel'>Next</div><div class='pagination-nav__label'>{esc(pr.short(2, 3))}</div></a></nav></div>"
            + toc + "</div></div></main></div></div><footer class='footer footer--dark'>" + b.menu(9) + "<div class='footer__copyright'>Copyright © 2024 Acme, Inc. Built with Docusaurus.</div></footer></div></body></html>")
    return page, title


def shop_category(b: Builder, v: int) -> tuple[str, str]:
    """An e-commerce category page: an editorial intro above the product grid (content), a
    faceted filter sidebar, product cards with names/prices/ratings (not), a buying guide below
    the grid (content), "Recently viewed" and a newsletter box."""
    pr = b.prose
    thing = b.rng.choice(["Walking Boots", "Desk Lamps", "Rain Jackets", "Coffee Grinders"])
    title = f"{thing}"
    intro = [pr.paragraph("blog", 2, 3) for _ in range([1, 1, 2][v])]
    b.truth.extend(intro)
    cards = "".join(f"<li class='product-grid__item'><div class='product-card'><a href='#'><img src='/p{k}.jpg' alt=''><h3 class='product-card__title'>{esc(pr.short(2, 4).title())} {esc(thing[:-1])}</h3></a>"
                    f"<div class='product-card__rating'>{b.rng.randint(30, 50) / 10} ★ ({b.rng.randint(3, 900)})</div><div class='product-card__price'>£{b.rng.randint(15, 300)}.00</div><button class='product-card__cta'>Add to basket</button></div></li>" for k in range([24, 12, 36][v]))
    guide = []
    if v != 1:
        guide.append(b.h(2, f"How to choose {thing.lower()}"))
        for _ in range([3, 0, 5][v]):
            guide.append(b.h(3, pr.heading()))
            guide.append(b.p(pr.paragraph("blog", 2, 4), link_p=0.1))
    facets = "".join(f"<fieldset class='facet'><legend>{esc(pr.short(1, 2))}</legend>" + "".join(f"<label><input type='checkbox'> {esc(pr.short(1, 2))} ({b.rng.randint(1, 99)})</label>" for _ in range(5)) + "</fieldset>" for _ in range(5))
    page = (b.head(f"{title} | Trailhead Outfitters", title, scripts=8) + "<body>" + b.cookie_banner(0) + b.site_header("Trailhead Outfitters", 12)
            + "<main id='main'><nav class='breadcrumb'>" + b.menu(3) + "</nav>"
            + f"<div class='category-header'><h1 class='category-title'>{esc(title)}</h1><div class='category-description rte'>" + "".join(f"<p>{b.inline(t, 0.15)}</p>" for t in intro) + "</div></div>"
            + f"<div class='category-layout'><aside class='filters'><h2>Filter</h2>{facets}</aside><div class='category-products'><div class='toolbar'><span>{[24, 12, 36][v]} products</span><select><option>Sort by: Featured</option></select></div><ul class='product-grid'>{cards}</ul>"
            + "<nav class='pagination'><a href='#'>1</a><a href='#'>2</a><a href='#'>Next</a></nav></div></div>"
            + f"<div class='category-seo-content'>{''.join(guide)}</div>"
            + f"<section class='recently-viewed'><h2>Recently viewed</h2>{b.menu(4)}</section>{b.newsletter()}</main>"
            + b.fat_footer(0, "Trailhead Outfitters") + "</body></html>")
    return page, title


def podcast_notes(b: Builder, v: int) -> tuple[str, str]:
    """A podcast episode page: audio player, episode description and show notes with a
    timestamped chapter list and "Links mentioned" (content), subscribe buttons for apps, a
    transcript teaser link, "More episodes" cards (not)."""
    pr = b.prose
    ep = b.rng.randint(12, 280)
    title = f"Ep. {ep}: {pr.headline()}"
    desc = [pr.paragraph("blog", 2, 4) for _ in range([2, 1, 3][v])]
    b.truth.extend(desc)
    chapters = [f"{m:02d}:{b.rng.randint(0, 59):02d} {pr.short(3, 7)}" for m in sorted(b.rng.sample(range(0, 70), [6, 4, 9][v]))]
    b.truth.append("Chapters")
    b.truth.extend(chapters)
    links = [pr.headline() for _ in range([4, 2, 6][v])]
    b.truth.append("Links mentioned")
    b.truth.extend(links)
    more = "".join(f"<div class='episode-card'><a href='#'><h3>Ep. {ep - k - 1}: {esc(pr.headline())}</h3></a><p>{esc(pr.sentence('blog'))}</p><span>{b.rng.randint(20, 90)} min</span></div>" for k in range(5))
    apps = "".join(f"<a class='subscribe-link' href='#'>{a}</a>" for a in ["Apple Podcasts", "Spotify", "Overcast", "Pocket Casts", "RSS"])
    page = (b.head(f"{title} — The Long Table", title, scripts=6) + "<body class='episode-page'>" + b.site_header("The Long Table", 6)
            + f"<main><div class='episode-hero'><p class='episode-number'>Episode {ep}</p><h1 class='episode-title'>{esc(title)}</h1><p class='episode-meta'>{b.date()} · {b.rng.randint(30, 90)} min</p>"
            + f"<div class='player' data-src='/ep{ep}.mp3'><button aria-label='Play'>▶</button><span class='player__time'>00:00 / 58:12</span><button>1x</button><a href='/ep{ep}.mp3' download>Download</a></div>"
            + f"<div class='subscribe-buttons'><span>Listen on</span>{apps}</div></div>"
            + "<div class='episode-body'><div class='show-notes'>" + "".join(f"<p>{b.inline(t, 0.1)}</p>" for t in desc)
            + "<h2>Chapters</h2><ul class='chapters'>" + "".join(f"<li><a class='timestamp' href='#t={c[:5]}'>{c[:5]}</a>{esc(c[5:])}</li>" for c in chapters) + "</ul>"
            + "<h2>Links mentioned</h2><ul>" + "".join(f"<li><a href='{attr(b.href(l))}'>{esc(l)}</a></li>" for l in links) + "</ul></div>"
            + f"<p class='transcript-link'><a href='#'>Read the full transcript</a></p></div>"
            + f"<section class='more-episodes'><h2>More episodes</h2>{more}</section></main>"
            + b.fat_footer(1, "The Long Table") + "</body></html>")
    return page, title


FAMILIES: dict[str, Callable[[Builder, int], tuple[str, str]]] = {
    f.__name__: f for f in (news_classic, wp_blog, forum_discourse, docs_sphinx, listicle, news_textblocks, qa_site,
                            magazine_longread, news_divsoup, medium_blog, wiki, docs_mdn, forum_table, recipe_blog,
                            faq_gov, changelog,
                            news_amp, newsletter_post, repo_readme, hn_thread, blogspot_post, docs_gitbook,
                            press_release, journal_abstract,
                            reddit_thread, elementor_page, howto_steps, mail_archive, product_page, report_html,
                            hugo_blog, live_sports,
                            stackexchange_qa, substack_post, gov_notice, science_blog, docs_tabs, shop_category,
                            podcast_notes)
}

TOPIC_CYCLE = ["energy", "health", "transport", "technology", "food", "science", "economy", "education"]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*"):
        if old.suffix in (".html", ".txt") or old.name == "manifest.json":
            old.unlink()
    manifest = []
    for fi, (family, fn) in enumerate(FAMILIES.items()):
        for v in range(VARIANTS):
            seed = SEED + fi * 100 + v
            rng = random.Random(seed)
            prose = Prose(rng, TOPIC_CYCLE[(fi + v) % len(TOPIC_CYCLE)])
            host = f"www.{family.replace('_', '')}.example"
            b = Builder(rng, prose, host)
            page, title = fn(b, v)
            name = f"{family}_{v}"
            (OUT / f"{name}.html").write_text(page, encoding="utf-8")
            (OUT / f"{name}.txt").write_text("\n\n".join(t.strip() for t in b.truth) + "\n", encoding="utf-8")
            manifest.append({"name": name, "family": family, "split": SPLIT[family], "variant": v, "seed": seed,
                             "url": f"https://{host}/{b.slug(title)}", "title": title,
                             "about": (fn.__doc__ or "").split("\n")[0].strip(),
                             "html_bytes": len(page.encode("utf-8")), "body_words": sum(len(t.split()) for t in b.truth)})
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    dev = sum(1 for m in manifest if m["split"] == "dev")
    print(f"wrote {len(manifest)} pages to {OUT} ({dev} dev, {len(manifest) - dev} held-out)")


if __name__ == "__main__":
    main()
