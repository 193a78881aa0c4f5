"""The network boundary: the SSRF guard and the fetcher, against loopback servers."""

from __future__ import annotations

import asyncio
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from tests.helpers import fetch_measured
from tests.servers import closed_port
from tui_agent.config import Settings
from tui_agent.web.net import (
    ALLOW_FLAG,
    FetchError,
    GuardError,
    check_url,
    fetch,
    make_client,
)

MB = 1024 * 1024


def fast_settings(**overrides) -> Settings:
    base = dict(visit_connect_timeout_s=10.0, visit_read_timeout_s=10.0, visit_total_timeout_s=10.0)
    base.update(overrides)
    return Settings(**base)


def allow_only(server):
    """A guard that lets the test server's own host:port through and checks everything else
    with the real guard (private addresses refused)."""

    async def guard(url: str) -> None:
        parts = urlsplit(url)
        if parts.hostname == server.host and parts.port == server.port:
            return
        await check_url(url, allow_private=False)

    return guard


# --- check_url --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://localhost/",
        "http://LOCALHOST./admin",
        "http://api.localhost/",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
        "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[::]/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://2130706433/",  # 127.0.0.1 as one number
        "http://0x7f.1/",
        "http://127.1/",
        "http://127.0.0.1./",
        "http://127\u30020\u30020\u30021/",  # ideographic full stops: httpx reads 127.0.0.1
        "http://example.com\\@127.0.0.1/",  # the host is what httpx connects to
    ],
)
async def test_guard_refuses_non_public_addresses_and_names_the_flag(url):
    with pytest.raises(GuardError) as info:
        await check_url(url, allow_private=False)
    assert ALLOW_FLAG in str(info.value)
    assert info.value.kind == "guard"


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "gopher://example.com/", "ftp://example.com/x", "data:text/plain,hi",
            "javascript:alert(1)", "example.com/no-scheme"],
)
async def test_guard_refuses_other_schemes_even_with_private_urls_allowed(url):
    for allow in (False, True):
        with pytest.raises(GuardError) as info:
            await check_url(url, allow_private=allow)
        assert "only http and https" in str(info.value)


async def test_guard_allows_public_addresses_and_lifts_with_the_flag():
    await check_url("http://93.184.216.34/", allow_private=False)
    await check_url("https://[2606:4700:4700::1111]/", allow_private=False)
    await check_url("http://127.0.0.1:9/", allow_private=True)
    await check_url("http://169.254.169.254/", allow_private=True)


async def test_guard_checks_every_address_a_name_resolves_to(monkeypatch):
    loop = asyncio.get_running_loop()
    answers = {
        "mixed.test": ["93.184.216.34", "10.1.2.3"],
        "public.test": ["93.184.216.34", "2606:4700:4700::1111"],
        "mapped.test": ["::ffff:169.254.169.254"],
    }

    async def fake_getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        out = []
        for addr in answers[host]:
            family = socket.AF_INET6 if ":" in addr else socket.AF_INET
            out.append((family, socket.SOCK_STREAM, 6, "", (addr, port)))
        return out

    monkeypatch.setattr(loop, "getaddrinfo", fake_getaddrinfo)
    await check_url("https://public.test/page", allow_private=False)
    with pytest.raises(GuardError, match="mixed.test resolves to 10.1.2.3"):
        await check_url("https://mixed.test/", allow_private=False)
    with pytest.raises(GuardError, match="metadata"):
        await check_url("http://mapped.test/", allow_private=False)
    with pytest.raises(FetchError) as info:
        await check_url("http://unknown.test/", allow_private=False)
    assert info.value.kind == "dns" and not isinstance(info.value, GuardError)


async def test_guard_refuses_malformed_urls_without_raising_anything_else():
    for url in ("http://", "http:///path", "http://host:99999/", "http://[::1/"):
        with pytest.raises(GuardError):
            await check_url(url, allow_private=False)


# --- the client -------------------------------------------------------------------------------


