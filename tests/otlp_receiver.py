"""A local OTLP/HTTP trace receiver for the tests: it takes ``POST /v1/traces`` (protobuf),
decodes each request with ``opentelemetry-proto`` and keeps the spans, flattened to plain dicts
(attribute values as Python values, times in epoch nanoseconds, ids as hex)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def _attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


class OtlpReceiver:
    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.resources: list[dict[str, Any]] = []
        self.requests = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                    ExportTraceServiceRequest, ExportTraceServiceResponse,
                )

                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                owner._keep(request)
                out = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    def _keep(self, request: Any) -> None:
        with self._lock:
            self.requests += 1
            for rs in request.resource_spans:
                self.resources.append(_attrs(rs.resource.attributes))
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        self.spans.append({
                            "name": s.name, "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                            "parent_id": s.parent_span_id.hex(), "start_ns": s.start_time_unix_nano,
                            "end_ns": s.end_time_unix_nano, "attributes": _attrs(s.attributes),
                            "status": s.status.code, "status_message": s.status.message,
                            "events": [{"name": ev.name, "ts_ns": ev.time_unix_nano, "attributes": _attrs(ev.attributes)}
                                       for ev in s.events],
                        })

    def children(self, span: dict[str, Any]) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["parent_id"] == span["span_id"]]

    def named(self, prefix: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"].startswith(prefix)]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
