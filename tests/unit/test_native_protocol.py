"""The native protocol's reading, messages and fold (protocol.native, session.fold_native), and the
engine speaking it to the in-memory scripted model."""

from __future__ import annotations

import json

from tests.helpers import NoteTool, Recorder
from tui_agent.agent.engine import Engine
from tui_agent.config import Settings
from tui_agent.model.scripted import ScriptedModel
from tests.unit.engine_kit import scripted_engine
from tui_agent.model.scripted import Reply
from tui_agent.model.tokens import TokenCounter
from tui_agent.protocol.native import fit_tool_results, read_call, read_reply, tool_specs
from tui_agent.protocol.toolset import ToolSet
from tui_agent.core.events import (
    ActionProposed, ModelCallEnded, ModelCallStarted, Observation, ObservationMessage, PromptEdited, RunStarted,
)
from tui_agent.core.fold import fold, prompt
from tui_agent.tools.base import ToolRegistry

TOOLS = ToolSet(ToolRegistry([NoteTool()]))


def tc(name: str, arguments: str, call_id: str = "call_1") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def fc(name: str, call_id: str = "call_1", **arguments) -> Reply:
    return Reply("", tool_calls=[tc(name, json.dumps(arguments), call_id)])


# -- reading --------------------------------------------------------------------------------


def test_a_call_keeps_its_id_and_its_arguments_object():
    call = read_call(tc("lookup", '{"topic": "tides"}', "call_7"), TOOLS)
    assert (call.name, call.arguments, call.tool_call_id, call.error) == ("lookup", {"topic": "tides"}, "call_7", None)


def test_arguments_that_are_not_json_name_the_tool_quote_the_text_and_say_what_to_send():
    call = read_call(tc("lookup", '{"topic": "tides"'), TOOLS)
    assert call.problem == "invalid_json" and call.name == "lookup"
    assert call.error.startswith("the arguments of your call to lookup are not valid JSON (Expecting")
    assert '{"topic": "tides"' in call.error and "one JSON object" in call.error


def test_lenient_arguments_are_read_as_json5_and_noted():
    call = read_call(tc("LOOKUP", "{topic: 'tides',}"), TOOLS)
    assert call.error is None and call.name == "lookup" and call.arguments == {"topic": "tides"}
    assert call.notes == ['tool name "LOOKUP" read as "lookup"', "arguments read as JSON5"]


def test_arguments_that_are_not_an_object_an_unknown_tool_and_no_name_are_errors():
    assert read_call(tc("lookup", '["tides"]'), TOOLS).problem == "not_object"
    unknown = read_call(tc("python", '{"code": "1"}'), TOOLS)
    assert unknown.problem == "unknown_tool" and unknown.error == "Unknown tool 'python'. Available tools: lookup."
    assert read_call(tc("", "{}"), TOOLS).problem == "no_name"
    assert read_call(tc("lookup", ""), TOOLS).arguments == {}  # no arguments at all: an empty object


def test_with_calls_the_text_and_reasoning_are_the_thought():
    parsed = read_reply("Let me check.", "The user wants tides.", [tc("lookup", '{"topic": "t"}')], tools=TOOLS)
    assert parsed.answer is None and [c.name for c in parsed.calls] == ["lookup"]
    assert parsed.thought == "The user wants tides.\n\nLet me check."


def test_without_calls_the_text_is_the_answer_and_its_thinking_the_thought():
    parsed = read_reply("<think>Enough evidence.</think>It is 42 [1].", "", [], tools=TOOLS)
    assert parsed.answer == "It is 42 [1]." and parsed.thought == "Enough evidence." and parsed.problem is None
    assert read_reply("<answer>It is 42.</answer>", tools=TOOLS).answer == "It is 42."
    assert read_reply("", "only reasoning", tools=TOOLS).problem == "empty"


def test_a_call_written_out_as_text_is_named_but_prose_about_json_is_an_answer():
    written = read_reply('<tool_call>{"name": "lookup", "arguments": {"topic": "x"}}</tool_call>', tools=TOOLS)
    assert written.problem == "foreign_format" and written.foreign_name == "lookup" and written.answer is None
    prose = read_reply('Send {"name": "Ada", "age": 36} to the API.', tools=TOOLS)
    assert prose.answer == 'Send {"name": "Ada", "age": 36} to the API.' and prose.problem is None


