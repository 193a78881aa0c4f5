"""Turning fetched bytes into text a model can read.

- :func:`classify`: html / text / json / pdf / binary, from the Content-Type, the URL and a sniff
  of the body.
- :func:`decode`: bytes to str the way a browser would (BOM, header charset, ``<meta>``, UTF-8,
  then detection; single-byte guesses become windows-1252 as browsers do).
- :func:`html_to_markdown` / :func:`html_to_text`: the main content (readability-lxml checked
  and repaired by a segment analysis of the page, trafilatura when they disagree: see
  :mod:`tui_agent.web.maintext`), rendered as Markdown (headings, paragraphs, lists, absolute
  links, tables, code blocks) or plain text by :mod:`tui_agent.web.render`, with a fallback to
  the page's visible text.
- :func:`pdf_to_text`: text per page with ``--- page N ---`` markers.

Everything here is synchronous CPU work; callers run it in a thread for large bodies.
"""

from __future__ import annotations

import codecs
import functools
import io
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from tui_agent.web.render import remove_following, render, tidy

# readability logs a full traceback (log.exception) when it gives up, and pypdf warns about
# every odd object. With no handler anywhere, Python's last-resort handler would print those on
# stderr, under a full-screen TUI. A NullHandler keeps them out of the terminal; an application
# that configures logging still receives them through propagation.
for _name in ("readability", "pypdf"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

# The extracted main text counts as "almost nothing" when it is shorter than both of these; then
# the page's visible text is used instead.
MIN_MAIN_CHARS = 100
MIN_MAIN_SHARE = 0.25
# How much of the body is scanned for a <meta charset> or an XML declaration, and how much is
# given to charset detection.
META_SCAN_BYTES = 4096
DETECT_SAMPLE_BYTES = 1024 * 1024
# A single-byte non-Latin guess (cp1251, koi8-r, …) is trusted only with this many bytes >= 0x80;
# fewer, and the text is read as windows-1252 like a browser with a western default would.
MIN_HIGH_BYTES_FOR_NON_LATIN = 100

HTML, TEXT, JSON, PDF, BINARY = "html", "text", "json", "pdf", "binary"


class ContentError(ValueError):
    """A body could not be turned into text (a broken PDF, for example)."""


@dataclass
class Page:
    title: str
    text: str
    # which path produced the text: for HTML "readability" (its choice stood), "repaired" (a
    # failure of readability was detected and fixed), "vote" (trafilatura settled a dispute),
    # "visible" (fallback) or "none" (empty); "text", "json", "pdf" or "binary" for the others
    method: str = "readability"
    # when the text was cut to a budget: the length in characters of the whole text, else None
    full_chars: int | None = None


# --- classification ---------------------------------------------------------------------------

_TEXT_TYPES = {
    "text/plain", "text/markdown", "text/x-markdown", "text/csv", "text/tab-separated-values",
    "text/xml", "application/xml", "text/css", "text/javascript", "application/javascript",
    "application/x-javascript", "application/x-yaml", "application/yaml", "text/yaml",
    "application/toml", "application/x-sh", "application/x-tex", "text/x-python",
}
_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_UNSURE_TYPES = {"", "application/octet-stream", "binary/octet-stream", "application/unknown",
                 "application/download", "application/force-download", "unknown/unknown"}
_HTML_SNIFF = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|meta|div|p|h[1-6])[\s>]",
                         re.IGNORECASE | re.DOTALL)


