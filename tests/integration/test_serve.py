"""`tui-agent serve`: the token guards the page, the static files and the websocket; the apps it
starts draw over the websocket; the cap on apps, a port in use and a non-loopback host."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.integration.serving import start_serve
from tests.integration.test_cli import cli, isolated_env
from tests.servers import closed_port

MODEL = ("--model", "openai/test-model", "--api-base")


@pytest.fixture
def served(tmp_path):
    s = start_serve(tmp_path, "--token", "s3cret-token", *MODEL, f"http://127.0.0.1:{closed_port()}/v1")
    yield s
    s.stop()


async def get(url: str, cookies: dict | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession(cookies=cookies) as http:
        async with http.get(url, allow_redirects=False) as r:
            return r.status, r.headers.get("Set-Cookie", "")


async def first_frame(url: str, cookies: dict | None = None, headers: dict | None = None) -> bytes:
    """Open the websocket (the app starts) and return the first bytes the app draws."""
    async with aiohttp.ClientSession(cookies=cookies) as http:
        async with http.ws_connect(url + "&width=100&height=30", headers=headers) as ws:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY and message.data:
                    return message.data
    return b""


async def ws_status(url: str, cookies: dict | None = None, headers: dict | None = None) -> int:
    async with aiohttp.ClientSession(cookies=cookies) as http:
        try:
            async with http.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def test_the_page_and_static_files_refuse_a_missing_or_wrong_token(served):
    assert asyncio.run(get(f"{served.base}/"))[0] == 401
    assert asyncio.run(get(f"{served.base}/?token=wrong"))[0] == 403
    assert asyncio.run(get(f"{served.base}/", {served.cookie: "wrong"}))[0] == 403
    assert asyncio.run(get(f"{served.base}/static/js/textual.js"))[0] == 401
    assert asyncio.run(get(f"{served.base}/static/js/textual.js?token=s3cret-tokeN"))[0] == 403


def test_the_token_in_the_url_sets_the_cookie_and_the_cookie_opens_the_page_and_static_files(served):
    status, set_cookie = asyncio.run(get(f"{served.base}/?token={served.token}"))
    assert status == 303  # to the same page without the token in the address bar
    assert set_cookie.startswith(f"{served.cookie}=s3cret-token;") and "HttpOnly" in set_cookie
    assert "SameSite=Strict" in set_cookie
    assert asyncio.run(get(f"{served.base}/", {served.cookie: served.token}))[0] == 200
    assert asyncio.run(get(f"{served.base}/static/js/textual.js", {served.cookie: served.token}))[0] == 200
    assert asyncio.run(get(f"{served.base}/static/js/textual.js?token={served.token}"))[0] == 200


def test_the_websocket_refuses_a_missing_or_wrong_token_or_another_sites_origin(served):
    ws = served.base.replace("http", "ws") + "/ws"
    assert asyncio.run(ws_status(ws)) == 401
    assert asyncio.run(ws_status(ws + "?token=wrong")) == 403
    assert asyncio.run(ws_status(ws, {served.cookie: "wrong"})) == 403
    assert asyncio.run(ws_status(ws + f"?token={served.token}", headers={"Origin": "http://evil.example"})) == 403


@pytest.mark.parametrize("how", ["url", "cookie"])
def test_the_websocket_with_the_token_starts_the_app_which_draws(served, how):
    ws = served.base.replace("http", "ws") + "/ws?"
    if how == "url":
        frame = asyncio.run(first_frame(ws + f"token={served.token}"))
    else:
        frame = asyncio.run(first_frame(ws + "x=1", {served.cookie: served.token},
                                        headers={"Origin": served.base}))
    assert b"\x1b[" in frame  # the app got past the terminal check and drew with the web driver


def test_the_token_reaches_no_log_but_the_url_printed_at_start(served):
    asyncio.run(get(f"{served.base}/?token={served.token}"))
    asyncio.run(first_frame(served.base.replace("http", "ws") + f"/ws?token={served.token}"))
    out = served.stop()
    assert out.count("s3cret-token") == 1, out
    assert f"open {served.base}/?token=s3cret-token" in out


def test_a_visit_past_serve_max_apps_gets_a_page_saying_so(tmp_path):
    s = start_serve(tmp_path, "--token", "t", *MODEL, f"http://127.0.0.1:{closed_port()}/v1",
                    env={"TUI_AGENT_SERVE_MAX_APPS": "1"})

    async def one_app_then_more() -> tuple[int, str, int]:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(s.base.replace("http", "ws") + "/ws?token=t") as ws:
                await ws.receive()  # the app is running
                async with http.get(f"{s.base}/", cookies={s.cookie: "t"}) as r:
                    page = (r.status, await r.text())
                return page[0], page[1], await ws_status(s.base.replace("http", "ws") + "/ws?token=t")

    try:
        status, text, ws = asyncio.run(one_app_then_more())
    finally:
        s.stop()
    assert (status, ws) == (503, 503)
    assert "All 1 apps" in text and "serve_max_apps" in text


def test_a_port_in_use_is_one_line_naming_it_and_exit_2(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = cli("serve", "--port", str(port), env=isolated_env(tmp_path), timeout=60)
    assert r.returncode == 2
    assert r.stderr == f"tui-agent: serve: port {port} on 127.0.0.1 is in use; choose another with --port\n"


def test_a_host_other_than_loopback_warns_about_plain_http_and_says_how_to_put_tls_in_front(tmp_path):
    s = start_serve(tmp_path, "--host", "0.0.0.0")
    out = s.stop()
    assert "plain HTTP" in out and "TLS in front" in out and "ssh -L" in out
    quiet = start_serve(tmp_path).stop()
    assert "plain HTTP" not in quiet


def test_the_tui_still_refuses_pipes_outside_serve(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tui_agent", "a question"], capture_output=True, text=True,
                       env={**isolated_env(tmp_path), "PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 2 and "needs a terminal" in r.stderr


def test_stopping_the_server_ends_the_apps_of_open_tabs(tmp_path):
    s = start_serve(tmp_path, "--token", "t", *MODEL, f"http://127.0.0.1:{closed_port()}/v1")

    async def open_then_stop() -> list[int]:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(s.base.replace("http", "ws") + "/ws?token=t") as ws:
                await ws.receive()  # the app is running
                apps = app_pids(s.proc.pid)
                reading = asyncio.create_task(ws.receive_bytes())  # as a browser, reading what comes

                async def drain() -> None:
                    async for _ in ws:
                        pass

                reading.cancel()
                draining = asyncio.create_task(drain())
                await asyncio.to_thread(s.stop)
                await draining
                return apps

    apps = asyncio.run(open_then_stop())
    assert len(apps) == 1 and s.proc.returncode == 0
    deadline = time.monotonic() + 30
    while any(running(pid) for pid in apps) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(pid) for pid in apps)


def running(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "zombie" not in status.read_text()
    except OSError:
        return False


def app_pids(pid: int) -> list[int]:
    return [int(k) for task in Path(f"/proc/{pid}/task").iterdir() for k in (task / "children").read_text().split()]
