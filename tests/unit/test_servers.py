"""Checks for the loopback fake servers in tests/servers.py."""

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import io  # noqa: E402
import json  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import httpx  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402
import pypdf  # noqa: E402
import pytest  # noqa: E402

from tests.servers import (  # noqa: E402
    DEFAULT_ANSWER,
    ChatServer,
    Fault,
    PageServer,
    Reply,
    SearxServer,
    make_pdf,
)


# One shared client: creating an httpx.Client costs ~40 ms (SSL context).
HTTP = httpx.Client(timeout=5)


@pytest.fixture(scope="module", autouse=True)
def _close_shared_client():
    yield
    HTTP.close()


def _chat(server, messages=None, **extra):
    body = {"model": "test-model", "messages": messages or [{"role": "user", "content": "hi"}]}
    body.update(extra)
    return HTTP.post(server.url + "/v1/chat/completions", json=body, timeout=5)


def _sse_events(server, messages=None, path="/v1/chat/completions", **extra):
    body = {
        "model": "test-model",
        "messages": messages or [{"role": "user", "content": "hi"}],
        "stream": True,
    }
    body.update(extra)
    events = []
    with HTTP.stream("POST", server.url + path, json=body, timeout=5) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        for line in resp.iter_lines():
            if line.startswith("data: "):
                data = line[len("data: "):]
                events.append(data if data == "[DONE]" else json.loads(data))
    return events


# ---------------------------------------------------------------- ChatServer


def test_chat_plays_script_in_order_then_default(chat_server):
    chat_server.script("first", Reply(content="second"))
    chat_server.script(lambda req: "echo: " + req["messages"][-1]["content"])
    got = []
    for text in ["a", "b", "c", "d"]:
        r = _chat(chat_server, [{"role": "user", "content": text}])
        assert r.status_code == 200
        got.append(r.json()["choices"][0]["message"]["content"])
    assert got == ["first", "second", "echo: c", DEFAULT_ANSWER]
    assert chat_server.pending == 0
    assert [req["messages"][0]["content"] for req in chat_server.requests] == list("abcd")
    assert len(chat_server.request_headers) == 4
    assert chat_server.last_messages() == [{"role": "user", "content": "d"}]
    chat_server.default = "changed"
    assert _chat(chat_server).json()["choices"][0]["message"]["content"] == "changed"


