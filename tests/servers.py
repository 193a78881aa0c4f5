"""Loopback HTTP servers for tests (stdlib only).

Every server binds 127.0.0.1 on an ephemeral port, serves from a daemon
thread, exposes ``.url`` (``http://127.0.0.1:PORT``) and ``.close()``, and is a
context manager.  ``close()`` is quick even while handlers are hanging or
blocked on a slow client: it wakes every waiting handler and shuts down every
open connection (including idle keep-alive ones).

* :class:`ChatServer`  - OpenAI-compatible ``/v1/chat/completions`` that plays
  a queue of scripted replies (:class:`Reply`, plain strings, :class:`Fault`,
  or callables ``fn(request_json) -> item``).
* :class:`PageServer`  - web pages registered by the test (static, redirect,
  hang, slow, big, custom handler) and :func:`make_pdf`.
* :class:`SearxServer` - SearXNG-style ``GET /search?q=...&format=json``.
"""

from __future__ import annotations

import html
import json
import socket
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "ChatServer",
    "Reply",
    "ToolCall",
    "Fault",
    "PageServer",
    "SearxServer",
    "make_pdf",
    "DEFAULT_ANSWER",
]

DEFAULT_ANSWER = "<answer>default answer</answer>"

# Errors raised when the peer went away while we were writing.
_IO_ERRORS = (OSError, ValueError)


