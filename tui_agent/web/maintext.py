"""The main text of an HTML page, for the model: trafilatura first, readability-lxml and the
page's visible text as fallbacks.

:func:`main_content` extracts the main content with trafilatura (options in
``TRAFILATURA_OPTIONS``, chosen by measurement on real pages: ``benchmarks/bench_quality.py``),
leaving a first heading that repeats the page title to the title (the observation header shows
it). When trafilatura returns almost nothing, readability-lxml's article is used if it finds more (on
real pages that recovered text trafilatura missed); when what they find is almost nothing next to
the page's visible text, that visible text. The source is chosen on text lengths before
rendering, and every source is rendered by :mod:`tui_agent.web.render` (trafilatura's XML through
trafilatura's own XML-to-HTML conversion), so the Markdown and the plain text carry the same
content. trafilatura's Markdown renderer is not used: it backslash-escapes the page's text
(``tool\\_response``, ``\\[1]``) on a quarter of real pages, so the model would read words the
page does not have.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from urllib.parse import urljoin

from tui_agent.safety.hygiene import strip_controls
from tui_agent.web.render import remove_following, render

# trafilatura's main text counts as short when it is under MIN_MAIN_CHARS characters: then
# readability-lxml is asked too, and the longer of the two is kept (on real pages this recovered
# text trafilatura missed).
MIN_MAIN_CHARS = 100
# What the extractors found counts as almost nothing when it is under ALMOST_NOTHING_CHARS
# characters (a lone link, a heading, a "please enable JavaScript" notice: less than a sentence)
# *and* under MIN_VISIBLE_SHARE of the page's visible text: then the visible text is used. With
# 100 characters here, the one real page of the development corpus where the rule fired lost a
# correct 99-character post to its whole page.
ALMOST_NOTHING_CHARS = 50
MIN_VISIBLE_SHARE = 0.25
# Only this many characters of a page's HTML are read (the rest is dropped before parsing, as a
# download cap would): trafilatura takes about 1.5 s per MB of paragraphs, so a hostile 5 MB page
# would use most of a visit's time limit. The largest of 884 real pages in the development corpus
# has 1.6 MB of HTML.
MAX_HTML_CHARS = 2_000_000

_XML_DECL_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_WS = re.compile(r"\s+")
# Removed before the visible-text fallback (the spec'd script/style/nav/noscript, and kin).
_INVISIBLE = ("script", "style", "noscript", "nav", "template", "svg", "iframe", "object",
              "embed", "canvas", "head", "button", "select", "dialog")
# trafilatura's extraction options, chosen by measurement on real pages (benchmarks/bench_quality.py):
# comments off (a page's comments are not its main text), tables on, links on (the Markdown keeps
# them; they cost nothing measurable), images off, and include_formatting off — bold and italic
# changed what trafilatura extracted and cost F1 on real pages; headings, lists, tables, code and
# quotes are rendered as Markdown without it. The balanced focus (neither favor_precision nor
# favor_recall) scored best on the development corpus.
# fast=True (formerly no_fallback: no comparison with readability and jusText) is not used: it
# made reading a page 27% faster but cost 0.006 F1, over the 0.003 a speed-up may cost. On the 884
# scored pages of trafilatura's evaluation corpus (trafilatura 2.3.1; `benchmarks/bench_quality.py
# --only trafilatura --extractor "tui-agent read --format text" --extractor "tui-agent with fast"
# --extractor "trafilatura fast"`):
#   tui-agent read --format text   P 0.907  R 0.949  F1 0.928  47.3 ms/page
#   tui-agent with fast            P 0.906  R 0.939  F1 0.922  34.5 ms/page (-27%)
#   trafilatura (alone)            P 0.908  R 0.947  F1 0.927  46.6 ms/page
#   trafilatura fast               P 0.908  R 0.936  F1 0.922  32.4 ms/page
TRAFILATURA_OPTIONS = {
    "include_comments": False, "include_tables": True, "include_links": True, "include_images": False,
    "include_formatting": False, "favor_precision": False, "favor_recall": False,
}
# trafilatura's XML elements whose <code> children are inline code, not code blocks.
_INLINE_PARENTS = frozenset({"p", "item", "cell", "head", "quote", "hi", "ref", "del"})


@dataclass
class MainText:
    title: str
    text: str
    method: str  # "trafilatura", "readability", "visible" or "none"
    full_chars: int | None = None  # the whole text's length when ``text`` was cut to a budget


def parse_html(html: str):
    """The page as an ``lxml.html`` tree, parsed as trafilatura parses it (its own parse scored
    better on real pages than ``lxml.html.document_fromstring``), else by lxml's HTML parser;
    None when there is nothing to parse."""
    import lxml.etree
    import lxml.html
    from trafilatura.utils import load_html

    try:
        tree = load_html(html)
    except Exception:  # trafilatura rejects some odd inputs; lxml reads nearly anything
        tree = None
    if tree is not None:
        return tree
    try:
        return lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return None


_ONE_PAGE_AT_A_TIME = threading.Lock()
"""trafilatura parses every page with one module-level lxml ``HTMLParser``, and lxml's documents
share their parser's dictionary: two threads parsing at once corrupt memory (an eval at concurrency
16 died with "double free or corruption" in ``load_html`` beside another thread's extraction).
Page reading runs in threads, off the event loop, so a process reads one page at a time; the
work is the GIL's anyway, and ``eval --workers`` reads pages in parallel processes."""


