"""The protocol API the engine calls: where thinking ends, call parsing, corrections, cut replies."""

from __future__ import annotations

import pytest

from tui_agent import protocol
from tui_agent.config import Settings
from tui_agent.tools import build_registry

TOOLS = build_registry(Settings())
CALL = '<tool_call>{"name": "search", "arguments": {"query": ["q"]}}</tool_call>'


# -- the public names stay where the engine and the session layer import them --------------------

def test_the_names_of_the_single_module_are_still_importable_from_the_package():
    for name in ("STOP_SEQUENCES", "CORRECTION", "EVIDENCE_REMINDER", "FORCED_INSTRUCTION", "FORCED_REASONS",
                 "cut_reply", "parse_reply", "parse_call", "split_thought", "observation_message", "tool_response",
                 "forced_message", "canonical_call", "render_system_prompt", "load_template", "default_template",
                 "ParsedReply", "ParsedCall"):
        assert hasattr(protocol, name), name
    assert "{tools}" in protocol.default_template()


# -- where thinking ends ----------------------------------------------------------------------------

def test_a_line_start_call_ends_unclosed_thinking_and_runs():
    parsed = protocol.parse_reply("<think>\nI should search.\n" + CALL)
    assert parsed.thought == "I should search."
    assert [(c.name, c.arguments) for c in parsed.calls] == [("search", {"query": ["q"]})]
    assert parsed.unclosed_think and parsed.implicit_think_end and parsed.problem is None


def test_a_call_right_after_the_opening_think_tag_also_ends_the_thinking():
    parsed = protocol.parse_reply("<think>" + CALL)
    assert parsed.thought == "" and len(parsed.calls) == 1


def test_a_mid_line_call_in_unclosed_thinking_stays_thought():
    parsed = protocol.parse_reply("<think>I might use " + CALL + " later")
    assert parsed.calls == [] and parsed.problem == protocol.UNCLOSED_THINK
    assert "I might use" in parsed.thought


def test_a_line_start_draft_inside_closed_thinking_is_not_an_action():
    parsed = protocol.parse_reply("<think>\n" + CALL + "\n</think>\n<answer>done</answer>")
    assert parsed.calls == [] and parsed.answer == "done"


def test_a_closing_tag_without_opening_tag_means_the_prompt_opened_the_thinking():
    thought, rest, unclosed = protocol.split_thought("reasoning here\n</think>\n" + CALL)
    assert thought == "reasoning here" and rest.strip() == CALL and unclosed is False


def test_split_thought_returns_the_rest_from_the_implicit_end():
    thought, rest, unclosed = protocol.split_thought("<think>plan\n<answer>x</answer>")
    assert (thought, rest, unclosed) == ("plan", "<answer>x</answer>", True)


@pytest.mark.parametrize("text, block", [
    ("<think>still thinking", "think"),
    ("<think>a</think><tool_call>{\"name\": \"search\", \"argu", "tool_call"),
    ("<think>a</think><answer>half an answ", "answer"),
    ("<think>a</think><answer>whole</answer>", None),
    ("<think>plan\n<answer>cut answ", "answer"),
])
def test_open_block_says_where_a_cut_reply_stopped(text, block):
    assert protocol.open_block(text) == block


def test_calls_in_reasoning_content_run_only_when_the_content_is_blank():
    reasoning = "Need data.\n" + CALL
    swallowed = protocol.parse_reply("", reasoning)
    assert [c.name for c in swallowed.calls] == ["search"] and swallowed.actions_in_reasoning
    assert swallowed.thought == "Need data."
    with_content = protocol.parse_reply("<answer>from content</answer>", reasoning)
    assert with_content.calls == [] and with_content.answer == "from content"
    assert "Need data." in with_content.thought and not with_content.actions_in_reasoning


# -- calls ------------------------------------------------------------------------------------------

