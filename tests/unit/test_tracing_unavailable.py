"""otel on without the otel extra: the CLI stops with a usage error naming the install; the TUI's run
goes on untraced (app/flows.py); off, nothing of the SDK is asked for."""

from __future__ import annotations

import sys

import pytest

from tui_agent.cli.common import UsageError
from tui_agent.cli.otel import open_tracing as cli_open_tracing
from tui_agent.config import Settings
from tui_agent.telemetry import TracingUnavailable, open_tracing


@pytest.fixture
def no_sdk(monkeypatch):
    monkeypatch.setitem(sys.modules, "tui_agent.telemetry.otlp", None)  # import fails: ImportError


def test_without_the_extra_opening_tracing_names_what_is_missing(no_sdk):
    with pytest.raises(TracingUnavailable) as caught:
        open_tracing(Settings(otel=True), print)
    assert "tui_agent.telemetry.otlp" in caught.value.missing


def test_the_cli_turns_a_missing_extra_into_a_usage_error_that_says_what_to_install(no_sdk):
    with pytest.raises(UsageError, match=r"pip install 'tui-agent\[otel\]'"):
        cli_open_tracing(Settings(otel=True))


def test_with_otel_off_nothing_is_opened_even_without_the_extra(no_sdk):
    assert open_tracing(Settings(otel=False), print) is None and cli_open_tracing(Settings(otel=False)) is None
