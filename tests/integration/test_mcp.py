"""MCP servers as tools, end to end: a real MCP server written with the SDK
(tests/mcp_servers/notes_server.py) run as a subprocess over stdio, the scripted chat server
(litellm for real) making the model call it through the approval seam."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.helpers import Recorder, RecordingApprover, call, settings_for
from tui_agent.agent.runner import Run
from tui_agent.core.events import ObservationStatus

NOTES_SERVER = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "notes_server.py")


def stdio(*args: str, **env: str) -> dict:
    return {"command": sys.executable, "args": [NOTES_SERVER, *args], **({"env": env} if env else {})}


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_the_model_calls_an_mcp_tool_through_approval_and_the_server_stops_with_the_run(chat_server, tmp_path):
    pid_file = tmp_path / "notes.pid"
    chat_server.script(
        "<think>The notes server knows.</think>" + call("mcp__notes__find_note", topic="hubble"),
        "<answer>Hubble was born on 20 November 1889.</answer>",
    )
    settings = settings_for(chat_server, mcp_servers={"notes": stdio(NOTES_PID_FILE=str(pid_file))})
    approver, rec = RecordingApprover(), Recorder()
    result = await Run(settings, "When was Hubble born?", store=None, approver=approver, listeners=[rec]).start()

    assert result["termination"] == "answer"
    # The prompt lists the MCP tool with its description and input schema, like a built-in tool.
    system = chat_server.requests[0]["messages"][0]["content"]
    assert '"name": "mcp__notes__find_note"' in system and "Find the note about a topic" in system
    # The call went through the approval seam, which showed the server's schema.
    (request,) = approver.requests
    assert request.tool == "mcp__notes__find_note" and request.arguments == {"topic": "hubble"}
    assert request.schema["properties"]["topic"]["type"] == "string" and request.schema["required"] == ["topic"]
    # The result came back as an observation, inside a <tool_response>.
    (obs,) = rec.of("observation")
    assert obs.status == ObservationStatus.OK and "20 November 1889" in obs.text
    told = chat_server.requests[1]["messages"][-1]["content"]
    assert told.startswith("<tool_response>") and "Marshfield, Missouri" in told
    # The server process stopped with the run.
    assert gone(int(pid_file.read_text()))


async def test_tool_errors_hangs_deaths_and_a_server_that_cannot_start_become_observations_naming_the_server(
        chat_server):
    chat_server.script(
        call("mcp__notes__find_note", topic="mars") + call("mcp__notes__wait", seconds=600)
        + call("mcp__notes__crash") + call("mcp__broken__find_note", topic="hubble"),
        "<answer>The notes did not help.</answer>",
    )
    settings = settings_for(chat_server, mcp_call_timeout_s=8.0, require_evidence=False,  # a margin for find_note
                            mcp_servers={"notes": stdio(), "broken": stdio("--fail")})
    rec = Recorder()
    result = await Run(settings, "What do the notes say?", store=None, approver=RecordingApprover(),
                       listeners=[rec]).start()

    assert result["termination"] == "answer"
    error, hang, crash, broken = rec.of("observation")
    assert error.status == ObservationStatus.FAILED
    assert "Error from the MCP server 'notes' (find_note)" in error.text and "no note about 'mars'" in error.text
    assert hang.status == ObservationStatus.FAILED
    assert "MCP server 'notes' did not answer wait within 8 s (mcp_call_timeout_s)" in hang.text
    assert crash.status == ObservationStatus.FAILED and "MCP server 'notes' stopped during the call" in crash.text
    # A server that could not start: the user is told once the run starts, the model when it calls it.
    assert broken.status == ObservationStatus.INVALID
    assert "MCP server 'broken' could not start" in broken.text and "the index file is missing" in broken.text
    notices = [n.text for n in rec.of("notice")]
    assert any("MCP server 'broken' could not start" in n and "the index file is missing" in n for n in notices)
    # Every observation reached the model in one message, each naming what happened.
    told = chat_server.requests[1]["messages"][-1]["content"]
    assert told.count("<tool_response>") == 4 and "did not answer wait" in told and "'broken' could not start" in told


async def test_a_cancelled_run_stops_its_mcp_server_even_in_the_middle_of_a_call(chat_server, tmp_path):
    pid_file = tmp_path / "notes.pid"
    chat_server.script(call("mcp__notes__wait", seconds=600))
    settings = settings_for(chat_server, mcp_servers={"notes": stdio(NOTES_PID_FILE=str(pid_file))},
                            tool_policies={"mcp__notes__*": "allow"})
    rec = Recorder()
    task = asyncio.create_task(Run(settings, "Wait for me", store=None, approver=None, listeners=[rec]).start())
    waiting = tmp_path / "notes.pid.waiting"
    for _ in range(2400):  # the server says when the call is under way (up to 120 s on a loaded machine)
        if waiting.exists() or task.done():
            break
        await asyncio.sleep(0.05)
    assert waiting.exists() and not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone(int(pid_file.read_text()))
    assert rec.of("run_ended")[0].termination == "cancelled"


def test_a_bad_mcp_server_table_or_tool_policy_in_the_config_is_named_with_its_key(tmp_path):
    from tui_agent.config import ConfigError, load_settings

    cases = {
        '[mcp_servers.notes]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n': "give either command (stdio) or url",
        '[mcp_servers.my__notes]\nurl = "http://127.0.0.1:1/mcp"\n': "MCP server name 'my__notes'",
        '[mcp_servers.notes]\ncommand = "x"\nargv = ["y"]\n': "extra inputs are not permitted",
        '[tool_policies]\n"mcp__*" = "sometimes"\n': "must be 'ask', 'allow' or 'deny'",
    }
    for text, said in cases.items():
        path = tmp_path / "config.toml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            load_settings(path=path, environ={})
        assert str(path) in str(err.value) and said in str(err.value)


async def test_mcp_tools_whose_names_a_provider_refuses_get_valid_names_that_still_reach_them(chat_server):
    # MCP allows dots, slashes and long names; OpenAI's tools (and Anthropic's) take only
    # ^[a-zA-Z0-9_-]{1,64}$ and refuse the whole request otherwise.
    import re

    from tests.servers import Reply, ToolCall

    valid = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
    chat_server.script(Reply("", tool_calls=[ToolCall("mcp__notes__notes_lookup_v2", {"topic": "hubble"}, id="c1")]),
                       "Hubble was born in 1889.")
    settings = settings_for(chat_server, protocol="native", mcp_servers={"notes": stdio()})
    approver, rec = RecordingApprover(), Recorder()
    result = await Run(settings, "When was Hubble born?", store=None, approver=approver, listeners=[rec]).start()
    names = [t["function"]["name"] for t in chat_server.requests[0]["tools"]]
    assert all(valid.match(n) for n in names), names
    assert "mcp__notes__notes_lookup_v2" in names
    long_name = next(n for n in names if "lookup_the_note" in n)
    assert len(long_name) == 64 and long_name != next(n for n in names if n.startswith("mcp__notes__find"))
    (obs,) = rec.of("observation")
    assert result["termination"] == "answer" and obs.text.startswith("v2: Edwin Hubble")  # the dotted tool ran
