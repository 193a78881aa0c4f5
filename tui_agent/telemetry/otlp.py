"""The spans on the OpenTelemetry SDK: a TracerProvider (``service.name`` tui-agent) whose batch
processor sends them over OTLP/HTTP (protobuf) to the collector the standard variables name
(``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``…_HEADERS``,
``…_TIMEOUT``); a ``TRACEPARENT`` (and ``TRACESTATE``) in the environment makes each run a child
of that trace. The only module of the package that imports ``opentelemetry``: it is imported
only when tracing is on (``--otel``).

Never in the way: spans leave in the SDK's background thread; the SDK's own log lines (with
their tracebacks) are kept off the terminal, and a collector that cannot be reached costs one
warning naming its endpoint; closing waits at most the exporter's timeout.
"""

from __future__ import annotations

import heapq
import logging
import os
import threading
from typing import Any, Callable, Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from tui_agent.core.events import Event, ModelCallStarted, ModelDelta
from tui_agent.telemetry.spans import AGENT_NAME, SpanFold

DEFAULT_ENDPOINT = "http://localhost:4318"
DEFAULT_TIMEOUT_S = 10.0
TRACES_PATH = "/v1/traces"


def endpoint(environ: dict[str, str] | None = None) -> str:
    """Where the spans go, as the exporter reads the variables (for the warning that names it)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or DEFAULT_ENDPOINT
    return base.rstrip("/") + TRACES_PATH


def timeout_s(environ: dict[str, str] | None = None) -> float:
    env = os.environ if environ is None else environ
    for name in ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"):
        try:
            if env.get(name):
                return max(0.1, float(env[name]))
        except ValueError:
            pass
    return DEFAULT_TIMEOUT_S


class _Guarded(SpanExporter):
    """The OTLP exporter, its failures counted (and said once) instead of logged with tracebacks."""

    def __init__(self, inner: SpanExporter, on_failure: Callable[[str], None]) -> None:
        self.inner, self.on_failure = inner, on_failure
        self.sent = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as exc:  # noqa: BLE001 - an exporter's bug must not reach the run
            self.on_failure(type(exc).__name__)
            return SpanExportResult.FAILURE
        if result == SpanExportResult.SUCCESS:
            self.sent += len(spans)
        else:
            self.on_failure("the export failed")
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class SdkSink:
    """:class:`spans.SpanSink` on an SDK tracer; roots are children of ``TRACEPARENT`` if given."""

    def __init__(self, tracer: Any, root_context: Any) -> None:
        self.tracer, self.root_context = tracer, root_context

    def start(self, name: str, parent: Any, start_s: float, attributes: dict[str, Any]) -> Any:
        context = set_span_in_context(parent) if parent is not None else self.root_context
        kind = SpanKind.CLIENT if name.startswith("chat ") else SpanKind.INTERNAL
        return self.tracer.start_span(name, context=context, kind=kind, attributes=_clean(attributes),
                                      start_time=_ns(start_s))

    def end(self, span: Any, end_s: float, attributes: dict[str, Any], error: str | None) -> None:
        if attributes:
            span.set_attributes(_clean(attributes))
        if error:
            span.set_attribute("error.type", error.split(":", 1)[0])
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=_ns(end_s))

    def event(self, span: Any, name: str, ts: float, attributes: dict[str, Any]) -> None:
        span.add_event(name, _clean(attributes), timestamp=_ns(ts))


class Tracing:
    """One process's tracing: ``listener`` folds a run's events into spans (also a team's
    sub-agents': ``agent_listeners``); ``export`` sends a stored session's; ``close`` sends what
    is left, waiting at most the exporter's timeout. ``warn`` says a failure once."""

    def __init__(self, *, content: bool = False, warn: Callable[[str], None] | None = None,
                 environ: dict[str, str] | None = None) -> None:
        env = dict(os.environ if environ is None else environ)
        self.endpoint, self.timeout_s = endpoint(env), timeout_s(env)
        self.content = content
        self.warn = warn or (lambda text: None)
        self._warned = False
        self._lock = threading.Lock()
        _quiet_sdk_logs(self._failed)
        # shut down by ``close`` alone (bounded); the SDK's own exit hook could wait again
        self.provider = TracerProvider(resource=Resource.create({"service.name": AGENT_NAME}), shutdown_on_exit=False)
        self.exporter = _Guarded(OTLPSpanExporter(), self._failed)
        self.provider.add_span_processor(BatchSpanProcessor(self.exporter))
        carrier = {k: env[v] for k, v in (("traceparent", "TRACEPARENT"), ("tracestate", "TRACESTATE")) if env.get(v)}
        root = TraceContextTextMapPropagator().extract(carrier) if carrier else None
        self.sink = SdkSink(self.provider.get_tracer("tui_agent.telemetry"), root)
        self.fold = SpanFold(self.sink, content=content, redact=_redactor() if content else None)
        self._broken = False

    def _failed(self, why: str) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        self.warn(f"warning: traces not sent: the OTLP collector at {self.endpoint} could not be reached ({why}); "
                  f"the run goes on")

    def listener(self, event: Event) -> None:
        """A run's listener: folds the event into spans; a bug here never stops the run."""
        if self._broken or type(event) is ModelDelta:  # a stream's pieces make no span: the cheapest test first
            return
        try:
            self.fold.apply(event)
        except Exception as exc:  # noqa: BLE001 - tracing must cost the run nothing
            self._broken = True
            self.warn(f"warning: tracing stopped: {type(exc).__name__}: {exc}")

    def agent_listeners(self, number: int) -> list[Callable[[Event], None]]:
        """For ``TeamResearch(listeners=…)``: every sub-agent's events go through the same fold."""
        return [self.listener]

    def export(self, events: list[Event], children: Callable[[str], list[Event]] | None = None) -> None:
        """A stored session's spans with their original times: its events folded (with the events
        of each team sub-agent's child session, ``children(id)``). In content mode
        the state is folded too, to rebuild the messages the store leaves out of each model call."""
        from tui_agent.core.events_team import AgentStarted

        states: dict[str, Any] = {}
        if self.content:
            from tui_agent.core.fold import apply, new_state

            def messages_of(e: ModelCallStarted) -> list[dict[str, Any]]:
                state = states.get(e.session_id)
                return list(state.last_prompt.messages) if state is not None and state.last_prompt else []

            self.fold.messages_of = messages_of

        # Each child session's events merged in by time with the parent's (each stream in its own
        # order): a sub-agent resumed by a later run of the parent lands under that run's root.
        child_ids = list(dict.fromkeys(e.child_id for e in events if isinstance(e, AgentStarted)))
        streams = [events, *(children(c) for c in child_ids)] if children is not None else [events]
        for event in heapq.merge(*streams, key=lambda e: e.ts):
            if self.content:
                apply(states.setdefault(event.session_id, new_state(event.session_id)), event)
            self.fold.apply(event)
        self.fold.close()

    def close(self) -> int:
        """End what is open, send the rest; returns the spans sent. Waits at most the exporter's
        timeout (a collector gone mid-way): the SDK's shutdown runs in a thread given that long."""
        try:
            self.fold.close()
        except Exception:  # noqa: BLE001
            pass
        done = threading.Thread(target=self._shutdown, name="otel-shutdown", daemon=True)
        done.start()
        done.join(self.timeout_s + 1.0)
        if done.is_alive():
            self._failed(f"no answer within {self.timeout_s:g} s")
        return self.exporter.sent

    def _shutdown(self) -> None:
        try:
            self.provider.shutdown()
        except Exception as exc:  # noqa: BLE001
            self._failed(type(exc).__name__)


class _SdkLogs(logging.Handler):
    """The SDK's log records (an export that failed, with its traceback): counted, not printed."""

    def __init__(self, on_error: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.on_error = on_error

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or "retry" in record.getMessage().lower():
            self.on_error(record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else "refused")


def _quiet_sdk_logs(on_error: Callable[[str], None]) -> None:
    log = logging.getLogger("opentelemetry")
    for old in [h for h in log.handlers if isinstance(h, _SdkLogs)]:
        log.removeHandler(old)
    log.addHandler(_SdkLogs(on_error))
    log.propagate = False


def _redactor() -> Callable[[str], str]:
    from tui_agent.safety.redaction import redactor

    return redactor()


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def _clean(attributes: dict[str, Any]) -> dict[str, Any]:
    """Attribute values the SDK takes: no None, lists of one plain type."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            value = [str(v) for v in value]
        elif not isinstance(value, (str, bool, int, float)):
            value = str(value)
        out[key] = value
    return out