# --------------------------------------------------------------------------
# Shared machinery
# --------------------------------------------------------------------------


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 64
    owner: "_LoopbackServer"

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, _IO_ERRORS):  # client disconnects: not interesting
            return
        if exc is not None and exc not in self.owner.errors:
            self.owner.errors.append(exc)
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Request handler with a few helpers; subclasses route to ``owner``."""

    protocol_version = "HTTP/1.1"
    server_version = "tui-agent-test-server/1.0"
    sys_version = ""
    owner: "_LoopbackServer"

    # -- lifecycle -----------------------------------------------------
    def setup(self) -> None:
        super().setup()
        try:  # no Nagle: headers and body go out as separate small writes
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.owner._register(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except _IO_ERRORS:
            pass
        finally:
            self.owner._unregister(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _dispatch(self) -> None:
        self._body_cache = None  # one handler instance serves a keep-alive connection
        self.owner._enter()
        try:
            self.owner._handle(self)
        except _IO_ERRORS:
            self.close_connection = True
        except Exception as exc:  # a bug in a test callable / handler fn
            self.owner.errors.append(exc)
            self.close_connection = True
            raise
        finally:
            self.owner._leave()

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = _dispatch

    # -- helpers ---------------------------------------------------------
    @property
    def closing(self) -> threading.Event:
        """Set when the server is closing; use ``closing.wait(t)`` to sleep."""
        return self.owner._closing

    def read_body(self) -> bytes:
        """Read the request body (Content-Length or chunked)."""
        if getattr(self, "_body_cache", None) is not None:
            return self._body_cache
        body = b""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    # trailers until blank line
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            body = b"".join(parts)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                body = self.rfile.read(length)
        self._body_cache = body
        return body

    def send_body(
        self,
        status: int,
        body: bytes | str,
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        """Send a complete response with Content-Length (no body for HEAD)."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        hdrs = {"Content-Type": content_type}
        for k, v in (headers or {}).items():
            # let explicit headers override the defaults case-insensitively
            for existing in list(hdrs):
                if existing.lower() == k.lower():
                    del hdrs[existing]
            hdrs[k] = v
        for k, v in hdrs.items():
            if k.lower() != "content-length":
                self.send_header(k, str(v))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def send_json(
        self, status: int, obj: Any, headers: dict[str, str] | None = None
    ) -> None:
        if isinstance(obj, (bytes, str)):
            body = obj
        else:
            body = json.dumps(obj).encode("utf-8")
        self.send_body(status, body, "application/json", headers)

    def start_chunked(
        self,
        status: int,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def abort(self) -> None:
        """Close the connection abruptly (FIN, mid-body if a body was started)."""
        self.close_connection = True
        try:
            self.wfile.flush()
        except _IO_ERRORS:
            pass
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def hang(self) -> None:
        """Never answer: block until the server closes, then drop the socket."""
        self.owner._closing.wait()
        self.abort()


class _LoopbackServer:
    _handler_cls: type[_Handler] = _Handler

    def __init__(self, host: str = "127.0.0.1", port: int = 0, ssl_context: Any = None) -> None:
        """``host`` another loopback address (127.0.0.2) and ``port`` a fixed one let two servers
        share a port on different addresses; ``ssl_context`` (server side) serves HTTPS."""
        self._closing = threading.Event()
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._conns: set[socket.socket] = set()
        self._threads: set[threading.Thread] = set()
        self._active = 0
        self._closed = False
        self.errors: list[BaseException] = []
        handler = type(
            f"{type(self).__name__}Handler", (self._handler_cls,), {"owner": self}
        )
        self._httpd = _HTTPServer((host, port), handler)
        self._httpd.owner = self
        if ssl_context is not None:
            self._httpd.socket = ssl_context.wrap_socket(self._httpd.socket, server_side=True)
        self.host: str = host
        self.port: int = int(self._httpd.server_address[1])
        self.url: str = f"{'https' if ssl_context is not None else 'http'}://{host}:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name=f"{type(self).__name__}:{self.port}",
            daemon=True,
        )
        self._thread.start()

    # -- public ----------------------------------------------------------
    def url_for(self, path: str) -> str:
        if not path.startswith("/"):
            path = "/" + path
        return self.url + path

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Block until no request is being handled (raises TimeoutError)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._active:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"{type(self).__name__}: {self._active} request(s) still "
                        f"active after {timeout}s"
                    )
                self._cond.wait(left)

    def close(self, timeout: float = 2.0) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
            threads = list(self._threads)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for t in threads:
            if t is not threading.current_thread():
                t.join(max(0.0, deadline - time.monotonic()))
        self._thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}{' closed' if self._closed else ''}>"

    # -- internals ---------------------------------------------------------
    def _register(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.add(conn)
            self._threads.add(threading.current_thread())
            closing = self._closing.is_set()
        if closing:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _unregister(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.discard(conn)
            self._threads.discard(threading.current_thread())

    def _enter(self) -> None:
        with self._cond:
            self._active += 1

    def _leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()

    def _handle(self, h: _Handler) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _wait_count(self, seq: list, n: int, timeout: float, what: str) -> list:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(seq) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"{type(self).__name__}: expected at least {n} {what}, "
                        f"got {len(seq)} after {timeout}s"
                    )
                self._cond.wait(left)
            return list(seq)


_HELD_PORTS: list[socket.socket] = []


def closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections for the rest of the test process: bound and
    never listening (a port merely closed again could be taken by a server of another test)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD_PORTS.append(sock)
    return sock.getsockname()[1]


def _to_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


# --------------------------------------------------------------------------
# ChatServer
# --------------------------------------------------------------------------


@dataclass
class Reply:
    """A scripted assistant reply.

    ``reasoning`` is sent as ``reasoning_content`` (streamed before the
    content).  ``tool_calls`` (native tool calling) are :class:`ToolCall` s
    sent as the message's ``tool_calls``; streamed, each call's id and name
    come in its first delta and its ``arguments`` string in ``chunk_size``
    pieces after it (``interleave_calls``: the calls' pieces alternate, as
    parallel calls may arrive).  With calls the finish reason defaults to
    ``tool_calls``.  ``prompt_tokens``/``completion_tokens`` override the default
    usage estimate.  ``delay_s`` delays the response headers; ``chunk_delay_s``
    sleeps between stream chunks.  ``ignore_stop`` keeps content past a
    requested ``stop`` string.  ``hold`` (a ``threading.Event``) stops a
    stream after ``hold_after_chunks`` chunks until the test sets it: a test
    that looks at a reply mid-stream holds the stream there instead of
    racing it.
    """

    content: str = ""
    reasoning: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    delay_s: float = 0.0
    chunk_size: int = 8
    chunk_delay_s: float = 0.0
    ignore_stop: bool = False
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    tool_calls: list["ToolCall"] = field(default_factory=list)
    interleave_calls: bool = False
    hold: threading.Event | None = None
    hold_after_chunks: int = 0

    @property
    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


@dataclass
class ToolCall:
    """A native tool call of a scripted reply; ``arguments`` a dict (sent as JSON) or the exact string."""

    name: str
    arguments: Any = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)

    def wire(self, index: int) -> dict:
        return {"id": self.id or f"call_{index}_{uuid.uuid4().hex[:8]}", "type": "function",
                "function": {"name": self.name, "arguments": self.arguments_text()}}


