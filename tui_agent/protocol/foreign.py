"""Recognise a tool call or an answer written in another protocol, to name it in the correction.

Only the text after thinking is examined, and only when it held neither a ``<tool_call>`` nor an
``<answer>``. Nothing found here is run (Qwen XML, the one foreign shape that is run, is parsed in
:mod:`calls`); the point is a correction that says what the model wrote and what to write instead.
Detectors are tried in order, most specific first.
"""

from __future__ import annotations

import json
import re
import ast
from dataclasses import dataclass, field
from typing import Callable

from tui_agent.protocol.calls import ARGUMENT_KEYS, loads
from tui_agent.protocol.toolset import ToolSet

# kind → how the correction names it (some add the exact tag or token seen)
FOREIGN_FORMATS = {
    "minimax_tool_call": 'MiniMax "[TOOL_CALL] {tool => …, args => {…}} [/TOOL_CALL]" text',
    "harmony_call": "a gpt-oss harmony tool call (<|channel|>commentary to=functions.NAME)",
    "harmony_reasoning": "gpt-oss harmony reasoning (<|channel|>analysis<|message|>…)",
    "special_token": "a chat-template tool token",
    "functions_prefix": 'OpenAI-style "functions.NAME" text',
    "invoke_xml": "<function_calls>/<invoke> XML",
    "function_call_tag": "a <function_call> tag",
    "tools_tag": "<tools> tags (they only list the tools in the system prompt)",
    "tag_variant": "a tag other than <tool_call>",
    "answer_variant": "a tag other than <answer>",
    "qwen_xml": "Qwen3-Coder XML (<function=NAME><parameter=KEY>) outside <tool_call> tags",
    "openai_tool_calls": 'OpenAI-style "tool_calls" JSON',
    "fenced_json": "a ```json code block",
    "bare_json": "a JSON object without <tool_call> tags",
    "pythonic_call": "a Python-style call",
    "function_suffix": 'Llama-style function text "NAME{…}</function>"',
    "react_text": 'ReAct "Action:" / "Action Input:" lines',
    "boxed": "\\boxed{…}",
    "final_answer_text": 'a "Final Answer:" line',
}
ANSWER_KINDS = {"boxed", "final_answer_text", "answer_variant"}  # the model was answering, not calling
REASONING_KINDS = {"harmony_reasoning"}  # the model only reasoned (read as thought), then stopped
# Which model family writes each chat-template token (named in the correction).
TOKEN_FAMILIES = {
    "<|python_tag|>": "Llama 3", "[TOOL_CALLS]": "Mistral", "<｜tool▁calls▁begin｜>": "DeepSeek",
    "<｜tool▁call▁begin｜>": "DeepSeek", "<|tool_calls_section_begin|>": "Kimi", "<|tool_call_begin|>": "Kimi",
    "<|action_start|>": "InternLM", "<start_function_call>": "FunctionGemma",
}


@dataclass
class Foreign:
    kind: str  # a key of FOREIGN_FORMATS
    label: str  # what the correction calls it
    name: str | None = None  # the tool name it seemed to call, when one was seen
    names: list[str] = field(default_factory=list)  # every tool it seemed to call, in order (a list of calls)


_SPECIAL = re.compile(r"<\|python_tag\|>|<\|tool_call\|?>|<tool_call\|>|<\|tool_calls_section_begin\|>|<\|tool_call_begin\|>"
                      r"|\[TOOL_CALLS\]|<｜tool▁calls?▁begin｜>|<\|action_start\|>|<start_function_call>")
_HARMONY = re.compile(r"<\|channel\|>|<\|call\|>|<\|recipient\|>|<\|constrain\|>")
_HARMONY_CALL = re.compile(r"\bto=(?:functions\.)?([A-Za-z_][\w\-]*)")
_MINIMAX = re.compile(r"\[TOOL_CALL\]")
_MINIMAX_NAME = re.compile(r"""\btool\s*=>\s*["']([^"'\n]{1,128})["']""")
_FUNCTIONS = re.compile(r"(?:\bto=)?\bfunctions\.([A-Za-z_][\w\-]*)")
_INVOKE = re.compile(r"<\s*(?:function_calls|invoke)\b[^>]*>", re.I)
_INVOKE_NAME = re.compile(r"<\s*invoke\s+name\s*=\s*[\"']([^\"']+)[\"']", re.I)
_FUNCTION_CALL = re.compile(r"<\s*(function[_\- ]?call|function[_\-]name)\s*>", re.I)
_TOOLS = re.compile(r"<\s*tools\s*>", re.I)
_TAG_VARIANT = re.compile(r"<\s*(tool_calls|toolcall|tool-call|tool call|tool_use|tooluse|tool|call|action|function)\s*>", re.I)
_ANSWER_VARIANT = re.compile(r"<\s*(final_answer|final-answer|finalanswer|final|response|result|solution)\s*>", re.I)
_QWEN_XML = re.compile(r"<\s*function\s*=\s*[\"']?([^>\s\"']+)|<\s*parameter\s*=", re.I)
_TOOL_CALLS_JSON = re.compile(r"[\"']tool_calls[\"']\s*:\s*\[", re.I)
_FENCED = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)
_NAME = re.compile(r"""["']name["']\s*:\s*["']([^"'\\\n]{1,128})["']"""
                   r"""|<\s*(?:name|function[-_]name)\s*>\s*([\w.\-]{1,128})|\bcall:([A-Za-z_][\w.\-]{0,127})""", re.I)
