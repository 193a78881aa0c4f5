"""The argument leniency is one function for both protocols: the same arguments, against the same
schema, are read alike under ``tags`` and ``native`` (parser and engine on the scripted model)."""

from __future__ import annotations

import json

import pytest

from tests.unit.engine_kit import scripted_engine
from tui_agent import protocol
from tui_agent.model.scripted import Reply
from tui_agent.protocol.native import read_call
from tui_agent.protocol.toolset import ToolSet
from tui_agent.core.events import ObservationStatus
from tui_agent.tools.base import Tool, ToolContext, ToolRegistry, ToolResult


class QueriesTool(Tool):
    name = "search"
    description = "Search for one or more queries."
    parameters = {"type": "object", "properties": {"query": {"type": "array", "items": {"type": "string"}}},
                  "required": ["query"], "additionalProperties": False}

    def __init__(self) -> None:
        self.runs: list[dict] = []

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.runs.append(arguments)
        src = ctx.sources.register("https://results.example/bridge", "Bridge")
        return ToolResult(f"[{src.number}] The bridge opened in 1932.", ObservationStatus.OK, [src.number])


ARGUMENTS = {"query": "bridge opening year"}  # a string where the schema wants a list of strings
TOOLS = ToolSet(ToolRegistry([QueriesTool()]))


def test_a_string_for_a_list_of_strings_reads_the_same_under_both_protocols():
    (tagged,) = protocol.parse_reply(
        "<tool_call>" + json.dumps({"name": "search", "arguments": ARGUMENTS}) + "</tool_call>", tools=TOOLS).calls
    native = read_call({"id": "call_1", "type": "function",
                        "function": {"name": "search", "arguments": json.dumps(ARGUMENTS)}}, TOOLS)
    assert tagged.arguments == native.arguments == {"query": ["bridge opening year"]}
    assert native.error is None and tagged.notes == native.notes == [
        '"query" given as one string was read as a one-item list']


@pytest.mark.parametrize("proto", ["tags", "native"])
async def test_the_engine_runs_a_string_for_a_list_of_strings_under_either_protocol(proto):
    tool = QueriesTool()
    if proto == "native":
        script = [Reply("", tool_calls=[{"id": "call_1", "type": "function",
                                         "function": {"name": "search", "arguments": json.dumps(ARGUMENTS)}}]),
                  "1932 [1]."]
    else:
        script = ["<tool_call>" + json.dumps({"name": "search", "arguments": ARGUMENTS}) + "</tool_call>",
                  "<answer>1932 [1].</answer>"]
    engine, rec, _ = scripted_engine(script, tool, protocol=proto)
    result = await engine.run()
    assert tool.runs == [{"query": ["bridge opening year"]}]
    assert rec.of("observation")[0].status == ObservationStatus.OK
    assert result["sources"] == ["https://results.example/bridge"]
