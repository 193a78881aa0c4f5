"""Traces out: a run's events as OpenTelemetry GenAI spans (``--otel``).

``spans`` folds the typed events into spans (one trace per run: ``invoke_agent tui-agent`` with
``chat``, ``execute_tool``, ``plan`` and a child ``invoke_agent`` per team sub-agent below it),
calling a :class:`spans.SpanSink`; it imports nothing of OpenTelemetry (``attributes``: the
attributes' shapes, content in the conventions' JSON). ``otlp`` is that sink
on the SDK (batch processor, OTLP/HTTP exporter configured by the standard ``OTEL_*``
variables): the only module that imports ``opentelemetry``, and only when tracing is on.
The same fold serves a live run (a listener) and a stored session (``sessions export --otel``,
with the events' original times).
"""

from __future__ import annotations

from typing import Any, Callable


class TracingUnavailable(Exception):
    """``otel`` is on but the ``otel`` extra (the OpenTelemetry SDK) is not installed; ``missing``
    names the module that could not be imported."""

    def __init__(self, missing: str) -> None:
        super().__init__(missing)
        self.missing = missing


def open_tracing(settings: Any, warn: Callable[[str], None]) -> Any:
    """A ``telemetry.otlp.Tracing`` when the setting ``otel`` is on, else None: the SDK is imported
    here and only then. ``warn`` gets its one warning (it may be called on a run's thread).
    Raises :class:`TracingUnavailable` without the ``otel`` extra."""
    if not settings.otel:
        return None
    try:
        from tui_agent.telemetry.otlp import Tracing
    except ImportError as exc:
        raise TracingUnavailable(str(exc.name or exc)) from None
    return Tracing(content=settings.otel_content, warn=warn)
