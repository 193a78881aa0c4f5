"""Streamed tool-call deltas → whole calls (model.tool_deltas), as litellm objects or plain dicts."""

from __future__ import annotations

import json

from tui_agent.model.tool_deltas import ToolCallAssembler, whole_calls


def delta(index, *, id=None, name=None, arguments=None):
    d = {"index": index, "function": {}}
    if id is not None:
        d["id"], d["type"] = id, "function"
    if name is not None:
        d["function"]["name"] = name
    if arguments is not None:
        d["function"]["arguments"] = arguments
    return d


def test_the_id_and_name_of_the_first_delta_and_the_arguments_of_all_make_one_call():
    a = ToolCallAssembler()
    a.feed([delta(0, id="call_1", name="search", arguments="")])
    for piece in ('{"que', 'ry": ["ti', 'des"]}'):
        a.feed([delta(0, arguments=piece)])
    assert a.calls() == [{"id": "call_1", "type": "function",
                          "function": {"name": "search", "arguments": '{"query": ["tides"]}'}}]


def test_interleaved_parallel_calls_are_told_apart_by_index_and_kept_in_index_order():
    a = ToolCallAssembler()
    a.feed([delta(1, id="call_B", name="visit", arguments='{"url"')])
    a.feed([delta(0, id="call_A", name="search", arguments='{"query"')])
    a.feed([delta(1, arguments=': ["http://x"]}'), delta(0, arguments=': ["q"]}')])
    calls = a.calls()
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("call_A", "search"), ("call_B", "visit")]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"query": ["q"]}, {"url": ["http://x"]}]


def test_a_repeated_name_or_id_in_later_deltas_is_not_doubled():
    a = ToolCallAssembler()
    a.feed([delta(0, id="call_1", name="search", arguments="{")])
    a.feed([delta(0, id="call_1", name="search", arguments="}")])
    assert a.calls()[0]["function"] == {"name": "search", "arguments": "{}"}


def test_deltas_without_an_index_continue_the_call_until_a_new_id_starts_the_next():
    a = ToolCallAssembler()
    a.feed([{"id": "call_1", "function": {"name": "search", "arguments": '{"query": '}}])
    a.feed([{"function": {"arguments": '["a"]}'}}])
    a.feed([{"id": "call_2", "function": {"name": "visit", "arguments": '{"url": ["u"]}'}}])
    assert [(c["id"], c["function"]["arguments"]) for c in a.calls()] == [
        ("call_1", '{"query": ["a"]}'), ("call_2", '{"url": ["u"]}')]


def test_a_new_function_name_on_the_same_index_starts_a_call_of_its_own():
    a = ToolCallAssembler()
    a.feed([delta(0, id="call_1", name="search", arguments='{"query": ["a"]}')])
    a.feed([delta(0, name="visit", arguments='{"url": ["u"]}')])
    first, second = a.calls()
    assert (first["id"], first["function"]) == ("call_1", {"name": "search", "arguments": '{"query": ["a"]}'})
    assert second["function"] == {"name": "visit", "arguments": '{"url": ["u"]}'} and second["id"] == "call_1_1"


def test_an_object_opened_inside_the_arguments_does_not_split_the_call():
    a = ToolCallAssembler()
    a.feed([delta(0, id="call_1", name="search", arguments='{"filter": ')])
    a.feed([delta(0, arguments='{"year": 2016}}')])
    a.feed([delta(0, arguments="")])
    assert [c["function"]["arguments"] for c in a.calls()] == ['{"filter": {"year": 2016}}']


def test_a_call_without_an_id_gets_one_from_its_index_and_no_delta_means_no_call():
    a = ToolCallAssembler()
    assert not a and a.calls() == []
    a.feed(None)
    a.feed([delta(0, name="search", arguments="{}")])
    assert a and a.calls()[0]["id"] == "call_0"


def test_litellm_delta_objects_are_read_like_dicts():
    from litellm.types.utils import ChatCompletionDeltaToolCall, Function

    a = ToolCallAssembler()
    a.feed([ChatCompletionDeltaToolCall(index=0, id="call_9", type="function",
                                        function=Function(name="lookup", arguments=""))])
    a.feed([ChatCompletionDeltaToolCall(index=0, function=Function(arguments='{"topic": "x"}'))])
    assert a.calls() == [{"id": "call_9", "type": "function",
                          "function": {"name": "lookup", "arguments": '{"topic": "x"}'}}]


def test_a_non_streamed_replys_calls_take_the_same_shape_and_object_arguments_become_json():
    calls = whole_calls([{"id": "call_x", "function": {"name": "search", "arguments": '{"query": ["a"]}'}},
                         {"function": {"name": "visit", "arguments": {"url": ["u"]}}}])
    assert calls == [
        {"id": "call_x", "type": "function", "function": {"name": "search", "arguments": '{"query": ["a"]}'}},
        {"id": "call_1", "type": "function", "function": {"name": "visit", "arguments": '{"url": ["u"]}'}},
    ]
    assert whole_calls(None) == []