async def test_make_client_is_browser_like_and_does_not_follow_redirects():
    async with make_client(fast_settings()) as client:
        assert client.follow_redirects is False
        assert client.headers["user-agent"].startswith("Mozilla/5.0")
        assert client.timeout.connect == 10.0 and client.timeout.read == 10.0


# --- fetch ------------------------------------------------------------------------------------


async def test_fetch_with_the_guard_on_refuses_the_loopback_server_without_a_request(page_server):
    url = page_server.add("/secret", "internal data")
    async with make_client(fast_settings()) as client:
        with pytest.raises(GuardError) as info:
            await fetch(client, url, fast_settings(allow_private_urls=False))
    assert ALLOW_FLAG in info.value.message
    assert page_server.hits == []


async def test_fetch_rechecks_every_redirect_hop_with_the_guard(page_server):
    start = page_server.redirect("/start", "http://10.0.0.1/admin")
    async with make_client(fast_settings()) as client:
        with pytest.raises(GuardError) as info:
            await fetch(client, start, fast_settings(), guard=allow_only(page_server))
    assert "10.0.0.1" in info.value.message and ALLOW_FLAG in info.value.message
    assert page_server.hits == ["/start"]


async def test_fetch_refuses_a_redirect_to_another_scheme(page_server):
    start = page_server.redirect("/start", "file:///etc/passwd")
    async with make_client(fast_settings()) as client:
        with pytest.raises(GuardError, match="only http and https"):
            await fetch(client, start, fast_settings(allow_private_urls=True))


async def test_fetch_follows_relative_redirects_and_reports_the_chain(page_server):
    page_server.add("/final", "<p>arrived</p>")
    page_server.redirect("/two", "/final", status=301)
    start = page_server.redirect("/one", page_server.url_for("/two"), status=307)
    async with make_client(fast_settings()) as client:
        result = await fetch(client, start, fast_settings(allow_private_urls=True))
    assert result.status == 200 and result.body == b"<p>arrived</p>"
    assert result.final_url == page_server.url_for("/final")
    assert result.chain == [start, page_server.url_for("/two"), page_server.url_for("/final")]
    assert result.content_type.startswith("text/html")


async def test_fetch_detects_a_redirect_loop(page_server):
    page_server.redirect("/b", "/a")
    start = page_server.redirect("/a", "/b")
    async with make_client(fast_settings()) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, start, fast_settings(allow_private_urls=True))
    assert info.value.kind == "redirect" and "loop" in info.value.message.lower()
    assert page_server.hits == ["/a", "/b"]


async def test_fetch_stops_after_the_redirect_limit(page_server):
    for i in range(10):
        page_server.redirect(f"/r{i}", f"/r{i + 1}")
    async with make_client(fast_settings()) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, page_server.url_for("/r0"), fast_settings(allow_private_urls=True, visit_max_redirects=5))
    assert info.value.kind == "too_many_redirects"
    assert len(page_server.hits) == 6


async def test_fetch_returns_http_errors_as_statuses(page_server):
    missing = page_server.url_for("/nothing-here")
    broken = page_server.add("/broken", "oops", status=500)
    async with make_client(fast_settings()) as client:
        settings = fast_settings(allow_private_urls=True)
        assert (await fetch(client, missing, settings)).status == 404
        result = await fetch(client, broken, settings)
    assert result.status == 500 and result.reason == "Internal Server Error"


async def test_fetch_stops_a_50_mb_body_at_the_cap_with_flat_memory(page_server):
    url = page_server.big("/huge", 50 * MB)
    settings = fast_settings(allow_private_urls=True, visit_max_bytes=5 * MB)
    result, peak = await fetch_measured(url, settings)
    assert result.truncated is True
    assert len(result.body) == 5 * MB
    assert peak < 20 * MB, f"peak {peak / MB:.1f} MB"  # the body and one copy of it, not 50 MB
    await asyncio.sleep(0.3)
    assert page_server.bytes_sent["/huge"] < 20 * MB


