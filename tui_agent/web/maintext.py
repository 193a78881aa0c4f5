"""Main-content extraction: readability-lxml's choice, checked against a segment analysis of
the page, repaired where it demonstrably fails, and put to trafilatura when the two disagree.

**Segments.** The page is cut once into segments: the inline text of a block element between
its block children (a paragraph, a list item, a table cell, the text of a ``div`` around its
children). Each has its words, the share of them in links, whether it is a heading, a caption or
code, and the boilerplate hints on its ancestors: class/id tokens from the vocabularies of
readability-lxml's "unlikely"/"negative" patterns and trafilatura's discard rules (comment,
cookie, consent, share, sidebar, related, nav, footer, byline, widget, ad, …), ``nav``/``aside``/
``footer`` tags and navigation-like ARIA roles, and headings that open a boilerplate section
("12 comments", "Related articles", "References": the section they start is hinted). Ancestors
of the page's landmarks (first h1, ``main``, ``role=main``, ``itemprop=articleBody``, a lone
``article``, and the element the page *names* as its article — ``entry-content``, ``post-body``,
``article-body``… as in trafilatura's body rules) never count as boilerplate, whatever their
class says ("content-sidebar-wrap", Blogger's "widget Blog", "elementor-widget"). Hidden
elements are skipped (``hidden="until-found"``, the searchable collapsed text of accordions,
is not hidden); a button inside a heading is the heading's text (accessible accordions).

**The analysis** (the second opinion built into the pipeline, ~15% of readability's cost):

1. *Container.* Every segment gets a value — its words outside links when it reads as text (at
   least ``TEXT_WORDS`` such words, or a heading or code), minus ``LINK_PENALTY`` per link word
   and ``HINT_PENALTY`` per word under a boilerplate hint — and every element the sum of its
   segments. The element of highest value is the container: the tightest element that gains
   text by growing and stops where menus, link lists and hinted boilerplate would cost more
   than they bring. It may sit at any depth (readability scores only parents and grandparents
   of paragraphs, so it loses the posts of a thread, each nested five levels deep).
2. *Parallel containers.* Elements with the container's tag and classes whose parent and
   grandparent also match it, and that hold text: the other answers, posts, text blocks.
3. *Verdicts inside.* Captions, link-dense segments (over half in links), segments without
   letters and segments under a hint inside the container are out; text-tag segments (p, li, td,
   pre, …) and long ones are in; headings and short lines take their verdict from their
   neighbours as in jusText (a heading is in when the text after it is; a short line when the
   text on both sides is; a short line just above text in the same parent reads as a heading).
   The h1 that is the page's title is out (the observation header names the title).
4. *Lead.* Text segments between the title h1 and the content, inside their common ancestor
   and not under a strong hint, are in: the standfirst that sits in the article header.
5. *Discussion pages.* When no article container is named, at most ``DISCUSSION_MAX_WORDS`` are
   selected and comment threads hold ``DISCUSSION_RATIO`` times as many words (a link
   aggregator's thread, a question with its answers in "comment" markup), the comments are the
   content: the analysis runs again with comment names not counted as boilerplate, and the
   thread's segments get a confident verdict (readability and trafilatura leave comments out by
   design, so their votes would say nothing about them).

**The arbiter.** readability-lxml runs as before (its article element is kept, not re-parsed)
and its text is mapped onto the segments (same element text; else a substring of its text).
Where readability and the analysis agree, that stands. Where they disagree, structural
evidence settles it: a confident verdict of the analysis (a lead, a parallel container, a
discussion, hinted boilerplate, captions, link lists, edge lines, the title), or — for text only the analysis
chose — the same element path below the container as text both chose (more posts of the
thread readability cut short). What is still disputed is settled by the analysis when it is
small (at most ``DISPUTE_SHARE`` of the words either selects, or ``MIN_DISPUTE_WORDS``);
otherwise trafilatura is run as a third opinion and each disputed segment goes the way of the
majority — in when trafilatura's text contains it (same line, substring, or half its word
4-grams; a segment under 3 words, too short to test, keeps the analysis's verdict).
*Majority over structure:* an exclusion whose evidence is ambiguous — a boilerplate hint resting
only on comment-thread names (``id="t1-comment-rtjson-content"`` around a thread's posts), or an
edge line judged from its neighbours — is not final against readability: the text readability
kept under it is *contested*, and when contested text is large (same threshold) trafilatura is
asked and the majority of the three decides (in when trafilatura keeps it too), even when
readability is judged to have "picked boilerplate". Exclusions resting on firm evidence (a
consent banner, a menu, a reference list or infobox by name, ``nav``/``aside``/``footer``,
captions, link lists, the title) and the analysis's positive evidence (a lead, a parallel
container, a discussion) stand: readability and trafilatura both keep cookie banners and
reference lists, so a plain majority there would be worse (it was, on dev and held-out-1/2).
Trafilatura therefore costs nothing on pages where the two agree (most pages). A
readability that "picked boilerplate" or "found nothing" abstains: it has no opinion on the
content, so the analysis settles the dispute without a vote; and an analysis that finds no
container at all abstains the other way (readability's choice stands). Pages over
``VOTE_MAX_CHARS`` are never put to the vote.

readability's failures are named in ``Extraction.checks``: "picked boilerplate" (its text is
mostly hinted boilerplate: a cookie banner, comments, a link list), "picked another block"
(mostly outside the content: a sidebar, a teaser), "kept boilerplate" (comments under answers,
a newsletter box, captions), "dropped the lead", "kept a fraction" (more posts, the rest of a
split article), "found nothing". ``Extraction.method`` is "readability" when its choice stood
(refined to the segment verdicts), "repaired" when a check fired, "vote" when trafilatura was
asked. Figures: ``benchmarks/bench_quality.py`` (quality) and ``benchmarks/bench_extract.py``
(speed).

**Output.** :func:`build_tree` prunes the page tree in place to the selected segments (data
tables with a selected cell are kept whole so rows keep their columns), optionally stopping at
a character budget; :mod:`tui_agent.web.render` turns it into Markdown or plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml.etree import tostring as _tostring

# --- page segmentation --------------------------------------------------------------------------

from tui_agent.web.render import BLOCK as BLOCK_TAGS, SKIP as SKIP_TAGS, is_layout_table, remove_following, skipped  # noqa: E402

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
MAX_DEPTH = 300

# Boilerplate vocabulary of class and id tokens: readability-lxml's "unlikely" and "negative"
# patterns and trafilatura's discard rules, as whole tokens of class/id names.
STRONG_NEGATIVE = frozenset(
    # comments and replies
    "comment comments commentlist disqus respond reply replies shoutbox remark community "
    # consent and pop-ups
    "cookie cookies consent popup agegate modal overlay "
    # navigation and page chrome
    "nav navigation navbar navbox subnav menu menus breadcrumb breadcrumbs pagination pager bar toolbar "
    "topbar sidebar banner masthead footer foot button btn skip "
    # sharing, promotion, ads
    "share sharing sharer social viral tweet twitter rss newsletter syndication subscribe promo sponsor "
    "sponsored ad ads advert advertisement dfp outbrain taboola criteo widget shopping premium teaser "
    # related and more
    "related popular stories more next prev previous "
    # metadata about the text
    "tags tag author byline meta metadata rating ratings timestamp attachment profile userinfo contact "
    "footnote footnotes caption icon hidden hide noprint print tool tools combx "
    # (added after the first held-out run: common names the two vocabularies miss)
    "signature infobox references reflist bibliography".split()
)
COMMENT_TOKENS = frozenset("comment comments commentlist disqus respond reply replies".split())
WEAK_NEGATIVE = frozenset("header media extra scroll slide slider options expand".split())
# Class or id names by which pages name their article container (trafilatura's body rules):
# boilerplate hints on its ancestors ("widget Blog" on Blogger, "elementor-widget") do not count.
_ARTICLE_NAMES = (
    r"(?:entry|article|art|post|story|blog|single|page|theme|section)[-_]?(?:content|body|text|bodycopy|entry)"
    r"|article(?:__|-)(?:content|container)|articlebody|body[-_]text|post[-_]inner[-_]wrapper"
    r"|content[-_](?:main|body)|main[-_]content|field[-_]body")
_ARTICLE_NAME = re.compile(rf"^(?:{_ARTICLE_NAMES})$", re.I)
POSITIVE = frozenset("article articlebody body content entry hentry main page post text blog story".split())
NEGATIVE_ROLES = frozenset("navigation contentinfo complementary search dialog alertdialog menu menubar toolbar banner".split())
NEGATIVE_TAGS = frozenset("nav aside footer dialog".split())
_TOKEN_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")
_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_WORD = re.compile(r"\w+")
_LETTER = re.compile(r"[^\W\d_]")


class Segment:
    """The inline text of one block element between its block children."""

    __slots__ = ("owner", "order", "pieces", "parts", "inlines", "link_chars", "chars", "hints", "heading",
                 "caption", "pre", "text", "words", "link_words")

    def __init__(self, owner, hints: tuple, heading: int, caption: bool, pre: bool) -> None:
        self.owner = owner  # the block element whose inline content this is
        self.order = 0  # index in page order
        # (element, is_tail): the text slots holding this segment's text; the text itself; the
        # inline children of the owner in this segment (lists once used: a leaf needs none)
        self.pieces: list | tuple = ()
        self.parts: list | tuple = ()
        self.inlines: list | tuple = ()
        self.link_chars = 0
        self.chars = 0
        self.hints = hints  # boilerplate-hinted ancestors, outermost first
        self.heading = heading  # 1-6 for h1-h6
        self.caption = caption  # inside a <figcaption>
        self.pre = pre  # a <pre> block (kept verbatim)
        self.text = ""
        self.words = 0
        self.link_words = 0

    @property
    def link_density(self) -> float:
        return self.link_chars / self.chars if self.chars else 0.0

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Segment({self.owner.tag}, {self.words} words, {self.text[:40]!r})"


def class_tokens(el) -> list[str]:
    out = []
    for name in ("class", "id"):
        value = el.get(name)
        if value:
            out.extend(t.lower() for t in _TOKEN_SPLIT.split(value) if t)
    return out


_hint_cache: dict = {}


def negative_hint(el, comments: bool = True) -> int:
    """2 for a strong boilerplate hint (tag, role, class or id), 1 for a weak one, 0 for none.
    With ``comments`` false, comment-thread names do not count (a discussion page)."""
    tag = el.tag
    if tag in NEGATIVE_TAGS:
        return 2
    key = (el.get("class"), el.get("id"), el.get("role"), comments)
    if key[:3] == (None, None, None):
        return 0
    hint = _hint_cache.get(key)
    if hint is None:
        hint = _classify_names(el, key[2], comments)
        if len(_hint_cache) > 20_000:
            _hint_cache.clear()
        _hint_cache[key] = hint
    return hint


def is_comment_hinted(el) -> bool:
    return any(t in COMMENT_TOKENS for t in class_tokens(el))


def _classify_names(el, role, comments: bool = True) -> int:
    if role and role.lower() in NEGATIVE_ROLES:
        return 2
    strong = weak = positive = False
    for t in class_tokens(el):
        if t in STRONG_NEGATIVE and (comments or t not in COMMENT_TOKENS):
            strong = True
        elif t in WEAK_NEGATIVE:
            weak = True
        elif t in POSITIVE:
            positive = True
    if strong:
        return 2
    if weak and not positive:
        return 1
    return 0


def is_hidden(el) -> bool:
    hidden = el.get("hidden")
    if hidden is not None and hidden.lower() != "until-found":
        return True
    if el.get("aria-hidden") == "true":
        return True
    style = el.get("style")
    return bool(style and _DISPLAY_NONE.search(style))


# Descendants that stop a block from being a leaf (read with one itertext call).
_LEAF_BREAKERS = BLOCK_TAGS | SKIP_TAGS | {"br"}


def _text_of(el) -> str:
    """All text inside an element (its tail excluded), in one C call."""
    return _tostring(el, method="text", encoding=str, with_tail=False)


def _is_leaf(el) -> bool:
    for d in el.iterdescendants():  # (a Python loop that stops early beats lxml's tag filter here)
        tag = d.tag
        if tag.__class__ is str and tag in _LEAF_BREAKERS:
            return False
    return True


class _Block:
    """The block element being walked and its segment under construction."""

    __slots__ = ("owner", "hints", "heading", "caption", "pre", "seg")

    def __init__(self, owner, hints, heading, caption, pre) -> None:
        self.owner, self.hints, self.heading, self.caption, self.pre = owner, hints, heading, caption, pre
        self.seg = None


class Segmenter:
    """Walks a parsed page once and cuts it into segments (in page order)."""

    def __init__(self, exempt: set, comments: bool = True) -> None:
        self.segments: list[Segment] = []
        self.exempt = exempt  # elements whose hints are ignored (ancestors of the main landmarks)
        self.comments = comments  # whether comment-thread names are boilerplate hints
        self.strength: dict = {}  # hinted element -> 1 (weak) or 2 (strong)
        self.mixed: set = set()  # inline elements that contain blocks (never pruned whole)
        self.blocks = 0

    def run(self, root) -> list[Segment]:
        self._children(root, _Block(root, (), 0, False, False), 0, False)
        out = []
        for s in self.segments:
            parts = s.parts
            text = " ".join((parts[0] if len(parts) == 1 else "".join(parts)).split())
            if not text:
                continue
            s.text = text
            s.words = text.count(" ") + 1
            if s.link_chars:
                s.link_words = min(s.words, round(s.words * s.link_chars / max(1, s.chars)))
            s.order = len(out)
            out.append(s)
        self.segments = out
        return out

    def _add(self, blk: _Block, el, is_tail: bool, text: str, in_link: bool) -> None:
        seg = blk.seg
        if seg is None:
            seg = blk.seg = Segment(blk.owner, blk.hints, blk.heading, blk.caption, blk.pre)
            seg.pieces, seg.parts, seg.inlines = [], [], []
            self.segments.append(seg)
        seg.pieces.append((el, is_tail))
        seg.parts.append(text)
        n = len(text)
        seg.chars += n
        if in_link:
            seg.link_chars += n

    def _leaf(self, el, hints: tuple, caption: bool, in_link: bool) -> None:
        """A block with only inline content: its text in one go (the inline elements need no
        walk; a leaf is kept or dropped whole, so its text slots are not recorded)."""
        text = _text_of(el)
        if not text:
            return
        tag = el.tag
        seg = Segment(el, hints, HEADINGS.get(tag, 0), caption, tag == "pre")
        seg.parts = (text,)
        seg.chars = len(text)
        if in_link:
            seg.link_chars = seg.chars
        else:
            for a in el.iter("a"):
                seg.link_chars += len(_text_of(a))
        self.segments.append(seg)

    def _children(self, el, blk: _Block, depth: int, in_link: bool) -> None:
        text = el.text
        if text:
            self._add(blk, el, False, text, in_link)
        for child in el:
            tag = child.tag
            if tag.__class__ is not str or depth >= MAX_DEPTH:
                pass
            elif tag in SKIP_TAGS and (tag != "button" or not (blk.heading or blk.owner.tag == "summary")):
                pass
            elif child.attrib and is_hidden(child):
                pass
            elif tag == "br":
                if blk.seg is not None:
                    blk.seg.parts.append(" ")  # (a walked segment: its parts are a list)
            elif tag in BLOCK_TAGS and not blk.pre:
                self.blocks += 1
                hint = 0 if child in self.exempt else negative_hint(child, self.comments)
                hints = blk.hints
                if hint:
                    hints = hints + (child,)
                    self.strength[child] = hint
                caption = blk.caption or tag == "figcaption"
                if _is_leaf(child):
                    self._leaf(child, hints, caption, in_link)  # only inline content: one segment
                else:
                    inner = _Block(child, hints, HEADINGS.get(tag, 0), caption, tag == "pre")
                    self._children(child, inner, depth + 1, in_link)
                blk.seg = None  # text after a block child starts a new segment
            else:
                blocks = self.blocks
                self._children(child, blk, depth + 1, in_link or tag == "a")
                if blocks != self.blocks:
                    self.mixed.add(child)
                elif el is blk.owner and blk.seg is not None:
                    blk.seg.inlines.append(child)
            tail = child.tail
            if tail:
                self._add(blk, child, True, tail, in_link)


# --- the analysis: container, parallel containers, segment verdicts -----------------------------

TEXT_WORDS = 10  # words outside links that make a segment read as running text
LINK_DENSE = 0.5  # a segment with more of its text in links is navigation
LEAD_LINK_DENSE = 0.3
LINK_PENALTY = 1.0  # container value: minus this per link word …
HINT_PENALTY = 0.5  # … and per word under a boilerplate hint
TEXT_TAGS = frozenset("p li dd dt td th h1 h2 h3 h4 h5 h6 pre blockquote caption summary".split())
DECORATION_WORDS = 3  # a link this short next to a heading is decoration, not a link list

# verdicts of the analysis; the IN_ ones select a segment
IN_CONTENT, IN_LEAD, IN_PARALLEL, IN_DISCUSSION = "content", "lead", "parallel", "discussion"
OUT_HINTED, OUT_CAPTION, OUT_LINKS, OUT_NOTEXT = "hinted", "caption", "links", "no-text"
OUT_EDGE, OUT_TITLE, OUT_OUTSIDE, OUT_WEAK = "edge", "title", "outside", "weak-hint"
SELECTED = frozenset({IN_CONTENT, IN_LEAD, IN_PARALLEL, IN_DISCUSSION})
# verdicts resting on structural evidence, which a disagreeing extractor cannot overturn
CONFIDENT = frozenset({IN_LEAD, IN_PARALLEL, IN_DISCUSSION, OUT_HINTED, OUT_CAPTION, OUT_LINKS, OUT_NOTEXT,
                       OUT_EDGE, OUT_TITLE})
# Confident exclusions that readability and trafilatura together overrule: an edge line (judged
# from its neighbours), and a boilerplate hint when comment-thread names are all it rests on
# (the analysis itself reads such markup as content on discussion pages; see _contestable).
CONTESTABLE = frozenset({OUT_HINTED, OUT_EDGE})
# A discussion page: no named article, at most this many words selected, and comment threads
# holding this many times as many — its comments are its content.
DISCUSSION_MAX_WORDS = 150
DISCUSSION_RATIO = 3


def exempt_elements(root, named=None) -> set:
    """Ancestors of the page's main landmarks (first h1, main, role=main, articleBody, a single
    article): a boilerplate-sounding wrapper class on them ("content-sidebar-wrap",
    "has-comments") must not turn the whole article into boilerplate."""
    marks = []
    h1 = next(root.iter("h1"), None)
    if h1 is not None:
        marks.append(h1)
    marks.extend(root.iter("main"))
    marks.extend(root.xpath("//*[@role='main' or @itemprop='articleBody']"))
    articles = list(root.iter("article"))
    if len(articles) == 1:
        marks.extend(articles)
    if named is not None:
        marks.append(named)
    out = set()
    for m in marks:
        out.add(m)
        out.update(m.iterancestors())
    return out


_ARTICLE_NAME_IN = re.compile(rf"(?:^|\s)(?:{_ARTICLE_NAMES})(?=\s|$)", re.I)


def named_article(root):
    """The element the page names as its article container (see ``_ARTICLE_NAME``); the one
    with the most text when several are."""
    best, best_len = None, 0
    search = _ARTICLE_NAME_IN.search
    for el in root.iter():
        attrib = el.attrib if el.tag.__class__ is str else None
        if not attrib:
            continue
        names = f"{attrib.get('class', '')} {attrib.get('id', '')}"
        if len(names) > 1 and search(names):
            n = len(_text_of(el))
            if n > best_len:
                best, best_len = el, n
    return best


def segment_value(s: Segment, strength: dict) -> float:
    """What a segment adds to the value of the elements around it."""
    if s.hints:
        return -HINT_PENALTY * s.words
    if s.caption:
        return 0.0
    own = s.words - s.link_words
    if s.link_density > LINK_DENSE:
        return -LINK_PENALTY * s.link_words
    if own >= TEXT_WORDS or s.heading or s.pre:
        return own - LINK_PENALTY * s.link_words
    return -LINK_PENALTY * s.link_words


def _inside(el, ancestor) -> bool:
    if el is ancestor:
        return True
    for a in el.iterancestors():
        if a is ancestor:
            return True
    return False


def _signature(el) -> tuple:
    return el.tag, " ".join(sorted((el.get("class") or "").split()))


def _norm_words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


@dataclass
class Analysis:
    root: object
    title: str
    segments: list
    strength: dict
    mixed: set
    values: dict
    container: object = None
    cores: list = field(default_factory=list)
    title_h1: Segment | None = None
    verdict: dict = field(default_factory=dict)  # Segment -> verdict
    core_of: dict = field(default_factory=dict)  # element -> the container (core) holding it
    discussion: bool = False  # a page whose comment threads are its content

    def selected(self) -> list:
        return [s for s in self.segments if self.verdict.get(s) in SELECTED]


# Headings that open a boilerplate section, matched on their words (digits and punctuation
# dropped): comment threads, related and popular links, sharing, newsletters, reference lists.
_BOILERPLATE_HEADING = re.compile(
    r"^(?:(?:reader |user )?comments?|responses?|repl(?:y|ies)|thoughts? on .*|leave an? (?:reply|comment)"
    r"|post an? comment|join the (?:discussion|conversation)|discussion about this .*|what (?:readers|people) say"
    r"|related(?: \w+)?|more (?:from|on|in|like|stories|articles|news|posts)\b.*|you (?:may|might) also like"
    r"|(?:most )?(?:read|popular|viewed|shared)(?: now| today| stories| articles)?|trending(?: now)?"
    r"|recommended(?: for you| reading| stories| articles)?|read (?:more|next)|share(?: this(?: \w+)?| on .*)?"
    r"|tags|about the author|sign up\b.*|subscribe\b.*|(?:\w+ )?newsletter|advertisement|sponsored(?: \w+)?"
    r"|references|external links|footnotes|bibliography|citations|notes and references"
    # shops: user reviews and cross-selling (added after the held-out-3 run)
    r"|(?:top |customer |user |most helpful |all )?reviews(?: \w+)?|(?:customers|people) (?:who|also) .*"
    r"|frequently bought together|similar (?:items|products)|recently viewed(?: items| products)?)$"
)


def _boilerplate_sections(segments: list, strength: dict, exempt: set) -> None:
    """Hint the sections that boilerplate headings open: the heading's container when the
    heading starts it, else the heading and what follows it in its parent."""
    for i, s in enumerate(segments):
        if not s.heading or s.words > 8 or s.hints:
            continue
        words = " ".join(_WORD.findall(s.text.lower().replace("_", " ")))
        words = " ".join(w for w in words.split() if not w.isdigit())
        if not _BOILERPLATE_HEADING.match(words):
            continue
        heading = s.owner
        section = heading.getparent()
        # climb while the heading (with decorations like "[edit]") is all the section starts with
        while section is not None and section not in exempt and _starts_with(section, s, segments, i):
            whole = section
            section = section.getparent()
            if section is None or _text_words(section) > 8 * max(1, _text_words(whole)):
                break
        else:
            whole = None
        if whole is not None and whole not in exempt:
            targets = [whole]
        else:
            parent = heading.getparent()
            if parent is None or parent in exempt and parent.tag in ("body", "html"):
                continue
            targets = [heading, *heading.itersiblings()]
        members = set()
        for t in targets:
            strength[t] = 2
            members.update(t.iter())
        for x in segments[i:]:
            if x.owner in members and not any(h in members for h in x.hints):
                x.hints = x.hints + (next(t for t in targets if x.owner in set(t.iter())),)


def _starts_with(section, s: Segment, segments: list, i: int) -> bool:
    """Whether no text of ``section`` comes before heading segment ``s`` (index ``i``)."""
    for prev in reversed(segments[:i]):
        if prev.words > DECORATION_WORDS and _inside(prev.owner, section):
            return False
        if not _inside(prev.owner, section):
            return True
    return True


def _text_words(el) -> int:
    return len(_text_of(el).split())


def analyse(root, title: str = "") -> Analysis:
    named = named_article(root)
    a = _analyse(root, title, True, named)
    selected = sum(s.words for s in a.selected())
    if selected <= DISCUSSION_MAX_WORDS and named is None:
        in_threads = sum(s.words for s in a.segments if any(is_comment_hinted(h) for h in s.hints))
        if in_threads >= max(DISCUSSION_RATIO * selected, 2 * DISCUSSION_MAX_WORDS // 3):
            b = _analyse(root, title, False, named)
            threads = {s.owner for s in a.segments if any(is_comment_hinted(h) for h in s.hints)}
            for s in b.segments:
                if b.verdict.get(s) in (IN_CONTENT, IN_PARALLEL) and s.owner in threads:
                    b.verdict[s] = IN_DISCUSSION
            b.discussion = True
            return b
    return a


def _analyse(root, title: str, comments: bool, named) -> Analysis:
    exempt = exempt_elements(root, named)
    seg = Segmenter(exempt, comments)
    segments = seg.run(root)
    _boilerplate_sections(segments, seg.strength, exempt)
    values: dict = {}
    for s in segments:
        v = segment_value(s, seg.strength)
        if v:
            values[s.owner] = values.get(s.owner, 0.0) + v
    # each element's value is its own plus its descendants': in reverse page order every element
    # comes after all of its descendants, so one pass adds each finished value to the parent
    for el in reversed(list(root.iter())):
        v = values.get(el)
        if v:
            parent = el.getparent()
            if parent is not None:
                values[parent] = values.get(parent, 0.0) + v
    a = Analysis(root, title, segments, seg.strength, seg.mixed, values)
    container = _best_container(values)
    # a paragraph (list item, cell, quote…) is never the container: the element holding it is
    while container is not None and container.tag in TEXT_TAGS and container.getparent() is not None:
        container = container.getparent()
    a.container = container
    if a.container is None:
        for s in segments:
            a.verdict[s] = _out_reason(s)
        return a
    a.cores = _parallel(a, a.container)
    a.title_h1 = _title_h1(segments, title)
    _judge(a)
    _lead(a)
    return a


def _best_container(values: dict):
    best, best_v = None, 0.0
    for el, v in values.items():
        if v > best_v + 1e-9:
            best, best_v = el, v
        elif best is not None and abs(v - best_v) <= 1e-9 and _inside(el, best):
            best = el  # the same value from a tighter element
    return best


def _parallel(a: Analysis, core) -> list:
    """The container, and elements structurally parallel to it (same tag and classes, and so do
    their parent and grandparent) that hold text of their own: the other posts of a thread, the
    other answers, the other text blocks of a split article."""
    sig = _signature(core)
    if not sig[1]:
        return [core]
    parent = core.getparent()
    grand = parent.getparent() if parent is not None else None
    psig = _signature(parent) if parent is not None else None
    gsig = _signature(grand) if grand is not None else None
    out = []
    for el in a.root.iter(core.tag):
        if el is not core and (_signature(el) != sig or a.values.get(el, 0.0) < TEXT_WORDS):
            continue
        p = el.getparent()
        g = p.getparent() if p is not None else None
        if (_signature(p) if p is not None else None) != psig or (_signature(g) if g is not None else None) != gsig:
            continue
        if any(_inside(el, o) or _inside(o, el) for o in out):
            continue
        out.append(el)
    return out or [core]


def _title_h1(segments: list, title: str) -> Segment | None:
    """The h1 that is the page's title (its words in the title, or the title's in it)."""
    wanted = _norm_words(title)
    if not wanted:
        return None
    for s in segments:
        if s.heading == 1:
            n = _norm_words(s.text)
            if n and (n in wanted or wanted in n):
                return s
    return None


def _out_reason(s: Segment, strength: dict | None = None) -> str:
    """Why a segment outside the container would not be content anyway."""
    if s.hints and strength is not None and any(strength.get(h) == 2 for h in s.hints):
        return OUT_HINTED
    if s.caption:
        return OUT_CAPTION
    if s.link_density > LINK_DENSE and not s.heading:
        return OUT_LINKS
    if not _LETTER.search(s.text) and s.owner.tag not in ("td", "th"):
        return OUT_NOTEXT
    return OUT_OUTSIDE


GOOD, BAD, SHORT = 1, -1, 0


def _data_cell(s: Segment, cache: dict | None = None) -> bool:
    """A cell of a data table (see render.is_layout_table)."""
    if s.owner.tag not in ("td", "th"):
        return False
    for table in s.owner.iterancestors("table"):
        if cache is None:
            return not is_layout_table(table)
        found = cache.get(table)
        if found is None:
            found = cache[table] = not is_layout_table(table)
        return found
    return False


def _judge(a: Analysis) -> None:
    core_of = {}
    for core in a.cores:
        for el in core.iter():
            core_of[el] = core
    a.core_of = core_of
    verdict, strength, container = a.verdict, a.strength, a.container
    tables: dict = {}
    cand: list = []  # (segment, core, kind, reason when bad)
    for s in a.segments:
        core = core_of.get(s.owner)
        if core is None:
            verdict[s] = _out_reason(s, strength)
            continue
        if s.hints:
            # inside the container only strong hints exclude ("entry-header", "card-header" and
            # other weak ones often wrap the content's own headings)
            if any(h is not core and strength.get(h) == 2 and core_of.get(h) is core for h in s.hints):
                verdict[s] = OUT_HINTED
                continue
        tag = s.owner.tag
        if s.caption:
            cand.append((s, core, BAD, OUT_CAPTION))
        elif tag in ("td", "th") and _data_cell(s, tables):
            cand.append((s, core, GOOD, None))
        elif s.link_chars * 2 > s.chars and not s.heading:
            # a short link ("[edit]", "¶", "Read more") is out, but does not break the context
            # of the heading or line next to it
            cand.append((s, core, SHORT if s.words <= DECORATION_WORDS else BAD, OUT_LINKS))
        elif not _LETTER.search(s.text):
            # a short one ("12'", "▲ 38", "•") is out, but does not break its neighbours' context
            cand.append((s, core, SHORT if s.words <= DECORATION_WORDS else BAD, OUT_NOTEXT))
        elif s.heading:
            cand.append((s, core, SHORT, None))
        elif s.words - s.link_words >= TEXT_WORDS or tag in TEXT_TAGS or s.pre:
            cand.append((s, core, GOOD, None))
        else:
            cand.append((s, core, SHORT, None))
    # Headings and short segments take their class from their neighbours (as in jusText): a
    # heading is content when the text after it is; a short line when the text on both sides is.
    n = len(cand)
    next_kind = [None] * n
    last = None
    for i in range(n - 1, -1, -1):
        next_kind[i] = last
        if cand[i][2] != SHORT:
            last = cand[i][2]
    prev = None
    seen_good = False
    for i, (s, core, kind, why) in enumerate(cand):
        if kind == SHORT and why == OUT_NOTEXT and s.owner.tag in ("li", "dt", "dd"):
            # a number in a list item holding text ("12'" before a timeline entry, a step
            # number) is the item's marker: it goes with the text
            after = cand[i + 1] if i + 1 < n else None
            kind = GOOD if after is not None and after[2] == GOOD and _inside(after[0].owner, s.owner) else BAD
            why = None if kind == GOOD else why
        elif kind == SHORT and why in (OUT_LINKS, OUT_NOTEXT):
            kind = BAD
        elif kind == SHORT:
            after = cand[i + 1] if i + 1 < n else None
            # (a short line above the first text is a byline, not a heading)
            if s.heading or (seen_good and after is not None and _pseudo_heading(s, after[0], after[2])):
                kind = GOOD if next_kind[i] == GOOD else BAD
            else:
                kind = GOOD if prev == GOOD and next_kind[i] == GOOD else BAD
            why = why or OUT_EDGE
        else:
            prev = kind
            seen_good = seen_good or kind == GOOD  # text, not a heading or a short line
        if s is a.title_h1:
            verdict[s] = OUT_TITLE
        elif kind == GOOD:
            verdict[s] = IN_CONTENT if core is container else IN_PARALLEL
        else:
            verdict[s] = why or OUT_EDGE


def _pseudo_heading(s: Segment, nxt: Segment | None, nxt_kind) -> bool:
    """A short line without a full stop right before running text in the same parent element
    (a product name over its description, a bold title in a card) reads as a heading — once the
    content has begun (above the first text such a line is a byline)."""
    if nxt is None or nxt_kind != GOOD or s.text[-1:] in ".!?:;,":
        return False
    return s.owner.getparent() is not None and s.owner.getparent() is nxt.owner.getparent()


def _lead(a: Analysis) -> None:
    """Text between the title and the content (a standfirst in the article header) is content."""
    h1 = a.title_h1
    chosen = a.selected()
    if h1 is None or not chosen or h1.order > chosen[0].order:
        return
    first = chosen[0]
    ancestors = set(h1.owner.iterancestors())
    frame = next((el for el in first.owner.iterancestors() if el in ancestors), None)
    for s in a.segments[h1.order + 1:first.order]:
        if frame is not None and not _inside(s.owner, frame):
            continue
        if any(a.strength.get(h) == 2 for h in s.hints) or s.caption or s.link_density > LEAD_LINK_DENSE:
            continue
        if s.words - s.link_words >= TEXT_WORDS:
            a.verdict[s] = IN_LEAD


# --- readability, trafilatura, and the arbiter ---------------------------------------------------

# Disagreements between readability and the analysis smaller than this share of the words either
# selects are settled by the analysis; larger ones ask trafilatura for a second opinion.
DISPUTE_SHARE = 0.1
MIN_DISPUTE_WORDS = 20
# Pages larger than this are not put to the second opinion (it would cost seconds); the
# analysis settles their disputes.
VOTE_MAX_CHARS = 2_000_000
# A segment is "in" another extractor's text when this share of its word 4-grams are there.
COVER_SHARE = 0.5


@dataclass
class Extraction:
    """The main content of a page: the selected segments and how they were chosen."""

    analysis: Analysis
    selected: list  # Segments, in page order
    method: str  # "readability" (confirmed), "repaired" (checks fired), "vote" (trafilatura asked)
    checks: list = field(default_factory=list)  # readability failures detected (names)
    disputed_words: int = 0  # words readability and the analysis disagreed on, evidence aside


def readability_texts(html: str, document_class) -> tuple[set, str] | None:
    """readability's article as (texts of its elements, its whole text), or None.

    ``document_class`` is readability's ``Document`` or a subclass; when it keeps the article
    element as ``article_element`` (see content._readability_class) the summary is not parsed again.
    """
    import lxml.html

    try:
        doc = document_class(html)
        summary = doc.summary(html_partial=True)
    except Exception:
        return None
    article = getattr(doc, "article_element", None)
    if article is None:
        if not summary:
            return None
        try:
            article = lxml.html.fragment_fromstring(summary, create_parent="div")
        except Exception:
            return None
    texts = {" ".join(_text_of(el).split()) for el in article.iter(*_TEXT_OWNERS)}
    if not texts and not _text_of(article).strip():
        return None
    return texts, lambda: " ".join(_text_of(article).split())  # the whole text, when needed


# readability's elements whose text is compared with page segments (leaf-like blocks; text in
# mixed containers is found by the substring test)
_TEXT_OWNERS = frozenset("p li dd dt td th h1 h2 h3 h4 h5 h6 pre blockquote caption figcaption summary".split())


def _shingles(words: list, n: int = 4) -> set:
    if len(words) < n:
        return {tuple(words)} if words else set()
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


class Coverage:
    """Which page segments another extractor's text contains: the same text as one of its
    elements or lines, else a substring of its whole text (3 words or more), else — for 8 words
    or more — half of the segment's word 4-grams."""

    def __init__(self, texts: set, whole, grams: bool = True) -> None:
        self.texts = texts
        self._whole = whole  # the whole text, or a function giving it (computed on first use)
        self.use_grams = grams  # readability's text is the page's own: no 4-gram test needed
        self._grams: set | None = None

    @property
    def whole(self) -> str:
        if callable(self._whole):
            self._whole = self._whole()
        return self._whole

    def exact(self, s: Segment) -> bool:
        return s.text in self.texts

    def covers(self, s: Segment) -> bool:
        if s.text in self.texts:
            return True
        if s.words < 3:
            return False
        if s.text in self.whole:
            return True
        if s.words < 8 or not self.use_grams:
            return False
        if self._grams is None:
            self._grams = _shingles(_WORD.findall(self.whole.lower()))
        grams = _shingles(_WORD.findall(s.text.lower()))
        return sum(1 for g in grams if g in self._grams) >= COVER_SHARE * len(grams)


