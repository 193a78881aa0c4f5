"""First frame, no question, no model, themes."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from pathlib import Path

from textual.widgets import Input

from tests.helpers import call
from tests.tui.conftest import QUESTION, make_app, wait_ended, wait_pending, wait_until
from tui_agent.config import load_file
from tui_agent.screens.question import QuestionScreen
from tui_agent.screens.setup import SetupScreen
from tui_agent.app.themes import ThemeError, load_theme_file, load_themes, shipped_dir

ROOT = Path(__file__).resolve().parents[2]


def test_litellm_is_not_imported_on_the_way_to_the_first_frame(tmp_path):
    code = textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(ROOT)!r})
        import tui_agent.cli, tui_agent.app
        assert "litellm" not in sys.modules, "imported by tui_agent.app"
        from tui_agent.app.application import ResearchApp
        from tui_agent.config import Settings

        async def main():
            settings = Settings(model="openai/test-model", api_base="http://127.0.0.1:9/v1", data_dir={str(tmp_path)!r})
            app = ResearchApp(settings, "a question", session_id="s-1")
            async with app.run_test(size=(100, 30)) as pilot:
                while app.first_frame_litellm is None:
                    await pilot.pause(0.01)
                out = sys.__stdout__  # Textual captures sys.stdout while the app runs
                out.write(f"FIRST_FRAME_LITELLM {{app.first_frame_litellm}}\\n")
                out.write(f"QUESTION_SHOWN {{'a question' in str(app.main.query_one('#question').render())}}\\n")
                out.flush()
                os._exit(0)  # do not wait for the warm-up thread that is importing litellm now
        asyncio.run(main())
    """)
    env = {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "FIRST_FRAME_LITELLM False" in proc.stdout, proc.stdout
    assert "QUESTION_SHOWN True" in proc.stdout


# What the first frame does not need: the session store (its import loads the redaction rules,
# with yaml and re2), the engine, and the libraries of the tools and of the settings' environment.
OFF_THE_FIRST_FRAME = ("tui_agent.session.store", "tui_agent.safety.redaction", "tui_agent.agent.engine", "yaml",
                       "re2", "httpx", "mcp", "trafilatura", "tiktoken", "jsonschema", "pydantic_settings", "tomlkit")


def test_the_first_frame_loads_neither_the_store_nor_the_engine_nor_the_tools_libraries(tmp_path):
    code = textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(ROOT)!r})
        import tui_agent.cli
        from tui_agent.cli.common import build_tui_parser, settings_from
        from tui_agent.app.application import ResearchApp

        loaded = []
        def first_frame(app, after=ResearchApp._after_first_frame):  # as the first frame is drawn
            loaded.extend(m for m in {OFF_THE_FIRST_FRAME!r} if m in sys.modules)
            after(app)
        ResearchApp._after_first_frame = first_frame

        async def main():
            settings = settings_from(build_tui_parser().parse_args(
                ["a question", "--model", "openai/test-model", "--api-base", "http://127.0.0.1:9/v1",
                 "--data-dir", {str(tmp_path / "db")!r}]))
            app = ResearchApp(settings, "a question")
            async with app.run_test(size=(120, 40)) as pilot:
                while app.first_frame_litellm is None:
                    await pilot.pause(0.01)
                sys.__stdout__.write(f"LOADED {{sorted(loaded)}}\\n")
                sys.__stdout__.flush()
                os._exit(0)
        asyncio.run(main())
    """)
    env = {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "LOADED []" in proc.stdout, proc.stdout


async def test_garbage_collection_is_on_again_once_the_first_frame_is_drawn(chat_server, tmp_path):
    # The command line turns it off while the TUI loads (cli.cmd_tui); left off, memory would only grow.
    gc.disable()
    try:
        app, _ = make_app(chat_server, tmp_path, question=None)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.first_frame_litellm is not None, what="the first frame")
            assert gc.isenabled()
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question screen")
    finally:
        gc.enable()


async def test_question_and_session_are_visible_from_the_first_frame(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), "<answer>x</answer>")
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert QUESTION in str(app.main.query_one("#question").render())
        assert app.main.header.session_id == "20250101-120000-abc123"
        assert app.main.header.model == "openai/test-model"
        await wait_pending(pilot, app)


async def test_without_a_question_the_app_asks_for_one(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="typed"), "<answer>x [1]</answer>")
    app, tool = make_app(chat_server, tmp_path, question=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen) and app.screen.query(Input), what="the question screen")
        assert not chat_server.requests
        app.screen.query_one(Input).value = "A typed question?"
        await pilot.press("enter")
        await wait_pending(pilot, app)
        assert "A typed question?" in str(app.main.query_one("#question").render())
        assert chat_server.requests[0]["messages"][1]["content"] == "A typed question?"
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_without_a_model_the_setup_screen_lets_the_user_type_one(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), "<answer>x [1]</answer>")
    app, tool = make_app(chat_server, tmp_path, model=None, api_base=None)
    app.detect = lambda: (None, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.query(Input), what="the setup screen")
        text = app.screen.query_one("Markdown")._markdown
        for option in ("OPENAI_API_KEY", "--model", "Ollama", "OpenAI-compatible", "api base"):
            assert option in text
        app.screen.query_one("#model-input", Input).value = "openai/typed-model"
        app.screen.query_one("#api-base-input", Input).value = chat_server.base_url
        await pilot.pause()
        await pilot.press("enter")
        await wait_pending(pilot, app)
        assert chat_server.requests[0]["model"] == "typed-model"
        assert app.main.header.model == "openai/typed-model"
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_a_detected_model_is_used_without_the_setup_screen(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), "<answer>x [1]</answer>")
    app, tool = make_app(chat_server, tmp_path, model=None)
    app.detect = lambda: ("openai/found-model", None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_pending(pilot, app)
        assert chat_server.requests[0]["model"] == "found-model"


# -- themes ---------------------------------------------------------------------------------------

def test_three_shipped_themes_load_with_the_app_variables():
    loaded = load_themes([shipped_dir()])
    assert not loaded.errors
    assert {"tui-dark", "tui-light", "tui-solarized"} <= set(loaded.themes)
    for theme in loaded.themes.values():
        assert {"thought-accent", "gauge-ok", "gauge-high", "gauge-reserve"} <= set(theme.variables)


def test_theme_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    for body, words in [("primary = ", "not valid TOML"), ('name = "x"', "'primary' colour is required"),
                        ('primary = "not-a-colour"', "is not a colour"),
                        ('primary = "#fff"\n[variables]\nbogus = "#000"', "unknown variable 'bogus'")]:
        bad.write_text(body)
        try:
            load_theme_file(bad)
        except ThemeError as exc:
            assert str(bad) in str(exc) and words in str(exc)
        else:
            raise AssertionError(f"{body!r} was accepted")


async def test_a_broken_user_theme_gives_one_notification_and_the_default_theme(chat_server, tmp_path, config_dir):
    themes = config_dir / "themes"
    themes.mkdir(parents=True)
    (themes / "broken.toml").write_text('name = "broken"\nprimary = ')
    (themes / "wrong.toml").write_text('name = "wrong"\nprimary = "#zzzzzz"')
    app, _ = make_app(chat_server, tmp_path, question=None, theme="broken")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "tui-dark"
        problems = [n for n in app._notifications if "Theme problem" in (n.title or "")]
        assert len(problems) == 1
        assert "broken.toml" in problems[0].message and "wrong.toml" in problems[0].message
        assert "'broken' is not available" in problems[0].message


async def test_a_user_theme_is_used_and_the_choice_is_remembered(chat_server, tmp_path, config_dir):
    themes = config_dir / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#ff00ff"\n[variables]\ngauge-ok = "#00ff00"\n')
    app, _ = make_app(chat_server, tmp_path, question=None, theme="mine")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "mine" and not app._notifications
        app.theme = "tui-solarized"
        await pilot.pause()
        assert load_file(config_dir / "config.toml")["theme"] == "tui-solarized"