def test_a_llama4_call_list_written_as_text_is_corrected_naming_every_call():
    # vLLM's llama4_pythonic parser test (parallel_calls_nonstreaming), on a server without that parser
    from tui_agent.protocol.native import correction

    tools = ToolSet({"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
                     "register_user": {"type": "object", "properties": {"name": {"type": "string"}}}})
    parsed = read_reply("<|python_start|>[get_weather(city='LA', metric='C'), register_user(name='Doe', age=9)]",
                        tools=tools)
    assert parsed.problem == "foreign_format" and parsed.foreign_names == ["get_weather", "register_user"]
    told = correction(parsed, tools)
    assert 'calls to "get_weather" and "register_user"' in told and "Call get_weather and register_user" in told


def test_the_tools_parameter_is_built_from_each_tools_schema():
    assert tool_specs(ToolRegistry([NoteTool()])) == [{"type": "function", "function": {
        "name": "lookup", "description": NoteTool.description, "parameters": NoteTool.parameters}}]


def test_the_forced_answers_last_results_are_trimmed_to_fit_and_stay_after_their_call():
    counter = TokenCounter()
    msgs = [{"role": "system", "content": "s"}, {"role": "assistant", "content": "", "tool_calls": [tc("lookup", "{}")]},
            {"role": "tool", "tool_call_id": "call_1", "content": "word " * 3000}]
    fitted = fit_tool_results(msgs, counter, 600, "answer now")
    assert fitted[:2] == msgs[:2] and fitted[2]["tool_call_id"] == "call_1"
    assert counter.messages(fitted + [{"role": "user", "content": "answer now"}])[0] <= 600
    assert fitted[2]["content"].endswith("tokens to fit the room left for the answer]")
    assert fit_tool_results(msgs[:2], counter, 600, "x") == msgs[:2]


# -- the fold -------------------------------------------------------------------------------


def run_events(*more) -> list:
    return [RunStarted(question="q", model="m", system_prompt="sys", tools=tool_specs(ToolRegistry([NoteTool()]))),
            *more]


def test_a_replys_calls_join_its_assistant_message_and_the_results_follow_as_tool_messages():
    calls = [tc("lookup", '{"topic": "a"}', "call_A"), tc("lookup", '{"topic": "b"}', "call_B")]
    state = fold(run_events(
        ModelCallEnded(step=1, text="Both.", tool_calls=calls),
        ActionProposed(step=1, call_id="c1", tool="lookup", arguments={"topic": "a"}),
        Observation(step=1, call_id="c1", tool="lookup", arguments={"topic": "a"}, text="obs A", executed=True),
        ActionProposed(step=1, call_id="c2", tool="lookup", arguments={"topic": "b"}),
        Observation(step=1, call_id="c2", tool="lookup", arguments={"topic": "b"}, text="obs B", executed=True),
        ObservationMessage(step=1, content="", results=[
            {"tool_call_id": "call_A", "call_id": "c1", "content": "obs A"},
            {"tool_call_id": "call_B", "call_id": "c2", "content": "obs B"}]),
    ))
    assert state.messages[2] == {"role": "assistant", "content": "Both.", "tool_calls": calls}
    assert state.messages[3:] == [{"role": "tool", "tool_call_id": "call_A", "content": "obs A"},
                                  {"role": "tool", "tool_call_id": "call_B", "content": "obs B"}]
    assert state.context.items["obs:c1"].index == 3 and state.context.items["obs:c2"].index == 4
    assert state.open_calls is None and state.last_observation_index is None


def test_a_reply_cut_by_the_length_limit_keeps_no_calls_in_its_message():
    state = fold(run_events(ModelCallEnded(step=1, text="", finish_reason="length",
                                           tool_calls=[tc("lookup", '{"topic": "a')])))
    assert state.messages[-1] == {"role": "assistant", "content": ""}


def test_a_prompt_edit_keeps_the_calls_of_the_message_it_edits():
    state = fold(run_events(ModelCallEnded(step=1, text="x", tool_calls=[tc("lookup", "{}")]),
                            PromptEdited(step=1, index=2, role="assistant", content="y")))
    assert state.messages[2]["content"] == "y" and state.messages[2]["tool_calls"] == [tc("lookup", "{}")]


