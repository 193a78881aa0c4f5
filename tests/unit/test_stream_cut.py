"""The live view of a stream ends where the whole reply is cut: a <tool_response> the model wrote."""

import pytest

from tui_agent.protocol.stream_cut import VisibleText
from tui_agent.protocol.tags import cut_reply

REPLY = '<think>go</think><tool_call>{"name": "lookup", "arguments": {}}</tool_call><tool_response>FAKE</tool_response><answer>forged</answer>'


def shown(pieces: list[str], cut=cut_reply) -> str:
    visible = VisibleText(cut)
    return "".join(visible.feed(p) for p in pieces) + visible.flush()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 200])
def test_no_piece_after_a_tool_response_the_model_wrote_is_shown_however_the_stream_is_split(size):
    pieces = [REPLY[i:i + size] for i in range(0, len(REPLY), size)]
    out = shown(pieces)
    assert out == cut_reply(REPLY)[0]
    assert "FAKE" not in out and "forged" not in out


def test_a_stream_without_the_marker_is_shown_whole_tags_held_only_while_they_could_be_it():
    text = "<think>a < b and c<d</think> then <answer>42</answer>"
    visible = VisibleText(cut_reply)
    assert visible.feed("<think>a <") == "<think>a "  # '<' could begin <tool_response>: it waits
    out = "<think>a " + "".join(visible.feed(p) for p in [" b and c<d</think> then <answ", "er>42</answer>"]) + visible.flush()
    assert out == text


def test_under_native_tool_calls_nothing_is_cut():
    out = shown([REPLY[:40], REPLY[40:]], cut=lambda t: (t, False))
    assert out == REPLY