def test_chat_both_paths_keepalive_and_default_usage(chat_server):
    chat_server.script("x" * 40, Reply("y", prompt_tokens=7, completion_tokens=3))
    with httpx.Client(base_url=chat_server.url, timeout=5, verify=False) as client:
        msgs = [{"role": "system", "content": "s" * 20}, {"role": "user", "content": "u" * 20}]
        r1 = client.post("/v1/chat/completions", json={"model": "m", "messages": msgs})
        r2 = client.post("/chat/completions", json={"model": "m", "messages": msgs})
        r3 = client.post("/nope", json={})
    body = r1.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    assert r2.json()["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert r3.status_code == 404 and "error" in r3.json()
    assert len(chat_server.requests) == 2


def test_chat_stop_cuts_content_unless_ignored(chat_server):
    chat_server.script(
        "<answer>42</answer> trailing junk",
        Reply("<answer>42</answer> trailing junk", ignore_stop=True),
        "one STOP two",
    )
    r1 = _chat(chat_server, stop=["</answer>"])
    r2 = _chat(chat_server, stop=["</answer>"])
    events = _sse_events(chat_server, stop="STOP")
    assert r1.json()["choices"][0]["message"]["content"] == "<answer>42"
    assert r2.json()["choices"][0]["message"]["content"] == "<answer>42</answer> trailing junk"
    streamed = "".join(
        e["choices"][0]["delta"].get("content") or ""
        for e in events
        if e != "[DONE]" and e["choices"]
    )
    assert streamed == "one "


def test_chat_sse_stream_shape_with_usage_and_reasoning(chat_server):
    chat_server.script(Reply("Hello streaming world", reasoning="think hard", chunk_size=5))
    events = _sse_events(chat_server, stream_options={"include_usage": True})
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    reasoning = [d["reasoning_content"] for d in deltas if "reasoning_content" in d]
    content = [d["content"] for d in deltas if d.get("content")]
    assert "".join(reasoning) == "think hard"
    assert content == ["Hello", " stre", "aming", " worl", "d"]
    # reasoning is streamed before any content
    first_content = next(i for i, d in enumerate(deltas) if d.get("content"))
    last_reasoning = max(i for i, d in enumerate(deltas) if "reasoning_content" in d)
    assert last_reasoning < first_content
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    usage = chunks[-1]["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["completion_tokens"] == len("Hello streaming world") // 4


def test_chat_sse_without_include_usage_has_no_usage_chunk(chat_server):
    chat_server.script("abc")
    events = _sse_events(chat_server, path="/chat/completions")
    assert events[-1] == "[DONE]"
    assert all(e["choices"] for e in events[:-1])
    assert all("usage" not in e or e["usage"] is None for e in events[:-1])
    assert events[-2]["choices"][0]["finish_reason"] == "stop"


def test_chat_non_streaming_reasoning_content(chat_server):
    chat_server.script(Reply("answer", reasoning="because"))
    msg = _chat(chat_server).json()["choices"][0]["message"]
    assert msg == {"role": "assistant", "content": "answer", "reasoning_content": "because"}


def test_chat_faults_use_openai_error_shape(chat_server):
    ctx = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    chat_server.script(
        Fault(status=429, retry_after="2"),
        Fault(status=500),
        Fault(status=503),
        Fault(status=401),
        Fault(status=404),
        Fault(status=400, body=ctx),
        "ok after faults",
    )
    responses = [_chat(chat_server) for _ in range(7)]
    assert [r.status_code for r in responses] == [429, 500, 503, 401, 404, 400, 200]
    assert responses[0].headers["retry-after"] == "2"
    assert "retry-after" not in responses[1].headers
    for r in responses[:5]:
        err = r.json()["error"]
        assert isinstance(err["message"], str) and err["message"]
        assert "type" in err and "code" in err
    assert responses[3].json()["error"]["code"] == "invalid_api_key"
    assert responses[5].json() == ctx
    assert responses[6].json()["choices"][0]["message"]["content"] == "ok after faults"


def test_chat_hang_times_out_client_and_close_is_fast():
    server = ChatServer()
    # an idle keep-alive connection must not delay close either
    idle = httpx.Client(timeout=5, verify=False)
    assert idle.post(server.url + "/v1/chat/completions", json={"messages": []}).status_code == 200
    server.script(Fault(hang=True))
    t0 = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        HTTP.post(server.url + "/v1/chat/completions", json={"messages": []}, timeout=0.3)
    assert time.monotonic() - t0 < 10  # the client's 0.3 s timeout, not the hang (which lasts until close)
    server.wait_for_requests(2)
    t0 = time.monotonic()
    server.close()
    assert time.monotonic() - t0 < 10  # not held by the hung handler (which would hold it for good)
    idle.close()
    with pytest.raises(httpx.TransportError):
        HTTP.post(server.url + "/v1/chat/completions", json={"messages": []}, timeout=1)


def test_chat_hang_answered_only_by_close_does_not_block_close():
    """A client waiting without timeout is released (with an error) by close()."""
    server = ChatServer()
    server.script(Fault(hang=True))
    outcome = {}

    def call():
        try:
            HTTP.post(server.url + "/v1/chat/completions", json={"messages": []}, timeout=10)
            outcome["result"] = "answered"
        except httpx.TransportError as exc:
            outcome["result"] = type(exc).__name__

    t = threading.Thread(target=call)
    t.start()
    server.wait_for_requests(1)
    t0 = time.monotonic()
    server.close()
    t.join(15)
    assert time.monotonic() - t0 < 10  # released by close, not by the client's 10 s timeout
    assert outcome["result"] != "answered"


def test_chat_delay_s_delays_response(chat_server):
    chat_server.script(Reply("late", delay_s=0.5), Reply("slow", delay_s=0.2))
    with pytest.raises(httpx.ReadTimeout):
        HTTP.post(chat_server.url + "/v1/chat/completions", json={"messages": []}, timeout=0.15)
    t0 = time.monotonic()
    r = _chat(chat_server)
    assert r.json()["choices"][0]["message"]["content"] == "slow"
    assert time.monotonic() - t0 >= 0.2


def test_chat_drop_after_chunks_breaks_httpx_stream(chat_server):
    chat_server.script(Fault(drop_after_chunks=3))
    body = {"model": "m", "messages": [], "stream": True}
    seen = []
    with pytest.raises(httpx.RemoteProtocolError):
        with HTTP.stream("POST", chat_server.url + "/v1/chat/completions", json=body, timeout=5) as r:
            for line in r.iter_lines():
                seen.append(line)
    assert not any("[DONE]" in line for line in seen)


def test_chat_hang_after_chunks_stalls_stream(chat_server):
    chat_server.script(Fault(hang_after_chunks=2))
    body = {"model": "m", "messages": [], "stream": True}
    lines = []
    with pytest.raises(httpx.ReadTimeout):  # 2 s: the first two chunks come at once, with a margin
        with HTTP.stream("POST", chat_server.url + "/v1/chat/completions", json=body, timeout=2) as r:
            for line in r.iter_lines():
                if line:
                    lines.append(line)
    assert len(lines) == 2  # role chunk + first content delta, then silence


def test_chat_held_stream_waits_after_n_chunks_until_released(chat_server):
    body = {"model": "m", "messages": [], "stream": True}
    held: list[str] = []
    chat_server.script(Reply("abcdefgh", chunk_size=2, hold=threading.Event(), hold_after_chunks=2))
    with pytest.raises(httpx.ReadTimeout):  # never released: nothing after the second chunk (2 s: a margin)
        with HTTP.stream("POST", chat_server.url + "/v1/chat/completions", json=body, timeout=2) as r:
            held.extend(line for line in r.iter_lines() if line)
    assert len(held) == 2
    gate = threading.Event()
    chat_server.script(Reply("abcdefgh", chunk_size=2, hold=gate, hold_after_chunks=2))
    lines: list[str] = []
    with HTTP.stream("POST", chat_server.url + "/v1/chat/completions", json=body, timeout=30) as r:
        for line in r.iter_lines():
            if not line:
                continue
            lines.append(line)
            if len(lines) == 2:  # role chunk + first content delta: held here until the gate opens
                assert not gate.is_set()
                gate.set()
    assert len(lines) == 2 + 3 + 2 and lines[-1] == "data: [DONE]"  # then the rest, finish and [DONE]


def test_chat_wait_for_requests_times_out(chat_server):
    with pytest.raises(TimeoutError):
        chat_server.wait_for_requests(1, timeout=0.1)
    threading.Timer(0.1, lambda: _chat(chat_server)).start()
    assert len(chat_server.wait_for_requests(1, timeout=30)) == 1


# ----------------------------------------------------------- via litellm


async def test_litellm_streaming_and_non_streaming(chat_server):
    chat_server.script(
        Reply("Streamed answer from the fake server.", prompt_tokens=11, completion_tokens=5),
        Reply("<answer>plain</answer> extra", prompt_tokens=3, completion_tokens=2),
    )
    msgs = [{"role": "user", "content": "question?"}]
    stream = await litellm.acompletion(
        model="openai/test-model",
        api_base=chat_server.url,
        api_key="test-key",
        messages=msgs,
        stream=True,
        stream_options={"include_usage": True},
        max_retries=0,
    )
    text, usage = [], None
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text.append(chunk.choices[0].delta.content)
        if getattr(chunk, "usage", None):
            usage = chunk.usage
    assert "".join(text) == "Streamed answer from the fake server."
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (11, 5)

    resp = await litellm.acompletion(
        model="openai/test-model",
        api_base=chat_server.base_url,
        api_key="test-key",
        messages=msgs,
        stop=["</answer>"],
        max_retries=0,
    )
    assert resp.choices[0].message.content == "<answer>plain"
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (3, 2)

    assert len(chat_server.requests) == 2
    assert chat_server.requests[0]["model"] == "test-model"
    assert chat_server.requests[0]["stream"] is True
    assert chat_server.requests[1]["stop"] == ["</answer>"]
    assert chat_server.request_headers[0]["authorization"] == "Bearer test-key"
    assert chat_server.last_messages() == msgs


async def test_litellm_stream_raises_when_connection_drops(chat_server):
    chat_server.script(Fault(drop_after_chunks=3))
    stream = await litellm.acompletion(
        model="openai/test-model",
        api_base=chat_server.url,
        api_key="test-key",
        messages=[{"role": "user", "content": "x"}],
        stream=True,
        stream_options={"include_usage": True},
        max_retries=0,
    )
    received = []
    with pytest.raises(Exception) as info:
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                received.append(chunk.choices[0].delta.content)
    # a transport-level failure surfaced as an API error, not a clean end
    assert isinstance(info.value, openai.APIError), repr(info.value)
    # 3 chunks = role chunk + two 8-char content deltas, then the drop
    assert "".join(received) == Fault().content[:16]


async def test_litellm_maps_faults_to_exceptions(chat_server):
    chat_server.script(
        Fault(status=429, retry_after="1"),
        Fault.context_length_exceeded(),
        Fault(status=401),
    )
    kwargs = dict(
        model="openai/test-model",
        api_base=chat_server.url,
        api_key="test-key",
        messages=[{"role": "user", "content": "x"}],
        max_retries=0,
    )
    with pytest.raises(litellm.RateLimitError):
        await litellm.acompletion(**kwargs)
    with pytest.raises(litellm.ContextWindowExceededError):
        await litellm.acompletion(**kwargs)
    with pytest.raises(litellm.AuthenticationError):
        await litellm.acompletion(**kwargs)
    assert len(chat_server.requests) == 3


# ---------------------------------------------------------------- PageServer


def test_page_routes_404_redirect_and_hits(page_server):
    page_server.add("/a", "<html><body>hello</body></html>", headers={"X-Test": "1"})
    page_server.add("/doc.txt", b"plain", content_type="text/plain")
    page_server.add("/gone", "gone", status=410)
    page_server.redirect("/old", "/a")
    page_server.redirect("/abs", page_server.url_for("/doc.txt"), status=301)
    with httpx.Client(base_url=page_server.url, timeout=5, follow_redirects=True, verify=False) as c:
        r = c.get("/a?x=1")
        assert r.status_code == 200 and r.text == "<html><body>hello</body></html>"
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        assert r.headers["x-test"] == "1"
        t = c.get("/doc.txt")
        assert t.headers["content-type"] == "text/plain" and t.text == "plain"
        assert c.get("/gone").status_code == 410
        r = c.get("/old")
        assert r.status_code == 200 and "hello" in r.text
        assert [h.status_code for h in r.history] == [302]
        assert c.get("/abs").text == "plain"
        missing = c.get("/missing")
        assert missing.status_code == 404 and "<html" in missing.text
        assert c.head("/a").headers["content-length"] == str(len("<html><body>hello</body></html>"))
    assert page_server.hits == [
        "/a?x=1", "/doc.txt", "/gone", "/old", "/a", "/abs", "/doc.txt", "/missing", "/a"
    ]
    assert page_server.requests[-1][0] == "HEAD"


def test_page_custom_handler(page_server):
    def fn(h):
        h.send_body(201, "custom " + h.headers.get("User-Agent", ""), "text/plain",
                    {"X-Custom": "yes"})

    page_server.add_handler("/c", fn)
    r = HTTP.get(page_server.url_for("/c"), headers={"User-Agent": "ua/1"}, timeout=5)
    assert (r.status_code, r.text, r.headers["x-custom"]) == (201, "custom ua/1", "yes")


def test_page_hang_times_out_and_close_is_fast():
    server = PageServer()
    server.hang("/h")
    with pytest.raises(httpx.ReadTimeout):
        HTTP.get(server.url_for("/h"), timeout=0.3)
    server.wait_for_hits(1)
    t0 = time.monotonic()
    server.close()
    assert time.monotonic() - t0 < 10  # not held by the hung handler


def test_page_slow_trickles_body(page_server):
    page_server.slow("/s", ["a", "b"], 0.2)
    asked_at = time.monotonic()
    with HTTP.stream("GET", page_server.url_for("/s"), timeout=5) as r:
        assert r.headers["content-length"] == "2"  # headers come at once, the body trickles after them
        body = b"".join(r.iter_bytes())
    assert body == b"ab"
    assert time.monotonic() - asked_at >= 0.4  # two pauses of 0.2 s: a floor that a loaded machine cannot break
    with pytest.raises(httpx.ReadTimeout):
        HTTP.get(page_server.url_for("/s"), timeout=0.05)


def test_page_big_full_read_and_early_disconnect(page_server):
    page_server.big("/small-big", 200_000)
    r = HTTP.get(page_server.url_for("/small-big"), timeout=5)
    assert len(r.content) == 200_000
    assert r.content.startswith(b"<!DOCTYPE html>") and r.content.endswith(b"</html>\n")
    assert r.headers["content-length"] == "200000"
    page_server.wait_idle()
    assert page_server.bytes_sent["/small-big"] == 200_000

    size = 200 * 1024 * 1024
    page_server.big("/huge", size)
    got = 0
    with httpx.Client(timeout=5, verify=False) as client:
        with client.stream("GET", page_server.url_for("/huge")) as r:
            assert r.headers["content-length"] == str(size)
            for chunk in r.iter_bytes():
                got += len(chunk)
                if got >= 256 * 1024:
                    break
    page_server.wait_idle(timeout=5)  # handler noticed the disconnect
    sent = page_server.bytes_sent["/huge"]
    assert got <= sent < size // 4


def test_page_big_chunked_without_length(page_server):
    page_server.big("/b", 100_000, content_type="text/plain", send_length=False)
    r = HTTP.get(page_server.url_for("/b"), timeout=5)
    assert "content-length" not in r.headers
    assert len(r.content) == 100_000 and r.headers["content-type"] == "text/plain"


def test_make_pdf_text_extracts_and_serves(page_server):
    pages = ["Hello PDF page one", "Second page (with parens) \\ and more\nline two"]
    data = make_pdf(pages)
    reader = pypdf.PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 2
    assert reader.pages[0].extract_text().strip() == "Hello PDF page one"
    second = reader.pages[1].extract_text()
    assert "Second page (with parens) \\ and more" in second
    assert "line two" in second
    page_server.add("/doc.pdf", data, content_type="application/pdf")
    r = HTTP.get(page_server.url_for("/doc.pdf"), timeout=5)
    assert r.headers["content-type"] == "application/pdf"
    assert pypdf.PdfReader(io.BytesIO(r.content)).pages[0].extract_text().strip() == "Hello PDF page one"


# --------------------------------------------------------------- SearxServer


def test_searx_results_empty_and_recorded(searx_server):
    searx_server.results["python"] = [
        {"url": "https://example.org/py", "title": "Python", "content": "A language"},
        ("https://example.org/2", "Two", "second"),
    ]
    r = HTTP.get(searx_server.url + "/search", params={"q": "python", "format": "json"}, timeout=5)
    assert r.status_code == 200
    body = r.json()
    assert body["query"] == "python"
    assert [(x["url"], x["title"], x["content"]) for x in body["results"]] == [
        ("https://example.org/py", "Python", "A language"),
        ("https://example.org/2", "Two", "second"),
    ]
    empty = HTTP.get(searx_server.url + "/search", params={"q": "nothing", "format": "json"}, timeout=5)
    assert empty.status_code == 200 and empty.json()["results"] == []
    assert searx_server.queries == ["python", "nothing"]
    assert searx_server.params[0]["format"] == "json"


def test_searx_fail_with_and_responder(searx_server):
    url = searx_server.url + "/search"
    params = {"q": "x", "format": "json"}
    searx_server.fail_with(503, times=2)
    assert [HTTP.get(url, params=params, timeout=5).status_code for _ in range(3)] == [503, 503, 200]
    searx_server.fail_with(429)
    assert [HTTP.get(url, params=params, timeout=5).status_code for _ in range(3)] == [429] * 3
    searx_server.recover()
    searx_server.responder = lambda q: 500 if q == "boom" else [{"url": "u:" + q, "title": q}]
    assert HTTP.get(url, params={"q": "boom", "format": "json"}, timeout=5).status_code == 500
    ok = HTTP.get(url, params={"q": "hi", "format": "json"}, timeout=5).json()
    assert ok["results"][0]["url"] == "u:hi" and ok["results"][0]["content"] == ""
    assert len(searx_server.queries) == 8


def test_servers_are_context_managers_and_close_idempotent():
    for cls in (ChatServer, PageServer, SearxServer):
        with cls() as server:
            assert server.url.startswith("http://127.0.0.1:")
        assert server.closed
        server.close()
