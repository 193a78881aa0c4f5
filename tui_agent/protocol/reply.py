"""A whole model reply → thought, calls, answer, and (when it holds no action) what was wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tui_agent.protocol.calls import ParsedCall, parse_calls, xml_calls
from tui_agent.protocol.foreign import detect_foreign
from tui_agent.protocol.harmony import read_harmony
from tui_agent.protocol.tags import (
    ACTION_OPEN, ANSWER_CLOSE, THINK_CLOSE, THINK_OPEN, TOOL_CALL_CLOSE, implicit_end, split_thinking,
)
from tui_agent.protocol.toolset import ToolSet

# ParsedReply.problem values: set only when the reply holds neither a call nor an answer.
EMPTY = "empty"  # nothing at all, content and reasoning
UNCLOSED_THINK = "unclosed_think"  # <think> never closed and no line-start <tool_call>/<answer> ended it
ACTION_IN_THINK = "action_in_think"  # a <tool_call>/<answer> only inside the thinking
FOREIGN_FORMAT = "foreign_format"  # another protocol's call or answer shape (see foreign_format)
NO_ACTION = "no_action"  # prose or thinking only: nothing recognisable
PROBLEMS = (EMPTY, UNCLOSED_THINK, ACTION_IN_THINK, FOREIGN_FORMAT, NO_ACTION)

_TOOL_CALL_OPEN = re.compile(r"<\s*tool_call\s*>", re.I)
_BARE_FUNCTION = re.compile(r"^[ \t]*<\s*function\s*=", re.I | re.M)
_FUNCTION_CLOSE = re.compile(r"<\s*/\s*function\s*>", re.I)


@dataclass
class ParsedReply:
    thought: str
    calls: list[ParsedCall] = field(default_factory=list)
    answer: str | None = None
    unclosed_think: bool = False  # a <think> was never closed
    implicit_think_end: bool = False  # ... and a line-start <tool_call>/<answer> ended the thinking
    actions_in_reasoning: bool = False  # the actions came from reasoning_content (content was blank)
    answer_closed: bool = True  # False when <answer> was opened and never closed
    problem: str | None = None  # one of PROBLEMS when there is no call and no answer, else None
    foreign_format: str | None = None  # a key of foreign.FOREIGN_FORMATS when problem is FOREIGN_FORMAT
    foreign_label: str | None = None  # how the correction names that format (the tag or token seen)
    foreign_name: str | None = None  # the tool the foreign call named, when one was seen
    foreign_names: list[str] = field(default_factory=list)  # every tool it named (a list of calls names each)
    foreign_in_reasoning: bool = False  # ... written in reasoning_content (the content was blank)
    harmony: bool = False  # gpt-oss harmony text was read (analysis as thought, final as the answer)

    @property
    def has_action(self) -> bool:
        return bool(self.calls) or self.answer is not None


@dataclass
class _Actions:
    calls: list[ParsedCall] = field(default_factory=list)
    answer: str | None = None
    answer_closed: bool = True
    first: int | None = None  # where the first action starts


def parse_reply(text: str, reasoning: str = "", *, tools: Any = None) -> ParsedReply:
    """Parse one reply. ``reasoning`` is the provider's separate reasoning_content, if any.

    ``tools`` (see :mod:`toolset`) lets the parser report unknown tools, type Qwen XML values and
    build corrections; without it every tool name is taken at its word."""
    ts = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    th = split_thinking(text)
    acts = _actions(th.rest, ts)
    thought, rest = th.thought, th.rest
    from_reasoning = False
    blank = not acts.calls and acts.answer is None and not rest.strip() and not thought
    closed = THINK_CLOSE.search(reasoning) is not None
    reasoning = THINK_CLOSE.sub("\n", THINK_OPEN.sub("", reasoning)) if reasoning else reasoning
    if closed:
        pass  # a closed think in reasoning_content: all of it is thinking, and nothing in it runs
    elif reasoning and blank:
        # Blank content: a server whose reasoning parser never saw </think> may have put the whole
        # reply, call included, in reasoning_content. The same implicit end applies there.
        end = implicit_end(reasoning, 0)
        if end is not None:
            acts, from_reasoning = _actions(reasoning[end:], ts), True
            reasoning, rest = reasoning[:end], reasoning[end:]
    harmony = read_harmony(rest) if not acts.calls and acts.answer is None else None
    if harmony is not None:
        # gpt-oss harmony text: its analysis is thought, a final channel the answer.
        thought = "\n\n".join(t for t in (thought, harmony.thought) if t)
        if harmony.final is not None and not harmony.calls:
            acts.answer = harmony.final
    if reasoning.strip():
        thought = (reasoning.strip() + ("\n\n" + thought if thought else "")).strip()
    parsed = ParsedReply(thought=thought, calls=acts.calls, answer=acts.answer, unclosed_think=th.unclosed,
                         implicit_think_end=th.implicit_end, actions_in_reasoning=from_reasoning,
                         answer_closed=acts.answer_closed)
    parsed.harmony = harmony is not None
    if not thought and not th.unclosed and harmony is None:
        # Untagged prose before the first action is the model's thinking out loud.
        parsed.thought = rest[: acts.first if acts.first is not None else len(rest)].strip()
    if not parsed.has_action:
        _diagnose(parsed, text, rest, ts, reasoning if blank else "")
    return parsed


def _actions(rest: str, tools: ToolSet) -> _Actions:
    """Calls and the answer, in order; a tag inside an <answer> or a call body is their text."""
    out = _Actions()
    pos = 0
    while (m := ACTION_OPEN.search(rest, pos)) is not None:
        out.first = m.start() if out.first is None else out.first
        if m.group(1).lower() == "answer":
            close = ANSWER_CLOSE.search(rest, m.end())
            if out.answer is None:
                out.answer = rest[m.end() : close.start() if close else len(rest)].strip()
                out.answer_closed = close is not None
            pos = close.end() if close else len(rest)
            continue
        close = TOOL_CALL_CLOSE.search(rest, m.end())
        again = _TOOL_CALL_OPEN.search(rest, m.end())
        if close and (again is None or close.start() < again.start()):
            end, pos, closed = close.start(), close.end(), True
        else:  # never closed: the body runs to the next action tag (or the end)
            nxt = ACTION_OPEN.search(rest, m.end())
            end = pos = nxt.start() if nxt else len(rest)
            closed = False
        out.calls.extend(parse_calls(rest[m.end() : end], tools, closed=closed))
    if not out.calls and out.answer is None:
        _bare_xml(rest, tools, out)
    return out


def _bare_xml(rest: str, tools: ToolSet, out: _Actions) -> None:
    """A complete Qwen XML call on its own lines without <tool_call> around it: run it too."""
    m = _BARE_FUNCTION.search(rest)
    if m and _FUNCTION_CLOSE.search(rest, m.end()):
        calls = xml_calls(rest[m.start() :], tools)
        for c in calls:
            c.notes.append("outside <tool_call> tags")
        out.calls, out.first = calls, m.start()


def _diagnose(parsed: ParsedReply, text: str, rest: str, tools: ToolSet, reasoning: str = "") -> None:
    if not text.strip() and not parsed.thought:
        parsed.problem = EMPTY
        return
    foreign = detect_foreign(rest, tools)
    if foreign is None and not (parsed.unclosed_think and not parsed.implicit_think_end) \
            and not ACTION_OPEN.search(parsed.thought) and reasoning.strip():
        # Blank content: another protocol's call written in reasoning_content is named too.
        foreign = detect_foreign(reasoning, tools)
        parsed.foreign_in_reasoning = foreign is not None
    if foreign is not None:
        parsed.problem = FOREIGN_FORMAT
        parsed.foreign_format, parsed.foreign_label, parsed.foreign_name = foreign.kind, foreign.label, foreign.name
        parsed.foreign_names = foreign.names or ([foreign.name] if foreign.name else [])
    elif parsed.unclosed_think and not parsed.implicit_think_end:
        parsed.problem = UNCLOSED_THINK
    elif ACTION_OPEN.search(parsed.thought):
        parsed.problem = ACTION_IN_THINK
    else:
        parsed.problem = NO_ACTION