async def test_fetch_of_a_body_exactly_at_the_cap_is_not_truncated(page_server):
    url = page_server.add("/exact", b"x" * 1000, content_type="text/plain")
    settings = fast_settings(allow_private_urls=True, visit_max_bytes=1000)
    async with make_client(settings) as client:
        result = await fetch(client, url, settings)
    assert len(result.body) == 1000 and result.truncated is False


async def test_fetch_of_a_server_that_never_answers_times_out_on_the_read_timeout(page_server):
    url = page_server.hang("/hang")
    # The 0.5 s read timeout fires, long before the 30 s limit of the whole fetch.
    settings = fast_settings(allow_private_urls=True, visit_read_timeout_s=0.5, visit_total_timeout_s=30.0)
    async with make_client(settings) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, url, settings)
    assert info.value.kind == "timeout" and "Timed out waiting for" in info.value.message


async def test_fetch_overall_timeout_bounds_a_trickling_server(page_server):
    url = page_server.slow("/trickle", [b"x" * 10] * 50, delay_s=0.2, content_type="text/plain")
    settings = fast_settings(allow_private_urls=True, visit_read_timeout_s=5.0, visit_total_timeout_s=1.0)
    async with make_client(settings) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, url, settings)
    assert info.value.kind == "timeout" and "1 s" in info.value.message  # the whole-fetch limit, not the read one


async def test_fetch_of_a_closed_port_is_a_connect_error():
    port = closed_port()
    settings = fast_settings(allow_private_urls=True)
    async with make_client(settings) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, f"http://127.0.0.1:{port}/", settings)
    assert info.value.kind == "connect"


async def test_fetch_of_an_unresolvable_name_is_a_dns_error():
    settings = fast_settings(allow_private_urls=False)
    async with make_client(settings) as client:
        with pytest.raises(FetchError) as info:
            await fetch(client, "http://no-such-host.invalid/", settings)
    assert info.value.kind == "dns"


async def test_fetch_keeps_a_partial_body_when_the_connection_drops(page_server):
    def handler(h):
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", "100000")
        h.end_headers()
        h.wfile.write(b"partial text " * 100)
        h.wfile.flush()
        h.abort()

    url = page_server.add_handler("/drop", handler)
    settings = fast_settings(allow_private_urls=True)
    async with make_client(settings) as client:
        result = await fetch(client, url, settings)
    assert result.body.startswith(b"partial text") and result.truncated is False
    assert result.incomplete


def test_fetch_error_kinds_are_the_documented_ones():
    assert {"timeout", "dns", "connect", "http", "redirect", "too_many_redirects", "guard"} >= {
        FetchError("x", k).kind for k in ("timeout", "dns", "connect", "http", "redirect", "too_many_redirects")
    }
    assert isinstance(GuardError("x"), FetchError) and GuardError("x").kind == "guard"
    assert httpx  # the module under test is built on httpx


async def test_guard_returns_what_it_checked_for_the_connection_to_use(monkeypatch):
    from tui_agent.web.transport import Pin, interleaved

    lookups = []

    async def fake_getaddrinfo(host, port, *args, **kwargs):
        lookups.append(host)
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("2606:4700:4700::1111", port, 0, 0)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port))]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", fake_getaddrinfo)
    assert await check_url("https://Public.Test/page", allow_private=False) == \
        Pin("public.test", ("2606:4700:4700::1111", "93.184.216.34"))
    # literal addresses need no lookup; with private addresses allowed a name is still resolved once
    assert await check_url("http://[2606:4700:4700:0::1111]:8080/", allow_private=False) == \
        Pin("2606:4700:4700:0::1111", ("2606:4700:4700::1111",))
    assert await check_url("http://0x7f.1/", allow_private=True) == Pin("0x7f.1", ("127.0.0.1",))
    assert (await check_url("http://intranet.test/", allow_private=True)).host == "intranet.test"
    assert lookups == ["public.test", "intranet.test"]
    assert interleaved(("::1", "::2", "10.0.0.1", "10.0.0.2")) == ["::1", "10.0.0.1", "::2", "10.0.0.2"]
