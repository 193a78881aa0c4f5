"""The lean compositor sends the terminal exactly what Textual's own would: every partial update is
rendered both ways on the same screen state and the bytes compared, on the real main screen while
an answer streams and keys are pressed, and on a screen of nested, bordered, scrolled and layered
widgets under random updates. A test that only looked at the final screen would miss a stale cell
left by one partial update."""

from __future__ import annotations

import random
import threading

import pytest
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual.app import App
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

import tui_agent.screens.main as main_screen
from tests.servers import Reply
from tests.tui.conftest import make_app, wait_ended, wait_until
from tui_agent.widgets.compositor import LeanCompositor
from tui_agent.widgets.trace_panes import MarkdownPane, StreamingText


class CheckedCompositor(LeanCompositor):
    """Renders each partial update with the lean path (what is sent), then the same update with
    Textual's own ``_render_chops`` on the same state, and keeps both terminal outputs."""

    console = None

    def __init__(self) -> None:
        super().__init__()
        self.compared = 0
        self.compared_full = 0
        self.mismatches: list[tuple[str, str]] = []
        self.widgets_drawn: list[tuple[int, int]] = []  # (lean, Textual's) per update

    def render_partial_update(self) -> ChopsUpdate | None:
        regions = self._dirty_regions.copy()
        ours = super().render_partial_update()
        if ours is None or self.console is None:
            return ours
        crop = Region.from_union(regions).intersection(self.size.region)
        spans = list(self._regions_to_spans(regions))
        theirs = ChopsUpdate(Compositor._render_chops(self, crop, {y for y, _, _ in spans}.__contains__),
                             spans, [cut_set[1:] for cut_set in self.cuts])
        a, b = ours.render_segments(self.console), theirs.render_segments(self.console)
        self.compared += 1
        self.widgets_drawn.append((sum(1 for _ in self._lean_renders(crop)),
                                   sum(1 for _ in Compositor._get_renders(self, crop))))
        if a != b:
            self.mismatches.append((a, b))
        return ours

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        ours = super().render_full_update(simplify)
        if self.console is None or simplify:
            return ours
        region = self.size.region
        theirs = LayoutUpdate([chop.values() for chop in Compositor._render_chops(self, region, lambda y: True)],
                              region)
        a, b = ours.render_segments(self.console), theirs.render_segments(self.console)
        self.compared_full += 1
        if a != b:
            self.mismatches.append((a, b))
        return ours


@pytest.fixture
def checked(monkeypatch) -> list[CheckedCompositor]:
    made: list[CheckedCompositor] = []

    class Made(CheckedCompositor):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(main_screen, "LeanCompositor", Made)
    return made


BODY = "## Findings\n\n" + "- a point about suspension bridges and the loads on them [1]\n" * 40


async def test_the_main_screen_sends_what_textual_would_while_an_answer_streams_and_keys_are_pressed(
        chat_server, tmp_path, checked):
    gate = threading.Event()  # the stream waits a third of the way until the test has seen it arrive
    chat_server.script(Reply(f"<answer>{BODY}</answer>", chunk_size=12, chunk_delay_s=0.01, hold=gate,
                             hold_after_chunks=60))
    app, _ = make_app(chat_server, tmp_path, auto_approve=True, model_timeout_s=60)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait_until(pilot, lambda: checked and app.main is not None and app.main.ready.is_set(),
                         what="the main screen")
        compositor = checked[0]
        compositor.console = app.console
        live = app.main.query_one("#answer", MarkdownPane).query_one(StreamingText)
        await wait_until(pilot, lambda: live.display and len(live.text) > 300, what="the answer streaming")
        gate.set()
        for _ in range(4):
            await pilot.press("y")  # the header changes while the pane streams
            await pilot.pause(0.05)
        await wait_ended(pilot, app)
        await pilot.resize_terminal(100, 30)  # and a whole screen drawn again
        await pilot.pause(0.3)

    assert compositor.compared >= 10 and compositor.compared_full >= 1, (compositor.compared,
                                                                         compositor.compared_full)
    assert not compositor.mismatches
    # And it is lean: on average it draws fewer widgets for an update than Textual would.
    lean = sum(a for a, _ in compositor.widgets_drawn)
    textual = sum(b for _, b in compositor.widgets_drawn)
    assert lean < textual * 0.8, (lean, textual)


class Busy(Screen):
    """Nested containers with borders and padding, a scrolled pane, a docked header and footer,
    and toasts on a layer above: every way one widget hides another."""

    CSS = """
    #head { dock: top; height: 1; background: $primary; }
    #left { width: 2fr; border: round $accent; padding: 0 1; }
    #right { width: 1fr; border: solid $secondary; }
    #log { height: 1fr; border-title-align: center; }
    .item { height: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._compositor = CheckedCompositor()

    def compose(self):
        yield Label("head", id="head")
        with Horizontal():
            with Vertical(id="left"):
                yield StreamingText(id="stream")
                yield Static("status", id="status")
            with VerticalScroll(id="right"):
                for i in range(30):
                    yield Label(f"item {i}", classes="item", id=f"i{i}")
        yield Footer()


class BusyApp(App):
    BINDINGS = [("q", "quit", "Quit")]

    def on_mount(self) -> None:
        self.push_screen(Busy())


async def test_random_partial_updates_over_nested_bordered_scrolled_and_layered_widgets_send_what_textual_would():
    rng = random.Random(20261202)
    words = ["bridge", "load", "arch", "cable", "span", "steel", "beam", "pier", "wind", "deck"]
    app = BusyApp()
    async with app.run_test(size=(90, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Busy)
        compositor = screen._compositor
        compositor.console = app.console
        stream = screen.query_one("#stream", StreamingText)
        right = screen.query_one("#right", VerticalScroll)
        for step in range(160):
            match rng.randrange(7):
                case 0 | 1:
                    stream.append(" ".join(rng.choices(words, k=rng.randint(1, 12)))
                                  + ("\n" if rng.random() < 0.3 else " "))
                case 2:
                    screen.query_one("#head", Label).update(f"head {step} " + rng.choice(words) * rng.randint(1, 6))
                case 3:
                    screen.query_one("#status", Static).update(rng.choice(words) + f" {step}")
                case 4:
                    right.scroll_to(y=rng.randint(0, 20), animate=False)
                case 5:
                    screen.query_one(f"#i{rng.randrange(30)}", Label).update(rng.choice(words).upper())
                case 6:
                    if rng.random() < 0.25:
                        app.notify(f"toast {step}: " + rng.choice(words), timeout=0.3)
                    screen.query_one("#left").border_title = rng.choice(words)
            if rng.random() < 0.5:
                await pilot.pause()
        await pilot.pause(0.5)  # the last toasts go
    assert compositor.compared >= 40 and compositor.compared_full >= 5, (compositor.compared,
                                                                         compositor.compared_full)
    assert not compositor.mismatches, compositor.mismatches[0]


async def test_lean_compositor_false_gives_the_main_screen_textuals_own_compositor(chat_server, tmp_path):
    app, _ = make_app(chat_server, tmp_path, question=None, lean_compositor=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.main is not None and app.main.ready.is_set(), what="the main screen")
        assert type(app.main._compositor) is Compositor
    app, _ = make_app(chat_server, tmp_path / "lean", question=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.main is not None and app.main.ready.is_set(), what="the main screen")
        assert isinstance(app.main._compositor, LeanCompositor)