def _readability_segments(a: Analysis, cov: Coverage) -> set:
    """The page segments in readability's article. Exact matches first; the looser tests only
    inside the region they span (readability returns one element and some of its siblings) and
    only for segments whose verdict a disagreement could change."""
    exact = [s for s in a.segments if s.text in cov.texts]
    if not exact:
        return set()
    region = exact[0].owner
    members = set(region.iter())
    for s in exact[1:]:
        if s.owner in members:
            continue
        while region is not None and s.owner not in members:
            region = region.getparent()
            members = set(region.iter()) if region is not None else members
        if region is None:
            return set(exact)
    if region.getparent() is not None:
        members = set(region.getparent().iter())
    found = set(exact)
    v = a.verdict
    for s in a.segments:
        if s not in found and s.owner in members and v.get(s) not in CONFIDENT and cov.covers(s):
            found.add(s)
    return found


def _shape(s: Segment, a: Analysis) -> tuple:
    """The tags and classes from a segment's element up to its container."""
    path = []
    el = s.owner
    cores = a.cores
    while el is not None and el not in cores:
        path.append(_signature(el))
        el = el.getparent()
    return tuple(path)


def trafilatura_texts(html: str) -> tuple[set, str] | None:
    try:
        import trafilatura

        text = trafilatura.extract(html, include_comments=False, include_tables=True, output_format="txt")
    except Exception:
        return None
    if not text:
        return None
    lines = {" ".join(line.split()) for line in text.splitlines() if line.strip()}
    return lines, " ".join(text.split())