_PYTHONIC = re.compile(r"^\s*\[?\s*([A-Za-z_][\w.\-]{0,127})\s*\(", re.M)
_REACT = re.compile(r"^\s*Action\s*:\s*`?([\w.\-]+)`?\s*$.*?^\s*Action\s+Input\s*:", re.M | re.S | re.I)
_BOXED = re.compile(r"\\boxed\s*\{")
_FINAL_ANSWER = re.compile(r"^\s*\**\s*final\s+answer\s*\**\s*[:：]", re.M | re.I)


def _name_in(text: str) -> str | None:
    m = _NAME.search(text) or _INVOKE_NAME.search(text) or _FUNCTIONS.search(text)
    return next((g for g in m.groups() if g), None) if m else None


def _call_json(text: str) -> dict | None:
    """``text`` as a JSON object that looks like a call or call arguments, else None."""
    try:
        obj = loads(text.strip())
    except Exception:  # noqa: BLE001
        return None
    return obj if isinstance(obj, dict) and obj else None


def _special(rest: str, tools: ToolSet) -> Foreign | None:
    m = _SPECIAL.search(rest)
    if not m:
        return None
    after = rest[m.end():]
    py = _PYTHONIC.match(after)
    name = _name_in(after) or (py.group(1).rsplit(".", 1)[-1] if py else None)
    family = TOKEN_FAMILIES.get(m.group(0))
    return Foreign("special_token", f"the {family + ' ' if family else ''}chat-template token {m.group(0)}", name)


def _harmony(rest: str, tools: ToolSet) -> Foreign | None:
    """gpt-oss harmony text left with no final channel: a call (named), or reasoning only."""
    if not _HARMONY.search(rest):
        return None
    call = _HARMONY_CALL.search(rest)
    if call:
        name = call.group(1)
        return Foreign("harmony_call", f"a gpt-oss harmony tool call (<|channel|>commentary to=functions.{name})", name)
    return Foreign("harmony_reasoning", FOREIGN_FORMATS["harmony_reasoning"])


def _minimax(rest: str, tools: ToolSet) -> Foreign | None:
    if not _MINIMAX.search(rest):
        return None
    name = _MINIMAX_NAME.search(rest)
    return Foreign("minimax_tool_call", FOREIGN_FORMATS["minimax_tool_call"], name.group(1) if name else None)


def _tagged(pattern: re.Pattern, kind: str, label: Callable[[re.Match], str]) -> Callable[[str, ToolSet], Foreign | None]:
    def detect(rest: str, tools: ToolSet) -> Foreign | None:
        m = pattern.search(rest)
        return Foreign(kind, label(m), _name_in(rest[m.start():])) if m else None

    return detect


def _functions(rest: str, tools: ToolSet) -> Foreign | None:
    m = _FUNCTIONS.search(rest)
    if not m or (tools.known and tools.resolve(m.group(1)) is None and "to=functions." not in rest):
        return None
    return Foreign("functions_prefix", f'OpenAI-style "functions.{m.group(1)}" text', m.group(1))


def _qwen_xml(rest: str, tools: ToolSet) -> Foreign | None:
    m = _QWEN_XML.search(rest)
    return Foreign("qwen_xml", FOREIGN_FORMATS["qwen_xml"], m.group(1) or _name_in(rest)) if m else None


def _openai_json(rest: str, tools: ToolSet) -> Foreign | None:
    m = _TOOL_CALLS_JSON.search(rest)
    return Foreign("openai_tool_calls", FOREIGN_FORMATS["openai_tool_calls"], _name_in(rest[m.end():])) if m else None


def _fenced(rest: str, tools: ToolSet) -> Foreign | None:
    for m in _FENCED.finditer(rest):
        obj = _call_json(m.group(1))
        if obj is not None and ("name" in obj or any(k in obj for k in ARGUMENT_KEYS)):
            return Foreign("fenced_json", FOREIGN_FORMATS["fenced_json"], _str(obj.get("name")))
    return None