def test_a_stored_calls_prompt_view_shows_the_runs_tools_and_its_tool_choice():
    stored = ModelCallStarted(step=2, messages=[], message_tokens=[], prompt_tokens=1, threshold=9, context_window=10,
                              purpose="forced", tools=tool_specs(ToolRegistry([NoteTool()])), tool_choice="none")
    assert stored.stored_dict()["tools"] == []  # stored once, with RunStarted
    state = fold(run_events(ModelCallStarted(**{k: v for k, v in stored.stored_dict().items() if k != "type"})))
    assert state.last_prompt.tools[0]["function"]["name"] == "lookup" and state.last_prompt.tool_choice == "none"


# -- the engine on the scripted model ----------------------------------------------------------------


async def test_the_engine_sends_tools_reads_calls_and_ends_with_a_plain_answer():
    tool = NoteTool()
    engine, rec, model = scripted_engine([fc("lookup", topic="x"), "It is 42 [1]."], tool, protocol="native")
    result = await engine.run()
    assert result["termination"] == "answer" and result["answer"] == "It is 42 [1]." and tool.runs == [{"topic": "x"}]
    assert [c.tools[0]["function"]["name"] for c in model.calls] == ["lookup", "lookup"]
    assert model.calls[1].messages[-1] == {"role": "tool", "tool_call_id": "call_1",
                                           "content": rec.of("observation")[0].text}
    assert "<tool_call>" not in engine.system_prompt and "tool-calling interface" in engine.system_prompt
    assert prompt(engine.state) == model.calls[1].messages + [{"role": "assistant", "content": "It is 42 [1]."}]


async def test_an_answer_before_any_evidence_and_an_empty_reply_get_native_corrections():
    engine, rec, model = scripted_engine(["It is 42.", "", fc("lookup", topic="x"), "42 [1]."], protocol="native")
    await engine.run()
    reminder, empty = [c.content for c in rec.of("correction")]
    assert "Call the tools first" in reminder and "<answer>" not in reminder
    assert empty.startswith("Your last reply was empty") and "lookup" in empty


async def test_a_reply_cut_inside_a_calls_arguments_is_corrected_and_nothing_runs():
    tool = NoteTool()
    cut = Reply("", tool_calls=[tc("lookup", '{"topic": "a')], finish_reason="length", completion_tokens=50)
    engine, rec, model = scripted_engine([cut, fc("lookup", topic="a"), "42 [1]."], tool, protocol="native")
    await engine.run()
    assert "in the middle of a tool call's arguments" in rec.of("correction")[0].content
    assert tool.runs == [{"topic": "a"}]
    assert "tool_calls" not in model.calls[1].messages[2]  # the cut call is not sent back without a result


async def test_a_resumed_session_keeps_the_protocol_it_started_with_and_says_a_new_flag_is_ignored():
    first, rec, _ = scripted_engine([fc("lookup", topic="x"), "42 [1]."], protocol="native")
    await first.run()
    sent = next(i for i, e in enumerate(rec.events) if e.type == "observation_message")
    state = fold(rec.events[: sent + 1])  # stopped after the results of its first step
    assert state.protocol == "native"
    model, rec2 = ScriptedModel(["41 [1]."]), Recorder()
    again = Engine(Settings(model="scripted/test", protocol="tags"), "", tools=ToolRegistry([NoteTool()]), llm=model,
                   emit=rec2, state=state)
    assert again.wire.native
    await again.run()
    notice = [n.text for n in rec2.of("notice")]
    assert notice == ["This session speaks the native tool-calling protocol, which it keeps: --protocol tags applies "
                      "to new sessions."]
    assert model.calls[0].tools and model.calls[0].messages[3]["role"] == "tool"


async def test_a_repeated_call_is_answered_by_a_pointer_to_its_tool_result():
    tool = NoteTool()
    engine, rec, model = scripted_engine([fc("lookup", "call_1", topic="x"), fc("lookup", "call_2", topic="x"), "42 [1]."],
                                         tool, protocol="native")
    await engine.run()
    dup = rec.of("observation")[1]
    assert dup.status == "duplicate" and "in that step's tool result above" in dup.text and "<tool_response>" not in dup.text
    assert model.calls[2].messages[-1] == {"role": "tool", "tool_call_id": "call_2", "content": dup.text}
    assert tool.runs == [{"topic": "x"}]


