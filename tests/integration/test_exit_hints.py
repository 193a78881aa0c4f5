"""The commands printed when a run stops (resume, show, fork) work when copied: they name the data
directory (and the config file) the run used. A session that was not saved gets no such command."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from types import SimpleNamespace

from tests.integration.test_interrupted import wait_for_the_model_call
from tests.servers import Fault
from tui_agent.app.leaving import leaving_note
from tui_agent.core import fold
from tui_agent.core.events import RunStarted
from tui_agent.session.store import Store


def own_dirs_env(tmp_path) -> dict:
    """No TUI_AGENT_* variables; the XDG folders (the default data directory) inside tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    return env | {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "xdg-data")}


def test_the_resume_command_printed_after_sigterm_names_the_data_dir_and_works_when_copied(tmp_path, chat_server):
    chat_server.script(Fault(hang=True))
    data = tmp_path / "my data"  # a space: the printed command is quoted for the shell
    config = tmp_path / "mine.toml"
    config.write_text("max_calls = 7\n")
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "run", "What is the answer?", "--yes", "--model",
                             "openai/test-model", "--api-base", chat_server.base_url, "--data-dir", str(data),
                             "--config", str(config)], env=own_dirs_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    sid = wait_for_the_model_call(data, proc, chat_server)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()
    hint = next(line for line in err.decode().splitlines() if "tui-agent run --resume" in line)
    command = shlex.split(hint[hint.index("tui-agent run --resume"):])
    assert command[:4] == ["tui-agent", "run", "--resume", sid]
    assert "--data-dir" in command and "--config" in command
    chat_server.script("<answer>It is 42.</answer>", "<answer>It is 42.</answer>")
    resumed = subprocess.run([sys.executable, "-m", "tui_agent", *command[1:], "--yes", "--json", "--api-base",
                              chat_server.base_url], env=own_dirs_env(tmp_path), capture_output=True, text=True,
                             timeout=120, stdin=subprocess.DEVNULL)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert (result["session_id"], result["answer"]) == (sid, "It is 42.")


def _left_app(tmp_path, store, **kw):
    state = fold.new_state("s-left", "q", "m")
    fold.apply(state, RunStarted(session_id="s-left", question="q", model="m", system_prompt="sys"))
    return SimpleNamespace(session=state, store=store, interrupted_by="SIGTERM", handle=SimpleNamespace(store_error=None), **kw)


def test_the_tui_leaving_note_names_the_data_dir_and_config_of_the_session(tmp_path):
    store = Store(tmp_path / "elsewhere")
    note = leaving_note(_left_app(tmp_path, store), str(tmp_path / "c.toml"))
    line = next(line for line in note.splitlines() if "resume it:" in line)
    command = shlex.split(line.split("resume it:", 1)[1])
    assert command == ["tui-agent", "--resume", "s-left", "--data-dir", str((tmp_path / "elsewhere").resolve()),
                       "--config", str((tmp_path / "c.toml").resolve())]


def test_a_tui_session_that_was_not_saved_gets_no_resume_command(tmp_path):
    note = leaving_note(_left_app(tmp_path, None))
    assert "s-left" in note and "not saved" in note
    assert "--resume" not in note and "sessions show" not in note


async def test_the_quit_dialog_of_an_active_run_names_the_data_dir_and_config(tmp_path, chat_server):
    from tests.helpers import call
    from tests.tui.conftest import make_app, wait_pending
    from tui_agent.screens.confirm import ConfirmScreen

    chat_server.script(call("lookup", topic="a"))
    app, _ = make_app(chat_server, tmp_path)
    app.config_file = str(tmp_path / "mine.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        text = " ".join(str(w.content) for w in app.screen.query("Static"))
        assert f"--data-dir {tmp_path / 'data'}" in text and f"--config {tmp_path / 'mine.toml'}" in text
        await pilot.press("n")