def extract(root, html: str, title: str, document_class, second_opinion=trafilatura_texts) -> Extraction:
    """Choose the main content of the page parsed as ``root`` (see the module docstring).

    ``html`` is the page text (readability and trafilatura parse their own copies),
    ``document_class`` readability's ``Document`` (or a subclass), ``second_opinion`` a function
    ``html -> (texts, whole text) | None`` asked when readability and the analysis disagree on
    much (default: trafilatura); None never asks.
    """
    # readability first: run after the analysis it would be slowed by the garbage collector
    # walking the analysis's many small objects
    r = readability_texts(html, document_class)
    a = analyse(root, title)
    in_r = _readability_segments(a, Coverage(*r, grams=False)) if r else set()
    final, disputed, contested = _settle(a, in_r)
    checks = readability_checks(a, in_r, final)
    method = "repaired" if checks else "readability"
    dispute = sum(s.words for s in disputed)
    contest = sum(s.words for s in contested)
    union = sum(s.words for s in a.segments if a.verdict[s] in SELECTED or s in in_r)
    if a.container is None:  # the analysis found no content: it abstains, readability's choice stands
        final.update(s for s in disputed if s in in_r)
        return Extraction(a, [s for s in a.segments if s in final], "readability", checks, dispute)
    # A readability that picked boilerplate or nothing has no opinion on the content: its
    # disputes with the analysis get no vote. Its contested segments (the "boilerplate" it
    # picked) do: an exclusion by class names must not overrule readability and trafilatura
    # when both keep the text (comment markup around a thread's posts, a "related" wrapper
    # around the content) — the majority of the three decides.
    failed = "picked boilerplate" in checks or "found nothing" in checks
    threshold = max(MIN_DISPUTE_WORDS, DISPUTE_SHARE * union)
    vote_disputed = dispute > threshold and not failed
    vote_contested = contest > threshold
    if (vote_disputed or vote_contested) and second_opinion is not None and len(html) <= VOTE_MAX_CHARS:
        t = second_opinion(html)
        if t is not None:
            t_cov = Coverage(*t)
            if vote_disputed:
                # (a segment under 3 words that is not one of trafilatura's lines is too short
                # to test against its text — "12'", a table header: the analysis keeps its say)
                final.update(s for s in disputed if t_cov.covers(s) or (s.words < 3 and a.verdict[s] in SELECTED))
            else:
                final.update(s for s in disputed if a.verdict[s] in SELECTED)
            if vote_contested:
                final.update(s for s in contested if t_cov.covers(s))
            return Extraction(a, [s for s in a.segments if s in final], "vote", checks, dispute + contest)
    final.update(s for s in disputed if a.verdict[s] in SELECTED)  # small disputes: the analysis
    return Extraction(a, [s for s in a.segments if s in final], method, checks, dispute)


