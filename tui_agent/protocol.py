"""The four-tag protocol: prompt rendering, reply cutting and parsing, observation messages.

| tag                          | written by | meaning                                       |
|------------------------------|------------|-----------------------------------------------|
| <think>…</think>             | model      | reasoning                                     |
| <tool_call>{json}</tool_call>| model      | a tool call; several per reply run in order   |
| <tool_response>…             | engine     | observation, sent back as a user message      |
| <answer>…</answer>           | model      | the final answer; ends the loop               |

Tool calls and answers are parsed only after ``</think>``; calls are routed by the parsed
``name``, never by a substring of the raw text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date as _date
from importlib import resources
from pathlib import Path
from typing import Any

STOP_SEQUENCES = ["<tool_response>"]

_TOOL_RESPONSE_OPEN = re.compile(r"<\s*tool_response\s*>", re.I)
_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.I | re.S)
_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.I | re.S)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.S)

CORRECTION = (
    "Your last reply had neither a <tool_call> nor an <answer>. Think inside <think></think>, then "
    "either call a tool with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call> or give the "
    "final answer inside <answer></answer>."
)
EVIDENCE_REMINDER = (
    "You answered before gathering any evidence. Use the tools first to check the facts (search, "
    "then visit the most relevant pages), then answer inside <answer></answer> citing the sources."
)
FORCED_INSTRUCTION = (
    "Stop calling tools now. Using only the evidence above, write your final answer now inside "
    "<answer></answer>, citing sources by their numbers like [1]. If the evidence is incomplete, "
    "say what remains uncertain."
)
FORCED_REASONS = {
    "token_limit": "The context is nearly full.",
    "call_limit": "The model-call limit has been reached.",
    "time_limit": "The time limit has been reached.",
    "budget_limit": "The spending budget has been reached.",
    "user_submit": "The user asked for the answer now.",
    "format_error": "Too many replies did not follow the format.",
}


def default_template() -> str:
    return resources.files("tui_agent").joinpath("prompts/system.txt").read_text(encoding="utf-8")


def load_template(path: str | None) -> str:
    if path:
        return Path(path).expanduser().read_text(encoding="utf-8")
    return default_template()


def render_system_prompt(template: str, tools_block: str, today: _date | None = None) -> str:
    today = today or _date.today()
    text = template.replace("{tools}", tools_block).replace("{date}", today.isoformat())
    if "{date}" not in template:
        text = text.rstrip() + f"\n\nCurrent date: {today.isoformat()}"
    return text


def cut_reply(text: str) -> tuple[str, bool]:
    """Cut at the first <tool_response> (a server that ignored the stop sequence)."""
    m = _TOOL_RESPONSE_OPEN.search(text)
    if not m:
        return text, False
    return text[: m.start()].rstrip(), True


@dataclass
class ParsedCall:
    name: str
    arguments: Any
    raw: str
    error: str | None = None


@dataclass
class ParsedReply:
    thought: str
    calls: list[ParsedCall] = field(default_factory=list)
    answer: str | None = None
    unclosed_think: bool = False


def split_thought(text: str) -> tuple[str, str, bool]:
    """(thought, rest, unclosed): the rest is where actions may be parsed."""
    close = _THINK_CLOSE.search(text)
    if close:
        head = text[: close.start()]
        open_ = _THINK_OPEN.search(head)
        thought = head[open_.end():] if open_ else head
        return thought.strip(), text[close.end():], False
    open_ = _THINK_OPEN.search(text)
    if open_:  # thinking never closed: everything after <think> is thought, no actions
        return text[open_.end():].strip(), text[: open_.start()], True
    return "", text, False


def parse_reply(text: str, reasoning: str = "") -> ParsedReply:
    thought, rest, unclosed = split_thought(text)
    if reasoning:
        thought = (reasoning.strip() + ("\n\n" + thought if thought else "")).strip()
    parsed = ParsedReply(thought=thought, unclosed_think=unclosed)
    for m in _TOOL_CALL.finditer(rest):
        parsed.calls.append(parse_call(m.group(1)))
    am = _ANSWER.search(rest)
    if am:
        parsed.answer = am.group(1).strip()
    if not thought and not unclosed:
        # Untagged prose before the first action is the model's thinking out loud.
        first = min([m.start() for m in (_TOOL_CALL.search(rest), _ANSWER.search(rest)) if m] or [len(rest)])
        parsed.thought = rest[:first].strip()
    return parsed


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        import json5

        return json5.loads(text)


def parse_call(raw: str) -> ParsedCall:
    body = raw.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1).strip()
    obj: Any = None
    error = None
    try:
        obj = _loads(body)
    except Exception:
        start, end = body.find("{"), body.rfind("}")
        if start != -1 and end > start:
            try:
                obj = _loads(body[start : end + 1])
            except Exception as exc:
                error = f"the tool call is not valid JSON ({_short(exc)})"
        else:
            error = 'the tool call is not valid JSON: expected {"name": ..., "arguments": {...}}'
    if error is None and not isinstance(obj, dict):
        error = "the tool call must be a JSON object with \"name\" and \"arguments\""
    if error:
        return ParsedCall(name="", arguments=None, raw=raw, error=error)
    name = obj.get("name")
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = _loads(args)
        except Exception:
            return ParsedCall(name=str(name or ""), arguments=args, raw=raw, error="\"arguments\" is a string that is not valid JSON")
    if not isinstance(name, str) or not name:
        return ParsedCall(name="", arguments=args, raw=raw, error="the tool call has no \"name\"")
    return ParsedCall(name=name, arguments=args, raw=raw)


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:160]


def tool_response(text: str) -> str:
    return f"<tool_response>\n{text}\n</tool_response>"


def observation_message(blocks: list[str]) -> str:
    """The user message of one step: only the <tool_response> blocks, in order."""
    return "\n".join(tool_response(b) for b in blocks)


def forced_message(latest_observation: str | None, reason: str) -> str:
    parts = []
    if latest_observation:
        parts.append(latest_observation)
    parts.append(f"{FORCED_REASONS.get(reason, '')} {FORCED_INSTRUCTION}".strip())
    return "\n\n".join(parts)


def canonical_call(name: str, arguments: Any) -> str:
    return name + ":" + json.dumps(arguments, sort_keys=True, ensure_ascii=False)
