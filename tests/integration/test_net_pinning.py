"""DNS rebinding is closed: the connection goes to the address the guard checked.

The resolver is patched at its root (the event loop's ``getaddrinfo``, which the guard's
:func:`net.resolve` calls and which httpx's own connect would call for a name) to answer
differently on the second lookup. Two loopback servers share one port: 127.0.0.1 holds the
"internal" page, 127.0.0.2 stands for the public address the guard approves (the test's policy
lets 127.0.0.2 pass as public). No traffic leaves the machine.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess

import anyio
import httpcore
import httpx
import pytest

from tests.servers import PageServer
from tui_agent.config import Settings
from tui_agent.web import guard, net
from tui_agent.web.net import ALLOW_FLAG, CLIENT_LIMITS, FetchError, GuardError, fetch, make_client
from tui_agent.web.transport import MANUAL_REDIRECTS, PIN, GuardedTransport, Pin, PinnedBackend


def settings_for(**overrides) -> Settings:
    base = dict(allow_private_urls=False, visit_connect_timeout_s=10.0, visit_read_timeout_s=10.0,
                visit_total_timeout_s=10.0)
    base.update(overrides)
    return Settings(**base)


class Resolver:
    """A scripted getaddrinfo: each name answers its next list of addresses (the last repeats);
    IP literals answer themselves, as the real one does. ``lookups`` records every name asked."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = {name: list(seq) for name, seq in answers.items()}
        self.lookups: list[str] = []

    async def __call__(self, host, port, *args, **kwargs):
        host = host.decode() if isinstance(host, bytes) else host
        try:
            addresses = [socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host) and host]
        except OSError:
            self.lookups.append(host)
            if host not in self.answers:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            seq = self.answers[host]
            addresses = seq.pop(0) if len(seq) > 1 else seq[0]
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, int(port or 0)))
                for a in addresses]


@pytest.fixture
def public_stand_in(page_server):
    """A second server on 127.0.0.2 at the page server's port, and the guard's policy patched to
    treat 127.0.0.2 as a public address."""
    try:
        server = PageServer(host="127.0.0.2", port=page_server.port)
    except OSError as exc:  # pragma: no cover - the port is taken on 127.0.0.2
        pytest.skip(f"cannot bind 127.0.0.2:{page_server.port}: {exc}")
    with server:
        yield server


@pytest.fixture
def resolver(monkeypatch, public_stand_in):
    real = guard.blocked_reason
    monkeypatch.setattr(guard, "blocked_reason", lambda ip: None if str(ip) == "127.0.0.2" else real(ip))

    def install(answers):
        fake = Resolver(answers)
        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", fake)
        return fake

    return install


async def test_a_name_that_rebinds_after_the_check_is_fetched_from_the_checked_address(
        page_server, public_stand_in, resolver):
    port = page_server.port
    page_server.add("/admin", "internal data")
    public_stand_in.add("/admin", "public page")
    fake = resolver({"rebind.test": [["127.0.0.2"], ["127.0.0.1"]]})
    async with make_client(settings_for()) as client:
        result = await fetch(client, f"http://rebind.test:{port}/admin", settings_for())
    assert result.body == b"public page"
    assert page_server.hits == []  # the internal page was never asked for
    assert public_stand_in.hits == ["/admin"]
    assert public_stand_in.requests[0][2]["host"] == f"rebind.test:{port}"  # Host stays the name
    assert fake.lookups == ["rebind.test"]  # one lookup: the guard's, which the connection used


async def test_every_redirect_hop_is_checked_and_pinned_again(page_server, public_stand_in, resolver):
    port = page_server.port
    page_server.add("/admin", "internal data")
    public_stand_in.redirect("/start", f"http://rebind.test:{port}/admin")
    fake = resolver({"rebind.test": [["127.0.0.2"], ["127.0.0.1"]]})
    async with make_client(settings_for()) as client:
        with pytest.raises(GuardError) as info:
            await fetch(client, f"http://rebind.test:{port}/start", settings_for())
    assert "rebind.test resolves to 127.0.0.1" in info.value.message and ALLOW_FLAG in info.value.message
    assert fake.lookups == ["rebind.test", "rebind.test"]
    assert page_server.hits == [] and public_stand_in.hits == ["/start"]


