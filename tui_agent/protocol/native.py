"""The native tool-calling protocol (``--protocol native``): the provider's own tool calls.

The tags protocol (the rest of this package) writes the tools into the system prompt and reads
calls out of the reply's text. With ``native``:

- the tools go to the provider as ``tools=[…]``, OpenAI function format, one per tool of the
  registry (built-in, MCP, plugin alike), from each tool's input schema (:func:`tool_specs`);
- calls come back as structured ``tool_calls`` (streamed ones assembled by
  ``model.tool_deltas``); :func:`read_reply` turns a reply into the same :class:`ParsedReply`
  the tags parser gives, each call a :class:`NativeCall` carrying the provider's call id;
- the thought is the reply's text and reasoning content; a reply without tool calls is the
  answer (its thinking, a ``<think>`` block or reasoning content, is the thought);
- results go back as ``role: "tool"`` messages with the call's id (:func:`tool_message`), after
  the assistant message that carries its ``tool_calls``;
- the forced answer sends ``tool_choice: "none"``.

A call whose arguments string is not JSON (JSON5 is accepted, as in the tags protocol), not an
object, or names a tool the agent lacks becomes a call with ``error`` set: its observation names
what was wrong, as for a bad ``<tool_call>``. A call written out as text (a server without a tool
parser, a model that falls back to tags) is named in a correction that says where calls go.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tui_agent.kinds import Termination
from tui_agent.protocol.calls import BAD_ARGUMENTS, INVALID_JSON, NO_NAME, NOT_OBJECT, UNKNOWN_TOOL, ParsedCall, loads, short
from tui_agent.protocol.foreign import ANSWER_KINDS, REASONING_KINDS, detect_foreign
from tui_agent.protocol.corrections import calls_named
from tui_agent.protocol.leniency import lenient_arguments
from tui_agent.protocol.prompt import FORCED_REASONS
from tui_agent.protocol.reply import EMPTY, FOREIGN_FORMAT, ParsedReply, parse_reply
from tui_agent.protocol.tags import THINK_CLOSE, THINK_OPEN, split_thinking
from tui_agent.protocol.toolset import ToolSet
from tui_agent.model.retrying import excerpt

TAGS, NATIVE = "tags", "native"
PROTOCOLS = (TAGS, NATIVE)
TOOL_CHOICE_NONE = "none"
ERROR_EXCERPT_CHARS = 160
REFUSED_EXCERPT_CHARS = 600  # how much of a refused generation its correction quotes

_ANSWER = re.compile(r"<\s*answer\s*>(.*?)(?:<\s*/\s*answer\s*>|\Z)", re.S | re.I)

EVIDENCE_REMINDER = (
    "You answered before gathering any evidence. Call the tools first to check the facts (search, then visit the "
    "most relevant pages), then reply with the final answer as plain text, citing the sources by their numbers."
)
FORCED_INSTRUCTION = (
    "Stop calling tools now. Using only the evidence above, reply with your final answer now as plain text, "
    "citing sources by their numbers like [1]. If the evidence is incomplete, say what remains uncertain."
)
_OR_ANSWER = "or reply with the final answer as plain text (a reply without a tool call is the answer)."


@dataclass
class NativeCall(ParsedCall):
    """A structured tool call: ``tool_call_id`` is the provider's id, sent back with its result."""

    tool_call_id: str = ""


def tool_specs(tools: Any) -> list[dict[str, Any]]:
    """``tools=[…]`` for the request: each tool's name, description and input schema.

    ``tools`` is a ``ToolRegistry`` (its ``.tools``), Tool objects or ``Tool.schema()`` dicts."""
    if hasattr(tools, "tools") and isinstance(tools.tools, dict):
        tools = list(tools.tools.values())
    out = []
    for t in tools or ():
        schema = t if isinstance(t, dict) else t.schema()
        params = schema.get("parameters") or {"type": "object", "properties": {}}
        out.append({"type": "function", "function": {"name": schema["name"],
                                                     "description": schema.get("description") or "",
                                                     "parameters": params}})
    return out