def test_unknown_tool_is_named_whatever_the_body_holds():
    body = '{"name": "PythonInterpreter", "arguments": {}}\n<code>print({1: 2})</code>'
    call = protocol.parse_call(body, TOOLS)
    assert call.problem == protocol.UNKNOWN_TOOL
    assert call.error == "Unknown tool 'PythonInterpreter'. Available tools: search, visit."
    broken = protocol.parse_call('{"name": "PythonInterpreter", "arguments": {"code": "print("x")"}}', TOOLS)
    assert broken.name == "PythonInterpreter" and broken.problem == protocol.UNKNOWN_TOOL


def test_without_tools_nothing_is_reported_as_unknown():
    call = protocol.parse_call('{"name": "PythonInterpreter", "arguments": {}}\n<code>x = {}</code>')
    assert call.name == "PythonInterpreter" and call.error is None and call.arguments == {}


def test_a_real_tool_with_broken_json_gets_the_expected_shape_with_its_own_arguments():
    call = protocol.parse_call('{"name": "visit", "arguments": {"url": ["https://a.example]}}', TOOLS)
    assert call.problem == protocol.INVALID_JSON
    assert '<tool_call>{"name": "visit", "arguments": {"url": ["..."], "goal": "..."}}</tool_call>' in call.error


def test_leniencies_are_noted_for_the_trace():
    call = protocol.parse_call('{"name": "search", "parameters": "{\\"query\\": [\\"x\\"]}"}', TOOLS)
    assert call.arguments == {"query": ["x"]} and call.error is None
    assert call.notes == ['arguments read from "parameters"', '"arguments" given as a JSON string']


def test_qwen_xml_values_are_typed_by_the_schema():
    schema = [{"name": "calc", "parameters": {"type": "object", "properties": {
        "label": {"type": "string"}, "n": {"type": "integer"}, "items": {"type": "array"}, "flag": {"type": "boolean"}}}}]
    body = ("<function=calc><parameter=label>42</parameter><parameter=n>\n7\n</parameter>"
            "<parameter=items>[1, 2]</parameter><parameter=flag>true</parameter></function>")
    call = protocol.parse_call(body, schema)
    assert call.arguments == {"label": "42", "n": 7, "items": [1, 2], "flag": True}
    assert call.format == protocol.FORMAT_QWEN_XML and call.error is None


def test_qwen_xml_without_schemas_decodes_only_json_containers():
    call = protocol.parse_call("<function=x><parameter=a>12</parameter><parameter=b>[\"y\"]</parameter></function>")
    assert call.arguments == {"a": "12", "b": ["y"]}


def test_a_plain_value_for_an_array_parameter_becomes_a_one_element_list():
    call = protocol.parse_call("<function=search><parameter=query>one query</parameter></function>", TOOLS)
    assert call.arguments == {"query": ["one query"]}
    assert "a single value given for an array parameter was wrapped in a list" in call.notes


def test_an_unclosed_call_is_marked_so_the_engine_can_tell_a_cut_call():
    parsed = protocol.parse_reply('<tool_call>{"name": "search", "arguments": {"query": ["q"]}}')
    assert parsed.calls[0].closed is False and parsed.calls[0].error is None
    assert protocol.parse_reply(CALL).calls[0].closed is True


# -- the tools argument -----------------------------------------------------------------------------

@pytest.mark.parametrize("tools", [
    TOOLS,
    list(TOOLS.tools.values()),
    [t.schema() for t in TOOLS.tools.values()],
    {t.name: t.parameters for t in TOOLS.tools.values()},
], ids=["registry", "tool-objects", "schema-dicts", "name-to-schema"])
def test_every_form_of_tools_gives_the_same_names_and_example(tools):
    ts = protocol.ToolSet(tools)
    assert ts.names == ["search", "visit"]
    assert ts.example_call("visit") == '<tool_call>{"name": "visit", "arguments": {"url": ["..."], "goal": "..."}}</tool_call>'


def test_plain_names_still_report_unknown_tools_and_give_an_empty_example():
    ts = protocol.ToolSet(["search"])
    assert ts.unknown("visit") and not ts.unknown("SEARCH")
    assert ts.example_call() == '<tool_call>{"name": "search", "arguments": {}}</tool_call>'


# -- corrections ------------------------------------------------------------------------------------

