"""The parts of `tui-agent serve` that need no server: what the apps are given, the token check,
loopback hosts, the served driver's choice, and the call for a decision as a page notification."""

from __future__ import annotations

from types import SimpleNamespace

from tui_agent.app.decisions import Decisions
from tui_agent.cli.serve import SERVED_DRIVER, WEB_DRIVER, app_arguments, app_command, is_loopback, use_served_driver
from tui_agent.cli.serve_guard import same_token


def test_the_apps_get_every_flag_but_serves_own_and_never_the_token():
    argv = ["--host", "0.0.0.0", "--port=9000", "--token", "s3cret", "--yes", "--model", "m", "--token=again",
            "--data-dir", "/d"]
    assert app_arguments(argv) == ["--yes", "--model", "m", "--data-dir", "/d"]
    command = app_command(argv)
    assert command.startswith("exec ") and "s3cret" not in command and "again" not in command
    assert command.endswith("-m tui_agent --yes --model m --data-dir /d")


def test_an_api_key_reaches_the_apps_in_their_environment_not_on_their_command_line():
    env: dict[str, str] = {}
    command = app_command(["--api-key", "sk-one", "--model", "m"], env)
    assert "sk-one" not in command and env == {"TUI_AGENT_API_KEY": "sk-one"}
    app_command(["--api-key=sk-two"], env)
    assert env == {"TUI_AGENT_API_KEY": "sk-two"}


def test_tokens_compare_equal_only_when_the_same_whatever_text_is_sent():
    assert same_token("abc", "abc")
    assert not same_token("abd", "abc") and not same_token("", "abc") and not same_token("abcd", "abc")
    assert not same_token("ä\udcff", "abc")  # no error on text that is not ASCII


def test_loopback_hosts():
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.com"))


def test_only_textual_serves_web_driver_is_replaced_by_ours():
    env = {"TEXTUAL_DRIVER": WEB_DRIVER}
    assert use_served_driver(env) and env["TEXTUAL_DRIVER"] == SERVED_DRIVER
    assert not use_served_driver({}) and not use_served_driver({"TEXTUAL_DRIVER": "x.y:Other"})


class Host:
    def __init__(self) -> None:
        self.settings = SimpleNamespace(notify_after_s=0.0, notify="all")
        self.handle = SimpleNamespace(waiting_on=lambda: ("req", "tool call", "search 'x'"))
        self.notes: list[tuple[str, str]] = []

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout=None) -> None:
        self.notes.append((title, message))


def test_a_waiting_decision_is_a_notification_in_the_browser_and_terminal_bytes_in_a_terminal():
    served, written = Host(), []
    Decisions(served, written.append, clock=lambda: 0.0, served=True).waited()
    assert served.notes == [("tui-agent", "tool call waiting: search 'x'")] and written == []
    terminal = Host()
    Decisions(terminal, written.append, clock=lambda: 0.0).waited()
    assert terminal.notes == [] and written and written[0].startswith("\a")
