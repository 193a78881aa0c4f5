"""An HTML element (lxml) as Markdown or as plain text, with one walker for both.

It renders every page text the model reads: trafilatura's main content (converted to HTML by
trafilatura), readability-lxml's article and the visible-text fallback (tui_agent/web/maintext.py).
trafilatura's own Markdown renderer was measured against it on 884 real pages: the same words
(plain-text F1 0.926 both), but it backslash-escapes the page's text (``snake\\_case``,
``\\[1]``, ``\\<tag>``) on 233 of them; this walker on 2.

Markdown: ATX headings, ``**bold**``, ``*italic*``, inline code, links made absolute (``#``,
``javascript:``, ``mailto:`` and ``data:`` links keep only their text), ``-`` bullets and
numbered lists (nested lists indented), pipe tables (first row as the header, pipes in cells
escaped), fenced code blocks with the language from a ``language-*``/``lang-*`` class, ``>``
quotes. Images, scripts, styles and form controls are dropped.

Plain text: the same blocks without any syntax — paragraphs separated by blank lines, each list
item and table row on its own line, table cells separated by tabs, code verbatim.

Both modes produce the same words in the same order, so ``tui-agent read --format text`` and
``--format markdown`` show the same content. The walker works on plain ``lxml.etree`` elements as
well as ``lxml.html`` ones, and costs a few milliseconds per 100 KB of text (markdownify through
BeautifulSoup took about five times as long).
"""

from __future__ import annotations

import re

from tui_agent.web.links import absolute

BLOCK = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu nav ol p pre section summary table tbody "
    "thead tfoot tr td th caption ul legend".split()
)
SKIP = frozenset(
    "script style noscript template svg math iframe object embed canvas head button select input textarea "
    "option img video audio map link meta source track picture title".split()
)
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


def skipped(el) -> bool:
    """Whether an element is left out with its content: scripts, styles, media, form controls —
    except a button inside a heading or <summary>, which is the heading's text (the accessible
    accordion pattern, ``<h3><button aria-expanded="false">Question</button></h3>``)."""
    tag = el.tag
    if tag.__class__ is not str:
        return True
    if tag not in SKIP:
        return False
    if tag == "button":
        for a in el.iterancestors():
            if a.tag in HEADINGS or a.tag == "summary":
                return False
    return True
DEAD_LINKS = ("#", "javascript:", "mailto:", "data:")
_TRAILING = re.compile(r"[ \t]+\n")


