"""--answer-reserve must be below the context window: a run whose reserve is as large as the
model's window (not given, so litellm's map or the default) refuses to start with a message that
says what to change, instead of forcing the answer at its first call without a word."""

from __future__ import annotations

import pytest

from tests.integration.test_cli import cli, isolated_env


@pytest.mark.parametrize("model, flags, said", [
    ("openai/test-model", ("--answer-reserve", "131072"), "(131,072 tokens, the default for a model"),
    ("gpt-4", (), "'answer_reserve' (16,384) must be smaller than the context window of gpt-4 (8,192 tokens, "
                  "from litellm's model map)"),  # the default reserve and a small window
])
def test_a_reserve_as_large_as_the_models_window_refuses_to_start(tmp_path, chat_server, model, flags, said):
    proc = cli("run", "What is new?", "--yes", "--model", model, "--api-base", chat_server.base_url, *flags,
               env=isolated_env(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and "--context-window" in proc.stderr and "Traceback" not in proc.stderr
    assert not chat_server.requests  # refused before any model call


def test_the_context_policy_limits_are_flags(tmp_path):
    from tui_agent.cli.common import build_run_parser, settings_from

    ns = build_run_parser().parse_args(["q", "--config", "/dev/null", "--context-keep-rounds", "2",
                                        "--compact-at", "0.5", "--max-compactions", "1"])
    s = settings_from(ns)
    assert (s.context_keep_rounds, s.compact_at, s.max_compactions) == (2, 0.5, 1)
    proc = cli("run", "q", "--yes", "--config", "/dev/null", "--compact-at", "1.5", env=isolated_env(tmp_path))
    assert proc.returncode == 2 and "--compact-at: bad value 1.5 for 'compact_at'" in proc.stderr
