"""An MCP server over streamable HTTP on 127.0.0.1 (the SDK's server under uvicorn, in a thread),
tool policies from config.toml, and `tui-agent tools list`."""

from __future__ import annotations

import json

import pytest

from tests.helpers import Recorder, RecordingApprover, call, settings_for
from tests.integration.test_cli import cli, isolated_env
from tests.mcp_servers import notes_server
from tui_agent.agent.runner import Run
from tui_agent.core.events import ObservationStatus


@pytest.fixture
def notes_url():
    notes_server.CALLS.clear()
    with notes_server.serve_http() as url:
        yield url


def write_config(tmp_path, text: str) -> dict:
    env = isolated_env(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(text, encoding="utf-8")
    return env


async def test_a_tool_of_an_mcp_server_over_http_runs_and_an_allow_policy_skips_the_question(chat_server, notes_url):
    chat_server.script(call("mcp__notes__find_note", topic="hubble"), "<answer>1889 [1]</answer>")
    settings = settings_for(chat_server, mcp_servers={"notes": {"url": notes_url}},
                            tool_policies={"mcp__notes__*": "allow"}, require_evidence=False)
    approver, rec = RecordingApprover(), Recorder()
    result = await Run(settings, "When was Hubble born?", store=None, approver=approver, listeners=[rec]).start()
    assert result["termination"] == "answer"
    assert notes_server.CALLS == ["hubble"] and approver.requests == []
    (obs,) = rec.of("observation")
    assert obs.status == ObservationStatus.OK and "20 November 1889" in obs.text
    assert rec.of("decision")[0].kind == "policy"


def test_deny_in_the_config_wins_over_yes_and_the_server_never_sees_the_call(tmp_path, chat_server, notes_url):
    env = write_config(tmp_path, f"""
require_evidence = false

[mcp_servers.notes]
url = "{notes_url}"

[tool_policies]
"mcp__*" = "allow"
"mcp__notes__find_note" = "deny"
""")
    chat_server.script(call("mcp__notes__find_note", topic="hubble"), "<answer>I could not look.</answer>")
    proc = cli("run", "When was Hubble born?", "--json", "--yes", "--model", "openai/test-model",
               "--api-base", chat_server.base_url,
               env=env | {"OPENAI_API_KEY": "sk-test-not-real-000000"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["answer"] == "I could not look."
    assert notes_server.CALLS == []
    told = chat_server.requests[1]["messages"][-1]["content"]
    assert 'Denied: the tool policy "mcp__notes__find_note" = "deny"' in told


def test_tools_list_shows_each_tool_with_its_source_and_policy(tmp_path, notes_url):
    env = write_config(tmp_path, f"""
[mcp_servers.notes]
url = "{notes_url}"

[mcp_servers.gone]
command = "{tmp_path / 'no-such-server'}"

[tool_policies]
"mcp__notes__*" = "allow"
"mcp__notes__crash" = "deny"
""")
    proc = cli("tools", "list", "--json", env=env)
    rows = {row["name"]: row for row in map(json.loads, proc.stdout.splitlines())}
    assert rows["search"]["source"] == "built-in" and rows["search"]["policy"] == "ask"
    assert rows["mcp__notes__find_note"] | {"description": ""} == {
        "name": "mcp__notes__find_note", "source": "MCP server notes", "policy": "allow", "pattern": "mcp__notes__*",
        "description": ""}
    assert rows["mcp__notes__crash"]["policy"] == "deny"
    # The server that cannot start is named, and the status says something is missing.
    assert proc.returncode == 1 and "MCP server 'gone' could not start" in proc.stderr


def test_a_fork_with_a_new_system_prompt_tells_the_model_about_the_mcp_servers_tools(tmp_path, chat_server, notes_url):
    env = write_config(tmp_path, f"""
require_evidence = false

[mcp_servers.notes]
url = "{notes_url}"
""") | {"OPENAI_API_KEY": "sk-test-not-real-000000"}
    model = ("--model", "openai/test-model", "--api-base", chat_server.base_url)
    chat_server.script(call("mcp__notes__find_note", topic="hubble"), "<answer>1889 [1]</answer>")
    proc = cli("run", "When was Hubble born?", "--json", "--yes", *model, env=env)
    assert proc.returncode == 0, proc.stderr
    parent = json.loads(proc.stdout)["session_id"]
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are the FORKED researcher.\nTools:\n{tools}\n", encoding="utf-8")
    chat_server.script("<answer>forked 1889 [1]</answer>")
    forked = cli("sessions", "fork", parent, "--at", "2", "--system-prompt", str(prompt), "--json", "--yes", *model,
                 env=env)
    assert forked.returncode == 0, forked.stderr
    system = chat_server.requests[-1]["messages"][0]["content"]
    assert system.startswith("You are the FORKED researcher.")
    assert "mcp__notes__find_note" in system and '"name": "visit"' in system
