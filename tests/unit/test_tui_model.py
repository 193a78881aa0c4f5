"""The TUI's pure parts: stream splitting, wrapping, the folded state it renders, gauge text, the answer file."""

from __future__ import annotations

import random

from tui_agent.core.events import (
    ActionProposed, AnswerEvent, Decision, ModelCallEnded, ModelCallStarted, Observation, RunEnded, RunStarted,
    SourceAdded,
)
from tui_agent.session.exports import answer_document, answer_markdown, write_file
from tui_agent.core.fold import Status, fold
from tui_agent.core.live import ANSWER, CALL, THOUGHT, StreamSplitter
from tui_agent.widgets.token_gauge import GaugeFigures, TokenGauge, clock, fill_level
from tui_agent.widgets.trace_panes import wrap_line


def test_stream_splitter_routes_text_and_survives_tags_split_across_deltas():
    text = "<think>hmm <b>bold</b> idea</think>" + '<tool_call>{"name": "x"}</tool_call><answer>42</answer>'
    for trial in range(200):
        rng = random.Random(trial)
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(0, 12)))
        pieces, prev = [], 0
        for c in cuts + [len(text)]:
            pieces.append(text[prev:c])
            prev = c
        sp = StreamSplitter()
        out: dict[str, str] = {THOUGHT: "", CALL: "", ANSWER: ""}
        for piece in pieces:
            for kind, t in sp.feed(piece):
                out[kind] += t
        for kind, t in sp.flush():
            out[kind] += t
        assert out == {THOUGHT: "hmm <b>bold</b> idea", CALL: '{"name": "x"}', ANSWER: "42"}, pieces


def test_wrap_is_incremental_and_fits_the_width():
    rng = random.Random(7)
    words = ["alpha", "be", "gamma-delta", "x" * 30, " ", "漢字漢字", "z"]
    for _ in range(500):
        text = "".join(rng.choice(words) + rng.choice([" ", ""]) for _ in range(rng.randint(0, 25)))
        width = rng.randint(4, 30)
        full = wrap_line(text, width)
        vis = wrap_line("", width)
        prev = 0
        for c in sorted(rng.sample(range(len(text) + 1), min(4, len(text) + 1))) + [len(text)]:
            tail = vis.pop() + text[prev:c]
            prev = c
            vis.extend(wrap_line(tail, width))
        assert vis == full


def _events():
    yield RunStarted(question="q?", model="m", session_id="s1")
    yield ModelCallStarted(step=1, messages=[], message_tokens=[], prompt_tokens=100, threshold=1000,
                           context_window=1200)
    yield ModelCallEnded(step=1, text="x", thought="thinking", prompt_tokens=120, cost_usd=None)
    yield ActionProposed(step=1, call_id="c1", tool="lookup", arguments={"topic": "a"})
    yield Decision(step=1, call_id="c1", kind="edited", arguments={"topic": "b"})
    yield SourceAdded(step=1, number=1, url="https://e.x/a", title="A [page]")
    yield Observation(step=1, call_id="c1", tool="lookup", arguments={"topic": "b"}, text="obs", duration_s=0.5)
    yield AnswerEvent(step=2, text="It is 42 [1].")
    yield RunEnded(termination="answer", result={"cost_usd": None})


def test_the_fold_gives_steps_calls_sources_and_status():
    t = fold(_events())
    assert t.status == Status.ENDED and not t.active and t.ended.termination == "answer"
    assert t.steps[1].thought == "thinking" and t.steps[1].prompt_tokens == 120 and t.model_calls == 1
    call = t.calls["c1"]
    assert call.label == "edited" and call.arguments == {"topic": "b"} and call.observation == "obs"
    assert t.cost_usd is None
    md = answer_markdown(t.answer.text, t.source_list())
    assert "**[1]** [A (page)](https://e.x/a)" in md


def test_gauge_never_shows_zero_dollars_and_marks_measured_tokens():
    g = TokenGauge()
    g.figures = GaugeFigures(prompt_tokens=900, threshold=1000, window=1200, measured=950, calls=3, max_calls=10,
                             elapsed_s=75, max_s=600)
    assert not any("$" in t for t in g._tail())
    assert any("950 measured" in t for t in g._token_texts())
    assert fill_level(g.figures) == "high"
    g.figures = GaugeFigures(budget_usd=2.0)
    assert g._tail()[-1] == "budget $2.00"
    g.figures = GaugeFigures(cost_usd=0.0123, budget_usd=2.0)
    assert g._tail()[-1] == "$0.0123 / $2.00"
    assert clock(3725) == "1:02:05" and clock(75) == "1:15"


def test_the_answer_document_holds_question_answer_sources_and_run_facts(tmp_path):
    doc = answer_document(fold(_events()))
    path = write_file(tmp_path / "new" / "answer.md", doc)
    text = path.read_text()
    assert text.startswith("# q?") and "It is 42 [1]." in text and "[A (page)](https://e.x/a)" in text
    assert "session `s1`" in text and "ended: answer" in text
