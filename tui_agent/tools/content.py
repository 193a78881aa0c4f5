"""Turning fetched bytes into text a model can read.

- :func:`classify`: html / text / json / pdf / binary, from the Content-Type, the URL and a sniff
  of the body.
- :func:`decode`: bytes to str the way a browser would (BOM, header charset, ``<meta>``, UTF-8,
  then detection; single-byte guesses become windows-1252 as browsers do).
- :func:`html_to_markdown`: main content through readability-lxml, rendered as Markdown
  (headings, paragraphs, lists, absolute links, tables, code blocks), with a fallback to the
  page's visible text. It is the one function to swap for a better extractor (issue 6).
- :func:`pdf_to_text`: text per page with ``--- page N ---`` markers.

Everything here is synchronous CPU work; callers run it in a thread for large bodies.
"""

from __future__ import annotations

import codecs
import copy
import functools
import io
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

# readability logs a full traceback (log.exception) when it gives up, and pypdf warns about
# every odd object. With no handler anywhere, Python's last-resort handler would print those on
# stderr, under a full-screen TUI. A NullHandler keeps them out of the terminal; an application
# that configures logging still receives them through propagation.
for _name in ("readability", "pypdf"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

# Readability's output counts as "almost nothing" when it is shorter than both of these; then
# the page's visible text is used instead.
MIN_MAIN_CHARS = 200
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
    # which path produced the text: "readability", "visible" (fallback) or "none" (empty) for
    # HTML; "text", "json", "pdf" or "binary" for the other kinds (see to_page)
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
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_WS = re.compile(r"\s+")
# Removed before the visible-text fallback (the spec'd script/style/nav/noscript, and kin).
_INVISIBLE = ("script", "style", "noscript", "nav", "template", "svg", "iframe", "object",
              "embed", "canvas", "head", "button", "select", "dialog")


def html_to_markdown(html: str, url: str, max_chars: int | None = None) -> Page:
    """Main content of an HTML page as Markdown; see :func:`readability_markdown`.

    The single entry point for HTML extraction: swap the implementation here (issue 6).
    ``max_chars`` bounds the text rendered (a reader that keeps 24,000 tokens need not render
    a million characters); ``Page.full_chars`` then tells how long the whole text was.
    """
    return readability_markdown(html, url, max_chars)


def readability_markdown(html: str, url: str, max_chars: int | None = None) -> Page:
    """readability-lxml's article, rendered as Markdown; the visible text when that fails.

    The fallback is used when readability raises (``Unparseable`` on empty input and the like)
    or returns almost nothing: under ``MIN_MAIN_CHARS`` characters *and* under
    ``MIN_MAIN_SHARE`` of the page's visible text. When the visible text is empty too, the
    page's ``text`` is "" (``method == "none"``).
    """
    import lxml.etree
    import lxml.html

    html = _XML_DECL_TEXT.sub("", html or "", count=1).replace("\x00", "")
    if not html.strip():
        return Page("", "", "none")
    try:
        tree = lxml.html.document_fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return Page("", "", "none")
    title = page_title(tree)

    # readability accepts a parsed tree (it cleans a deep copy each pass), which saves a parse.
    # Links are made absolute afterwards, in the part of the article that is kept, rather than
    # by readability in the whole page on each of its passes.
    text, full = "", None
    try:
        summary = _readability_class()(tree).summary(html_partial=True)
        if summary:
            article = lxml.html.fragment_fromstring(summary, create_parent="div")
            full = cut_tree(article, max_chars)
            _absolute_links(article, url)
            text = render_markdown(article)
    except Exception:
        text, full = "", None

    if len(text) < MIN_MAIN_CHARS:
        visible = _visible_root(tree, url)
        visible_len = len(_WS.sub(" ", visible.text_content()).strip())
        if not text or len(text) < MIN_MAIN_SHARE * visible_len:
            full = cut_tree(visible, max_chars) if visible_len else None
            fallback = render_markdown(visible) if visible_len else ""
            if fallback:
                return Page(title, fallback, "visible", full)
            if not text:
                return Page(title, "", "none")
    return Page(title, text, "readability", full)


def cut_tree(root, max_chars: int | None) -> int | None:
    """Drop everything after the first ``max_chars`` characters of text under ``root``.

    Returns the text length of the whole tree when something was cut, else None. The element
    where the budget runs out is kept whole, so no sentence or table is cut in the middle.
    """
    if not max_chars:
        return None
    seen = 0
    for el in root.iter():
        seen += len(el.text or "")
        if seen > max_chars and el is not root:
            break
        seen += len(el.tail or "") if el is not root else 0
    else:
        return None
    total = len(root.text_content())
    node = el
    while node is not None and node is not root:
        parent = node.getparent()
        for sibling in list(node.itersiblings()):
            parent.remove(sibling)
        node.tail = None
        node = parent
    return total


@functools.lru_cache(maxsize=1)
def _readability_class():
    from readability import Document

    class Readability(Document):
        """readability-lxml that keeps data tables.

        Its conditional cleaning drops any table with under 25 characters of text or "too many
        links", which loses the small tables of figures a researcher wants most. Tables that
        look like data (at least two rows of two cells, no nested table, few links) are kept.
        """

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


def _visible_root(tree, url: str):
    """A copy of the page body without script/style/nav/noscript and kin, links made absolute."""
    body = tree.find(".//body")
    root = copy.deepcopy(body if body is not None else tree)
    for el in list(root.iter(*_INVISIBLE)):
        if el is not root and el.getparent() is not None:
            el.drop_tree()
    for el in root.xpath('.//*[@hidden or contains(translate(@style, " ", ""), "display:none")]'):
        if el is not root and el.getparent() is not None:
            el.drop_tree()
    _absolute_links(root, url)
    return root


def _absolute_links(root, url: str) -> None:
    if url:
        try:
            root.make_links_absolute(url, resolve_base_href=False, handle_failures="discard")
        except Exception:
            pass


def render_markdown(html) -> str:
    """HTML (a string or an lxml element) as readable Markdown, blank lines collapsed."""
    import lxml.html
    from bs4 import BeautifulSoup

    if not isinstance(html, str):
        html = lxml.html.tostring(html, encoding="unicode")
    soup = BeautifulSoup(html, "lxml", element_classes={_bs4_tag(): _fast_tag_class()})
    text = _converter().convert_soup(soup)
    return tidy(text)


def _bs4_tag():
    from bs4 import Tag

    return Tag


@functools.lru_cache(maxsize=1)
def _fast_tag_class():
    """bs4's Tag with a quick ``find_parent(name)``.

    markdownify asks every tag whether it sits inside a <pre> through ``find_parent("pre")``,
    and bs4's general search machinery makes that half the cost of a conversion. A plain walk
    up the parents gives the same answer.
    """
    Tag = _bs4_tag()

    class FastTag(Tag):
        def find_parent(self, name=None, attrs=None, **kwargs):
            if isinstance(name, str) and not attrs and not kwargs:
                parent = self.parent
                while parent is not None:
                    if parent.name == name:
                        return parent
                    parent = parent.parent
                return None
            return super().find_parent(name, attrs, **kwargs)

    return FastTag


def tidy(text: str) -> str:
    """Trailing spaces removed, runs of blank lines collapsed to one."""
    text = _TRAILING_SPACE.sub("\n", text.replace("\xa0", " "))
    return _BLANK_LINES.sub("\n\n", text).strip()


@functools.lru_cache(maxsize=1)
def _converter():
    """One shared converter (it keeps no per-document state)."""
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):
        """markdownify, tuned for a reader that is a model: no images, no dead links."""

        def convert_img(self, el, text, parent_tags):
            return ""

        def convert_a(self, el, text, parent_tags):
            href = (el.get("href") or "").strip()
            if not href or href.startswith(("#", "javascript:", "mailto:", "data:")):
                return text
            if not text.strip():
                return ""
            return super().convert_a(el, text, parent_tags)

        def convert_br(self, el, text, parent_tags):
            return " " if "_inline" in parent_tags else "\n"

    return Converter(**_MD_OPTIONS)


def _code_language(el) -> str:
    for node in (el, *(el.find_all("code") if hasattr(el, "find_all") else [])):
        for cls in node.get("class") or []:
            if cls.startswith(("language-", "lang-")):
                return cls.split("-", 1)[1]
    return ""


_MD_OPTIONS = dict(
    heading_style="ATX",
    bullets="-",
    escape_asterisks=False,
    escape_underscores=False,
    escape_misc=False,
    table_infer_header=True,
    code_language_callback=_code_language,
    strip=["script", "style", "noscript", "form", "button", "input", "select", "textarea"],
)


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


def to_page(body: bytes, content_type: str | None, url: str, max_chars: int | None = None) -> Page:
    """A fetched body as readable text: what a visit does between the network and the model.

    ``Page.method`` names the kind: "readability" / "visible" / "none" for HTML, "text",
    "json", "pdf", or "binary" (then ``text`` is ""). A PDF that cannot be read raises
    :class:`ContentError`. ``max_chars`` bounds the text (``full_chars`` tells the whole length).
    """
    kind = classify(content_type, url, body)
    if kind == HTML:
        return html_to_markdown(decode(body, content_type), url, max_chars)
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
