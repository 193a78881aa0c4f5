"""``--otel`` on run, eval and sessions export: tracing opened from the settings
(``telemetry.open_tracing``: the SDK is imported only when the setting is on), its one warning on
standard error, a missing extra a usage error."""

from __future__ import annotations

import sys
from typing import Any

from tui_agent.cli.common import UsageError

OTEL_FLAGS = ("otel", "otel_content")
"""The settings each traced command takes as flags."""


def open_tracing(settings: Any) -> Any:
    """A ``telemetry.otlp.Tracing`` when ``otel`` is on (None otherwise); UsageError when the
    ``otel`` extra is not installed."""
    from tui_agent.telemetry import TracingUnavailable, open_tracing as opened

    def warn(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    try:
        return opened(settings, warn)
    except TracingUnavailable as exc:
        raise UsageError(f"--otel needs the OpenTelemetry SDK ({exc.missing}): "
                         f"pip install 'tui-agent[otel]'") from None
