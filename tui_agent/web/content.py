"""Turning fetched bytes into text a model can read.

- :func:`classify`: html / text / json / pdf / binary, from the Content-Type, the URL and a sniff
  of the body.
- :func:`decode`: bytes to str the way a browser would (BOM, header charset, ``<meta>``, UTF-8,
  then detection; single-byte guesses become windows-1252 as browsers do).
- :func:`html_to_markdown` / :func:`html_to_text`: the main content as trafilatura extracts and
  renders it (Markdown with headings, lists, tables, code blocks and absolute links, or plain
  text), with readability-lxml when trafilatura finds almost nothing and the page's visible text
  as the last resort (those two rendered by :mod:`tui_agent.web.render`).
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

from tui_agent.web.render import tidy

# readability logs a full traceback (log.exception) when it gives up, trafilatura logs what it
# discards, and pypdf warns about
# every odd object. With no handler anywhere, Python's last-resort handler would print those on
# stderr, under a full-screen TUI. A NullHandler keeps them out of the terminal; an application
# that configures logging still receives them through propagation.
for _name in ("readability", "trafilatura", "pypdf"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

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
    # which path produced the text: for HTML "trafilatura", "readability" (trafilatura found
    # almost nothing), "visible" (both did) or "none" (empty); "text", "json", "pdf" or "binary"
    method: str = "trafilatura"
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

MARKDOWN, PLAIN = "markdown", "text"


def html_to_markdown(html: str, url: str, max_chars: int | None = None) -> Page:
    """Main content of an HTML page as Markdown (headings, lists, tables, code, absolute links).

    The main content is trafilatura's (``method == "trafilatura"``), rendered by trafilatura's
    Markdown renderer; readability-lxml's article takes over when trafilatura returns under
    ``maintext.MIN_MAIN_CHARS`` characters and readability finds more (``"readability"``). When what
    they find is almost nothing next to the page's visible text (``maintext.ALMOST_NOTHING_CHARS``,
    ``maintext.MIN_VISIBLE_SHARE``), the visible text is used (``"visible"``); when that is empty
    too, ``text`` is "" (``"none"``). A leading heading that repeats the page title is left to
    the title (the observation header shows it). ``max_chars`` bounds the text rendered (a reader that keeps 24,000
    tokens need not render a million characters); ``Page.full_chars`` then tells how long the
    whole text was.
    """
    return _html(html, url, max_chars, markdown=True)


def html_to_text(html: str, url: str, max_chars: int | None = None) -> Page:
    """The same main content as :func:`html_to_markdown`, as plain text (no Markdown syntax, no
    link targets)."""
    return _html(html, url, max_chars, markdown=False)


def _html(html: str, url: str, max_chars: int | None, *, markdown: bool) -> Page:
    from tui_agent.web import maintext

    found = maintext.main_content(html, url, max_chars, markdown=markdown)
    return Page(found.title, found.text, found.method, found.full_chars)


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

    ``Page.method`` names the kind: for HTML where the main content came from ("trafilatura",
    "readability", "visible" or "none"; see :func:`html_to_markdown`); "text",
    "json", "pdf", or "binary" (then ``text`` is ""). A PDF that cannot be read raises
    :class:`ContentError`. ``max_chars`` bounds the text (``full_chars`` tells the whole length).
    ``fmt`` is "markdown" or "text" (plain text; only HTML differs between the two).
    """
    kind = classify(content_type, url, body)
    if kind == HTML:
        return _html(decode(body, content_type), url, max_chars, markdown=fmt == MARKDOWN)
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
