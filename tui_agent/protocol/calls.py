"""One ``<tool_call>`` body → the calls it holds, leniently, with a precise error when it fails.

Accepted (each noted in ``ParsedCall.notes`` so a trace can say what was read):

- JSON, else JSON5 (single quotes, bare keys, trailing commas); a ```json fence around it;
  curly quotes “…” used as JSON quotes, and full-width ：， used as JSON punctuation;
- ``"arguments"`` as a JSON *string* holding the object; the arguments under ``"parameters"``,
  ``"args"``, ``"input"``, ``"params"`` or ``"tool_input"``, or at the top level next to ``"name"``;
  the OpenAI ``{"function": {"name", "arguments"}}`` wrapper; a tool name differing only in case;
- several JSON objects (or a JSON array of them) in one block: one call each;
- a JSON object followed by other text (the Tongyi ``<code>…</code>`` convention): the object;
- Qwen3-Coder / Qwen3.5 XML, ``<function=NAME><parameter=KEY>VALUE</parameter></function>``:
  parameter values are typed by the tool's schema (a string stays a string; arrays, objects,
  numbers and booleans are decoded from JSON; a plain value for an array parameter becomes a
  one-element array);
- ``<function>NAME</function>`` followed by the JSON arguments (Qwen3.6, gemma-3), and Llama 3.1's
  ``<function=NAME>{JSON arguments}</function>``;
- GLM-4.5/4.7/5, ``NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>…``, values typed as
  for Qwen XML;
- the argument leniency both protocols share (``protocol.leniency``): wherever a tool's schema wants
  an array of strings, one string is read as a one-item list.

A call to a tool the agent lacks is "unknown tool NAME" whatever its body holds: the name is read
from the JSON, or, when the body is not JSON at all, from a ``"name": "…"`` pair or a
``NAME(…)`` Python-style call in it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tui_agent.protocol.leniency import lenient_arguments
from tui_agent.protocol.toolset import ToolSet
from tui_agent.model.retrying import excerpt

# ParsedCall.problem values
UNKNOWN_TOOL = "unknown_tool"
INVALID_JSON = "invalid_json"
NOT_OBJECT = "not_object"
NO_NAME = "no_name"
BAD_ARGUMENTS = "bad_arguments"

NAME_KEYS = ("name", "tool_name", "tool", "function")
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "params", "tool_input")
FORMAT_JSON = "json"
FORMAT_QWEN_XML = "qwen_xml"
FORMAT_FUNCTION_TAG = "function_tag"  # <function>NAME</function>{json arguments}
FORMAT_GLM = "glm_xml"  # NAME<arg_key>K</arg_key><arg_value>V</arg_value>
FORMAT_FUNCTION_JSON = "function_json"  # Llama 3.1: <function=NAME>{json arguments}</function>
ERROR_EXCERPT_CHARS = 160  # how much of a parser message or a bad value an error quotes

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.S)
_FUNCTION_START = re.compile(r"^\s*<\s*function\s*=", re.I)
_FUNC = re.compile(r"<\s*function\s*=\s*[\"']?([^>\s\"']+)[\"']?\s*>(.*?)"
                   r"(?:<\s*/\s*function\s*>|(?=<\s*function\s*=)|\Z)", re.S | re.I)
_PARAM = re.compile(r"<\s*parameter\s*=\s*[\"']?([^>\s\"']+)[\"']?\s*>(.*?)"
                    r"(?:<\s*/\s*parameter\s*>|(?=<\s*parameter\s*=)|(?=<\s*/\s*function\s*>)|\Z)", re.S | re.I)
_FUNCTION_TAG = re.compile(r"^\s*<\s*function\s*>\s*([^<>\s]{1,128})\s*<\s*/\s*function\s*>(.*)$", re.S | re.I)
_GLM_HEAD = re.compile(r"^\s*(?!(?:true|false|null)\s*$)([A-Za-z_][\w.\-]{0,127})\s*(?:<\s*arg_key\s*>|$)", re.I)
_GLM_PAIR = re.compile(r"<\s*arg_key\s*>(.*?)<\s*/\s*arg_key\s*>\s*<\s*arg_value\s*>(.*?)"
                       r"(?:<\s*/\s*arg_value\s*>|(?=<\s*arg_key\s*>)|\Z)", re.S | re.I)
_NAME_IN_TEXT = re.compile(
    r"""["'“]?(?:name|tool_name|tool)["'”]?\s*[:=：]\s*["'“]([^"'”\\\n]{1,128})["'”]"""
    r"""|<\s*(?:name|function-name|tool_name)\s*>\s*([\w.\-]{1,128})""", re.I)
_PYTHONIC = re.compile(r"^\s*\[?\s*([A-Za-z_][\w.\-]{0,127})\s*\(", re.S)
_CURLY = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'"})
_FULLWIDTH = str.maketrans({"：": ":", "，": ",", "｛": "{", "｝": "}", "［": "[", "］": "]"})


@dataclass
class ParsedCall:
    name: str
    arguments: Any
    raw: str
    error: str | None = None  # for the model: sent back as the observation of this call
    problem: str | None = None  # machine-readable: UNKNOWN_TOOL, INVALID_JSON, NOT_OBJECT, NO_NAME, BAD_ARGUMENTS
    format: str = FORMAT_JSON  # FORMAT_JSON, or FORMAT_QWEN_XML for an accepted Qwen XML call
    notes: list[str] = field(default_factory=list)  # leniencies applied, for the trace
    closed: bool = True  # the block ended with </tool_call>


def loads(text: str) -> Any:
    """JSON, else JSON5."""
    try:
        return json.loads(text)
    except ValueError:
        import json5

        return json5.loads(text)


def short(exc: Exception | str) -> str:
    """The first line of a parser's message, cut short."""
    lines = str(exc).splitlines()
    return excerpt(lines[0] if lines else exc, ERROR_EXCERPT_CHARS)


def parse_calls(raw: str, tools: ToolSet | None = None, *, closed: bool = True) -> list[ParsedCall]:
    """All calls in one ``<tool_call>`` body (at least one entry: a failed parse is an error call)."""
    tools = tools or ToolSet()
    body = raw.strip()
    tagged, glm = _FUNCTION_TAG.match(body), _GLM_HEAD.match(body)
    if _FUNCTION_START.match(body):
        calls = xml_calls(raw, tools)
    elif tagged:
        calls = [_function_tag_call(tagged.group(1), tagged.group(2), raw, tools)]
    elif glm:
        calls = [glm_call(glm.group(1), body[glm.end(1):], raw, tools)]
    else:
        fenced = _FENCE.match(body)
        if fenced:
            body = fenced.group(1).strip()
        objs, notes, error = _decode(body)
        if objs is None:
            calls = [_undecodable(raw, body, tools, error)]
        else:
            calls = [_call_from_obj(o, raw, tools, list(notes)) for o in objs] or [
                ParsedCall("", None, raw, 'the tool call is empty: expected {"name": ..., "arguments": {...}}', NOT_OBJECT)]
    for c in calls:
        c.closed = closed
    return calls


def _variants(body: str) -> list[tuple[str, str | None]]:
    out = [(body, None)]
    curly = body.translate(_CURLY)
    if curly != body:
        out.append((curly, "curly quotes read as JSON quotes"))
    wide = curly.translate(_FULLWIDTH)
    if wide != curly:
        out.append((wide, "full-width punctuation read as JSON punctuation"))
    return out


def _decode(body: str) -> tuple[list[Any] | None, list[str], str]:
    """(objects, notes, error): the JSON value(s) in ``body``, trying ever more lenient readings."""
    first_error = ""
    for text, note in _variants(body):
        notes = [note] if note else []
        try:
            value = loads(text)
            return (value if isinstance(value, list) else [value]), notes, ""
        except Exception as exc:  # noqa: BLE001 - json5 raises several kinds
            first_error = first_error or short(exc)
        objs, trailing = _leading_objects(text)
        if objs:
            if trailing:
                notes.append("text after the JSON object was ignored")
            return objs, notes, ""
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end > start:
            try:
                return [loads(text[start : end + 1])], notes + ["text around the JSON object was ignored"], ""
            except Exception:  # noqa: BLE001
                pass
    return None, [], first_error


def _leading_objects(text: str) -> tuple[list[Any], bool]:
    """JSON objects one after another from the first "{" (commas or newlines between them)."""
    decoder = json.JSONDecoder()
    pos = text.find("{")
    objs: list[Any] = []
    while pos != -1 and pos < len(text):
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError:
            break
        objs.append(obj)
        pos = end
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            break
    trailing = bool(objs) and bool(text[pos:].strip(" \t\r\n}]")) if pos < len(text) else False
    return objs, trailing


def _unknown(name: str, raw: str, tools: ToolSet, arguments: Any = None, notes: list[str] | None = None) -> ParsedCall:
    # The same words as ToolRegistry.validate, so the model reads one message whichever path found it.
    return ParsedCall(name, arguments, raw, f"Unknown tool {name!r}. Available tools: {tools.listing()}.",
                      UNKNOWN_TOOL, notes=notes or [])


def _undecodable(raw: str, body: str, tools: ToolSet, error: str) -> ParsedCall:
    m = _NAME_IN_TEXT.search(body)
    name = (m.group(1) or m.group(2)).strip() if m else ""
    if not name:
        py = _PYTHONIC.match(body)
        name = py.group(1) if py else ""
    name = _strip_namespace(name, tools)
    if name and tools.unknown(name):
        return _unknown(name, raw, tools)
    if name:
        name = tools.resolve(name) or name
        return ParsedCall(name, None, raw, f"the tool call is not valid JSON ({error or 'no JSON object found'}); "
                          f"write it as {tools.example_call(name)}", INVALID_JSON)
    return ParsedCall("", None, raw, 'the tool call is not valid JSON: expected {"name": ..., "arguments": {...}}'
                      + (f" ({error})" if error else ""), INVALID_JSON)


def _strip_namespace(name: str, tools: ToolSet) -> str:
    """``functions.search`` → ``search`` when that is a real tool (OpenAI/harmony habit)."""
    if "." in name and tools.resolve(name) is None:
        tail = name.rsplit(".", 1)[1]
        if tools.resolve(tail) is not None or not tools.known:
            return tail
    return name


def _call_from_obj(obj: Any, raw: str, tools: ToolSet, notes: list[str]) -> ParsedCall:
    if not isinstance(obj, dict):
        return ParsedCall("", obj, raw, 'the tool call must be a JSON object with "name" and "arguments"', NOT_OBJECT)
    fn = obj.get("function")
    if isinstance(fn, dict) and "name" in fn:
        obj = dict(fn)
        notes.append('OpenAI-style {"function": {...}} wrapper removed')
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
    key = next((k for k in ARGUMENT_KEYS if k in obj), None)
    if key is not None:
        args = obj[key]
        if key != "arguments":
            notes.append(f'arguments read from "{key}"')
    else:
        args = {k: v for k, v in obj.items() if k not in NAME_KEYS}
        if args:
            notes.append('arguments read from the top level (no "arguments" key)')
    if args is None:
        args = {}
    if not name:
        return ParsedCall("", args, raw, 'the tool call has no "name"', NO_NAME, notes=notes)
    name = _strip_namespace(name.strip(), tools)
    if tools.unknown(name):
        return _unknown(name, raw, tools, args, notes)
    real = tools.resolve(name) or name
    if real != name:
        notes.append(f'tool name "{name}" read as "{real}"')
    if isinstance(args, str):
        text = args.strip()
        try:
            decoded = loads(text) if text[:1] in "{[" and text else None
        except Exception:  # noqa: BLE001
            decoded = None
        if not isinstance(decoded, dict):
            example = json.dumps(tools.example_arguments(real), ensure_ascii=False)
            return ParsedCall(real, args, raw, f'"arguments" must be a JSON object such as {example}, not the string '
                              f"{json.dumps(text[:ERROR_EXCERPT_CHARS], ensure_ascii=False)}", BAD_ARGUMENTS, notes=notes)
        args = decoded
        notes.append('"arguments" given as a JSON string')
    return ParsedCall(real, lenient_arguments(args, tools, real, notes), raw, notes=notes)


def _function_tag_call(name: str, body: str, raw: str, tools: ToolSet) -> ParsedCall:
    """``<function>NAME</function>`` then the JSON arguments (Qwen3.6, gemma-3)."""
    name = _strip_namespace(name.strip(), tools)
    notes = ["written as <function>NAME</function> followed by the JSON arguments"]
    if tools.unknown(name):
        return _unknown(name, raw, tools, None, notes)
    real = tools.resolve(name) or name
    text, error = body.strip(), ""
    if not text:
        objs: list[Any] | None = [{}]
    else:
        objs, more, error = _decode(text)
        notes += more
    if not objs or not isinstance(objs[0], dict):
        return ParsedCall(real, None, raw, f"the arguments after <function>{real}</function> are not a JSON object "
                          f"({error if objs is None else 'not an object'}); write the call as "
                          f"{tools.example_call(real)}", INVALID_JSON, format=FORMAT_FUNCTION_TAG, notes=notes)
    obj = objs[0]
    if set(obj) & set(ARGUMENT_KEYS) and not set(obj) - set(ARGUMENT_KEYS) - set(NAME_KEYS):
        obj = next(obj[k] for k in ARGUMENT_KEYS if k in obj)  # {"arguments": {...}} after the tag
    call = _call_from_obj({"name": real, "arguments": obj}, raw, tools, notes)
    call.format = FORMAT_FUNCTION_TAG
    return call


def glm_call(name: str, body: str, raw: str, tools: ToolSet) -> ParsedCall:
    """GLM: ``NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>…`` (values typed by the schema)."""
    name = _strip_namespace(name.strip(), tools)
    notes = ["written as GLM <arg_key>/<arg_value> pairs"]
    if tools.unknown(name):
        return _unknown(name, raw, tools, None, notes)
    real = tools.resolve(name) or name
    args: dict[str, Any] = {}
    for pm in _GLM_PAIR.finditer(body):
        key = pm.group(1).strip()
        args[key] = _typed(pm.group(2).strip(), tools.property_type(real, key), notes)
    return ParsedCall(real, lenient_arguments(args, tools, real, notes), raw, format=FORMAT_GLM, notes=notes)


def xml_calls(raw: str, tools: ToolSet) -> list[ParsedCall]:
    """Qwen3-Coder XML calls: ``<function=NAME><parameter=KEY>VALUE</parameter>…</function>``."""
    calls = []
    for fm in _FUNC.finditer(raw):
        name = _strip_namespace(fm.group(1).strip(), tools)
        notes = ["written as Qwen3-Coder XML"]
        if tools.unknown(name):
            calls.append(_unknown(name, raw, tools, None, notes))
            continue
        real = tools.resolve(name) or name
        body = fm.group(2).strip()
        if not _PARAM.search(body) and body.startswith("{"):  # Llama 3.1: <function=NAME>{json}</function>
            calls.append(_function_tag_call(real, body, raw, tools))
            calls[-1].notes[0] = "written as Llama 3.1 <function=NAME>{JSON arguments}</function>"
            calls[-1].format = FORMAT_FUNCTION_JSON
            continue
        args: dict[str, Any] = {}
        for pm in _PARAM.finditer(body):
            args[pm.group(1).strip()] = _typed(pm.group(2).strip(), tools.property_type(real, pm.group(1).strip()), notes)
        calls.append(ParsedCall(real, args, raw, format=FORMAT_QWEN_XML, notes=notes))
    return calls


def _typed(value: str, typ: str | None, notes: list[str]) -> Any:
    if typ == "string":
        return value
    if not value or (typ is None and value[0] not in "[{"):
        return value
    try:
        decoded = loads(value)
    except Exception:  # noqa: BLE001
        decoded = value
    if typ == "array" and not isinstance(decoded, list):
        notes.append("a single value given for an array parameter was wrapped in a list")
        return [decoded]
    return decoded
