"""The app's holder of runs: each run is one handle wired by a bridge of its own, and everything
the bridge posts names the handle it came from."""

from __future__ import annotations

from tui_agent.app.bridge import EngineEvent, StartingNote, StreamText
from tui_agent.app.runs import Runs
from tui_agent.core import fold
from tui_agent.core.events import ModelDelta, Notice


def _open(runs: Runs, sid: str):
    return runs.open(fold.new_state(sid, "q", "m"), breakpoint_on=lambda: False, cli_auto=False, prepare=None)


def test_a_second_run_is_one_more_handle_and_its_messages_name_it():
    posted: list = []
    runs = Runs(posted.append)
    first, second = _open(runs, "s1"), _open(runs, "s2")
    assert runs.handles == [first, second] and first is not second
    first.sink.note("loading")
    second.sink.note(None)
    assert [(type(m), m.origin) for m in posted] == [(StartingNote, first), (StartingNote, second)]


def test_followed_events_reach_the_app_in_order_with_stream_text_batched_per_run():
    posted: list = []
    runs = Runs(posted.append)
    first, second = _open(runs, "s1"), _open(runs, "s2")
    follow_first, follow_second = first._followers[0], second._followers[0]
    follow_first(ModelDelta(session_id="s1", step=1, text="Hel"))
    follow_second(ModelDelta(session_id="s2", step=1, text="other"))
    follow_first(ModelDelta(session_id="s1", step=1, text="lo"))
    follow_first(Notice(session_id="s1", text="said"))  # flushes the first run's text before the event
    runs.flush()
    got = [(type(m).__name__, getattr(m, "text", None), m.origin) for m in posted]
    assert got == [("StreamText", "Hello", first), ("EngineEvent", None, first), ("StreamText", "other", second)]
    assert isinstance(posted[1], EngineEvent) and isinstance(posted[0], StreamText)