def main_content(html: str, url: str, max_chars: int | None = None, *, markdown: bool = True) -> MainText:
    """The main text of ``html`` (see the module docstring); ``url`` resolves relative links and
    ``max_chars`` bounds the text rendered (``full_chars`` then tells the whole length). One page
    at a time per process (``_ONE_PAGE_AT_A_TIME``)."""
    with _ONE_PAGE_AT_A_TIME:
        return _main_content(html, url, max_chars, markdown=markdown)


def _main_content(html: str, url: str, max_chars: int | None, *, markdown: bool) -> MainText:
    # Terminal escapes go before parsing: the parser drops the ESC and would leave "[31m" behind.
    html = strip_controls(_XML_DECL_TEXT.sub("", (html or "")[:MAX_HTML_CHARS], count=1))
    if not html.strip():
        return MainText("", "", "none")
    tree = parse_html(html)
    if tree is None:
        return MainText("", "", "none")
    title, base = page_title(tree), base_url(tree, url)
    for template in list(tree.iter("template")):  # inert markup a browser never shows
        _drop(template)
    mark_preformatted(tree)
    # The source is chosen on text lengths, before rendering, so both formats show the same one.
    root, method = trafilatura_body(tree, title), "trafilatura"
    # exact below both thresholds, which are all the rules below compare it with
    size = text_length(root, enough=max(MIN_MAIN_CHARS, ALMOST_NOTHING_CHARS))
    if size < MIN_MAIN_CHARS:
        alternative = readability_root(html)
        alternative_size = text_length(alternative)
        if alternative_size > size:
            root, method, size = alternative, "readability", alternative_size
    if size < ALMOST_NOTHING_CHARS:
        visible = _visible_root(tree)  # the last use of the tree: it may be changed in place
        visible_size = text_length(visible)
        if visible_size and (not size or size < MIN_VISIBLE_SHARE * visible_size):
            root, method, size = visible, "visible", visible_size
    if not size:
        return MainText(title, "", "none")
    if method == "trafilatura":
        root = trafilatura_html(root)
    full = cut_tree(root, max_chars)
    text = unicodedata.normalize("NFC", render(root, markdown=markdown, base_url=base))
    if not text:
        return MainText(title, "", "none")
    return MainText(title, text, method, full)


def mark_preformatted(tree) -> None:
    """Make every ``<pre>`` read as a code block (in place): its content goes inside one
    ``<code>``, and each ``<br>`` in it becomes a newline.

    trafilatura keeps a ``<pre>`` as code only when it wraps one ``<code>`` (or looks like code to
    its heuristics); any other ``<pre>`` — a config file, a shell session — became a quote whose
    lines were joined into one. A browser shows a ``<pre>`` with its lines and indentation, and so
    must the model.
    """
    for pre in list(tree.iter("pre")):
        for br in list(pre.iter("br")):
            _replace_with_text(br, "\n")
        if len(pre) == 1 and pre[0].tag == "code" and not (pre.text or "").strip() \
                and not (pre[0].tail or "").strip():
            continue
        code = pre.makeelement("code", {})
        code.text, pre.text = pre.text, None
        for child in list(pre):
            code.append(child)  # moves the child, its tail with it
        pre.append(code)


def _replace_with_text(el, text: str) -> None:
    """Replace an element by ``text`` followed by its tail."""
    parent = el.getparent()
    if parent is None:
        return
    joined = text + (el.tail or "")
    previous = el.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + joined
    else:
        parent.text = (parent.text or "") + joined
    parent.remove(el)


def trafilatura_body(tree, title: str = ""):
    """trafilatura's main content of ``tree`` (its XML body: p, head, list, table, code, ref …),
    without a first heading that repeats ``title``; None when it finds nothing or fails."""
    from trafilatura import bare_extraction

    try:
        # output_format="txt" keeps the body as a tree and skips the metadata and text steps
        document = bare_extraction(tree, output_format="txt", **TRAFILATURA_OPTIONS)
    except Exception:  # an odd page must not break reading: the fallbacks take over
        return None
    body = document.body if document is not None else None
    if body is None:
        return None
    if len(body) and body[0].tag == "head" and _repeats_title("".join(body[0].itertext()), title):
        _drop(body[0])
    return body


