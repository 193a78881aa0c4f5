"""Remembering a setting (the model dialog's *remember*, the theme) edits config.toml in place: the
value goes to the top level, never into the table that happens to come last; the person's comments
and layout stay; a key already there changes where it is; the file still loads."""

from __future__ import annotations

import stat

import pytest
from pydantic import SecretStr

from tui_agent.config import ConfigError, load_file, load_settings, save_setting

KEY = "sk-localproxy-Q7w9ZxR2mN4bV6cT8yU1iO3pA5sD"
CONFIG = """\
# my research setup
model = "openai/old-model"  # the one the proxy serves
theme = "tui-dark"

[mcp_servers.notes]
command = "notes-server"

[mcp_servers.notes.env]
# the notes server's own key, not the model's
api_key = "notes-server-key"

[tool_policies]
# searching is always fine
search = "allow"
"""


def test_remember_writes_the_model_settings_at_the_top_level_and_keeps_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    save_setting("model", "openai/new-model", path)
    save_setting("api_base", "http://127.0.0.1:4000/v1", path)
    save_setting("api_key", SecretStr(KEY), path, private=True)
    data = load_file(path)
    assert (data["model"], data["api_base"], data["api_key"]) == ("openai/new-model", "http://127.0.0.1:4000/v1", KEY)
    assert data["tool_policies"] == {"search": "allow"}  # nothing was added to the last table
    assert data["mcp_servers"]["notes"]["env"] == {"api_key": "notes-server-key"}  # a same-named key elsewhere
    s = load_settings(path=path, environ={})  # the file still loads, every value valid
    assert s.api_key.get_secret_value() == KEY and s.tool_policies == {"search": "allow"}
    text = path.read_text(encoding="utf-8")
    for kept in ("# my research setup", "# the one the proxy serves", "# the notes server's own key, not the model's",
                 "# searching is always fine", '[mcp_servers.notes.env]\n# the notes'):
        assert kept in text
    assert text.index("api_key = ") < text.index("[mcp_servers.notes]")  # above the first table
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_existing_key_is_changed_where_it_is_with_its_comment(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    save_setting("model", "openai/new-model", path)
    save_setting("allow_private_urls", True, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CONFIG.replace('"openai/old-model"', '"openai/new-model"').split("\n\n")[0] + "\n")
    assert text.count("model = ") == 1 and "allow_private_urls = true\n" in text
    assert text.endswith(CONFIG.split("theme = \"tui-dark\"\n", 1)[1])  # the tables as they were


def test_a_bad_value_or_a_broken_file_is_refused_and_the_file_left_alone(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with pytest.raises(ConfigError, match="'max_calls'"):
        save_setting("max_calls", 0, path)
    broken = CONFIG + "model = \n"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        save_setting("model", "openai/x", path)
    assert path.read_text(encoding="utf-8") == broken
