"""A long answer streams into the answer pane as it arrives, without re-rendering what is there
(issue 17, item 6): the keys stay quick while it grows, and it is rendered as Markdown once."""

from __future__ import annotations

import threading

from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

from tests.servers import Reply
from tests.tui.conftest import make_app, wait_ended, wait_until
from tui_agent.widgets.trace_panes import MarkdownPane, StreamingText

BODY = "## The finding\n\n" + "streamed words arrive one piece at a time " * 60


async def test_a_streamed_answer_grows_as_text_and_is_rendered_as_markdown_once_complete(chat_server, tmp_path):
    gate = threading.Event()  # the stream waits half way until the test has looked at it
    chat_server.script(Reply(f"<answer>{BODY}</answer>", chunk_size=24, chunk_delay_s=0.01, hold=gate,
                             hold_after_chunks=50))
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
        gate.set()

        await wait_ended(pilot, app)
        await wait_until(pilot, lambda: bool(pane.query(MarkdownBlock)), what="the answer rendered as Markdown")
        assert not live.display and pane.query_one(Markdown).display
        assert app.session.answer is not None and pane.text.strip()


async def test_a_key_is_answered_while_the_engine_loop_is_busy(chat_server, tmp_path):
    """The engine (litellm's per-chunk work included) runs on a loop of its own: while that loop is
    blocked, a key still changes the screen. (On one shared loop the key waited for it.)"""
    import time

    chat_server.script(Reply(f"<answer>{BODY * 2}</answer>", chunk_size=16, chunk_delay_s=0.02))
    app, _ = make_app(chat_server, tmp_path, auto_approve=True, model_timeout_s=60)  # the hold is no timeout
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.ended is None and len(app.session.steps.get(1).live_answer
                                                                        if 1 in app.session.steps else "") > 100,
                         what="the answer arriving")
        loop = app.handle._engine_loop
        assert loop is not None
        blocked, released = threading.Event(), threading.Event()

        def hold() -> None:  # the engine's loop does nothing else for a while
            blocked.set()
            time.sleep(5)
            released.set()

        loop.call_soon_threadsafe(hold)
        await wait_until(pilot, blocked.is_set, what="the engine's loop blocked")
        before = app.main.header.auto
        await pilot.press("y")
        await wait_until(pilot, lambda: app.main.header.auto != before or released.is_set(), what="the key")
        assert app.main.header.auto != before and not released.is_set()
        await wait_until(pilot, released.is_set, what="the engine's loop free again")
        await wait_until(pilot, lambda: app.handle.auto_on() != before, what="the engine taking the key")
        assert app.main.header.auto != before  # the engine's own state agrees with what the key showed
        await wait_ended(pilot, app)
        # Nothing of the streamed reply was lost on the way between the two loops.
        assert app.session.steps[1].live_answer == BODY * 2


async def test_a_following_pane_moves_in_steps_of_half_its_height_and_the_newest_line_stays_in_view():
    from textual.app import App

    class One(App):
        def compose(self):
            yield StreamingText(id="t")

    async with One().run_test(size=(40, 12)) as pilot:
        pane = pilot.app.query_one(StreamingText)
        await pilot.pause()
        height = pane.scrollable_content_region.height
        offsets = []
        for n in range(40):
            pane.append(f"line {n}\n")
            await pilot.pause()
            last = len(pane._vis) - 1
            assert pane.scroll_offset.y <= last < pane.scroll_offset.y + height  # the newest line is shown
            offsets.append(pane.scroll_offset.y)
        moves = [b - a for a, b in zip(offsets, offsets[1:]) if b != a]
        assert moves and all(m == height // 2 for m in moves)  # it stood still between steps
        assert len(moves) <= 40 // (height // 2) + 1
        pane.scroll_to(y=0, animate=False)  # the user reads from the top: the pane stays there
        await pilot.pause()
        pane.append("more\nand more\n" * 10)
        await pilot.pause()
        assert pane.scroll_offset.y == 0
        assert pane.text.endswith("and more\n")


async def test_text_streamed_in_any_pieces_wraps_exactly_as_the_whole_text_would():
    # A word cut between two chunks at a line's end, spaces at a break, wide characters, blank
    # lines, words longer than the pane: appending re-wraps only the last line, and must agree.
    import random

    from textual.app import App

    from tui_agent.widgets.trace_panes import wrap_line

    class One(App):
        def compose(self):
            yield StreamingText(id="t")

    rng = random.Random(7)
    words = ["a", "bb", "word", "longerword", "x" * 35, "  ", " ", "é", "日本語", "\n", "\n\n"]
    async with One().run_test(size=(30, 10)) as pilot:
        pane = pilot.app.query_one(StreamingText)
        await pilot.pause()
        for _ in range(40):
            pane.set_text("")
            text = "".join(rng.choice(words) + rng.choice([" ", ""]) for _ in range(rng.randint(1, 60)))
            i = 0
            while i < len(text):
                n = rng.randint(1, 9)
                pane.append(text[i:i + n])
                i += n
                if rng.random() < 0.05:
                    await pilot.pause()  # a resize (the scrollbar comes) re-wraps in between
            assert pane._vis == [v for line in text.split("\n") for v in wrap_line(line, pane._wrap_width)], text


async def test_a_typed_key_acts_where_it_arrives_not_after_passing_through_the_focused_pane(chat_server, tmp_path):
    """``y`` acts on arrival: it is not first handed to the focused pane and on up through its
    containers (each hop a message that can wait behind a frame of the streamed answer)."""
    from textual import events

    chat_server.script(Reply(f"<answer>{BODY * 2}</answer>", chunk_size=16, chunk_delay_s=0.02))
    app, _ = make_app(chat_server, tmp_path, auto_approve=True, model_timeout_s=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main.ready.is_set() and isinstance(app.focused, StreamingText),
                         what="the thought pane focused")
        await wait_until(pilot, lambda: app.session.ended is None and 1 in app.session.steps
                         and len(app.session.steps[1].live_answer) > 100, what="the answer arriving")
        reached: list[str] = []
        focused = app.focused
        original = focused._dispatch_message

        async def record(message):
            if isinstance(message, events.Key):
                reached.append(message.key)
            return await original(message)

        focused._dispatch_message = record
        before = app.main.header.auto
        await pilot.press("y")
        await wait_until(pilot, lambda: app.main.header.auto != before, what="the key")
        await pilot.press("down")  # a key no action takes still goes to the focused pane
        await pilot.pause(0.1)
        assert reached == ["down"]
        await wait_ended(pilot, app)
