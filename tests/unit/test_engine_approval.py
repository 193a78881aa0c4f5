"""Approval through the Approver seam (scripted model): rejection, edits, Submit now."""

from __future__ import annotations

import asyncio

from tests.helpers import NoteTool, RecordingApprover, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.core.approval import Approve, ApprovalRequest, Reject, SubmitNow
from tui_agent.core.events import ObservationStatus
from tui_agent.tools.base import Tool, ToolContext, ToolResult


async def test_a_rejected_call_does_not_run_and_the_model_reads_the_reason():
    tool = NoteTool()
    approver = RecordingApprover(Reject("not that one"))
    engine, rec, model = scripted_engine([call("lookup", topic="a"), call("lookup", topic="b"),
                                          "<answer>b [1]</answer>"], tool, approver=approver)
    result = await engine.run()
    assert tool.runs == [{"topic": "b"}] and result["answer"] == "b [1]"
    assert rec.of("observation")[0].status == ObservationStatus.REJECTED
    assert "Reason: not that one" in model.calls[1].messages[-1]["content"]
    request = approver.requests[0]
    assert isinstance(request, ApprovalRequest) and (request.tool, request.arguments) == ("lookup", {"topic": "a"})
    assert request.schema == NoteTool.parameters


async def test_edited_arguments_are_what_runs():
    tool = NoteTool()
    approver = RecordingApprover(lambda r: Approve({"topic": "edited"}, edited=True))
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), "<answer>x [1]</answer>"], tool, approver=approver)
    await engine.run()
    assert tool.runs == [{"topic": "edited"}] and rec.of("decision")[0].kind == "edited"


async def test_submit_now_at_an_approval_skips_the_call_and_forces_the_answer():
    tool = NoteTool()
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), "<answer>without it</answer>"], tool,
                                     approver=RecordingApprover(SubmitNow()))
    result = await engine.run()
    assert tool.runs == [] and result["termination"] == "user_submit"
    assert rec.of("decision")[0].kind == "submit" and engine.state.calls["c1"].label == "not run"


class WaitingTool(Tool):
    name = "visit"
    description = "A slow page."
    parameters = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def run(self, arguments: dict, ctx: ToolContext) -> ToolResult:
        self.started.set()
        await asyncio.Event().wait()
        return ToolResult("never")


async def test_a_call_cut_by_submit_now_is_recorded_cancelled_not_left_approved():
    tool = WaitingTool()
    engine, rec, model = scripted_engine([call("visit", url="https://slow.example"), "<answer>cut short</answer>"],
                                         tool, approver=RecordingApprover(Approve({"url": "https://slow.example"})))
    task = asyncio.create_task(engine.run())
    await asyncio.wait_for(tool.started.wait(), 10)
    engine.request_submit()
    result = await asyncio.wait_for(task, 10)
    assert result["termination"] == "user_submit"
    obs = rec.of("observation")
    assert [o.status for o in obs] == [ObservationStatus.CANCELLED] and not obs[0].executed
    call_state = engine.state.calls["c1"]
    assert call_state.label == "cancelled" and call_state.decision == "approved"
    assert result["tool_calls"] == 0
    assert "Cancelled" in model.calls[-1].messages[-1]["content"]  # the forced answer sees why
