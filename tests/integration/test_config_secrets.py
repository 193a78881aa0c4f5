"""A bad setting never prints a secret, whatever the setting: the real command line with a bad
config file, a bad TUI_AGENT_* variable or a bad flag exits 2 with a message naming the setting and
the problem, and the secret's text is nowhere in it."""

from __future__ import annotations

import pytest

from tests.integration.test_cli import cli, isolated_env

KEY = "sk-localproxy-Q7w9ZxR2mN4bV6cT8yU1iO3pA5sD"
GITHUB_TOKEN = "ghp_" + "R8f2Kq9LmZ4xT7vW1yB3nC6dH5jP0sA2eG4u"


def _run_with(tmp_path, config: str, *flags: str, env: dict | None = None):
    path = tmp_path / "config.toml"
    path.write_text(config, encoding="utf-8")
    return cli("run", "What is new?", "--yes", "--config", str(path), *flags, env=isolated_env(tmp_path) | (env or {}))


def test_a_key_written_inside_a_table_is_named_there_and_never_printed(tmp_path):
    proc = _run_with(tmp_path, f'# mine\nmodel = "openai/test-model"\n\n[tool_policies]\nsearch = "allow"\n'
                               f'api_key = "{KEY}"\n')
    assert proc.returncode == 2
    assert "bad value [secret] for 'tool_policies.api_key'" in proc.stderr
    assert "must be 'ask', 'allow' or 'deny'" in proc.stderr and "setting of its own" in proc.stderr
    assert KEY not in proc.stderr + proc.stdout and "Traceback" not in proc.stderr


def test_an_mcp_server_error_hides_its_environment(tmp_path):
    proc = _run_with(tmp_path, '[mcp_servers.notes]\ncommand = "notes-server"\nurl = "http://127.0.0.1:9/mcp"\n'
                               f'[mcp_servers.notes.env]\nNOTES_AUTH = "{GITHUB_TOKEN}"\nLOG = "debug-Zq81xYw3"\n')
    assert proc.returncode == 2
    assert "'mcp_servers'" in proc.stderr and "give either command (stdio) or url" in proc.stderr
    assert GITHUB_TOKEN not in proc.stderr and "debug-Zq81xYw3" not in proc.stderr  # every env value hidden
    assert "notes-server" in proc.stderr  # the rest of the value is shown, to find the mistake


@pytest.mark.parametrize("where", ["file", "variable", "flag"])
def test_a_token_given_as_any_other_setting_is_masked(tmp_path, where):
    config, flags, env = "", (), {}
    match where:
        case "file":
            config = f'search_backend = "{GITHUB_TOKEN}"\n'
        case "variable":
            env = {"TUI_AGENT_MAX_CALLS": GITHUB_TOKEN}
        case "flag":
            flags = ("--max-calls", GITHUB_TOKEN)
    proc = _run_with(tmp_path, config, *flags, env=env)
    assert proc.returncode == 2
    assert ("search_backend" if where == "file" else "max-calls" if where == "flag" else "max_calls") in proc.stderr
    assert "[REDACTED]" in proc.stderr and GITHUB_TOKEN not in proc.stderr


def test_a_table_variable_that_is_not_json_is_named_without_a_traceback(tmp_path):
    proc = _run_with(tmp_path, "", env={"TUI_AGENT_TOOL_POLICIES": f'{{"api_key": "{KEY}"'})
    assert proc.returncode == 2
    assert "TUI_AGENT_TOOL_POLICIES: not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert KEY not in proc.stderr


def test_a_broken_router_file_is_a_usage_error_that_shows_where_not_its_text(tmp_path):
    router = tmp_path / "router.yaml"
    router.write_text(f'model_list:\n  - model_name: fast\n    litellm_params: {{model: "openai/x", api_key: "{KEY}",\n'
                      "  oops: [\n", encoding="utf-8")
    proc = _run_with(tmp_path, f'router_config = "{router}"\nmodel = "fast"\n')
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"router config {router}: not valid YAML or JSON at line 5" in proc.stderr
    assert KEY not in proc.stderr and "sk-" not in proc.stderr
