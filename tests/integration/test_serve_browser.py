"""The served app driven in a real browser: Debian's chromium through Playwright.

The app draws on a canvas (xterm.js), so the test types into the page's terminal and checks the
effects: the question reaches the local model server, the session is stored with its answer, and
closing the tab ends the app (the server starts no process that outlives it) and leaves the session
answered, or interrupted and resumable when the model had not answered yet.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.integration.serving import start_serve
from tests.integration.test_cli import cli, isolated_env
from tests.servers import Fault
from tui_agent.session.store import Store

CHROMIUM = os.environ.get("TUI_AGENT_TEST_CHROMIUM", "/usr/bin/chromium")
QUESTION = "What is the answer to everything?"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install -e '.[test]')"),
    pytest.mark.skipif(not (Path(CHROMIUM).exists() or shutil.which("chromium")),
                       reason=f"no chromium at {CHROMIUM}: .ci/run installs it with apt-get install -y chromium "
                              "(apt could not run here)"),
]


def app_children(pid: int) -> list[int]:
    """The processes the server started (one app per open tab)."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def wait_until(what: str, check, timeout: float = 60.0, page=None):
    """Poll ``check``; with a page, Playwright's own wait, which lets its events (frames) arrive."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        page.wait_for_timeout(100) if page is not None else time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stored(data: Path) -> list:
    if not (data / "sessions.sqlite3").exists():
        return []
    store = Store(data)
    try:
        return store.list_sessions()
    finally:
        store.close()


def ask_in_the_browser(served, question: str, closing):
    """Open the printed URL in chromium, type the question into the app's question box, then run
    ``closing(page)`` and close the tab."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                                     args=["--no-sandbox"], headless=True)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            drawn: list[bytes] = []  # what the app sent to the page (the canvas has no text to read)
            page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: drawn.append(
                frame if isinstance(frame, bytes) else frame.encode())))
            page.goto(f"{served.base}/?token={served.token}")
            assert "token" not in page.url  # the first visit moved the token into the cookie
            wait_until("the question box", lambda: b"What should the model research?" in b"".join(drawn),
                       page=page)
            page.locator("#terminal").click()  # the page's terminal takes the keys
            page.keyboard.type(question)
            page.keyboard.press("Enter")
            closing(page)
            page.close()
        finally:
            browser.close()


def test_a_question_typed_in_the_browser_is_answered_and_stored_and_closing_the_tab_ends_the_app(
        tmp_path, chat_server):
    chat_server.script(*["<answer>It is 42.</answer>"] * 2)  # the second: after the nudge to cite
    served = start_serve(tmp_path, "--yes", "--model", "openai/test-model", "--api-base", chat_server.base_url)
    data = tmp_path / "data"
    try:
        def until_answered(page) -> None:
            wait_until("the model request", lambda: chat_server.requests)
            wait_until("the stored answer", lambda: [r for r in stored(data) if r.shown_status == "answer"])

        ask_in_the_browser(served, QUESTION, until_answered)
        wait_until("the app to end with its tab", lambda: not app_children(served.proc.pid), timeout=30)
    finally:
        out = served.stop()
    assert QUESTION in json.dumps(chat_server.requests[0]["messages"])
    (row,) = stored(data)
    shown = json.loads(cli("sessions", "export", row.id, "--format", "json", env=isolated_env(tmp_path)).stdout)
    assert (shown["result"]["question"], shown["result"]["answer"]) == (QUESTION, "It is 42.")
    assert served.token not in (data / "sessions.sqlite3").read_bytes().decode("latin-1")
    assert out.count(served.token) == 1  # only the URL printed at start


@pytest.mark.slow  # the default run has the browser once (the test above: 7 s, 20 s on a loaded machine); .ci/run runs this too
def test_closing_the_tab_during_a_run_ends_the_app_and_leaves_the_session_interrupted_and_resumable(
        tmp_path, chat_server):
    chat_server.script(Fault(hang=True))
    served = start_serve(tmp_path, "--yes", "--model", "openai/test-model", "--api-base", chat_server.base_url)
    data = tmp_path / "data"
    try:
        ask_in_the_browser(served, QUESTION, lambda page: wait_until("the model request", lambda: chat_server.requests))
        wait_until("the app to end with its tab", lambda: not app_children(served.proc.pid), timeout=30)
    finally:
        served.stop()
    (row,) = stored(data)
    assert row.shown_status == "interrupted" and row.resumable
    chat_server.script(*["<answer>It is 42.</answer>"] * 2)
    resumed = cli("run", "--resume", row.id, "--yes", "--json", "--api-base", chat_server.base_url,
                  env=isolated_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["answer"] == "It is 42."