def media_type(content_type: str | None) -> str:
    """``"text/html; charset=utf-8"`` → ``"text/html"``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def classify(content_type: str | None, url: str, body: bytes) -> str:
    """One of "html", "text", "json", "pdf", "binary"."""
    mtype = media_type(content_type)
    head = body[:1024].lstrip()
    if head.startswith(b"%PDF-") or mtype in ("application/pdf", "application/x-pdf"):
        return PDF
    path = urlsplit(url).path.lower() if url else ""
    if mtype in _UNSURE_TYPES and path.endswith(".pdf") and (not body or b"%PDF-" in body[:1024]):
        return PDF
    if mtype in _HTML_TYPES:
        return HTML
    if mtype == "application/json" or mtype.endswith("+json") or mtype == "text/json":
        return JSON
    if mtype in _TEXT_TYPES or mtype.endswith("+xml") or mtype.startswith("text/"):
        return TEXT
    if mtype in _UNSURE_TYPES:
        return _sniff(body, path)
    return BINARY


def _sniff(body: bytes, path: str) -> str:
    head = body[:4096]
    if not head:
        return TEXT
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return BINARY
    if _HTML_SNIFF.match(head):
        return HTML
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"[") or path.endswith(".json"):
        try:
            json.loads(body.decode("utf-8"))
            return JSON
        except (UnicodeDecodeError, ValueError):
            pass
    # Mostly printable? Then it is text; control bytes other than whitespace mean binary.
    controls = sum(1 for b in head if b < 0x20 and b not in (9, 10, 12, 13))
    return TEXT if controls <= len(head) // 100 else BINARY


# --- decoding ---------------------------------------------------------------------------------

# WHATWG encoding labels that browsers read differently from Python's codec of the same name.
_LABEL_OVERRIDES = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "l1": "cp1252", "ascii": "cp1252", "us-ascii": "cp1252", "iso_8859-1": "cp1252",
    "iso-8859-9": "cp1254", "latin5": "cp1254", "tis-620": "cp874", "iso-8859-11": "cp874",
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949", "x-sjis": "shift_jis", "shift-jis": "cp932", "sjis": "cp932",
    "windows-31j": "cp932", "x-mac-roman": "mac_roman", "unicode-1-1-utf-8": "utf-8",
    "utf8": "utf-8", "x-user-defined": "cp1252",
}
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([\w.:\-]+)""", re.IGNORECASE)
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:\-]+)""", re.IGNORECASE
)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:\-]+)["']""", re.IGNORECASE)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _codec(label: str | None) -> str | None:
    """A Python codec name for an encoding label, or None when it is unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _LABEL_OVERRIDES.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def charset_of(content_type: str | None) -> str | None:
    m = _CHARSET_PARAM.search(content_type or "")
    return _codec(m.group(1)) if m else None


def declared_in_body(body: bytes) -> str | None:
    """The encoding named by an XML declaration or a ``<meta>`` tag in the first bytes."""
    head = body[:META_SCAN_BYTES]
    m = _XML_DECL.match(head) or _META_CHARSET.search(head)
    if not m:
        return None
    name = _codec(m.group(1).decode("ascii", "ignore"))
    # A document whose <meta> is readable as ASCII is not UTF-16/32, whatever it says.
    if name and name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return name


@functools.lru_cache(maxsize=64)
def _is_single_byte(codec: str) -> bool:
    try:
        return len(bytes(range(256)).decode(codec, "replace")) == 256
    except (LookupError, ValueError):
        return False


def decode(body: bytes, content_type: str | None) -> str:
    """Bytes to text as a browser would.

    Order: a byte-order mark (it wins over everything, as in browsers), the Content-Type
    charset, a ``<meta>`` charset or XML declaration, UTF-8 when the bytes are valid UTF-8, else
    charset-normalizer's guess — where a single-byte codepage guess becomes windows-1252 (a
    non-Latin one such as cp1251 is kept when the body has enough bytes to back it). Invalid
    bytes become U+FFFD; this never raises.
    """
    if not body:
        return ""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom):].decode(codec, "replace")
    codec = charset_of(content_type) or declared_in_body(body)
    if codec:
        return body.decode(codec, "replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return body.decode(_detect(body), "replace")


def _detect(body: bytes) -> str:
    sample = body[:DETECT_SAMPLE_BYTES]
    guess = None
    try:
        import charset_normalizer

        best = charset_normalizer.from_bytes(sample).best()
        guess = _codec(best.encoding) if best is not None else None
    except Exception:  # detection is a nicety; never let it break reading a page
        guess = None
    if guess is None:
        return "cp1252"
    if not _is_single_byte(guess):
        return guess
    if guess != "cp1252" and _non_latin_script(sample, guess):
        return guess
    return "cp1252"


def _non_latin_script(sample: bytes, codec: str) -> bool:
    """True when ``sample`` read as ``codec`` is mostly non-Latin letters and long enough to trust."""
    high = sum(1 for b in sample if b >= 0x80)
    if high < MIN_HIGH_BYTES_FOR_NON_LATIN:
        return False
    text = sample.decode(codec, "replace")
    letters = [c for c in text if ord(c) >= 0x80 and c.isalpha()]
    if not letters:
        return False
    latin = sum(1 for c in letters if unicodedata.name(c, "").startswith("LATIN"))
    return latin < len(letters) / 2


# --- HTML -------------------------------------------------------------------------------------

_XML_DECL_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_WS = re.compile(r"\s+")
# Removed before the visible-text fallback (the spec'd script/style/nav/noscript, and kin).
_INVISIBLE = ("script", "style", "noscript", "nav", "template", "svg", "iframe", "object",
              "embed", "canvas", "head", "button", "select", "dialog")
MARKDOWN, PLAIN = "markdown", "text"


def html_to_markdown(html: str, url: str, max_chars: int | None = None) -> Page:
    """Main content of an HTML page as Markdown (headings, lists, tables, code, absolute links).

    The main content is chosen by :func:`tui_agent.web.maintext.extract` (readability-lxml,
    checked against a segment analysis of the page; trafilatura when they disagree) and rendered
    by :mod:`tui_agent.web.render`. When that yields almost nothing — under ``MIN_MAIN_CHARS``
    characters *and* under ``MIN_MAIN_SHARE`` of the page's visible text — the visible text is
    used instead (``method == "visible"``); when the visible text is empty too, ``text`` is ""
    (``method == "none"``). ``max_chars`` bounds the text rendered (a reader that keeps 24,000
    tokens need not render a million characters); ``Page.full_chars`` then tells how long the
    whole text was.
    """
    return main_content(html, url, max_chars, MARKDOWN)


def html_to_text(html: str, url: str, max_chars: int | None = None) -> Page:
    """The same main content as :func:`html_to_markdown`, as plain text (no Markdown syntax):
    paragraphs separated by blank lines, list items and table rows one per line, table cells
    separated by tabs."""
    return main_content(html, url, max_chars, PLAIN)


def parse_html(html: str):
    """A plain lxml.etree tree of the page (no lxml.html element classes: walking it is faster),
    or None when there is nothing to parse."""
    import lxml.etree

    try:
        return lxml.etree.fromstring(html, lxml.etree.HTMLParser())
    except (lxml.etree.ParserError, ValueError):
        return None


def main_content(html: str, url: str, max_chars: int | None, fmt: str) -> Page:
    from tui_agent.web import maintext

    html = _XML_DECL_TEXT.sub("", html or "", count=1).replace("\x00", "")
    if not html.strip():
        return Page("", "", "none")
    tree = parse_html(html)
    if tree is None:
        return Page("", "", "none")
    title = page_title(tree)
    markdown = fmt == MARKDOWN

    article, method = None, "none"
    try:
        found = maintext.extract(tree, html, title, _readability_class())
        article, full = maintext.build_tree(found, max_chars)  # prunes the page tree in place
        method = found.method
    except Exception:  # an odd page must not break reading: fall back to the visible text
        article, full = None, None
    text = ""
    if article is not None:
        text = render(article, markdown=markdown, base_url=url)

    if len(text) < MIN_MAIN_CHARS:
        visible = _visible_root(parse_html(html) if article is not None else tree)
        visible_len = len(_WS.sub(" ", "".join(visible.itertext())).strip()) if visible is not None else 0
        if not text or len(text) < MIN_MAIN_SHARE * visible_len:
            full = cut_tree(visible, max_chars) if visible_len else None
            fallback = render(visible, markdown=markdown, base_url=url) if visible_len else ""
            if fallback:
                return Page(title, fallback, "visible", full)
            if not text:
                return Page(title, "", "none")
    return Page(title, text, method, full)


def render_markdown(root, base_url: str = "") -> str:
    """An element as Markdown (see :mod:`tui_agent.web.render`)."""
    return render(root, markdown=True, base_url=base_url)


def render_text(root) -> str:
    """An element as plain text (see :mod:`tui_agent.web.render`)."""
    return render(root, markdown=False)


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


@functools.lru_cache(maxsize=1)
def _readability_class():
    from readability import Document

    class Readability(Document):
        """readability-lxml that keeps data tables and its article element.

        Its conditional cleaning drops any table with under 25 characters of text or "too many
        links", which loses the small tables of figures a researcher wants most. Tables that
        look like data (at least two rows of two cells, no nested table, few links) are kept.
        """

        def get_clean_html(self):
            # readability's documented override point: keep the article element, so the
            # analysis can read it without parsing the serialized summary again
            self.article_element = self.html
            return super().get_clean_html()

        def get_preserved_elements(self, node):
            allowed = super().get_preserved_elements(node)
            for table in self.tags(node, "table"):
                if is_data_table(table, self.get_link_density(table)):
                    allowed[table] = True
            return allowed

    return Readability


def is_data_table(table, link_density: float) -> bool:
    if table.find(".//table") is not None or link_density > 0.5:
        return False
    rows = [r for r in table.iter("tr") if len(r.findall("td") + r.findall("th")) >= 2]
    return len(rows) >= 2


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


# --- PDF --------------------------------------------------------------------------------------


def pdf_to_text(body: bytes) -> str:
    """Text of every page, each after a ``--- page N ---`` marker.

    Raises :class:`ContentError` when the PDF cannot be opened at all (broken, encrypted with a
    password, cut short by the download cap before its page index).
    """
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(body), strict=False)
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception:
                raise ContentError("the PDF is encrypted with a password") from None
        pages = reader.pages
        count = len(pages)
    except ContentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, AttributeError, IndexError) as exc:
        raise ContentError(f"the PDF could not be read ({exc.__class__.__name__}: {exc})") from None
    parts = []
    for number in range(1, count + 1):
        try:
            text = pages[number - 1].extract_text() or ""
        except Exception as exc:  # one bad page must not lose the others
            text = f"[the text of this page could not be extracted: {exc.__class__.__name__}]"
        parts.append(f"--- page {number} ---\n{tidy(text)}")
    return "\n\n".join(parts)


# --- all kinds --------------------------------------------------------------------------------


def to_page(body: bytes, content_type: str | None, url: str, max_chars: int | None = None,
            fmt: str = MARKDOWN) -> Page:
    """A fetched body as readable text: what a visit does between the network and the model.

    ``Page.method`` names the kind: for HTML how the main content was chosen ("readability",
    "repaired", "vote"; see :mod:`tui_agent.web.maintext`), "visible" or "none"; "text",
    "json", "pdf", or "binary" (then ``text`` is ""). A PDF that cannot be read raises
    :class:`ContentError`. ``max_chars`` bounds the text (``full_chars`` tells the whole length).
    ``fmt`` is "markdown" or "text" (plain text; only HTML differs between the two).
    """
    kind = classify(content_type, url, body)
    if kind == HTML:
        return main_content(decode(body, content_type), url, max_chars, fmt)
    if kind == BINARY:
        return Page("", "", BINARY)
    if kind == PDF:
        text = pdf_to_text(body)
    else:
        text = decode(body, content_type).strip()
    full = None
    if max_chars and len(text) > max_chars:
        full, text = len(text), text[:max_chars]
    return Page("", text, kind, full)