def test_a_foreign_call_to_a_real_tool_shows_that_tool_in_the_example():
    parsed = protocol.parse_reply('{"name": "visit", "arguments": {"url": ["https://a.example"], "goal": "g"}}', tools=TOOLS)
    text = protocol.correction(parsed, TOOLS)
    assert parsed.foreign_format == "bare_json"
    assert text.startswith('Your last reply wrote a call to "visit" as a JSON object without <tool_call> tags')
    assert '{"name": "visit", "arguments": {"url": ["..."], "goal": "..."}}' in text


def test_a_foreign_call_to_a_missing_tool_says_so_and_shows_a_real_one():
    parsed = protocol.parse_reply('<function_call>{"name": "calculator", "arguments": {}}</function_call>', tools=TOOLS)
    text = protocol.correction(parsed, TOOLS)
    assert 'There is no tool "calculator": the available tools are search, visit.' in text
    assert '<tool_call>{"name": "search", "arguments": {"query": ["..."]}}</tool_call>' in text


def test_a_reply_with_an_action_needs_no_correction():
    assert protocol.correction(protocol.parse_reply(CALL, tools=TOOLS), TOOLS) == ""


def test_the_generic_message_is_kept_for_replies_with_nothing_recognisable():
    parsed = protocol.parse_reply("Just prose.", tools=TOOLS)
    assert parsed.problem == protocol.NO_ACTION
    assert protocol.correction(parsed, TOOLS).startswith("Your last reply had neither a <tool_call> nor an <answer>.")


@pytest.mark.parametrize("tokens, limit, inside, expected", [
    (4096, None, "answer", "Your last reply was cut off at 4,096 tokens by the output length limit in the middle of "
                           "your <answer>, so none of it was used."),
    (4096, 8192, None, "Your last reply was cut off at 4,096 tokens by the output length limit (the limit is 8,192 "
                       "tokens), so none of it was used."),
    (None, None, "tool_call", "Your last reply was cut off by the output length limit in the middle of a <tool_call>,"
                              " so none of it was used."),
])
def test_cut_correction_names_the_tokens_and_where_it_stopped(tokens, limit, inside, expected):
    text = protocol.cut_correction(tokens, limit, inside=inside)
    assert text.startswith(expected)
    assert "Reply again, shorter" in text


# -- issue 16 ------------------------------------------------------------------------------------

NOTES_TOOL = {"name": "notes", "parameters": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"type": "integer"}},
    "title": {"type": "string"},
}}}


def test_a_string_is_read_as_a_one_item_list_wherever_the_schema_wants_strings_for_any_tool():
    body = '{"name": "notes", "arguments": {"tags": "tides", "ids": "7", "title": "Moon"}}'
    call = protocol.parse_call(body, [NOTES_TOOL])
    assert call.error is None
    assert call.arguments == {"tags": ["tides"], "ids": "7", "title": "Moon"}  # only arrays of strings
    assert any("one-item list" in n for n in call.notes)


def test_the_same_string_for_list_reading_applies_to_glm_and_function_tag_calls():
    glm = protocol.parse_call("notes<arg_key>tags</arg_key><arg_value>tides</arg_value>", [NOTES_TOOL])
    tagged = protocol.parse_call('<function>notes</function>{"tags": "tides"}', [NOTES_TOOL])
    assert glm.arguments == tagged.arguments == {"tags": ["tides"]}


def test_reasoning_content_that_holds_a_closed_think_never_yields_calls():
    call = '<tool_call>{"name": "search", "arguments": {"query": ["x"]}}</tool_call>'
    parsed = protocol.parse_reply("", f"<think>\nDraft:\n{call}\n</think>", tools=TOOLS)
    assert parsed.calls == [] and parsed.problem == protocol.ACTION_IN_THINK
    assert "<think>" not in parsed.thought and "Draft:" in parsed.thought
    # the documented case, thinking never closed: the call runs
    assert [c.name for c in protocol.parse_reply("", f"Draft:\n{call}", tools=TOOLS).calls] == ["search"]
