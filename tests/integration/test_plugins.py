"""Tool plugins: a tiny package, built and installed here (offline, with setuptools), adds a tool
through the entry point group ``tui_agent.tools``; a run offers and uses it like a built-in tool."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.helpers import Recorder, RecordingApprover, call, settings_for
from tests.integration.test_cli import cli, isolated_env
from tui_agent.agent.runner import Run
from tui_agent.core.events import ObservationStatus

PLUGIN = '''
from tui_agent.tools.base import OK, Tool, ToolResult


class WordCountTool(Tool):
    name = "wordcount"
    description = "Count the words of a text."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
                  "additionalProperties": False}

    async def run(self, arguments, ctx):
        return ToolResult(f"{len(arguments['text'].split())} words", OK)


def register_tools(register):
    register(WordCountTool())


def broken(register):
    raise RuntimeError("this plugin needs a licence key")
'''

PYPROJECT = '''
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "tui-agent-wordcount"
version = "0.1.0"

[project.entry-points."tui_agent.tools"]
wordcount = "tui_agent_wordcount:register_tools"
broken = "tui_agent_wordcount:broken"

[tool.setuptools]
py-modules = ["tui_agent_wordcount"]
'''


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory):
    """The plugin package installed with pip into a directory of its own (put on the path)."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "src").mkdir()
    (root / "src" / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT), encoding="utf-8")
    (root / "src" / "tui_agent_wordcount.py").write_text(PLUGIN, encoding="utf-8")
    site = root / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                           "--no-build-isolation", "--target", str(site), str(root / "src")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return site


async def test_an_installed_plugin_tool_is_offered_approved_and_run(chat_server, plugin_site, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_site))
    chat_server.script(call("wordcount", text="one two three"), "<answer>three words</answer>")
    approver, rec = RecordingApprover(), Recorder()
    settings = settings_for(chat_server, require_evidence=False)
    result = await Run(settings, "How many words?", store=None, approver=approver, listeners=[rec]).start()
    assert result["termination"] == "answer"
    assert '"name": "wordcount"' in chat_server.requests[0]["messages"][0]["content"]
    (request,) = approver.requests
    assert request.tool == "wordcount" and request.schema["required"] == ["text"]
    (obs,) = rec.of("observation")
    assert obs.status == ObservationStatus.OK and obs.text == "3 words"
    # The plugin that fails to load is named to the user; the run went on without it.
    assert any("the tool plugin 'broken'" in n.text and "licence key" in n.text for n in rec.of("notice"))


def test_tools_list_names_the_plugin_as_the_source(tmp_path, plugin_site):
    import os

    env = isolated_env(tmp_path) | {"PYTHONPATH": os.pathsep.join([str(plugin_site), os.environ.get("PYTHONPATH", "")])}
    proc = cli("tools", "list", "--json", env=env)
    rows = {row["name"]: row for row in map(json.loads, proc.stdout.splitlines())}
    assert rows["wordcount"]["source"] == "plugin tui-agent-wordcount" and rows["wordcount"]["policy"] == "ask"
    assert proc.returncode == 1 and "the tool plugin 'broken'" in proc.stderr