@dataclass
class Fault:
    """A scripted failure.

    * ``Fault(status=429, retry_after="2")`` - HTTP error with OpenAI error JSON
      (``body`` overrides the JSON; dict -> JSON, str/bytes sent verbatim).
      ``retry_after`` (if not None) becomes the ``Retry-After`` header.
    * ``Fault(hang=True)`` - read the request, never answer until server close.
    * ``Fault(drop_after_chunks=N)`` - stream N SSE chunks of ``content`` then
      close the socket abruptly (no final chunk, no ``[DONE]``).  For a
      non-streaming request: half of the JSON body is sent, then the drop.
    * ``Fault(hang_after_chunks=N)`` - stream N chunks then stall until close.
    """

    status: int = 500
    retry_after: str | int | float | None = None
    body: Any = None
    hang: bool = False
    drop_after_chunks: int | None = None
    hang_after_chunks: int | None = None
    headers: dict[str, str] | None = None
    delay_s: float = 0.0
    content: str = (
        "This streamed reply is cut off part way through because the "
        "connection to the model server drops."
    )

    @classmethod
    def context_length_exceeded(cls, tokens: int = 200000) -> "Fault":
        return cls(
            status=400,
            body={
                "error": {
                    "message": (
                        "This model's maximum context length is 8192 tokens. "
                        f"However, your messages resulted in {tokens} tokens. "
                        "Please reduce the length of the messages."
                    ),
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            },
        )


_DEFAULT_ERRORS: dict[int, tuple[str, str, str | None]] = {
    400: ("Invalid request.", "invalid_request_error", None),
    401: (
        "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key",
    ),
    403: ("You are not allowed to access this resource.", "permission_error", None),
    404: (
        "The model `{model}` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
    ),
    408: ("Request timed out.", "timeout", None),
    429: (
        "Rate limit reached for requests. Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    500: (
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
    ),
    502: ("Bad gateway.", "server_error", None),
    503: ("The server is overloaded or not ready yet.", "server_error", None),
}


def openai_error_body(status: int, model: str = "test-model") -> dict:
    msg, typ, code = _DEFAULT_ERRORS.get(
        status,
        (
            f"HTTP error {status}",
            "server_error" if status >= 500 else "invalid_request_error",
            None,
        ),
    )
    return {
        "error": {
            "message": msg.format(model=model),
            "type": typ,
            "param": None,
            "code": code,
        }
    }


ScriptItem = Any  # str | Reply | Fault | Callable[[dict], "ScriptItem"]


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        total = 0
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                total += len(part["text"])
            elif isinstance(part, str):
                total += len(part)
        return total
    return 0


def _pieces(text: str | None, size: int) -> Iterator[str]:
    if not text:
        return
    if size <= 0:
        yield text
        return
    for i in range(0, len(text), size):
        yield text[i : i + size]


def _call_deltas(reply: Reply) -> Iterator[dict]:
    """The streamed pieces of a reply's tool calls: per call, the id and name first, then the
    arguments string in pieces; one call after another, or alternating (``interleave_calls``)."""
    per_call = []
    for i, call in enumerate(reply.tool_calls):
        whole = call.wire(i)
        first = {"index": i, "id": whole["id"], "type": "function",
                 "function": {"name": call.name, "arguments": ""}}
        rest = [{"index": i, "function": {"arguments": p}}
                for p in _pieces(call.arguments_text(), reply.chunk_size)]
        per_call.append([first] + rest)
    if not reply.interleave_calls:
        for deltas in per_call:
            yield from deltas
        return
    for i in range(max((len(d) for d in per_call), default=0)):
        for deltas in per_call:
            if i < len(deltas):
                yield deltas[i]


class _ChatHandler(_Handler):
    pass


class ChatServer(_LoopbackServer):
    """OpenAI-compatible chat completions server playing a script.

    ``api_base`` for litellm/openai may be ``server.url`` or
    ``server.base_url`` (``url + "/v1"``): both ``/chat/completions`` and
    ``/v1/chat/completions`` are served.
    """

    _handler_cls = _ChatHandler
    CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")

    def __init__(self, default: ScriptItem = DEFAULT_ANSWER) -> None:
        self.default: ScriptItem = default
        self.requests: list[dict] = []
        self.request_headers: list[dict[str, str]] = []
        self._queue: deque = deque()
        super().__init__()
        self.base_url: str = self.url + "/v1"

    # -- script ------------------------------------------------------------
    def script(self, *items: ScriptItem) -> "ChatServer":
        """Append replies to the queue (str, Reply, Fault or fn(request)->item)."""
        with self._lock:
            self._queue.extend(items)
        return self

    def clear_script(self) -> None:
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        """Number of scripted items not yet consumed."""
        with self._lock:
            return len(self._queue)

    # -- inspection ----------------------------------------------------------
    def last_messages(self) -> list[dict]:
        with self._lock:
            if not self.requests:
                raise LookupError("ChatServer received no requests")
            return list(self.requests[-1].get("messages") or [])

    def wait_for_requests(self, n: int, timeout: float = 30.0) -> list[dict]:
        """Block until at least ``n`` requests arrived; returns a copy of them."""
        return self._wait_count(self.requests, n, timeout, "chat requests")

    # -- handling ------------------------------------------------------------
    def _handle(self, h: _Handler) -> None:
        path = urlsplit(h.path).path.rstrip("/") or "/"
        body = h.read_body() if h.command in ("POST", "PUT", "PATCH") else b""
        if h.command == "GET" and path in ("/v1/models", "/models"):
            h.send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": "test-model", "object": "model", "owned_by": "test"}
                    ],
                },
            )
            return
        if path not in self.CHAT_PATHS or h.command != "POST":
            err = openai_error_body(404)
            err["error"]["message"] = f"Unknown path {h.command} {h.path}"
            h.send_json(404, err)
            return
        try:
            req = json.loads(body or b"{}")
            if not isinstance(req, dict):
                raise ValueError("body is not a JSON object")
        except ValueError as exc:
            with self._cond:
                self.requests.append({"_invalid_json": body.decode("utf-8", "replace")})
                self.request_headers.append({k.lower(): v for k, v in h.headers.items()})
                self._cond.notify_all()
            err = openai_error_body(400)
            err["error"]["message"] = f"Invalid JSON body: {exc}"
            h.send_json(400, err)
            return

        with self._cond:
            self.requests.append(req)
            self.request_headers.append({k.lower(): v for k, v in h.headers.items()})
            item = self._queue.popleft() if self._queue else self.default
            self._cond.notify_all()

        try:
            while callable(item):
                item = item(req)
        except Exception as exc:
            self.errors.append(exc)
            err = openai_error_body(500)
            err["error"]["message"] = f"scripted callable raised {exc!r}"
            h.send_json(500, err)
            return
        if isinstance(item, str):
            item = Reply(content=item)
        if isinstance(item, Fault):
            self._send_fault(h, req, item)
        elif isinstance(item, Reply):
            self._send_reply(h, req, item)
        else:
            exc = TypeError(f"ChatServer: unsupported script item {item!r}")
            self.errors.append(exc)
            err = openai_error_body(500)
            err["error"]["message"] = str(exc)
            h.send_json(500, err)

    @staticmethod
    def _apply_stop(req: dict, content: str) -> str:
        stop = req.get("stop")
        if isinstance(stop, str):
            stop = [stop]
        if not isinstance(stop, list):
            return content
        cut = len(content)
        for s in stop:
            if isinstance(s, str) and s:
                idx = content.find(s)
                if idx != -1:
                    cut = min(cut, idx)
        return content[:cut]

    @staticmethod
    def _usage(req: dict, reply: Reply, content: str) -> dict:
        prompt = reply.prompt_tokens
        if prompt is None:
            msgs = req.get("messages") or []
            prompt = (
                sum(_content_chars(m.get("content")) for m in msgs if isinstance(m, dict))
                // 4
            )
        completion = reply.completion_tokens
        if completion is None:
            completion = max(1, len(content) // 4)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _send_reply(self, h: _Handler, req: dict, reply: Reply) -> None:
        if reply.delay_s and self._closing.wait(reply.delay_s):
            h.abort()
            return
        content = reply.content if reply.ignore_stop else self._apply_stop(req, reply.content)
        usage = self._usage(req, reply, content)
        model = str(req.get("model") or "test-model")
        if req.get("stream"):
            self._stream(h, req, model, reply, content, usage)
            return
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [c.wire(i) for i, c in enumerate(reply.tool_calls)]
            message["content"] = content or None
        h.send_json(
            200,
            {
                "id": "chatcmpl-" + uuid.uuid4().hex[:24],
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": None,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": reply.finish,
                    }
                ],
                "usage": usage,
            },
        )

    def _stream(
        self,
        h: _Handler,
        req: dict,
        model: str,
        reply: Reply,
        content: str,
        usage: dict,
        drop_after: int | None = None,
        hang_after: int | None = None,
    ) -> None:
        include_usage = bool((req.get("stream_options") or {}).get("include_usage"))
        base = {
            "id": "chatcmpl-" + uuid.uuid4().hex[:24],
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": None,
        }

        def event(delta: dict, finish: str | None = None) -> dict:
            ev = dict(
                base,
                choices=[
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            )
            if include_usage:
                ev["usage"] = None
            return ev

        def events() -> Iterator[dict]:
            yield event({"role": "assistant", "content": ""})
            for piece in _pieces(reply.reasoning, reply.chunk_size):
                yield event({"reasoning_content": piece})
            for piece in _pieces(content, reply.chunk_size):
                yield event({"content": piece})
            yield from (event({"tool_calls": [d]}) for d in _call_deltas(reply))
            yield event({}, reply.finish)
            if include_usage:
                yield dict(base, choices=[], usage=usage)

        h.start_chunked(
            200,
            "text/event-stream; charset=utf-8",
            {"Cache-Control": "no-cache"},
        )
        for i, ev in enumerate(events()):
            if drop_after is not None and i >= drop_after:
                h.abort()
                return
            if hang_after is not None and i >= hang_after:
                h.hang()
                return
            if i and reply.chunk_delay_s and self._closing.wait(reply.chunk_delay_s):
                h.abort()
                return
            if reply.hold is not None and i == reply.hold_after_chunks:
                while not reply.hold.wait(0.05):
                    if self._closing.is_set():
                        h.abort()
                        return
            h.write_chunk(b"data: " + json.dumps(ev).encode("utf-8") + b"\n\n")
        if drop_after is not None or hang_after is not None:
            # fewer events than N: still never finish cleanly
            if hang_after is not None:
                h.hang()
            else:
                h.abort()
            return
        h.write_chunk(b"data: [DONE]\n\n")
        h.end_chunked()

    def _send_fault(self, h: _Handler, req: dict, fault: Fault) -> None:
        if fault.delay_s and self._closing.wait(fault.delay_s):
            h.abort()
            return
        if fault.hang:
            h.hang()
            return
        model = str(req.get("model") or "test-model")
        if fault.drop_after_chunks is not None or fault.hang_after_chunks is not None:
            reply = Reply(content=fault.content)
            usage = self._usage(req, reply, fault.content)
            if req.get("stream"):
                self._stream(
                    h,
                    req,
                    model,
                    reply,
                    fault.content,
                    usage,
                    drop_after=fault.drop_after_chunks,
                    hang_after=fault.hang_after_chunks,
                )
                return
            body = json.dumps(
                {
                    "id": "chatcmpl-dropped",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": fault.content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                }
            ).encode("utf-8")
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body[: len(body) // 2])
            if fault.hang_after_chunks is not None:
                h.hang()
            else:
                h.abort()
            return
        headers = dict(fault.headers or {})
        if fault.retry_after is not None:
            headers["Retry-After"] = str(fault.retry_after)
        body = fault.body if fault.body is not None else openai_error_body(fault.status, model)
        h.send_json(fault.status, body, headers)


# --------------------------------------------------------------------------
# PageServer
# --------------------------------------------------------------------------

_NOT_FOUND_HTML = (
    b"<!DOCTYPE html><html><head><title>404 Not Found</title></head>"
    b"<body><h1>Not Found</h1><p>The requested URL was not found.</p></body></html>"
)

_BIG_PREFIX = b"<!DOCTYPE html><html><head><title>Big page</title></head><body>\n"
_BIG_SUFFIX = b"</body></html>\n"
_BIG_BLOCK = (b"<p>" + b"filler " * 8 + b"</p>\n") * 1024  # exactly 64 KiB
assert len(_BIG_BLOCK) == 65536


def _big_body(size: int) -> Iterator[bytes]:
    """Yield exactly ``size`` bytes of filler HTML in <= 64 KiB pieces."""
    if size <= 0:
        return
    if size <= len(_BIG_PREFIX) + len(_BIG_SUFFIX):
        yield (_BIG_PREFIX + _BIG_SUFFIX)[:size]
        return
    yield _BIG_PREFIX
    remaining = size - len(_BIG_PREFIX) - len(_BIG_SUFFIX)
    while remaining > 0:
        n = min(remaining, len(_BIG_BLOCK))
        yield _BIG_BLOCK if n == len(_BIG_BLOCK) else _BIG_BLOCK[:n]
        remaining -= n
    yield _BIG_SUFFIX


@dataclass
class _Route:
    kind: str
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"
    chunks: list[bytes] = field(default_factory=list)
    delay_s: float = 0.0
    size: int = 0
    send_length: bool = True
    fn: Callable[[_Handler], None] | None = None


class PageServer(_LoopbackServer):
    """Serves routes registered by the test.

    Routes match the full request path including the query string first, then
    the path without the query.  ``hits`` records every request path (with
    query string); ``requests`` records ``(method, path, headers)``; ``peers``
    the client's ``(address, port)`` of each request (one port per connection,
    so a reused keep-alive connection shows the same port again).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, ssl_context: Any = None) -> None:
        self.routes: dict[str, _Route] = {}
        self.hits: list[str] = []
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.bytes_sent: dict[str, int] = {}
        self.peers: list[tuple[str, int]] = []
        super().__init__(host, port, ssl_context)

    # -- registration --------------------------------------------------------
    def add(
        self,
        path: str,
        body: bytes | str,
        status: int = 200,
        headers: dict[str, str] | None = None,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        """Serve a fixed body; returns the full URL."""
        self.routes[path] = _Route(
            "static", status, _to_bytes(body), dict(headers or {}), content_type
        )
        return self.url_for(path)

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        self.routes[path] = _Route(
            "static",
            status,
            b'<html><body>Redirecting to <a href="'
            + html.escape(location).encode()
            + b'">here</a></body></html>',
            {"Location": location},
        )
        return self.url_for(path)

    def hang(self, path: str) -> str:
        """Read the request and never answer (until the server closes)."""
        self.routes[path] = _Route("hang")
        return self.url_for(path)

    def slow(
        self,
        path: str,
        chunks: Iterable[bytes | str],
        delay_s: float,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> str:
        """Send headers (with Content-Length) at once, then sleep ``delay_s``
        before each body chunk."""
        self.routes[path] = _Route(
            "slow",
            status,
            headers=dict(headers or {}),
            content_type=content_type,
            chunks=[_to_bytes(c) for c in chunks],
            delay_s=delay_s,
        )
        return self.url_for(path)

    def big(
        self,
        path: str,
        size_bytes: int,
        content_type: str = "text/html; charset=utf-8",
        send_length: bool = True,
    ) -> str:
        """Stream ``size_bytes`` of filler HTML lazily in 64 KiB chunks.

        ``bytes_sent[path]`` counts body bytes successfully written (it stops
        growing once the client disconnects).  ``send_length=False`` uses
        chunked transfer encoding instead of Content-Length."""
        self.routes[path] = _Route(
            "big", content_type=content_type, size=int(size_bytes), send_length=send_length
        )
        with self._lock:
            self.bytes_sent[path] = 0
        return self.url_for(path)

    def add_handler(self, path: str, fn: Callable[[_Handler], None]) -> str:
        """``fn(handler)`` writes the whole response itself.  The handler has
        ``send_body(status, body, content_type, headers)``, ``send_json``,
        ``read_body()``, ``closing`` (Event) plus the usual
        BaseHTTPRequestHandler API."""
        self.routes[path] = _Route("handler", fn=fn)
        return self.url_for(path)

    def wait_for_hits(self, n: int, timeout: float = 30.0) -> list[str]:
        return self._wait_count(self.hits, n, timeout, "hits")

    # -- handling ------------------------------------------------------------
    def _handle(self, h: _Handler) -> None:
        with self._cond:
            self.hits.append(h.path)
            self.requests.append(
                (h.command, h.path, {k.lower(): v for k, v in h.headers.items()})
            )
            self.peers.append(tuple(h.client_address[:2]))
            self._cond.notify_all()
        route = self.routes.get(h.path) or self.routes.get(urlsplit(h.path).path)
        if route is None or route.kind != "handler":
            h.read_body()  # drain any request body
        if route is None:
            h.send_body(404, _NOT_FOUND_HTML)
        elif route.kind == "static":
            h.send_body(route.status, route.body, route.content_type, route.headers)
        elif route.kind == "hang":
            h.hang()
        elif route.kind == "slow":
            self._send_slow(h, route)
        elif route.kind == "big":
            key = next(k for k, v in self.routes.items() if v is route)
            self._send_big(h, route, key)
        elif route.kind == "handler":
            assert route.fn is not None
            route.fn(h)

    def _send_slow(self, h: _Handler, route: _Route) -> None:
        h.send_response(route.status)
        h.send_header("Content-Type", route.content_type)
        for k, v in route.headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(sum(len(c) for c in route.chunks)))
        h.end_headers()
        h.wfile.flush()
        if h.command == "HEAD":
            return
        for chunk in route.chunks:
            if self._closing.wait(route.delay_s):
                h.abort()
                return
            h.wfile.write(chunk)

    def _send_big(self, h: _Handler, route: _Route, key: str) -> None:
        try:  # small send buffer so a client disconnect is noticed promptly
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        except OSError:
            pass
        with self._lock:
            self.bytes_sent[key] = 0
        if route.send_length:
            h.send_response(200)
            h.send_header("Content-Type", route.content_type)
            h.send_header("Content-Length", str(route.size))
            h.end_headers()
        else:
            h.start_chunked(200, route.content_type)
        if h.command == "HEAD":
            return
        for piece in _big_body(route.size):
            if self._closing.is_set():
                h.abort()
                return
            try:
                if route.send_length:
                    h.wfile.write(piece)
                else:
                    h.write_chunk(piece)
            except _IO_ERRORS:
                h.close_connection = True
                return
            with self._lock:
                self.bytes_sent[key] += len(piece)
        if not route.send_length:
            h.end_chunked()


# --------------------------------------------------------------------------
# PDF helper
# --------------------------------------------------------------------------


def _pdf_escape(text: str) -> bytes:
    raw = text.encode("cp1252", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def make_pdf(pages: list[str]) -> bytes:
    """Build a small valid PDF, one page per string (Helvetica, WinAnsi).

    Newlines in a page's text start new lines.  Text is extractable with
    ``pypdf.PdfReader(...).pages[i].extract_text()``."""
    if not pages:
        pages = [""]
    n = len(pages)
    # object numbers: 1 catalog, 2 pages, 3 font, then (page, content) pairs
    objects: dict[int, bytes] = {}
    kids = []
    for i, text in enumerate(pages):
        page_num = 4 + 2 * i
        content_num = page_num + 1
        kids.append(f"{page_num} 0 R".encode())
        lines = text.split("\n")
        ops = [b"BT", b"/F1 12 Tf", b"14 TL", b"72 720 Td"]
        for j, line in enumerate(lines):
            if j:
                ops.append(b"T*")
            ops.append(b"(" + _pdf_escape(line) + b") Tj")
        ops.append(b"ET")
        stream = b"\n".join(ops) + b"\n"
        objects[content_num] = (
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream"
        )
        objects[page_num] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_num
        )
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % n
    objects[3] = (
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
        b"/Encoding /WinAnsiEncoding >>"
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    total = 3 + 2 * n
    for num in range(1, total + 1):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n" % (total + 1)
    out += b"0000000000 65535 f \n"
    for num in range(1, total + 1):
        out += b"%010d 00000 n \n" % offsets[num]
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        total + 1,
        xref_at,
    )
    return bytes(out)


# --------------------------------------------------------------------------
# SearxServer
# --------------------------------------------------------------------------


class SearxServer(_LoopbackServer):
    """SearXNG-style search endpoint: ``GET|POST /search?q=...&format=json``.

    Results come from ``responder(q)`` if set, else ``results[q]``, else [].
    ``responder`` may return a list of results, an ``int`` HTTP status, a
    :class:`Fault` (status/body/retry_after), or a dict used as the whole JSON
    response.  Result items may be dicts or ``(url, title, content)`` tuples.
    """

    def __init__(self) -> None:
        self.results: dict[str, list] = {}
        self.responder: Callable[[str], Any] | None = None
        self.queries: list[str] = []
        self.params: list[dict[str, str]] = []
        self._fail_status: int | None = None
        self._fail_remaining: int | None = None
        super().__init__()

    def fail_with(self, status: int | None, times: int | None = None) -> None:
        """Make the next ``times`` requests (all if None) return ``status``.
        ``fail_with(None)`` stops failing."""
        with self._lock:
            self._fail_status = status
            self._fail_remaining = times

    def recover(self) -> None:
        self.fail_with(None)

    def wait_for_queries(self, n: int, timeout: float = 5.0) -> list[str]:
        return self._wait_count(self.queries, n, timeout, "queries")

    @staticmethod
    def _norm(item: Any) -> dict:
        if isinstance(item, dict):
            out = dict(item)
        else:
            url, title, content = (list(item) + ["", "", ""])[:3]
            out = {"url": url, "title": title, "content": content}
        out.setdefault("title", "")
        out.setdefault("content", "")
        out.setdefault("engine", "test")
        return out

    def _handle(self, h: _Handler) -> None:
        split = urlsplit(h.path)
        params = {k: v[0] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        if h.command == "POST":
            form = parse_qs(h.read_body().decode("utf-8", "replace"), keep_blank_values=True)
            params.update({k: v[0] for k, v in form.items()})
        else:
            h.read_body()
        if split.path.rstrip("/") not in ("/search", ""):
            h.send_body(404, _NOT_FOUND_HTML)
            return
        q = params.get("q", "")
        with self._cond:
            self.queries.append(q)
            self.params.append(params)
            status = self._fail_status
            if status is not None:
                if self._fail_remaining is not None:
                    self._fail_remaining -= 1
                    if self._fail_remaining <= 0:
                        self._fail_status = None
                        self._fail_remaining = None
            self._cond.notify_all()
        if status is not None:
            h.send_body(status, f"<html><body>Error {status}</body></html>")
            return
        try:
            found = self.responder(q) if self.responder else self.results.get(q, [])
        except Exception as exc:
            self.errors.append(exc)
            h.send_body(500, "<html><body>responder raised</body></html>")
            return
        if isinstance(found, bool):
            found = []
        if isinstance(found, int):
            h.send_body(found, f"<html><body>Error {found}</body></html>")
            return
        if isinstance(found, Fault):
            headers = dict(found.headers or {})
            if found.retry_after is not None:
                headers["Retry-After"] = str(found.retry_after)
            body = found.body if found.body is not None else f"Error {found.status}"
            if isinstance(body, (dict, list)):
                h.send_json(found.status, body, headers)
            else:
                h.send_body(found.status, body, "text/html; charset=utf-8", headers)
            return
        if isinstance(found, dict):
            payload = dict(found)
            payload.setdefault("query", q)
            payload.setdefault("results", [])
        else:
            results = [self._norm(r) for r in (found or [])]
            payload = {
                "query": q,
                "number_of_results": len(results),
                "results": results,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            }
        if params.get("format") == "json":
            h.send_json(200, payload)
        else:
            items = "".join(
                f'<article class="result"><h3><a href="{html.escape(str(r.get("url", "")))}">'
                f"{html.escape(str(r.get('title', '')))}</a></h3>"
                f"<p class=\"content\">{html.escape(str(r.get('content', '')))}</p></article>"
                for r in payload.get("results", [])
            )
            h.send_body(
                200,
                f"<!DOCTYPE html><html><head><title>{html.escape(q)} - SearXNG</title>"
                f"</head><body>{items}</body></html>",
            )
