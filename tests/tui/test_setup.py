"""The setup screen beyond the model: the search backend (a SearXNG URL checked by a real
request to the local SearXNG-style server), private addresses, what is remembered, and Enter in
its checkboxes continuing instead of ticking."""

from __future__ import annotations

from textual.widgets import Checkbox, Input

from tests.helpers import call
from tests.servers import closed_port
from tests.tui.conftest import make_app, wait_ended, wait_pending, wait_until
from tui_agent.config import load_file
from tui_agent.screens.setup import SetupScreen

ANSWER = "<answer>x [1]</answer>"


async def open_setup(pilot, app, chat_server) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.query("#model-input"),
                     what="the setup screen")
    app.screen.query_one("#model-input", Input).value = "openai/typed-model"
    app.screen.query_one("#api-base-input", Input).value = chat_server.base_url
    await pilot.pause()


def result_text(app) -> str:
    return str(app.screen.query_one("#searxng-result").render())


async def test_setup_checks_a_searxng_url_and_remembers_search_and_private_urls(chat_server, searx_server,
                                                                             tmp_path, config_dir):
    chat_server.script(call("lookup", topic="a"), ANSWER)
    app, _ = make_app(chat_server, tmp_path, model=None, api_base=None, allow_private_urls=False)
    app.detect = lambda: (None, None)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_setup(pilot, app, chat_server)
        text = app.screen.query_one("Markdown")._markdown
        assert "SearXNG" in text and "allow private URLs" in text
        app.screen.query_one("#searxng-input", Input).value = searx_server.url
        await pilot.click("#check-searxng")
        await wait_until(pilot, lambda: "answered" in result_text(app), what="the SearXNG check")
        assert searx_server.queries  # a real request reached the server
        app.screen.query_one("#allow-private", Checkbox).value = True
        app.screen.query_one("#remember", Checkbox).value = True
        await pilot.click("#continue")
        await wait_pending(pilot, app)
        assert app.settings.search_backend == "searxng" and app.settings.searxng_url == searx_server.url
        assert app.settings.allow_private_urls
        saved = load_file(config_dir / "config.toml")
        assert saved["model"] == "openai/typed-model"
        assert saved["search_backend"] == "searxng" and saved["searxng_url"] == searx_server.url
        assert saved["allow_private_urls"] is True
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_a_searxng_url_that_does_not_answer_is_named_and_keeps_the_setup_screen(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), ANSWER)
    dead = f"http://127.0.0.1:{closed_port()}"  # refused, and no other server gets the port
    app, _ = make_app(chat_server, tmp_path, model=None, api_base=None)
    app.detect = lambda: (None, None)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_setup(pilot, app, chat_server)
        app.screen.query_one("#searxng-input", Input).value = dead
        await pilot.click("#continue")
        await wait_until(pilot, lambda: "✗" in result_text(app), what="the failed check")
        assert "could not connect to SearXNG" in result_text(app), result_text(app)
        assert isinstance(app.screen, SetupScreen) and not chat_server.requests
        app.screen.query_one("#searxng-input", Input).value = ""  # ddgs then
        # A Button ignores clicks while it shows the last one (its "-active" look, 0.2 s): the check
        # answers within that, and on a loaded machine the second click landed in it (CI).
        button = app.screen.query_one("#continue")
        await wait_until(pilot, lambda: not button.has_class("-active"), what="the Continue button to settle")
        await pilot.click("#continue")
        await wait_pending(pilot, app)
        assert app.settings.search_backend == "ddgs"
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_enter_in_the_remember_checkbox_continues_and_space_ticks_it(chat_server, tmp_path, config_dir):
    chat_server.script(call("lookup", topic="a"), ANSWER)
    app, _ = make_app(chat_server, tmp_path, model=None, api_base=None)
    app.detect = lambda: (None, None)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_setup(pilot, app, chat_server)
        box = app.screen.query_one("#remember", Checkbox)
        box.focus()
        await pilot.press("space")
        assert box.value is True
        await pilot.press("enter")
        await wait_pending(pilot, app)
        assert box.value is True  # Enter continued; it did not untick
        assert load_file(config_dir / "config.toml")["model"] == "openai/typed-model"