def _bare_json(rest: str, tools: ToolSet) -> Foreign | None:
    text = rest.strip()
    start = text.find("{")
    if start == -1:
        return None
    obj = _call_json(text[start:]) or _first_object(text[start:])
    if obj is None:
        return None
    looks_like_call = "name" in obj and (any(k in obj for k in ARGUMENT_KEYS) or len(obj) == 1)
    only_json = start == 0 and text.endswith("}")
    if looks_like_call or only_json:
        return Foreign("bare_json", FOREIGN_FORMATS["bare_json"], _str(obj.get("name")))
    return None


def _first_object(text: str) -> dict | None:
    try:
        obj, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _pythonic(rest: str, tools: ToolSet) -> Foreign | None:
    listed = _call_list(rest, tools)
    if len(listed) > 1:  # Llama 4: [search(query='…'), visit(url='…')]: every call is named
        shown = ", ".join(f"{n}(…)" for n in listed)
        return Foreign("pythonic_call", f"a Python-style call list [{shown}]", listed[0], listed)
    for m in _PYTHONIC.finditer(rest):
        name = m.group(1).rsplit(".", 1)[-1]
        if tools.resolve(name) is not None:  # only a real tool's name: prose has parentheses too
            return Foreign("pythonic_call", f"a Python-style call {name}(…)", name, [name])
    return None


def _call_list(rest: str, tools: ToolSet) -> list[str]:
    """The names in a Python list of calls (``[a(x=1), b(y=2)]``, as Llama 4 writes them, maybe
    inside <|python_start|>…<|python_end|>), when one of them is a real tool; else []."""
    start, end = rest.find("["), rest.rfind("]")
    if start == -1 or end <= start:
        return []
    try:
        tree = ast.parse(rest[start:end + 1].strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return []
    if not isinstance(tree, ast.List) or not tree.elts or not all(isinstance(e, ast.Call) for e in tree.elts):
        return []
    names = [ast.unparse(e.func).rsplit(".", 1)[-1] for e in tree.elts]
    return names if any(tools.resolve(n) is not None for n in names) else []


_SUFFIX = re.compile(r"^\s*([A-Za-z_][\w.\-]{0,127})\s*\{.*\}\s*<\s*/\s*function\s*>", re.S)


def _function_suffix(rest: str, tools: ToolSet) -> Foreign | None:
    """``NAME{json}</function>``: Llama 3.1's function text with its ``<function=`` opener lost
    (Groq's failed_generation holds it so)."""
    m = _SUFFIX.match(rest)
    if not m:
        return None
    name = m.group(1).rsplit(".", 1)[-1]
    return Foreign("function_suffix", f'Llama-style function text "{name}{{…}}</function>"', name, [name])


def _react(rest: str, tools: ToolSet) -> Foreign | None:
    m = _REACT.search(rest)
    return Foreign("react_text", FOREIGN_FORMATS["react_text"], m.group(1)) if m else None


def _simple(pattern: re.Pattern, kind: str) -> Callable[[str, ToolSet], Foreign | None]:
    return lambda rest, tools: Foreign(kind, FOREIGN_FORMATS[kind]) if pattern.search(rest) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


DETECTORS: list[Callable[[str, ToolSet], Foreign | None]] = [
    _minimax,
    _harmony,
    _special,
    _tagged(_INVOKE, "invoke_xml", lambda m: FOREIGN_FORMATS["invoke_xml"]),
    _functions,
    _tagged(_FUNCTION_CALL, "function_call_tag", lambda m: f"a <{m.group(1)}> tag"),
    _tagged(_TOOLS, "tools_tag", lambda m: FOREIGN_FORMATS["tools_tag"]),
    _qwen_xml,
    _tagged(_TAG_VARIANT, "tag_variant", lambda m: f"a <{m.group(1)}> tag instead of <tool_call>"),
    _openai_json,
    _fenced,
    _function_suffix,
    _bare_json,
    _pythonic,
    _react,
    _tagged(_ANSWER_VARIANT, "answer_variant", lambda m: f"a <{m.group(1)}> tag instead of <answer>"),
    _simple(_BOXED, "boxed"),
    _simple(_FINAL_ANSWER, "final_answer_text"),
]


def detect_foreign(rest: str, tools: ToolSet | None = None) -> Foreign | None:
    """The first foreign shape found in ``rest`` (text after thinking), else None."""
    tools = tools or ToolSet()
    for detect in DETECTORS:
        found = detect(rest, tools)
        if found is not None:
            return found
    return None
