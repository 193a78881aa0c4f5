"""Tool policies from the configuration: ask, allow or deny per name or glob; deny wins."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import NoteTool, Recorder, RecordingApprover, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.core.approval import Approve, Reject
from tui_agent.agent.engine import Engine
from tui_agent.agent.tool_policy import policy_decision, policy_for
from tui_agent.config import Settings
from tui_agent.kinds import ToolPolicy
from tui_agent.model.scripted import ScriptedModel
from tui_agent.core import fold
from tui_agent.core.events import ObservationStatus
from tui_agent.tools.base import ToolRegistry


def test_deny_wins_over_an_exact_allow_and_a_longer_glob():
    policies = {"mcp__*": "deny", "mcp__notes__find": "allow", "mcp__notes__find*": "allow"}
    assert policy_for("mcp__notes__find", policies) == (ToolPolicy.DENY, "mcp__*")


def test_the_exact_name_beats_a_glob_and_the_longest_glob_beats_a_shorter_one():
    policies = {"*": "allow", "visit": "ask", "mcp__notes__*": "ask", "mcp__*": "allow"}
    assert policy_for("visit", policies) == (ToolPolicy.ASK, "visit")
    assert policy_for("search", policies) == (ToolPolicy.ALLOW, "*")
    assert policy_for("mcp__notes__find", policies) == (ToolPolicy.ASK, "mcp__notes__*")


def test_a_tool_no_pattern_matches_is_asked_and_matching_is_case_sensitive():
    assert policy_for("search", {"Search": "deny"}) == (ToolPolicy.ASK, None)
    assert policy_decision("search", {}, {}) is None


def test_allow_approves_without_asking_and_deny_rejects_naming_the_pattern():
    allowed = policy_decision("lookup", {"topic": "a"}, {"look*": "allow"})
    assert isinstance(allowed, Approve) and allowed.auto and allowed.arguments == {"topic": "a"}
    denied = policy_decision("lookup", {"topic": "a"}, {"look*": "deny"})
    assert isinstance(denied, Reject) and denied.policy and '"look*" = "deny"' in denied.reason


async def test_a_denied_tool_never_runs_even_in_auto_mode_and_the_model_is_told_why():
    tool = NoteTool()
    approver = RecordingApprover()
    engine, rec, model = scripted_engine([call("lookup", topic="a"), "<answer>none</answer>"], tool,
                                         approver=approver, auto_approve=True, tool_policies={"lookup": "deny"},
                                         require_evidence=False)
    await engine.run()
    assert tool.runs == [] and approver.requests == []
    assert rec.of("observation")[0].status == ObservationStatus.REJECTED
    assert rec.of("decision")[0].kind == "rejected"
    told = model.calls[1].messages[-1]["content"]
    assert 'Denied: the tool policy "lookup" = "deny"' in told


async def test_an_allowed_tool_runs_without_asking_the_person():
    tool = NoteTool()
    approver = RecordingApprover(Reject("would have said no"))
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), "<answer>a [1]</answer>"], tool,
                                     approver=approver, tool_policies={"look*": "allow"})
    await engine.run()
    assert tool.runs == [{"topic": "a"}] and approver.requests == []
    assert rec.of("decision")[0].kind == "policy"  # recorded as the policy's, not as auto mode


def test_the_help_page_shows_the_policies_in_force():
    from tui_agent.screens.help import help_text

    page = help_text({"mcp__notes__*": "allow", "visit": "deny"})
    assert '- `"mcp__notes__*" = "allow"`' in page and '- `"visit" = "deny"`' in page
    assert "None are set" in help_text({})


async def test_a_call_approved_before_the_process_stopped_is_not_run_on_resume_once_the_config_denies_it():
    class Blocking(NoteTool):
        async def run(self, arguments, ctx):
            self.runs.append(arguments)
            await asyncio.Event().wait()

    tool = Blocking()
    engine, rec, _ = scripted_engine([call("lookup", topic="a")], tool, auto_approve=True)
    task = asyncio.create_task(engine.run())
    while not tool.runs:
        await asyncio.sleep(0.01)
    task.cancel()  # what SIGTERM does: the call was approved and had started, no observation yet
    with pytest.raises(asyncio.CancelledError):
        await task
    state = fold.fold(e for e in rec.events if e.stored)
    assert state.calls["c1"].decision == "auto" and state.calls["c1"].observation is None
    again, rec2 = NoteTool(), Recorder()
    resumed = Engine(Settings(model="scripted/test", answer_reserve=4000, tool_policies={"look*": "deny"},
                              require_evidence=False),
                     "", tools=ToolRegistry([again]), llm=ScriptedModel(["<answer>none</answer>"]), emit=rec2, state=state)
    await resumed.run()
    assert again.runs == [] and rec2.of("observation")[0].status == ObservationStatus.REJECTED