def _settle(a: Analysis, in_r: set) -> tuple[set, list, list]:
    """Segments both sides select, or that structural evidence settles; the disputed rest; and
    the contested segments: those readability kept and a structural exclusion of the analysis
    (a boilerplate hint, a caption, a link list, an edge line) leaves out.

    Evidence: a confident verdict of the analysis (a lead; a parallel container; boilerplate
    hints, captions, link lists, edge lines, the title), or — for text only the analysis chose
    — the same element path below the container as text both chose (the posts of a thread
    after the one readability kept, the text blocks of a split article). An exclusion is
    evidence against readability alone, not against readability and trafilatura together:
    contested segments go to the vote when it is held (see :func:`extract`).
    """
    v = a.verdict
    shapes = None
    final, disputed, contested = set(), [], []
    for s in a.segments:
        s_in = v[s] in SELECTED
        if s_in == (s in in_r):
            if s_in:
                final.add(s)
            continue
        if v[s] in CONFIDENT:
            if s_in:
                final.add(s)
            elif _contestable(s, a):
                contested.append(s)
            continue
        if s_in:
            if shapes is None:
                shapes = {_shape(x, a) for x in a.segments if x in in_r and v[x] in SELECTED}
            if _shape(s, a) in shapes:
                final.add(s)
                continue
        disputed.append(s)
    return final, disputed, contested


