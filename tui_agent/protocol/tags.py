"""The tags of the protocol and where thinking ends.

Thinking ends at ``</think>``. When ``<think>`` is never closed, thinking also ends where the
protocol starts: at a ``<tool_call>`` or ``<answer>`` that begins a line (Qwen3.5-style servers
treat that as an implicit end of reasoning). The same tag in the middle of a line of unclosed
thinking stays thought: a model that writes "I could use <tool_call> here" is talking about the
tag, not using it. Inside a properly closed ``<think>…</think>`` nothing is an action, at the start
of a line or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOOL_RESPONSE_OPEN = re.compile(r"<\s*tool_response\s*>", re.I)
THINK_OPEN = re.compile(r"<\s*think(?:ing)?\s*>", re.I)
THINK_CLOSE = re.compile(r"<\s*/\s*think(?:ing)?\s*>", re.I)
ACTION_OPEN = re.compile(r"<\s*(tool_call|answer)\s*>", re.I)
TOOL_CALL_CLOSE = re.compile(r"<\s*/\s*tool_call\s*>", re.I)
ANSWER_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.I)
# A protocol tag that begins a line (only spaces before it): the implicit end of unclosed thinking.
LINE_START_ACTION = re.compile(r"^[ \t]*(?=<\s*(?:tool_call|answer)\s*>)", re.I | re.M)
_AT_ACTION = re.compile(r"\s*(?=<\s*(?:tool_call|answer)\s*>)", re.I)


def implicit_end(text: str, start: int) -> int | None:
    """Where unclosed thinking that starts at ``start`` ends: the first line-start action tag
    (the first line of the thought counts as a line start too)."""
    at = _AT_ACTION.match(text, start)
    if at:
        return at.end()
    m = LINE_START_ACTION.search(text, start)
    return m.start() if m else None


def cut_reply(text: str) -> tuple[str, bool]:
    """Cut at the first <tool_response> (a server that ignored the stop sequence)."""
    m = TOOL_RESPONSE_OPEN.search(text)
    if not m:
        return text, False
    return text[: m.start()].rstrip(), True


@dataclass
class Thinking:
    """A reply split into its thinking and the text where actions are parsed."""

    thought: str
    rest: str
    unclosed: bool = False  # a <think> was never closed
    implicit_end: bool = False  # ... and a line-start <tool_call>/<answer> ended it


def split_thinking(text: str) -> Thinking:
    """Separate thinking from the rest, block by block (interleaved thinking is thought too)."""
    thoughts: list[str] = []
    rest: list[str] = []
    unclosed = implicit = False
    pos = 0
    first_close, first_open = THINK_CLOSE.search(text), THINK_OPEN.search(text)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        # "…</think>" with no opening tag: the chat template opened the thinking in the prompt.
        thoughts.append(text[: first_close.start()])
        pos = first_close.end()
    while pos <= len(text):
        m = THINK_OPEN.search(text, pos)
        if m is None:
            rest.append(text[pos:])
            break
        rest.append(text[pos : m.start()])
        close = THINK_CLOSE.search(text, m.end())
        if close:
            thoughts.append(text[m.end() : close.start()])
            pos = close.end()
            continue
        unclosed = True
        end = implicit_end(text, m.end())
        if end is None:
            thoughts.append(text[m.end() :])
            break
        implicit = True
        thoughts.append(text[m.end() : end])
        pos = end
    thought = "\n\n".join(t.strip() for t in thoughts if t.strip())
    return Thinking(thought, "".join(rest), unclosed, implicit)


def split_thought(text: str) -> tuple[str, str, bool]:
    """(thought, rest, unclosed): the rest is where actions may be parsed."""
    t = split_thinking(text)
    return t.thought, t.rest, t.unclosed


def open_block(text: str) -> str | None:
    """The block still open at the end of ``text``: "think", "tool_call", "answer" or None.

    Used to say where a reply cut by the length limit stopped."""
    t = split_thinking(text)
    if t.unclosed and not t.implicit_end:
        return "think"
    last = None
    for m in ACTION_OPEN.finditer(t.rest):
        last = m
    if last is None:
        return None
    kind = last.group(1).lower()
    closer = TOOL_CALL_CLOSE if kind == "tool_call" else ANSWER_CLOSE
    return None if closer.search(t.rest, last.end()) else kind
