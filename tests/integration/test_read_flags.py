"""`tui-agent read` takes the settings flags that `tui-agent help` says work with every command: a
flag overrides the config file, in both directions, and the rest of the common flags are taken."""

from __future__ import annotations

from tests.integration.test_read import ARTICLE, PARAGRAPHS, run_cli


def test_read_takes_the_common_settings_flags_over_the_config_file(page_server, tmp_path):
    url = page_server.add("/tides", ARTICLE)
    config = tmp_path / "config.toml"
    config.write_text("allow_private_urls = true\n", encoding="utf-8")
    env = {"TUI_AGENT_CONFIG_DIR": str(tmp_path)}
    proc = run_cli("read", url, "--no-allow-private-urls", env=env)
    assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr
    assert "it points to a loopback address" in proc.stderr and page_server.hits == []
    config.write_text("allow_private_urls = false\n", encoding="utf-8")
    proc = run_cli("read", url, "--allow-private-urls", "--config", str(config), "--data-dir", str(tmp_path / "d"),
                   "--max-calls", "3", "--no-extract", "--search-backend", "ddgs", env=env)
    assert proc.returncode == 0, proc.stderr
    assert PARAGRAPHS[0] in proc.stdout


def test_read_help_lists_the_common_flags():
    proc = run_cli("help", "read")
    assert proc.returncode == 0
    for flag in ("--no-allow-private-urls", "--max-calls", "--context-window", "--data-dir", "--config FILE"):
        assert flag in proc.stdout, flag