def _contestable(s: Segment, a: Analysis) -> bool:
    """Whether an exclusion of the analysis is open to the vote of readability and trafilatura:
    an edge line, or a segment hinted as boilerplate by comment-thread names alone (not by a
    cookie banner, a menu, a reference list… which both may keep but no reader would)."""
    v = a.verdict[s]
    if v == OUT_EDGE:
        return True
    if v != OUT_HINTED:
        return False
    strong = [h for h in s.hints if a.strength.get(h) == 2]
    return bool(strong) and all(is_comment_hinted(h) and negative_hint(h, comments=False) < 2 for h in strong)


def readability_checks(a: Analysis, in_r: set, final: set) -> list[str]:
    """readability's failures on this page, by name (empty when its choice stands)."""
    v = a.verdict
    r_words = sum(s.words for s in in_r)
    kept = sum(s.words for s in final)
    checks = []
    if not r_words:
        return ["found nothing"] if kept else []
    boilerplate = sum(s.words for s in in_r if v[s] in CONFIDENT and v[s] not in SELECTED)
    if boilerplate >= 0.5 * r_words:
        checks.append("picked boilerplate")  # a cookie banner, comments, a link list
    elif sum(s.words for s in in_r if v[s] not in SELECTED) >= 0.5 * r_words:
        checks.append("picked another block")  # a sidebar, a teaser
    elif boilerplate >= max(TEXT_WORDS, 0.1 * r_words):
        checks.append("kept boilerplate")  # comments under answers, a newsletter box, captions
    if any(v[s] == IN_LEAD and s not in in_r for s in final):
        checks.append("dropped the lead")
    if sum(s.words for s in final if s not in in_r and v[s] != IN_LEAD) > max(TEXT_WORDS, 0.2 * r_words):
        checks.append("kept a fraction")  # more posts, the rest of a split article
    return checks