def read_call(call: dict[str, Any], tools: ToolSet) -> NativeCall:
    """One structured call → a :class:`NativeCall`; ``error`` says what the model must fix."""
    fn = call.get("function") or {}
    name = str(fn.get("name") or "").strip()
    raw = fn.get("arguments")
    raw = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
    call_id = str(call.get("id") or "")

    def bad(error: str, problem: str, arguments: Any = None, as_name: str = name) -> NativeCall:
        return NativeCall(as_name, arguments, raw, error, problem, tool_call_id=call_id)

    if not name:
        return bad("the tool call has no function name; call one of the tools: " + tools.listing(), NO_NAME, {})
    if tools.unknown(name):
        return bad(f"Unknown tool {name!r}. Available tools: {tools.listing()}.", UNKNOWN_TOOL, {})
    real = tools.resolve(name) or name
    notes = [f'tool name "{name}" read as "{real}"'] if real != name else []
    text = raw.strip()
    if not text:
        arguments: Any = {}
    else:
        try:
            arguments = json.loads(text)
        except ValueError as exc:
            try:  # lenient, as the tags protocol is: single quotes, bare keys, trailing commas
                arguments = loads(text)
                notes.append("arguments read as JSON5")
            except Exception:  # noqa: BLE001 - JSON and JSON5 both failed: the model's to fix
                return bad(f"the arguments of your call to {real} are not valid JSON ({short(exc)}): "
                           f"{excerpt(text, ERROR_EXCERPT_CHARS)!r}. Send them as one JSON object that fits the "
                           f"tool's schema.", INVALID_JSON, None, real)
    if not isinstance(arguments, dict):
        return bad(f"the arguments of your call to {real} must be a JSON object, not "
                   f"{type(arguments).__name__}: {excerpt(text, ERROR_EXCERPT_CHARS)!r}", NOT_OBJECT, arguments, real)
    arguments = lenient_arguments(arguments, tools, real, notes)  # the same leniency as the tags protocol's
    return NativeCall(real, arguments, raw, notes=notes, tool_call_id=call_id)


def read_reply(text: str, reasoning: str = "", tool_calls: list[dict[str, Any]] | None = None, *,
               tools: Any = None) -> ParsedReply:
    """One native reply → :class:`ParsedReply` (calls, or the answer, or a ``problem``)."""
    ts = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    th = split_thinking(text or "")
    reasoning = THINK_CLOSE.sub("\n", THINK_OPEN.sub("", reasoning or "")).strip()
    thinking = "\n\n".join(t for t in (reasoning, th.thought) if t.strip())
    rest = th.rest.strip()
    if tool_calls:
        calls = [read_call(c, ts) for c in tool_calls]
        thought = "\n\n".join(t for t in (thinking, rest) if t)
        return ParsedReply(thought=thought, calls=list(calls))
    parsed = ParsedReply(thought=thinking)
    written = _written_call(rest, ts)
    if written is not None:
        parsed.problem, parsed.foreign_label, parsed.foreign_names = FOREIGN_FORMAT, written[0], written[1]
        parsed.foreign_name, parsed.foreign_format = written[1][0], "text_call"
        return parsed
    m = _ANSWER.search(rest)
    answer = m.group(1).strip() if m else rest
    if answer:
        parsed.answer = answer
    else:
        parsed.problem = EMPTY
    return parsed


def _written_call(rest: str, tools: ToolSet) -> tuple[str, list[str]] | None:
    """(label, tools) when the text writes out calls to the agent's tools instead of making them."""
    if not rest:
        return None
    tagged = parse_reply(rest, tools=tools)
    named = [c.name for c in tagged.calls if c.name and tools.resolve(c.name)]
    if named:
        return "a <tool_call> block in the reply's text", list(dict.fromkeys(named))
    foreign = detect_foreign(rest, tools)
    if foreign is not None and foreign.kind not in ANSWER_KINDS | REASONING_KINDS and foreign.name \
            and tools.resolve(foreign.name):
        names = [tools.resolve(n) or n for n in (foreign.names or [foreign.name])]
        return foreign.label or "text", list(dict.fromkeys(names))
    return None


# -- messages ---------------------------------------------------------------------------------