# The text helpers below do with str methods what a regular expression would (the expression is
# in each docstring): the same result, several times faster on a page's worth of text.
def collapse(text: str) -> str:
    """Runs of ASCII whitespace as one space: ``re.sub(r"[ \\t\\n\\r\\f\\v]+", " ", text)``."""
    for space in "\n\t\r\f\v":
        if space in text:
            text = text.replace(space, " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text


def _spaces(text: str) -> str:
    """Runs of spaces and tabs as one space: ``re.sub(r"[ \\t]+", " ", text)``."""
    if "\t" in text:
        text = text.replace("\t", " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text


def render(root, *, markdown: bool = True, base_url: str = "") -> str:
    """``root`` (an element) as Markdown, or as plain text when ``markdown`` is false."""
    r = _Renderer(markdown, base_url)
    blocks: list[str] = []
    if isinstance(root.tag, str) and root.tag in BLOCK:
        r.block(root, blocks)
    else:
        r.content(root, blocks, own_text=True)
    return tidy("\n\n".join(b for b in blocks if b.strip()))


def tidy(text: str) -> str:
    """Trailing spaces removed, runs of blank lines collapsed to one: ``re.sub(r"\\n(?:[ \\t]*\\n)+",
    "\\n\\n", re.sub(r"[ \\t]+\\n", "\\n", text))`` after no-break spaces became spaces, then
    stripped. (The indentation of the line after a blank line is kept: code.)"""
    if "\xa0" in text:
        text = text.replace("\xa0", " ")
    if " \n" in text or "\t\n" in text:
        text = _TRAILING.sub("\n", text)
    # no line but the last ends in a space or tab now, so a blank line is an empty one
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


def _has_block(el) -> bool:
    # a walk in Python: lxml's iterdescendants(*BLOCK) builds a matcher of 45 tags on every call,
    # which costs more than walking the few descendants an inline element has
    if not len(el):
        return False
    for node in el.iterdescendants():
        if node.tag in BLOCK:
            return True
    return False


def _code_language(el) -> str:
    for node in (el, *el.iter("code")):
        for cls in (node.get("class") or "").split():
            if cls.startswith(("language-", "lang-")):
                return cls.split("-", 1)[1]
    return ""


class _Renderer:
    def __init__(self, markdown: bool, base_url: str) -> None:
        self.md = markdown
        self.base = base_url

    # -- blocks ---------------------------------------------------------------------------------
    def content(self, el, out: list[str], own_text: bool = True) -> None:
        """The children of ``el`` as blocks: inline runs become paragraphs."""
        buf: list[str] = []
        if own_text and (text := el.text):
            buf.append(collapse(text))
        for child in el:
            tag = child.tag
            if tag.__class__ is str and (tag not in SKIP or not skipped(child)):  # skipped() inlined
                if tag in BLOCK or (tag != "a" and _has_block(child)):
                    self._flush(buf, out)
                    self.block(child, out)
                else:
                    buf.append(self.inline(child))
            if tail := child.tail:
                buf.append(collapse(tail))
        self._flush(buf, out)

    @staticmethod
    def _flush(buf: list[str], out: list[str]) -> None:
        if buf:
            text = _spaces("".join(buf))
            buf.clear()
            if "\n" in text:
                text = "\n".join(line for line in (line.strip() for line in text.split("\n")) if line)
            else:
                text = text.strip()
            if text:
                out.append(text)

    def block(self, el, out: list[str]) -> None:
        tag = el.tag
        if tag in HEADINGS:
            text = " ".join(self.inline_text(el).split())
            if text:
                out.append(("#" * HEADINGS[tag] + " " + text) if self.md else text)
        elif tag in ("ul", "ol"):
            text = self.list(el)
            if text:
                out.append(text)
        elif tag == "pre":
            self.pre(el, out)
        elif tag == "table":
            self.table(el, out)
        elif tag == "blockquote":
            inner: list[str] = []
            self.content(el, inner)
            text = "\n\n".join(inner)
            if text:
                out.append("\n".join(("> " + line) if line else ">" for line in text.split("\n")) if self.md else text)
        elif tag == "hr":
            if self.md:
                out.append("---")
        elif tag == "li":
            inner = []
            self.content(el, inner)
            text = "\n".join(inner)
            if text:
                out.append(("- " + text.replace("\n", "\n  ")) if self.md else text)
        else:
            self.content(el, out)

    def list(self, el, depth: int = 0) -> str:
        ordered = el.tag == "ol"
        try:
            number = int(el.get("start") or 1)
        except ValueError:
            number = 1
        lines: list[str] = []
        for item in el:
            if skipped(item):
                continue
            blocks: list[str] = []
            if item.tag in ("ul", "ol"):  # a list directly inside a list
                nested = self.list(item, depth + 1)
                if nested:
                    lines.append(nested)
                continue
            self.content(item, blocks)
            text = "\n".join(blocks)
            if not text:
                continue
            if not self.md:
                lines.append(text)
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            pad = " " * len(marker)
            body = text.replace("\n", "\n" + pad)
            lines.append(marker + body)
        return "\n".join(lines)

    def pre(self, el, out: list[str]) -> None:
        code = pre_text(el).strip("\n")
        if not code.strip():
            return
        if not self.md:
            out.append(code)
            return
        fence = "~~~" if "```" in code else "```"
        out.append(f"{fence}{_code_language(el)}\n{code}\n{fence}")

    def table(self, el, out: list[str]) -> None:
        rows = [tr for tr in el.iter("tr") if self._own_table(tr) is el]
        if not rows:
            self.content(el, out)
            return
        layout = is_layout_table(el)
        caption = el.find("caption")
        if caption is not None:
            text = " ".join(self.inline_text(caption).split())
            if text:
                out.append(text)
        if layout:  # a table used for page layout: its cells are blocks
            for tr in rows:
                for cell in tr:
                    if cell.tag in ("td", "th"):
                        self.content(cell, out)
            return
        grid = []
        for tr in rows:
            cells = [" ".join(self.inline_text(c).split()) for c in tr if c.tag in ("td", "th")]
            if any(cells):
                grid.append(cells)
        if not grid:
            return
        if not self.md:
            out.append("\n".join("\t".join(r) for r in grid))
            return
        width = max(len(r) for r in grid)
        lines = []
        for i, r in enumerate(grid):
            r = [c.replace("|", "\\|") for c in r] + [""] * (width - len(r))
            lines.append("| " + " | ".join(r) + " |")
            if i == 0:
                lines.append("| " + " | ".join(["---"] * width) + " |")
        out.append("\n".join(lines))

    @staticmethod
    def _own_table(tr):
        for a in tr.iterancestors("table"):
            return a
        return None

    # -- inline ---------------------------------------------------------------------------------
    def inline_text(self, el) -> str:
        """The inline rendering of an element's content (its tail excluded)."""
        parts = [collapse(text)] if (text := el.text) else []
        for child in el:
            tag = child.tag
            if tag.__class__ is str and (tag not in SKIP or not skipped(child)):
                if tag in BLOCK:
                    parts.append(" " + self.inline_text(child) + " ")
                else:
                    parts.append(self.inline(child))
            if tail := child.tail:
                parts.append(collapse(tail))
        return "".join(parts)

    def inline(self, el) -> str:
        tag = el.tag
        if tag == "br":
            return "\n"
        text = self.inline_text(el)
        if not self.md or not text.strip():
            return text
        if tag == "a":
            href = (el.get("href") or "").strip()
            if not href or href.startswith(DEAD_LINKS):
                return text
            if self.base:
                href = absolute(self.base, href)
                if href is None:
                    return text
            return self._wrap(text, "[", f"]({href})")
        if tag in ("strong", "b"):
            return self._wrap(text, "**", "**")
        if tag in ("em", "i"):
            return self._wrap(text, "*", "*")
        if tag == "code":
            return self._wrap(text, "`", "`")
        return text

    @staticmethod
    def _wrap(text: str, left: str, right: str) -> str:
        stripped = text.strip()
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()):]
        inner = " ".join(stripped.split()) if "\n" not in stripped else stripped
        return f"{lead}{left}{inner}{right}{trail}"


