"""The trace panes: Thought (streamed plain text), Observation and Answer (Markdown).

``StreamingText`` is built for fast streams: it keeps wrapped lines and re-wraps only the last
line of text when more arrives, so appending is proportional to the new text, not to all of it.
It follows new text only when the view is already at the bottom, and then in steps of half a
pane (``FOLLOW_STEP``): between two steps the text stands still and only the lines that changed
are drawn again, instead of the whole pane scrolling (and being drawn and sent to the terminal
whole) at every batch. Measured while a long answer streams: the bytes written to the terminal
and the UI's render time fall to a fraction (``benchmarks/bench_tui.py --only answer-keys``).

The Markdown panes are replaced as a whole when the step shown changes; replacements are
debounced so moving quickly through steps renders only the step the user stops at. A streamed
answer is appended instead (``MarkdownPane.append``), as plain text that grows like the Thought
pane, and is rendered as Markdown once when it is complete.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

# Delay before a Markdown pane renders replaced content (seconds).
MARKDOWN_DEBOUNCE_S = 0.03
# A following pane moves by this share of its height at once when the text reaches its bottom.
FOLLOW_STEP = 0.5
# A Markdown document this long (characters) is kept rendered by a pane that keeps documents.
KEEP_CHARS = 2000


def wrap_line(line: str, width: int) -> list[str]:
    """Greedy word wrap by terminal cells; long words are broken. Never returns []."""
    if width <= 0:
        return [line]
    if cell_len(line) <= width:
        return [line]
    out: list[str] = []
    current = ""
    current_w = 0
    for word in _words(line):
        w = cell_len(word)
        if current_w + w <= width:
            current += word
            current_w += w
            continue
        if current:
            out.append(current.rstrip(" ") if word.strip() else current)
            current, current_w = "", 0
            if not word.strip():
                continue  # a space at a line break is dropped
        while w > width:
            cut = _cut_cells(word, width)
            out.append(word[:cut])
            word = word[cut:]
            w = cell_len(word)
        current, current_w = word, w
    out.append(current)
    return out


def _words(line: str) -> list[str]:
    words: list[str] = []
    start = 0
    for i, ch in enumerate(line):
        if ch == " ":
            if i > start:
                words.append(line[start:i])
            words.append(" ")
            start = i + 1
    if start < len(line):
        words.append(line[start:])
    return words


def _cut_cells(text: str, width: int) -> int:
    total = 0
    for i, ch in enumerate(text):
        total += cell_len(ch)
        if total > width:
            return max(1, i)
    return len(text)


class StreamingText(ScrollView, can_focus=True):
    """Plain text that grows quickly; wraps to the widget width.

    The scrollbar's columns are always kept (``scrollbar-gutter: stable``): the width text wraps to
    never changes when the text starts to scroll, so no line runs under a scrollbar that came with
    the last piece of a stream (nothing would wrap it again)."""

    DEFAULT_CSS = """
    StreamingText { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(self, text: str = "", placeholder: str = "", **kw) -> None:
        super().__init__(**kw)
        self.placeholder = placeholder
        self._lines: list[str] = [""]
        self._vis: list[str] = []
        self._last_start = 0  # index in _vis of the first visual line of the last text line
        self._wrap_width = 0
        if text:
            self._lines = text.split("\n")

    @property
    def text(self) -> str:
        return "\n".join(self._lines)

    # -- content ----------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        if text == self.text:
            return
        self._lines = text.split("\n")
        self._rewrap_all()
        self.scroll_home(animate=False)

    def append(self, text: str) -> None:
        if not text:
            return
        follow = self.is_vertical_scroll_end
        parts = text.split("\n")
        self._lines[-1] += parts[0]
        self._lines.extend(parts[1:])
        width = self._width()
        if width != self._wrap_width or not self._vis:
            self._rewrap_all()
            if follow:
                self.scroll_end(animate=False)
            return
        # Greedy wrapping never changes earlier visual lines: re-wrap only the last one.
        changed = len(self._vis) - 1
        tail = self._vis.pop() + parts[0]
        self._vis.extend(wrap_line(tail, width))
        for line in parts[1:]:
            self._last_start = len(self._vis)
            self._vis.extend(wrap_line(line, width))
        if self._fix_virtual_size():
            if follow:
                self.scroll_end(animate=False, immediate=True, force=True)  # a step: drawn again whole
                self.refresh()
                return
        self.refresh_lines(changed, len(self._vis) - changed)  # the text stands: only what changed

    # -- layout -------------------------------------------------------------------------------
    def _width(self) -> int:
        return max(1, self.scrollable_content_region.width or self.size.width or 80)

    def _rewrap_all(self) -> None:
        width = self._width()
        self._wrap_width = width
        vis: list[str] = []
        for line in self._lines:
            self._last_start = len(vis)
            vis.extend(wrap_line(line, width))
        self._vis = vis
        self._fix_virtual_size()
        self.refresh()

    def _fix_virtual_size(self) -> bool:
        """Make the scrollable height the text's, rounded up to a whole step (the blank lines below
        the text are where the next lines appear without a scroll). True when it changed."""
        height = self.scrollable_content_region.height
        lines = len(self._vis)
        if height > 0 and lines > height:
            step = max(1, int(height * FOLLOW_STEP))
            lines = height + -(-(lines - height) // step) * step
        size = Size(self._wrap_width, lines)
        old = self.virtual_size
        if size == old:
            return False
        if not self.is_mounted or size.width != old.width or (size.height > height) != (old.height > height):
            self.virtual_size = size  # the scrollbar appears or goes: the screen is laid out again
            return True
        # Only taller (text streams in): the scrollbar's range changes, nothing else on the screen
        # moves, so no layout of the whole screen (setting ``virtual_size`` would do one per batch).
        self.set_reactive(ScrollView.virtual_size, size)
        self._scroll_update(size)
        self.refresh()
        return True

    def on_resize(self) -> None:
        follow = self.is_vertical_scroll_end
        if self._width() != self._wrap_width:
            self._rewrap_all()
        elif not self._fix_virtual_size():  # another height: another step
            return
        if follow:
            self.scroll_end(animate=False)

    def render_lines(self, crop):
        # The widget's style, worked out once per render: ``rich_style`` walks the ancestors, and
        # per line it cost more than the lines themselves while a long reply streamed.
        self._line_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        style = getattr(self, "_line_style", None) or self.rich_style
        index = y + self.scroll_offset.y
        if not self._vis or (len(self._vis) == 1 and not self._vis[0]):
            lines = wrap_line(self.placeholder, width) if self.placeholder else []
            if y < len(lines):  # wrapped as the text is: nothing cut at the pane's edge
                text = lines[y]
                return Strip([Segment(text, style + self.get_component_rich_style("streaming-text--placeholder")),
                              Segment(" " * max(0, width - cell_len(text)), style)])
            return Strip.blank(width, style)
        if index >= len(self._vis):
            return Strip.blank(width, style)
        line = self._vis[index]
        pad = max(0, width - cell_len(line))
        return Strip([Segment(line, style), Segment(" " * pad, style)])

    COMPONENT_CLASSES = {"streaming-text--placeholder"}
    DEFAULT_CSS += """
    StreamingText > .streaming-text--placeholder { color: $text-muted; text-style: italic; }
    """


class MarkdownPane(VerticalScroll):
    """A scrollable Markdown document whose content is replaced as a whole, or streamed.

    Streamed text (``append``) goes to a ``StreamingText`` shown in the Markdown's place: its
    cost per batch is the new text, and the screen's widget count stays the same. (Appending to
    Textual's ``Markdown`` mounts widgets for every block, and each mount lays out the whole
    screen again: measured, keys then waited up to seconds behind a long answer.) The next
    ``set_markdown`` (the finished answer) renders it as Markdown once.

    ``keep``: how many long documents stay rendered (hidden) after another replaced them, the
    most recently shown first, so that showing one again (a tab switched back to: its answer
    and a hundred sources are some 400 widgets) is a swap, drawn in the same frame, not a render.
    A document is a function of its text alone: a kept one is what rendering its text shows."""

    DEFAULT_CSS = """
    MarkdownPane { height: 1fr; }
    MarkdownPane > Markdown { margin: 0; padding: 0 1 0 0; background: transparent; }
    MarkdownPane > StreamingText { height: 1fr; padding: 0 1 0 1; background: transparent; }
    """

    def __init__(self, text: str = "", *, keep: int = 0, **kw) -> None:
        super().__init__(**kw)
        self._text = text
        self._timer = None
        self._keep = keep
        self._kept: dict[str, Any] = {}  # text -> its rendered Markdown (hidden), least recently shown first
        self._doc: Any = None  # the Markdown shown (or hidden while text streams)

    @property
    def text(self) -> str:
        return self._text

    @property
    def document(self) -> Any:
        """The Markdown widget showing ``text`` (hidden while text streams)."""
        return self._doc

    @property
    def streaming(self) -> bool:
        """Streamed text is shown (plain), not the rendered Markdown."""
        return self._live().display

    def compose(self):
        self._doc = self._markdown(self._text)
        yield self._doc
        live = StreamingText()
        live.display = False
        yield live

    @staticmethod
    def _markdown(text: str) -> Any:
        from tui_agent.widgets.long_lists import AnswerMarkdown
        from tui_agent.widgets.shown_links import parser

        # Links show what they open; a long list (an answer's sources) is one widget.
        return AnswerMarkdown(text, parser_factory=parser)

    def _live(self) -> StreamingText:
        return self.query_one(StreamingText)

    def set_markdown(self, text: str, *, top: bool = True) -> None:
        if self.streaming:
            self._show_markdown()
        elif text == self._text:
            return
        self._text = text
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if text in self._kept:  # rendered already: shown at once
            self._render_now(top)
            return
        self._timer = self.set_timer(MARKDOWN_DEBOUNCE_S, lambda: self._render_now(top))

    def _show_markdown(self) -> None:
        self._live().display = False
        self._live().set_text("")
        self._doc.display = True

    def _render_now(self, top: bool) -> None:
        self._timer = None
        doc, text = self._doc, self._text
        kept = self._kept.pop(text, None)
        if kept is None and doc.source == text:
            pass  # shown already
        elif kept is None and not self._worth_keeping(doc):
            doc.update(text)
        else:
            if self._worth_keeping(doc):
                self._kept[doc.source] = doc
                doc.display = False
            else:
                doc.remove()
            if kept is None:
                kept = self._markdown(text)
                self.mount(kept, before=self._live())
            kept.display = True
            self._doc = kept
            while len(self._kept) > self._keep:
                self._kept.pop(next(iter(self._kept))).remove()
        if top:
            self.scroll_home(animate=False)

    def _worth_keeping(self, doc: Any) -> bool:
        """A long document (it took a while to render) is kept when another replaces it."""
        return self._keep > 0 and doc.display and len(doc.source) >= KEEP_CHARS

    def stream(self, text: str) -> None:
        """Start a streamed document with ``text`` (the text so far); ``append`` adds to it."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._text = text
        self._doc.display = False
        live = self._live()
        live.display = True
        live.set_text(text)
        self.scroll_home(animate=False)
        live.scroll_end(animate=False)

    def append(self, text: str) -> None:
        """Add ``text`` to the streamed document (it follows the new text only when already at
        the bottom). Never waits, never re-renders what is already there."""
        if not text:
            return
        if not self.streaming:
            self.stream(self._text + text)
            return
        self._text += text
        self._live().append(text)