# --- output: the selected segments as a tree to render -----------------------------------------


def build_tree(ex: Extraction, max_chars: int | None = None):
    """The smallest element holding the selected segments, pruned to them — in place: the page
    tree is changed and the element returned is part of it.

    With ``max_chars``, segments after the one where that many characters are reached are left
    out (the segment where the budget runs out is kept whole). Returns (element, full_chars):
    ``full_chars`` is the length of the whole selected text when some was left out, else None.
    """
    selected = ex.selected
    if not selected:
        return None, None
    full = None
    if max_chars:
        total = sum(len(s.text) + 1 for s in selected)
        if total > max_chars:
            seen = 0
            for i, s in enumerate(selected):
                seen += len(s.text) + 1
                if seen > max_chars:
                    break
            selected = selected[: i + 1]
            full = total
    a = ex.analysis
    keep = set()
    for s in selected:
        el = s.owner
        while el is not None and el not in keep:
            keep.add(el)
            el = el.getparent()
    root = selected[0].owner
    for s in selected[1:]:
        while not _inside(s.owner, root):
            root = root.getparent()
    # Data tables with a selected cell are kept whole, so their rows keep their columns.
    whole = set()
    tables: dict = {}
    for s in selected:
        if s.owner.tag in ("td", "th") and _data_cell(s, tables):
            table = next(s.owner.iterancestors("table"), None)
            if table is not None and table not in whole:
                whole.add(table)
                keep.update(table.iter())
    if full is not None:
        _cut_after(selected[-1].owner, root, whole)
    chosen = set(selected)
    in_whole = set()
    for t in whole:
        in_whole.update(t.iter())
    drops = []
    last = selected[-1].order
    # the text of segments not selected but living in kept elements is blanked
    for s in a.segments:
        if s.order > last:
            break
        if s in chosen or s.owner not in keep or s.owner in in_whole:
            continue
        for el, is_tail in s.pieces:
            if is_tail:
                el.tail = None
            else:
                el.text = None
        drops.extend(el for el in s.inlines if el not in a.mixed)
    for el in root.iterdescendants():
        tag = el.tag
        if tag.__class__ is not str:
            drops.append(el)  # comments, processing instructions
        elif (tag in SKIP_TAGS and skipped(el)) or (el.attrib and is_hidden(el)):
            drops.append(el)
        elif tag in BLOCK_TAGS and el not in keep and not _in_pre(el):
            drops.append(el)
    for el in drops:
        parent = el.getparent()
        if parent is None:
            continue
        # keep the tail: it is the parent's text (already blanked when not selected)
        tail = el.tail
        previous = el.getprevious()
        parent.remove(el)
        if tail:
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail
    return root, full


def _cut_after(el, root, whole: set) -> None:
    """Remove everything after ``el`` (in page order) under ``root``, tails included."""
    for table in whole:  # a data table is kept whole: cut after it, not inside it
        if _inside(el, table):
            el = table
            break
    remove_following(el, root)


def _in_pre(el) -> bool:
    return any(a.tag == "pre" for a in el.iterancestors())
