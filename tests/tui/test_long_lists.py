"""A long bullet list (an answer's sources) drawn as one widget looks exactly as Textual's Markdown
draws it with a widget per item (every cell the same character in the same colours, wrapped lines
and all, dark and light themes, narrow and wide), and its links are still links: a click opens the source it shows."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from tui_agent.widgets.long_lists import LONG_LIST_ITEMS, AnswerMarkdown, LongBulletList
from tui_agent.widgets.shown_links import parser


def sources(n: int) -> str:
    lines = []
    for i in range(1, n + 1):
        title = f"Notes on topic {i}" + (" with a much longer title that has to wrap at a narrow width" * (i % 3 == 0))
        lines.append(f"- **[{i}]** [{title}](https://notes.example/topic-{i}) — https://notes.example/topic-{i}")
    return "It is *42* [1], with `code`.\n\n**Sources**\n\n" + "\n".join(lines) + "\n\nAfter the list."


class ListApp(App):
    def __init__(self, markdown: type[Markdown], theme: str) -> None:
        super().__init__()
        self.markdown, self.theme_name, self.clicked = markdown, theme, []

    def compose(self):
        with VerticalScroll():
            yield self.markdown("", parser_factory=parser)

    def on_mount(self) -> None:
        self.theme = self.theme_name

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        self.clicked.append(message.href)


def cells(strips) -> list[list[tuple]]:
    """What the eye sees of each cell: its character, background, and the foreground and text style
    of what it shows (a blank's foreground colour shows nothing, so it is not compared)."""
    rows = []
    for line in strips:  # each line: its strips, left to right
        row = []
        for seg in (seg for strip in line for seg in strip):
            style = seg.style
            for ch in seg.text:
                shown = ch != " " or (style is not None and (style.underline or style.strike or style.reverse))
                row.append((ch, style.bgcolor if style else None,
                            (style.color, style.bold, style.italic, style.underline, style.strike,
                             style.reverse, style.dim) if style and shown else None))
        rows.append(row)
    return rows


async def screen_cells(markdown: type[Markdown], text: str, size: tuple[int, int], theme: str) -> tuple[list, int]:
    app = ListApp(markdown, theme)
    async with app.run_test(size=size) as pilot:
        await app.query_one(Markdown).update(text)
        await pilot.pause()
        return cells(app.screen._compositor.render_full_update().strips), len(app.query("*"))


@pytest.mark.parametrize("size", [(60, 150), (100, 90)])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_a_long_source_list_as_one_widget_looks_as_textuals_widgets_draw_it(size, theme):
    text = sources(LONG_LIST_ITEMS + 10)
    theirs, their_widgets = await screen_cells(Markdown, text, size, theme)
    ours, our_widgets = await screen_cells(AnswerMarkdown, text, size, theme)
    for y, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"line {y}: {[(i, x, z) for i, (x, z) in enumerate(zip(a, b)) if x != z][:3]}"
    assert len(ours) == len(theirs)
    assert our_widgets < their_widgets - 3 * LONG_LIST_ITEMS  # one widget, not four per item


async def test_a_short_list_is_textuals_own_and_a_long_ones_links_open_what_they_show():
    app = ListApp(AnswerMarkdown, "textual-dark")
    async with app.run_test(size=(60, 150)) as pilot:
        md = app.query_one(AnswerMarkdown)
        await md.update(sources(LONG_LIST_ITEMS - 1))
        await pilot.pause()
        assert not md.query(LongBulletList) or md.query_one(LongBulletList)._items is None
        await md.update(sources(LONG_LIST_ITEMS + 10))
        await pilot.pause()
        block = md.query_one(LongBulletList)
        assert block._items is not None and not block.children
        lines = block._lines(block.content_region.width).plain.split("\n")
        y = next(i for i, line in enumerate(lines) if "https://notes.example/topic-12" in line)
        x = lines[y].index("https://notes.example/topic-12") + 3
        await pilot.click(block, offset=(x, y))
        await pilot.pause()
        assert app.clicked == ["https://notes.example/topic-12"]
