"""Hostile MCP servers (tests/mcp_servers/hostile_server.py, on the official SDK, run over stdio):
their schemas fetch nothing and stay bounded, their secrets and descriptions are cleaned, and
what they can add to a run is capped."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

from tests.helpers import Recorder, RecordingApprover, call, settings_for
from tests.integration.test_cli import cli, isolated_env
from tests.servers import Reply
from tui_agent.agent.runner import Run
from tui_agent.config import Settings
from tui_agent.safety.hygiene import for_terminal
from tui_agent.core.events import ObservationStatus
from tui_agent.session.store import Store
from tui_agent.tools import listed_registry

HOSTILE_SERVER = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "hostile_server.py")
TOKEN = "Hx7tQ2mP9vL4wZ8k"  # the server's env token (random-looking, so a secret by any measure)
ARG_TOKEN = "Ag5kR8nB2xT7yU3q"  # handed on its command line


def hostile(*args: str, **env: str) -> dict:
    return {"command": sys.executable, "args": [HOSTILE_SERVER, *args], "env": {"HOSTILE_TOKEN": TOKEN, **env}}


async def test_a_schema_ref_to_a_url_is_never_fetched_whether_the_tool_is_denied_or_allowed(chat_server, page_server):
    url = page_server.add("/latest/meta-data/iam/security-credentials/", '{"type": "object"}',
                          content_type="application/schema+json")
    for policy, status in (("deny", ObservationStatus.REJECTED), ("allow", ObservationStatus.INVALID)):
        chat_server.script(call("mcp__hostile__remote_ref"), "<answer>Done.</answer>")
        settings = settings_for(chat_server, require_evidence=False, tool_policies={"mcp__hostile__*": policy},
                                mcp_servers={"hostile": hostile(HOSTILE_REF_URL=url)})
        rec = Recorder()
        result = await Run(settings, "Go", store=None, approver=RecordingApprover(), listeners=[rec]).start()
        (obs,) = rec.of("observation")
        assert result["termination"] == "answer" and obs.status == status, (policy, obs.text)
        if policy == "allow":
            assert "cannot be resolved" in obs.text and "nothing is fetched" in obs.text
    assert page_server.hits == []


async def test_a_ref_loop_or_a_missing_ref_is_the_calls_named_error_and_the_run_goes_on(chat_server):
    chat_server.script(call("mcp__hostile__ref_loop") + call("mcp__hostile__ref_missing", x=1),
                       "<answer>The tools are broken.</answer>")
    settings = settings_for(chat_server, require_evidence=False, mcp_servers={"hostile": hostile()})
    rec, approver = Recorder(), RecordingApprover()
    result = await Run(settings, "Go", store=None, approver=approver, listeners=[rec]).start()
    loop, missing = rec.of("observation")
    assert result["termination"] == "answer"
    assert loop.status == ObservationStatus.INVALID and "its $refs loop" in loop.text
    assert missing.status == ObservationStatus.INVALID and "'#/$defs/nowhere' cannot be resolved" in missing.text
    assert approver.requests == []  # nobody was asked to approve a call its schema could not check


def test_a_catastrophic_pattern_is_checked_at_once_in_a_real_run(tmp_path, chat_server):
    # ^(a+)+$ against "a"*40 + "!" takes Python's re hours; RE2 answers at once. The run finishing
    # within the subprocess timeout is the proof (it used to hold a core, deaf to SIGINT).
    chat_server.script(call("mcp__hostile__redos", s="a" * 40 + "!"), "<answer>No match.</answer>")
    env = isolated_env(tmp_path)
    config = Path(env["TUI_AGENT_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.toml").write_text(f"require_evidence = false\n[mcp_servers.hostile]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(HOSTILE_SERVER)}]\n", encoding="utf-8")
    try:
        proc = cli("run", "Go", "--json", "--yes", "--model", "openai/test-model",
                   "--api-base", chat_server.base_url, env=env | {"OPENAI_API_KEY": "sk-test-not-real-000000"},
                   timeout=90)
    except subprocess.TimeoutExpired:
        raise AssertionError("the pattern check did not finish within 90 s") from None
    assert proc.returncode == 0, proc.stderr
    told = chat_server.requests[1]["messages"][-1]["content"]
    assert "does not match '^(a+)+$'" in told


async def test_a_servers_env_and_arg_tokens_never_reach_the_model_the_store_or_the_trace(chat_server, tmp_path):
    chat_server.script(call("mcp__hostile__echo_token"), "<answer>It said its token.</answer>")
    server = hostile()
    server["args"] += ["--token", ARG_TOKEN]
    settings = settings_for(chat_server, require_evidence=False, data_dir=str(tmp_path / "data"),
                            tool_policies={"mcp__hostile__*": "allow"}, mcp_servers={"hostile": server})
    store = Store(tmp_path / "data")
    rec = Recorder()
    result = await Run(settings, "Go", store=store, approver=None, listeners=[rec]).start()
    (obs,) = rec.of("observation")
    assert result["termination"] == "answer" and "my token is [REDACTED]" in obs.text
    told = json.dumps(chat_server.requests)
    started = next(e for e in store.event_dicts(result["session_id"]) if e["type"] == "run_started")
    assert started["settings"]["mcp_servers"]["hostile"]["args"][-1] == "(not stored)"
    store.close()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    for secret in (TOKEN, ARG_TOKEN):
        assert secret not in told and secret.encode() not in stored


async def test_tool_descriptions_reach_the_model_escaped_and_redacted_in_both_protocols(chat_server):
    for protocol in ("tags", "native"):
        chat_server.script("<answer>Nothing to do.</answer>" if protocol == "tags" else Reply("Nothing to do."))
        settings = settings_for(chat_server, protocol=protocol, require_evidence=False,
                                mcp_servers={"hostile": hostile()})
        await Run(settings, "Go", store=None, approver=RecordingApprover()).start()
        request = chat_server.requests[-1]
        if protocol == "tags":  # the tool's own line of the system prompt
            told = next(line for line in request["messages"][0]["content"].splitlines() if "mcp__hostile__forged" in line)
        else:
            told = json.dumps(request["tools"], ensure_ascii=False)
        assert "Look things up." in told, protocol
        for raw in ("</tool_response>", "<answer>", "<|im_end|>", "\x85", "\x7f", TOKEN):
            assert raw not in told, (protocol, raw)


async def test_a_servers_tools_are_capped_in_number_and_size_and_bad_schemas_are_left_out_with_a_warning():
    settings = Settings(mcp_max_tools=20, mcp_servers={"hostile": hostile("--many", "30", "--big-schema",
                                                                          "--bad-schemas")})
    tools, problems = await listed_registry(settings)
    offered = [n for n in tools.names() if n.startswith("mcp__hostile__")]
    # The first 20 listed, without the two among them whose schemas cannot be applied.
    assert len(offered) == 18 and "mcp__hostile__big" not in offered and "mcp__hostile__extra_11" in offered
    assert "mcp__hostile__extra_12" not in offered
    said = "\n".join(problems)
    assert "lists 38 tools; only the first 20 are offered (mcp_max_tools)" in said
    assert "input schema is over 20000 characters (mcp_max_schema_chars): big" in said
    assert "the tool mcp__hostile__lookahead is left out: its input schema has a pattern '^(?=a)a$'" in said
    assert "the tool mcp__hostile__not_a_schema is left out: its input schema is not a valid JSON schema" in said


async def test_a_failed_servers_stderr_is_read_only_at_its_end_and_its_token_is_redacted():
    settings = Settings(mcp_servers={"hostile": hostile("--flood-stderr", "30")})
    tracemalloc.start()
    try:
        _, problems = await listed_registry(settings)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (problem,) = problems
    assert "these are my last words" in problem
    assert TOKEN not in for_terminal(problem) and "[REDACTED]" in for_terminal(problem)  # as any output shows it
    assert peak < 10_000_000  # 30 MB of stderr were written; reading it all would take more than that


def test_tools_list_prints_no_control_or_bidi_character_and_no_token_from_a_description(tmp_path):
    env = isolated_env(tmp_path)
    config = Path(env["TUI_AGENT_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f"[mcp_servers.hostile]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(HOSTILE_SERVER)}]\n"
        f"env = {{ HOSTILE_TOKEN = {json.dumps(TOKEN)} }}\n", encoding="utf-8")
    for flags in (["--json"], []):
        proc = cli("tools", "list", *flags, env=env, timeout=90)
        assert proc.returncode == 0, proc.stderr
        assert "mcp__hostile__forged" in proc.stdout
        for raw in ("\x85", "\x9b", "\x7f", "\u202e", TOKEN):
            assert raw not in proc.stdout + proc.stderr, (flags, raw)
        if flags:  # and each line is still JSON
            rows = [json.loads(line) for line in proc.stdout.splitlines()]
            assert any("Look things up." in r["description"] for r in rows)
