"""The four-tag protocol: prompt rendering, reply cutting and parsing, corrections, observations.

| tag                          | written by | meaning                                       |
|------------------------------|------------|-----------------------------------------------|
| <think>…</think>             | model      | reasoning                                     |
| <tool_call>{json}</tool_call>| model      | a tool call; several per reply run in order   |
| <tool_response>…             | engine     | observation, sent back as a user message      |
| <answer>…</answer>           | model      | the final answer; ends the loop               |

Tool calls and answers are parsed only after thinking (``tags``: ``</think>``, or for a ``<think>``
never closed, a ``<tool_call>``/``<answer>`` that begins a line); calls are routed by the parsed
``name``, never by a substring of the raw text. ``reasoning_content`` is thinking: a call in it is
taken only when the content is blank and it holds no ``</think>`` (the LLM adapter wraps a
non-streamed split in its tags again, since litellm cut them out of a closed think). Rooms:

- ``prompt``: system prompt, observation and forced-answer messages, stop sequences;
- ``tags``: cutting at ``<tool_response>``, where thinking ends, which block a cut reply left open;
- ``calls``: one ``<tool_call>`` body → calls (lenient JSON, Qwen XML, ``<function>NAME</function>``
  + JSON, GLM ``<arg_key>``/``<arg_value>``, a string for a list of strings, unknown-tool naming);
- ``harmony``: gpt-oss harmony text (analysis → thought, final → the answer);
- ``reply``: a whole reply → :class:`ParsedReply` with ``problem`` when it holds no action;
- ``foreign``: other protocols' call and answer shapes, recognised to be named;
- ``corrections``: the user messages that name what was wrong (``correction``, ``cut_correction``);
- ``toolset``: what the parser knows about the tools (names, schemas, example calls);
- ``native``: the provider's own tool calling instead (``--protocol native``: ``tools=[…]``,
  ``tool_calls``, ``role: "tool"`` results); ``native_wire``: the protocol a run speaks, as one object.
"""

from datetime import date as _date  # noqa: F401 - render_system_prompt reads today from here (tests freeze it)

from tui_agent.protocol.calls import (
    BAD_ARGUMENTS, FORMAT_JSON, FORMAT_QWEN_XML, INVALID_JSON, NO_NAME, NOT_OBJECT, UNKNOWN_TOOL, ParsedCall,
    parse_calls,
)
from tui_agent.protocol.corrections import CORRECTION, cut_correction, correction
from tui_agent.protocol.foreign import FOREIGN_FORMATS, detect_foreign
from tui_agent.protocol.prompt import (
    EVIDENCE_REMINDER, FORCED_INSTRUCTION, FORCED_REASONS, STOP_SEQUENCES, canonical_call, default_template,
    edited_note, forced_message, load_template, observation_message, render_system_prompt, tool_response,
)
from tui_agent.protocol.reply import (
    ACTION_IN_THINK, EMPTY, FOREIGN_FORMAT, NO_ACTION, PROBLEMS, UNCLOSED_THINK, ParsedReply, parse_reply,
)
from tui_agent.protocol.tags import Thinking, cut_reply, open_block, split_thinking, split_thought
from tui_agent.protocol.toolset import ToolSet


def parse_call(raw: str, tools=None) -> ParsedCall:
    """The first call of one ``<tool_call>`` body (see :func:`parse_calls` for all of them)."""
    return parse_calls(raw, tools if isinstance(tools, ToolSet) else ToolSet(tools))[0]


__all__ = [
    "ACTION_IN_THINK", "BAD_ARGUMENTS", "CORRECTION", "EMPTY", "EVIDENCE_REMINDER", "FOREIGN_FORMAT",
    "FOREIGN_FORMATS", "FORCED_INSTRUCTION", "FORCED_REASONS", "FORMAT_JSON", "FORMAT_QWEN_XML", "INVALID_JSON",
    "NOT_OBJECT", "NO_ACTION", "NO_NAME", "PROBLEMS", "STOP_SEQUENCES", "UNCLOSED_THINK", "UNKNOWN_TOOL",
    "ParsedCall", "ParsedReply", "Thinking", "ToolSet", "canonical_call", "correction", "cut_correction",
    "cut_reply", "default_template", "detect_foreign", "edited_note", "forced_message", "load_template",
    "observation_message", "open_block", "parse_call", "parse_calls", "parse_reply", "render_system_prompt",
    "split_thinking", "split_thought", "tool_response",
]
