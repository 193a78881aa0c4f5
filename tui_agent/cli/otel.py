"""``--otel`` on run, eval and sessions export: tracing opened from the settings (the SDK is
imported only here, and only when the setting is on), its one warning on standard error."""

from __future__ import annotations

import sys
from typing import Any

from tui_agent.cli.common import UsageError

OTEL_FLAGS = ("otel", "otel_content")
"""The settings each traced command takes as flags."""


def open_tracing(settings: Any) -> Any:
    """A ``telemetry.otlp.Tracing`` when ``otel`` is on (None otherwise); UsageError when the
    ``otel`` extra is not installed."""
    if not settings.otel:
        return None
    try:
        from tui_agent.telemetry.otlp import Tracing
    except ImportError as exc:
        raise UsageError(f"--otel needs the OpenTelemetry SDK ({exc.name or exc}): "
                         f"pip install 'tui-agent[otel]'") from None

    def warn(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    return Tracing(content=settings.otel_content, warn=warn)