_LAYOUT_TAGS = frozenset(("table", "div", "ul", "ol", "dl", "blockquote", "section", "article", "header", "footer",
                          "form", "h1", "h2", "h3", "h4", "h5", "h6"))


def pre_text(el) -> str:
    """The text of a ``<pre>`` as a browser shows it: every character kept, a ``<br>`` as a newline,
    scripts and styles left out."""
    parts: list[str] = []

    def walk(node) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if child.tag == "br":
                parts.append("\n")
            elif not skipped(child):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return "".join(parts)


def is_layout_table(table) -> bool:
    """A table used to lay out a page (posts, columns), not to hold data: it nests a table or
    its cells hold blocks other than paragraphs (divs, lists, headings) or preformatted text of
    several lines (code shown beside its line numbers), which a one-line cell would flatten."""
    for cell in table.iter("td", "th"):
        for node in cell.iterdescendants():
            tag = node.tag
            if tag in _LAYOUT_TAGS or (tag == "pre" and "\n" in pre_text(node).strip("\n")):
                return True
    return False


def remove_following(el, root) -> None:
    """Remove everything after ``el`` (in page order) under ``root``, tails included."""
    node = el
    while node is not None and node is not root:
        parent = node.getparent()
        for sibling in list(node.itersiblings()):
            parent.remove(sibling)
        node.tail = None
        node = parent