async def test_a_pinned_fetch_tries_the_checked_addresses_in_order_and_reuses_its_connection(
        page_server, monkeypatch):
    # with private addresses allowed the name is still resolved once and pinned: 127.0.0.3 has
    # nothing listening (refused at once), 127.0.0.1 is the page server
    fake = Resolver({"pages.test": [["127.0.0.3", "127.0.0.1"]]})
    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", fake)
    port = page_server.port
    page_server.add("/final", "<p>arrived</p>")
    page_server.redirect("/start", "/final", status=301)
    settings = settings_for(allow_private_urls=True)
    async with make_client(settings) as client:
        first = await fetch(client, f"http://pages.test:{port}/start", settings)
        again = await fetch(client, f"http://pages.test:{port}/final", settings)
        third = await fetch(client, f"http://pages.test:{port}/final", settings)
    assert first.body == again.body == third.body == b"<p>arrived</p>"
    assert first.chain == [f"http://pages.test:{port}/start", f"http://pages.test:{port}/final"]
    assert page_server.hits == ["/start", "/final", "/final", "/final"]
    assert {headers["host"] for _, _, headers in page_server.requests} == {f"pages.test:{port}"}
    # the redirect's unread body closes its connection; the pages read whole keep theirs alive
    ports = [p for _, p in page_server.peers]
    assert ports[1] == ports[2] == ports[3]
    assert fake.lookups == ["pages.test"] * 4  # once per hop: the guard's lookup


async def test_a_pinned_request_for_another_host_fails_closed(page_server):
    url = page_server.add("/page", "<p>page</p>")
    async with make_client(settings_for(allow_private_urls=True)) as client:
        for pin in (Pin("elsewhere.test", ("127.0.0.1",)), Pin("127.0.0.1", ())):
            request = client.build_request("GET", url, extensions={PIN: pin, MANUAL_REDIRECTS: True})
            with pytest.raises(httpx.ConnectError, match="no address checked by the network guard"):
                await client.send(request)
    assert page_server.hits == []


# --- TLS through the pin: the server name and the certificate stay the host name's ---------------


def make_cert(tmp_path, name: str) -> tuple[str, str]:
    if shutil.which("openssl") is None:  # pragma: no cover
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}"],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


async def test_https_through_the_pin_keeps_the_server_name_and_checks_the_certificate_against_it(
        tmp_path, monkeypatch):
    cert, key = make_cert(tmp_path, "secure.test")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    monkeypatch.setenv("SSL_CERT_FILE", cert)  # the client trusts only this certificate
    fake = Resolver({"secure.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", fake)
    settings = settings_for(allow_private_urls=True)
    with PageServer(ssl_context=context) as server:
        server.add("/page", "<p>over TLS</p>")
        async with make_client(settings) as client:
            result = await fetch(client, f"https://secure.test:{server.port}/page", settings)
            with pytest.raises(FetchError) as info:
                await fetch(client, f"https://other.test:{server.port}/page", settings)
    assert result.body == b"<p>over TLS</p>"
    assert names[0] == "secure.test"  # SNI: the name, not the pinned address
    assert server.requests[0][2]["host"] == f"secure.test:{server.port}"
    assert info.value.kind == "connect" and "certificate" in info.value.message.lower()
    assert server.hits == ["/page"]


class Stalling(httpcore.AsyncNetworkBackend):
    """The real backend, except that connecting to the ``stalled`` addresses never completes."""

    def __init__(self, stalled: set[str]) -> None:
        self.real = httpcore.AnyIOBackend()
        self.stalled = stalled
        self.attempts: list[str] = []
        self.cancelled: list[str] = []

    async def connect_tcp(self, host, port, **kwargs):
        self.attempts.append(host)
        if host in self.stalled:
            try:
                await anyio.sleep(3600)
            except BaseException:
                self.cancelled.append(host)
                raise
        return await self.real.connect_tcp(host, port, **kwargs)

    async def sleep(self, seconds):
        await self.real.sleep(seconds)


async def test_a_pinned_address_that_never_answers_does_not_hold_up_the_next(page_server, monkeypatch):
    url_path = page_server.add("/page", "<p>page</p>")
    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", Resolver({"slow.test": [["127.0.0.5", "127.0.0.1"]]}))
    inner = Stalling({"127.0.0.5"})
    settings = settings_for(allow_private_urls=True, visit_total_timeout_s=20.0)
    client = httpx.AsyncClient(transport=GuardedTransport(CLIENT_LIMITS, backend=PinnedBackend(inner)),
                               timeout=net._timeout(settings))
    async with client:
        result = await fetch(client, url_path.replace("127.0.0.1", "slow.test"), settings)
    assert result.body == b"<p>page</p>"
    assert inner.attempts == ["127.0.0.5", "127.0.0.1"] and inner.cancelled == ["127.0.0.5"]
