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
