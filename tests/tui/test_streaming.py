"""A long answer streams into the answer pane as it arrives, without re-rendering what is there
(issue 17, item 6): the keys stay quick while it grows, and it is rendered as Markdown once."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

from tests.servers import Reply
from tests.tui.conftest import make_app, wait_ended, wait_until
from tui_agent.widgets.trace_panes import MarkdownPane, StreamingText

BODY = "## The finding\n\n" + "streamed words arrive one piece at a time " * 60


async def test_a_streamed_answer_grows_as_text_and_is_rendered_as_markdown_once_complete(chat_server, tmp_path):
    chat_server.script(Reply(f"<answer>{BODY}</answer>", chunk_size=24, chunk_delay_s=0.01))
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main.ready.is_set(), what="the panes")
        pane = app.main.query_one("#answer", MarkdownPane)
        live = pane.query_one(StreamingText)

        await wait_until(pilot, lambda: app.session.ended is None and live.display and len(live.text) > 200,
                         what="the answer arriving")
        assert "Answer (arriving" in pane.border_title
        assert live.text.startswith("## The finding") and BODY.startswith(live.text.rstrip("\n")[:200])
        # While it arrives nothing is mounted per block: the Markdown widget is not rendered at all.
        assert not pane.query_one(Markdown).display and not pane.query(MarkdownBlock)

        await wait_ended(pilot, app)
        await wait_until(pilot, lambda: bool(pane.query(MarkdownBlock)), what="the answer rendered as Markdown")
        assert not live.display and pane.query_one(Markdown).display
        assert app.session.answer is not None and pane.text.strip()
