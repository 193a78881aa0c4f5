"""The user messages that put a model back on the protocol, each naming what it saw.

Every correction shows the expected shape with one of the agent's real tools: the tool the model
seemed to call when that is a real one, else the first tool, with placeholder arguments built
from its schema.
"""

from __future__ import annotations

from typing import Any

from tui_agent.protocol.foreign import ANSWER_KINDS, REASONING_KINDS
from tui_agent.protocol.reply import (
    ACTION_IN_THINK, EMPTY, FOREIGN_FORMAT, NO_ACTION, UNCLOSED_THINK, ParsedReply,
)
from tui_agent.protocol.tags import ACTION_OPEN
from tui_agent.protocol.toolset import ToolSet

CORRECTION = (
    "Your last reply had neither a <tool_call> nor an <answer>. Think inside <think></think>, then "
    "either call a tool with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call> or give the "
    "final answer inside <answer></answer>."
)
CUT_PLACES = {
    "think": " while you were still thinking",
    "tool_call": " in the middle of a <tool_call>",
    "answer": " in the middle of your <answer>",
}
_OR_ANSWER = "or give the final answer inside <answer></answer>."


def _either(example: str) -> str:
    return f"then either call a tool, for example:\n{example}\n{_OR_ANSWER}"


def correction(parsed: ParsedReply, tools: Any = None) -> str:
    """The corrective user message for a reply the engine will not act on.

    ``parsed.problem`` says which case it is (use it as the correction's reason); for a reply that
    does hold an action this returns "" (a failed call is answered by its observation instead)."""
    ts = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    seen = parsed.foreign_name if parsed.foreign_name and ts.resolve(parsed.foreign_name) else None
    example = ts.example_call(seen)
    if parsed.problem == EMPTY:
        return f"Your last reply was empty. Think inside <think></think>, {_either(example)}"
    if parsed.problem == UNCLOSED_THINK:
        mid = ACTION_OPEN.search(parsed.thought)
        extra = (f" The <{mid.group(1).lower()}> in the middle of a line of that thinking was read as thinking too."
                 if mid else "")
        return ("Your last reply opened <think> and never closed it, and no <tool_call> or <answer> began on a "
                f"line of its own, so all of it was read as thinking and nothing was run.{extra} End the thinking "
                f"with </think>, {_either(example)}")
    if parsed.problem == ACTION_IN_THINK:
        tag = ACTION_OPEN.search(parsed.thought)
        name = f"<{tag.group(1).lower()}>" if tag else "<tool_call>"
        return (f"Your last reply wrote its {name} only inside the thinking (<think></think>), and nothing inside the "
                f"thinking is run. Close the thinking with </think> first, {_either(example)}")
    if parsed.problem == FOREIGN_FORMAT:
        return _foreign(parsed, ts, example)
    if parsed.problem == NO_ACTION:
        return f"Your last reply had neither a <tool_call> nor an <answer>. Think inside <think></think>, {_either(example)}"
    return ""


def _foreign(parsed: ParsedReply, ts: ToolSet, example: str) -> str:
    label = parsed.foreign_label or "another format"
    if parsed.foreign_format in ANSWER_KINDS:
        return (f"Your last reply gave its answer as {label}, which this agent does not read. Write the final "
                "answer inside <answer></answer>, citing the sources by their numbers like [1]; or, if you still "
                f"need evidence, call a tool, for example:\n{example}")
    if parsed.foreign_format in REASONING_KINDS:
        return (f"Your last reply wrote only {label}, which this agent reads as your thinking, and then neither a "
                f"<tool_call> nor an <answer>. After thinking, {_either(example)}")
    names = parsed.foreign_names or ([parsed.foreign_name] if parsed.foreign_name else [])
    where = " inside your reasoning (reasoning_content), where nothing is run" if parsed.foreign_in_reasoning else ""
    unknown = "".join(_no_such_tool(n, ts) for n in dict.fromkeys(names) if ts.unknown(n))
    meant = [ts.closest(n) for n in names]
    examples = "\n".join(dict.fromkeys(ts.example_call(m) for m in meant if m)) or example
    return (f"Your last reply wrote {calls_named(names)} as {label}{where}, which this agent does not run.{unknown} "
            f"Write each tool call as JSON inside <tool_call></tool_call> tags, exactly like this:\n{examples}\n"
            f"Or give the final answer inside <answer></answer>.")


def calls_named(names: list[str]) -> str:
    """'a call to "search"', 'calls to "search" and "visit"', or 'a tool call'."""
    if not names:
        return "a tool call"
    quoted = [f'"{n}"' for n in names]
    if len(quoted) == 1:
        return f"a call to {quoted[0]}"
    return f"calls to {', '.join(quoted[:-1])} and {quoted[-1]}"


def _no_such_tool(name: str, ts: ToolSet) -> str:
    meant = ts.closest(name)
    hint = f' (the one for this is "{meant}")' if meant else ""
    return f' There is no tool "{name}"{hint}: the available tools are {ts.listing()}.'


def cut_correction(completion_tokens: int | None, limit_hint: int | None = None, *, inside: str | None = None) -> str:
    """The user message after a reply cut by the length limit (finish_reason "length").

    ``completion_tokens`` is what the provider reported for the cut reply; ``limit_hint`` the
    output-token limit when one is configured; ``inside`` where it stopped (``open_block(text)``:
    "think", "tool_call", "answer" or None)."""
    at = f" at {completion_tokens:,} tokens" if completion_tokens else ""
    limit = (f" (the limit is {limit_hint:,} tokens)" if limit_hint and limit_hint != completion_tokens else "")
    return (f"Your last reply was cut off{at} by the output length limit{CUT_PLACES.get(inside or '', '')}{limit}, "
            "so none of it was used. Reply again, shorter: keep the thinking brief, then either make one tool call "
            "or write a more concise final answer inside <answer></answer>.")