def _repeats_title(heading: str, title: str) -> bool:
    heading, title = _WS.sub(" ", heading).strip().lower(), _WS.sub(" ", title).strip().lower()
    return bool(heading) and (title.startswith(heading) or title.endswith(heading))


def readability_root(html: str):
    """readability-lxml's article as an element, or None when it finds none or fails."""
    import lxml.html
    from readability import Document

    try:
        summary = Document(html).summary(html_partial=True)
        return lxml.html.fragment_fromstring(summary, create_parent="div")
    except Exception:  # readability raises on pages it cannot score; that is not our failure
        return None


def text_length(root, enough: int | None = None) -> int:
    """Characters of text under ``root`` with whitespace collapsed (0 for None).

    With ``enough``, the count may stop once it reaches ``enough``: the result is exact below
    ``enough``, and at least ``enough`` otherwise (a long article need not be counted to know it
    is not short).
    """
    if root is None:
        return 0
    if enough is None:
        return _collapsed_length("".join(root.itertext()))
    parts: list[str] = []
    seen, check = 0, enough
    for part in root.itertext():
        parts.append(part)
        seen += len(part)
        if seen >= check:  # the collapsed length only grows as text is added
            size = _collapsed_length("".join(parts))
            if size >= enough:
                return size
            check = 2 * seen
    return _collapsed_length("".join(parts))


def _collapsed_length(text: str) -> int:
    """``len(re.sub(r"\\s+", " ", text).strip())``: ``str.split()`` splits where ``\\s`` matches
    (``str.isspace``), so this is the length of the words joined by one space each."""
    words = text.split()
    return sum(map(len, words)) + len(words) - 1 if words else 0


def base_url(tree, url: str) -> str:
    """The URL relative links resolve against: the page's ``<base href>`` if any, else ``url``."""
    for base in tree.iter("base"):
        href = (base.get("href") or "").strip()
        if href:
            try:
                return urljoin(url, href)
            except ValueError:
                break
    return url


def trafilatura_html(body):
    """trafilatura's XML body as HTML for :mod:`tui_agent.web.render` (in place): trafilatura's own
    conversion, with ordered lists kept ordered and inline code kept inline."""
    from trafilatura.htmlprocessing import convert_to_html

    for el in body.iter("list", "code"):
        if el.tag == "list":
            el.tag = "ol" if el.get("rend") == "ol" else "ul"
        elif (el.getparent() is not None and el.getparent().tag in _INLINE_PARENTS
              and "\n" not in "".join(el.itertext())):
            el.tag = "inline-code"  # out of the way of convert_to_html, which makes every <code> a <pre>
    root = convert_to_html(body)
    for el in root.iter("inline-code"):
        el.tag = "code"
    return root


def cut_tree(root, max_chars: int | None) -> int | None:
    """Drop everything after the first ``max_chars`` characters of text under ``root``.

    Returns the text length of the whole tree when something was cut, else None. The element
    where the budget runs out is kept whole, so no sentence or table is cut in the middle.
    """
    if not max_chars:
        return None
    seen = 0
    for el in root.iter():
        if el.tag.__class__ is str:
            seen += len(el.text or "")
        if seen > max_chars and el is not root:
            break
        seen += len(el.tail or "") if el is not root else 0
    else:
        return None
    total = sum(len(t) for t in root.itertext())
    remove_following(el, root)
    return total


def page_title(tree) -> str:
    """og:title, else <title>, else the first <h1>; whitespace collapsed."""
    for xpath in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()"):
        try:
            found = tree.xpath(xpath)
        except Exception:
            continue
        text = _WS.sub(" ", " ".join(str(x) for x in found)).strip()
        if text:
            return text[:300]
    return ""


def _visible_root(tree):
    """The page body without script/style/nav/noscript and kin, nor hidden elements (the tree
    is changed in place)."""
    if tree is None:
        return None
    body = tree.find(".//body")
    root = body if body is not None else tree
    for el in list(root.iter(*_INVISIBLE)):
        if el is not root:
            _drop(el)
    for el in root.xpath('.//*[@hidden or contains(translate(@style, " ", ""), "display:none")]'):
        if el is not root:
            _drop(el)
    return root


def _drop(el) -> None:
    """Remove an element and its content, keeping the text that follows it."""
    parent = el.getparent()
    if parent is None:
        return
    tail, previous = el.tail, el.getprevious()
    parent.remove(el)
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


