"""Helpers for the TUI tests: the app wired to the in-memory scripted model (``scripted_app``) or to
the scripted chat server (``make_app``, for what crosses HTTP), a store in tmp_path, the local
NoteTool, a fixed session id, and a temporary config directory (never the user's)."""

from __future__ import annotations

import time
from datetime import date
from typing import Any, Callable

import pytest

from tests.helpers import NoteTool, settings_for
from tests.unit.engine_kit import KitModel
from tui_agent.config import Settings
from tui_agent.model.scripted import Entry
from tui_agent.app.application import ResearchApp
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

# litellm's import takes seconds; pay it once here rather than inside the first test's timeout
# (the first-frame test runs in a subprocess, where nothing is imported yet).
from tui_agent.app.application import warm_up  # noqa: E402

warm_up()

SESSION_ID = "20250101-120000-abc123"
QUESTION = "What is the answer to life?"


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    path = tmp_path / "config"
    monkeypatch.setenv("TUI_AGENT_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def fixed_date(monkeypatch):
    """The system prompt carries today's date: freeze it for snapshots."""
    import tui_agent.protocol as protocol

    class FixedDate(date):
        @classmethod
        def today(cls):  # type: ignore[override]
            return date(2025, 1, 1)

    monkeypatch.setattr(protocol, "_date", FixedDate)


def make_app(chat: Any, tmp_path: Any, question: str | None = QUESTION, *, tool: NoteTool | None = None,
             elapsed: Callable[[], float] | None = None, clock: Callable[[], float] | None = None,
             **overrides: Any) -> tuple[ResearchApp, NoteTool]:
    tool = tool or NoteTool()
    settings = settings_for(chat, data_dir=str(tmp_path / "data"), **overrides)
    store = Store(tmp_path / "data")
    app = ResearchApp(settings, question, tools=ToolRegistry([tool]), session_id=SESSION_ID, store=store,
                      elapsed=elapsed, clock=clock)
    return app, tool


def scripted_settings(tmp_path: Any, **overrides: Any) -> Settings:
    """Settings for an app on the scripted model, its store in ``tmp_path / "data"``."""
    base: dict[str, Any] = dict(model="scripted/test", data_dir=str(tmp_path / "data"), context_window=32000,
                                answer_reserve=4000, forced_answer_tokens=1000, extract=False)
    return Settings(**(base | overrides))


def scripted_app(tmp_path: Any, script: list[Entry], question: str | None = QUESTION, *, tool: NoteTool | None = None,
                 elapsed: Callable[[], float] | None = None, clock: Callable[[], float] | None = None,
                 **overrides: Any) -> tuple[ResearchApp, NoteTool, KitModel]:
    """The app whose runs call the in-memory scripted model (``model.calls`` is what it was sent)."""
    tool = tool or NoteTool()
    settings = scripted_settings(tmp_path, **overrides)
    model = KitModel(script, window=settings.context_window)  # the window the app was configured with
    app = ResearchApp(settings, question, tools=ToolRegistry([tool]), session_id=SESSION_ID,
                      store=Store(tmp_path / "data"), llm=model, elapsed=elapsed, clock=clock)
    return app, tool, model


def sent_user_contents(messages: list[dict]) -> list[str]:
    """The user messages' contents of one call to the scripted model."""
    return [m["content"] for m in messages if m["role"] == "user"]


async def wait_until(pilot: Any, condition: Callable[[], Any], timeout: float = 40.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {(what() if callable(what) else what) or condition}")
        await pilot.pause(0.02)


async def wait_pending(pilot: Any, app: ResearchApp, call_n: int = 1) -> None:
    await wait_until(pilot, lambda: app.pending is not None and app.pending.call_id == f"c{call_n}",
                     what=f"approval request c{call_n}")
    await pilot.pause()


async def wait_ended(pilot: Any, app: ResearchApp) -> None:
    await wait_until(pilot, lambda: app.session.ended is not None, what="the end of the run")
    await pilot.pause()


def user_contents(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def inspector_open(app: Any) -> bool:
    from tui_agent.screens.inspector import InspectorScreen

    return isinstance(app.screen, InspectorScreen) and app.screen.loaded
