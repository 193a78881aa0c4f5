"""A session stores its settings, but not the machine's: an MCP server's env (tokens) is never
stored, and a resume or fork uses the MCP servers and tool policies in force now."""

from __future__ import annotations

import json

from tui_agent.config import Settings
from tui_agent.session.resume import session_settings

SERVER = {"command": "notes-server", "args": ["--db", "notes.db"], "env": {"NOTES_TOKEN": "s3cret-token-value"}}


def test_an_mcp_servers_env_values_are_never_stored_with_the_session():
    stored = Settings(mcp_servers={"notes": SERVER}).summary()
    text = json.dumps(stored)
    assert "s3cret-token-value" not in text
    assert stored["mcp_servers"]["notes"]["args"] == ["--db", "notes.db"]
    assert list(stored["mcp_servers"]["notes"]["env"]) == ["NOTES_TOKEN"]  # which variables, not their values


def test_a_resume_takes_mcp_servers_and_tool_policies_from_the_settings_in_force_now():
    stored = Settings(mcp_servers={"notes": SERVER}, tool_policies={"mcp__notes__*": "allow"},
                      max_calls=7).summary()
    here = Settings(mcp_servers={"notes": SERVER}, tool_policies={"mcp__notes__*": "deny"})
    resumed = session_settings(stored, {}, here)
    assert resumed.max_calls == 7  # the session's own
    assert resumed.mcp_servers["notes"]["env"] == {"NOTES_TOKEN": "s3cret-token-value"}  # the machine's, whole
    assert resumed.tool_policies == {"mcp__notes__*": "deny"}  # a deny added since holds