def assistant_message(text: str, tool_calls: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The assistant message of a research reply, with its calls when it made some."""
    msg: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        msg["tool_calls"] = [dict(c) for c in tool_calls]
    return msg


def tool_message(tool_call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": tool_call_id, "content": content}


def fit_tool_results(msgs: list[dict[str, Any]], counter: Any, room: int, instruction: str) -> list[dict[str, Any]]:
    """A forced answer's history: ``msgs`` with the trailing ``role: "tool"`` messages (the last
    step's results, which must stay after the call that asked for them) cut to share what is left
    of ``room`` tokens once the rest and the final ``instruction`` are counted (a ``TokenCounter``)."""
    from tui_agent.core import budgets

    first = len(msgs)
    while first > 0 and msgs[first - 1].get("role") == "tool":
        first -= 1
    if first == len(msgs):
        return msgs
    empty = [{**m, "content": ""} for m in msgs[first:]]
    base, _ = counter.messages(msgs[:first] + empty + [{"role": "user", "content": instruction}])
    each = budgets.share(room - base, len(msgs) - first, minimum=0)
    return msgs[:first] + [{**m, "content": budgets.fit_room(m.get("content") or "", each, budgets.ANSWER_ROOM)}
                           for m in msgs[first:]]


# -- what the engine says ------------------------------------------------------------------------


def correction(parsed: ParsedReply, tools: Any = None) -> str:
    """The user message after a native reply the engine does not act on (empty, or a call written as text)."""
    ts = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    if parsed.problem == FOREIGN_FORMAT:
        names = parsed.foreign_names or ([parsed.foreign_name] if parsed.foreign_name else [])
        which = " and ".join(names) if names else "the tool"
        return (f"Your last reply wrote {calls_named(names)} as text ({parsed.foreign_label}), which this agent does "
                "not run: here tools are called only through the tool-calling interface (the tools of this "
                f"request), never written out in the reply. Call {which} that way, {_OR_ANSWER}")
    if parsed.problem == EMPTY:
        return (f"Your last reply was empty: no text and no tool call. Call one of the tools ({ts.listing()}), "
                f"{_OR_ANSWER}")
    return f"Your last reply could not be used. Call one of the tools ({ts.listing()}), {_OR_ANSWER}"


def refused_correction(generation: str, message: str, tools: Any = None) -> str:
    """The user message after the provider refused the model's tool call (Groq's tool_use_failed):
    its words, what the model wrote (its failed generation), what that was, and how to call instead."""
    ts = tools if isinstance(tools, ToolSet) else ToolSet(tools)
    wrote = generation.strip()
    seen = detect_foreign(wrote, ts) if wrote else None
    names = (seen.names or ([seen.name] if seen.name else [])) if seen else []
    what = f" That is {calls_named(names)} written as {seen.label}." if seen and names else ""
    missing = "".join(f' There is no tool "{n}"' + (f' (the one for this is "{ts.closest(n)}")' if ts.closest(n) else "")
                      + "." for n in dict.fromkeys(names) if ts.unknown(n))
    shown = (f" What you wrote:\n{excerpt(wrote, REFUSED_EXCERPT_CHARS)}\n" if wrote
             else " The server kept nothing of what you wrote.")
    return (f"The model server refused your last tool call: {message}{shown}{what}{missing} Call the tools only "
            f"through the tool-calling interface, each call's arguments one JSON object that fits the tool's schema "
            f"(the tools: {ts.listing()}), {_OR_ANSWER}")


def cut_correction(completion_tokens: int | None, in_call: bool) -> str:
    at = f" at {completion_tokens:,} tokens" if completion_tokens else ""
    where = " in the middle of a tool call's arguments" if in_call else ""
    return (f"Your last reply was cut off{at} by the output length limit{where}, so none of it was used. Reply "
            "again, shorter: keep the thinking brief, then either make one tool call or write a more concise final "
            "answer.")


def forced_message(latest_observation: str | None, reason: Termination) -> str:
    parts = [latest_observation] if latest_observation else []
    parts.append(f"{FORCED_REASONS.get(reason, '')} {FORCED_INSTRUCTION}".strip())
    return "\n\n".join(parts)


__all__ = [
    "BAD_ARGUMENTS", "EVIDENCE_REMINDER", "FORCED_INSTRUCTION", "NATIVE", "PROTOCOLS", "TAGS", "TOOL_CHOICE_NONE",
    "NativeCall", "assistant_message", "correction", "cut_correction", "fit_tool_results", "forced_message",
    "read_call", "read_reply", "refused_correction",
    "tool_message", "tool_specs",
]
