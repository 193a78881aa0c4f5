"""Links in outside Markdown (answers, observations) open only what they show.

A model's answer, written from hostile pages, may hide a link's target behind other text
(``[https://docs.example](https://evil.example/phish)``) or point it at another scheme
(``vscode://…``, ``file:…``). :func:`parser` gives Textual's Markdown a parser whose links show
their target: a link whose text is its own http(s) URL stays as it is; any other http(s) link
becomes its text, unlinked, followed by ``(URL)``, the one part that opens (or by nothing when the
line shows that URL already, as a source line does); a link or image of any
other scheme is plain text with its target in brackets. ``open_url`` (``safe_url``) is the second
guard: only http(s) URLs ever open.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

OPENABLE_SCHEMES = ("http", "https")


def safe_url(url: str) -> bool:
    """Whether a URL may be opened: http(s), with a host, nothing hidden in control characters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in OPENABLE_SCHEMES and bool(parts.hostname) and url.isprintable() and " " not in url


def _text(token_cls: Any, content: str) -> Any:
    token = token_cls("text", "", 0)
    token.content = content
    return token


def _link(token_cls: Any, href: str) -> list[Any]:
    start = token_cls("link_open", "a", 1)
    start.attrs = {"href": href}
    return [start, _text(token_cls, href), token_cls("link_close", "a", -1)]


def _shown(children: list[Any], token_cls: Any) -> list[Any]:
    # URLs the line shows as text already (a source line's "[title](url) — url"): a link to one of
    # them is unlinked, not followed by its URL a second time.
    visible = {c.content.strip() for c in children if c.type == "text"}
    out: list[Any] = []
    i = 0
    while i < len(children):
        tok = children[i]
        if tok.type == "image":
            src = str(tok.attrs.get("src", ""))
            alt = "".join(c.content for c in tok.children or []) or str(tok.attrs.get("alt", ""))
            out.append(_text(token_cls, f"[image{': ' + alt if alt else ''}] <{src}>"))
            i += 1
            continue
        if tok.type != "link_open":
            out.append(tok)
            i += 1
            continue
        depth, j = 1, i + 1
        while j < len(children) and depth:
            depth += {"link_open": 1, "link_close": -1}.get(children[j].type, 0)
            j += 1
        inner = children[i + 1:j - 1] if depth == 0 else children[i + 1:j]
        href = str(tok.attrs.get("href", ""))
        text = "".join(c.content for c in inner if c.type in ("text", "code_inline"))
        if safe_url(href) and text.strip() == href:
            out += children[i:j]  # a URL shown as itself
        elif safe_url(href) and href in visible:
            out += _shown(inner, token_cls)
        elif safe_url(href):
            out += [*_shown(inner, token_cls), _text(token_cls, " ("), *_link(token_cls, href), _text(token_cls, ")")]
        else:
            out += [*_shown(inner, token_cls), _text(token_cls, f" <{href}>")]
        i = j
    return out


def _shown_links(state: Any) -> None:
    from markdown_it.token import Token

    for block in state.tokens:
        if block.type == "inline" and block.children:
            block.children = _shown(block.children, Token)


def parser() -> Any:
    """Textual's "gfm-like" Markdown parser, with every link showing what it opens."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("gfm-like")
    md.core.ruler.push("shown_links", _shown_links)
    return md
