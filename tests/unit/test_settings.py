"""Settings are declared once: every layer (config.toml, TUI_AGENT_*, flags) is checked by the
declaration, and a bad value names its key and where it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.cli.common import UsageError, build_run_parser, build_tui_parser, settings_from
from tui_agent.config import ConfigError, load_settings

SECRET = "sk-live-abcdefghijklmnop0123456789"


def _load(tmp_path: Path, toml: str = "", **environ: str):
    path = tmp_path / "config.toml"
    path.write_text(toml, encoding="utf-8")
    return load_settings(path=path, environ=environ)


def _from_command_line(tmp_path: Path, *argv: str, parser=build_run_parser):
    config = tmp_path / "config.toml"
    if not config.exists():
        config.write_text("", encoding="utf-8")
    return settings_from(parser().parse_args(["q", "--config", str(config), *argv]))


def test_a_range_error_from_the_environment_names_the_variable(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, TUI_AGENT_MAX_CALLS="-3")
    assert "TUI_AGENT_MAX_CALLS" in str(err.value) and "'max_calls'" in str(err.value)
    assert "greater than 0" in str(err.value)


def test_a_range_error_in_config_toml_names_the_file_and_key(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, "verify_review_share = 1.5\n")
    assert str(tmp_path / "config.toml") in str(err.value) and "'verify_review_share'" in str(err.value)


def test_a_range_error_from_a_flag_names_the_flag(tmp_path):
    with pytest.raises(UsageError) as err:
        _from_command_line(tmp_path, "--max-calls", "0")
    assert str(err.value).startswith("--max-calls:") and "'max_calls'" in str(err.value)


def test_a_value_outside_the_declared_choices_names_its_variable(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, TUI_AGENT_SEARCH_BACKEND="bing")
    assert "TUI_AGENT_SEARCH_BACKEND" in str(err.value) and "'ddgs' or 'searxng'" in str(err.value)


def test_an_infinite_limit_is_refused(tmp_path):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, TUI_AGENT_MAX_MINUTES="inf")
    assert "TUI_AGENT_MAX_MINUTES" in str(err.value) and "'max_minutes'" in str(err.value)


def test_the_layers_apply_in_order_file_then_environment_then_flags(tmp_path, monkeypatch):
    (tmp_path / "config.toml").write_text("max_calls = 7\nmax_minutes = 9\nanswer_reserve = 100\n"
                                          "allow_private_urls = true\nextract = false\n")
    monkeypatch.setenv("TUI_AGENT_MAX_MINUTES", "11")
    monkeypatch.setenv("TUI_AGENT_ANSWER_RESERVE", "200")
    monkeypatch.setenv("TUI_AGENT_STREAM", "false")
    s = _from_command_line(tmp_path, "--answer-reserve", "300", "--no-allow-private-urls", "--extract", "--stream")
    assert (s.max_calls, s.max_minutes, s.answer_reserve) == (7, 11.0, 300)
    assert (s.allow_private_urls, s.extract, s.stream) == (False, True, True)  # a boolean flag overrides both ways
    s = _from_command_line(tmp_path, "--allow-private-urls", "--no-extract", "--no-stream", "--yes")
    assert (s.allow_private_urls, s.extract, s.stream, s.auto_approve) == (True, False, False, True)


def test_config_dev_null_is_an_empty_config(tmp_path):
    ns = build_run_parser().parse_args(["q", "--config", "/dev/null", "--max-calls", "4"])
    assert settings_from(ns).max_calls == 4


def test_a_config_named_by_hand_gets_the_true_message(tmp_path):
    with pytest.raises(UsageError) as err:
        settings_from(build_run_parser().parse_args(["q", "--config", str(tmp_path)]))
    assert "is a directory" in str(err.value) and "does not exist" not in str(err.value)
    with pytest.raises(UsageError, match="does not exist"):
        settings_from(build_run_parser().parse_args(["q", "--config", str(tmp_path / "nope.toml")]))


def test_the_api_key_is_never_shown(tmp_path):
    s = _load(tmp_path, TUI_AGENT_API_KEY=SECRET)
    assert s.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(s) and SECRET not in str(s)
    assert "api_key" not in s.summary() and SECRET not in json.dumps(s.summary())
    with pytest.raises(ConfigError) as err:  # a wrong type in the file: the error does not echo it
        _load(tmp_path, "api_key = 123456789987654321\n")
    assert "'api_key'" in str(err.value) and "123456789987654321" not in str(err.value)


def test_flag_help_is_the_settings_documentation():
    help_text = " ".join(build_tui_parser().format_help().split())
    for words in ("Model calls per run before the forced answer", "(default: 100)",
                  "Pause before every model call in the TUI", "Goal-directed extraction of visited pages",
                  "--search-backend {ddgs,searxng}", "--breakpoint, --no-breakpoint"):
        assert words in help_text


def test_a_rule_between_two_settings_names_where_each_came_from(tmp_path):
    with pytest.raises(UsageError) as err:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("TUI_AGENT_ANSWER_RESERVE", "2000")
            _from_command_line(tmp_path, "--context-window", "1000")
    assert "'answer_reserve' (2000, from TUI_AGENT_ANSWER_RESERVE)" in str(err.value)
    assert "'context_window' (1000, from --context-window)" in str(err.value)


def test_a_bad_flag_on_resume_names_the_flag():
    from tui_agent.session.resume import ResumeError, session_settings

    with pytest.raises(ResumeError) as err:
        session_settings({"max_calls": 5, "model": "m"}, {"max_calls": 0})
    assert str(err.value).startswith("--max-calls:") and "'max_calls'" in str(err.value)
