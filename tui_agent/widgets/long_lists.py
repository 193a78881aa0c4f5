"""A long bullet list drawn as one widget: an answer's hundred sources.

Textual's Markdown draws each item of a bullet list as four widgets (a row, its bullet, a column,
the item's paragraph): an answer listing 100 sources is some 400 widgets to mount, lay out and
draw, and to hide and show again when its tab is switched away and back. ``LongBulletList`` draws
a list of ``LONG_LIST_ITEMS`` items or more whose items are each one paragraph (a source line) as
a single widget: each item's text wrapped to the width left of its bullet, the bullet on its first
line, the lines below indented under the text, as Textual's widgets draw it; links stay links
(clicked, the block says so, as any Markdown block does). A shorter list, or one with nested
blocks, is drawn by Textual's widgets as before.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBulletList, MarkdownListItem, MarkdownParagraph

# A bullet list of this many one-paragraph items or more is drawn as one widget.
LONG_LIST_ITEMS = 20


class LongBulletList(MarkdownBulletList):
    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._items: list[tuple[str, Content]] | None = None
        self._wrapped: tuple[tuple[int, bool], Content] | None = None

    def compose(self):
        items = self._blocks
        if len(items) < LONG_LIST_ITEMS or not all(
                isinstance(b, MarkdownListItem) and len(b._blocks) == 1 and type(b._blocks[0]) is MarkdownParagraph
                for b in items):
            yield from super().compose()
            return
        self._items = [(b.bullet, b._blocks[0]._content) for b in items]  # type: ignore[attr-defined]
        self._content = Content("\n").join(content for _bullet, content in self._items)  # its text, links and all
        self._blocks.clear()

    def _lines(self, width: int) -> Content:
        assert self._items is not None
        dark = self.app.current_theme.dark
        if self._wrapped is None or self._wrapped[0] != (width, dark):
            bullet_style = "$text-primary" if dark else "$text-secondary"
            lines: list[Content] = []
            for bullet, content in self._items:
                indent = cell_len(bullet)
                for i, line in enumerate(content.wrap(max(1, width - indent))):
                    lines.append((Content.styled(bullet, bullet_style) if i == 0 else Content(" " * indent)) + line)
            self._wrapped = ((width, dark), Content("\n").join(lines))
        return self._wrapped[1]

    def render(self) -> Any:
        if self._items is None:
            return super().render()
        width = self.content_region.width
        return self._lines(width) if width > 0 else Content("")

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        if self._items is None:
            return super().get_content_height(container, viewport, width)
        return self._lines(width).plain.count("\n") + 1 if width > 0 else 0


class AnswerMarkdown(Markdown):
    """Textual's Markdown, a long bullet list drawn as one widget (``LongBulletList``)."""

    BLOCKS = {**Markdown.BLOCKS, "bullet_list_open": LongBulletList}