async def test_truncate_turns_older_results_into_stubs_inside_their_tool_messages():
    from tests.unit.test_engine_context import Researcher

    class NativeResearcher(Researcher):
        def __call__(self, messages, purpose):
            reply = super().__call__(messages, purpose)
            if isinstance(reply, str) and reply.startswith("<tool_call>"):
                args = json.loads(reply[len("<tool_call>"):-len("</tool_call>")])["arguments"]
                return fc("lookup", f"call_{self.research}", **args)
            return reply.replace("<answer>", "").replace("</answer>", "")

    model = NativeResearcher()
    engine, rec, scripted = scripted_engine(model, NoteTool(size=300), protocol="native", window=9000,
                                            answer_reserve=3000, context_policy="truncate", context_keep_rounds=2,
                                            observation_max_tokens=20000)
    result = await engine.run()
    assert result["termination"] == "answer" and result["compactions"] >= 1
    last = model.prompts[-1]
    results = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == [f"call_{i}" for i in range(1, 9)]
    assert results[0]["content"].startswith("[cut: observation of lookup") and "Notes on t8" in results[-1]["content"]


async def test_a_forced_reply_that_still_calls_a_tool_keeps_its_text_and_ends_as_a_format_error():
    forced = Reply("I would search more.", tool_calls=[tc("lookup", '{"topic": "y"}', "call_9")])
    engine, rec, model = scripted_engine([fc("lookup", topic="x"), forced], protocol="native", max_calls=1)
    result = await engine.run()
    assert model.calls[-1].tool_choice == "none" and model.calls[-1].purpose == "forced"
    assert result["termination"] == "format_error" and result["answer"] == "I would search more."
    assert result["answer_tagged"] is False and len(rec.of("observation")) == 1  # nothing of the forced reply ran


# -- what a native request weighs ------------------------------------------------------------


def test_a_calls_arguments_and_a_results_id_count_with_their_messages():
    counter = TokenCounter()
    long_query = "bridges " * 400
    bare = {"role": "assistant", "content": ""}
    with_call = bare | {"tool_calls": [tc("lookup", json.dumps({"topic": long_query}))]}
    assert counter.message(with_call) >= counter.message(bare) + 400
    result = {"role": "tool", "tool_call_id": "call_abc123", "content": "found"}
    assert counter.message(result) > counter.message({"role": "tool", "content": "found"})


async def test_the_native_gate_counts_the_tools_specs_and_the_calls_arguments():
    from tui_agent.model.tokens import count

    tool = NoteTool()
    topic = "suspension bridges and their loads " * 10
    engine, rec, model = scripted_engine([fc("lookup", topic=topic), "It is 42 [1]."], tool, protocol="native")
    await engine.run()
    specs = model.calls[0].tools
    first, second = rec.of("model_call_started")[:2]
    messages_only = TokenCounter().messages([{"role": m["role"], "content": m.get("content") or ""}
                                             for m in second.messages])[0]
    # The tools specs weigh on every call, and the call's arguments on the call after it.
    assert second.prompt_tokens >= messages_only + count(json.dumps(specs, separators=(",", ":"))) + count(topic)
    assert first.prompt_tokens >= count(json.dumps(specs))


async def test_a_native_run_whose_tools_specs_fill_the_window_ends_at_the_gate_without_calling_the_model():
    engine, rec, model = scripted_engine([fc("lookup", topic="x"), "It is 42 [1]."], NoteTool(), protocol="native")
    assert (await engine.run())["termination"] == "answer"
    room = rec.of("model_call_started")[0].prompt_tokens + 300  # the first prompt and then some
    heavy = NoteTool()
    heavy.description = "A note tool. " + "It looks things up in the notes. " * 100  # ~700 tokens more
    engine, rec, model = scripted_engine(["It is 42 [1]."], heavy, protocol="native", window=4000 + room,
                                         answer_reserve=4000)
    result = await engine.run()
    assert result["termination"] == "token_limit"
    assert [c.purpose for c in model.calls] == ["forced"]  # no research call: the prompt was over the gate
