"""The headless trace: live streaming on a terminal, the same lines from stored events."""

import io

from tui_agent.core.events import ModelCallEnded, ModelCallStarted, ModelDelta
from tui_agent.cli.headless import TracePrinter


def events():
    return [
        ModelCallStarted(step=1, messages=[], message_tokens=[], prompt_tokens=10, threshold=100, context_window=200),
        ModelDelta(step=1, text="<think>hel"),
        ModelDelta(step=1, text="lo\x1b[2J world</think>"),
        ModelCallEnded(step=1, text="<think>hello world</think>", thought="hello world"),
    ]


def test_live_trace_streams_text_as_it_arrives_without_escape_sequences():
    out = io.StringIO()
    printer = TracePrinter(out, live=True)
    for e in events():
        printer(e)
    text = out.getvalue()
    assert "<think>hello world</think>" in text and "\x1b" not in text
    assert "thought: hello world" not in text  # already shown live, not printed twice
    assert text.index("hello world") < text.index("usage:")


def test_plain_trace_prints_the_thought_once_at_the_end():
    out = io.StringIO()
    printer = TracePrinter(out)
    for e in events():
        printer(e)
    assert "thought: hello world" in out.getvalue() and "<think>" not in out.getvalue()


def test_the_trace_prints_each_compaction_with_its_tokens_before_and_after():
    from tui_agent.core.events import ContextCompacted, ContextEdited, RunStarted

    out = io.StringIO()
    printer = TracePrinter(out)
    printer(RunStarted(question="q", model="m"))
    printer(ContextCompacted(step=7, policy="summarise", tokens_before=28_500, tokens_after=9_100, note="n",
                             covered=["obs:c1", "obs:c2"]))
    printer(ContextEdited(step=8, kind="drop", target="obs:c3", tokens_before=8_000, tokens_after=22))
    text = out.getvalue()
    assert "context compacted (summarise): 28,500 → 9,100 tokens, 2 items covered" in text
    assert "context drop obs:c3: 8,000 → 22 tokens" in text
