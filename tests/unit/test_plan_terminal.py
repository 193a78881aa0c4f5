"""Plan mode on the plain terminal: the plan asked like a call (edit checked against the schema,
replan with feedback, --approve-plan), the clarifying questions, and --clarify FILE."""

from __future__ import annotations

import io
import json

from tests.unit.plan_kit import PLAN
from tui_agent.core.approval import ApprovalRequest
from tui_agent.cli.headless import TerminalApprover
from tui_agent.kinds import PlanDecisionKind
from tui_agent.plan.requests import ClarifyAnswers, ClarifyRequest, PlanRequest
from tui_agent.core.plan_schema import Plan
from tui_agent.plan.terminal import read_answers


def _plan_request() -> PlanRequest:
    return PlanRequest(Plan.from_dict(PLAN), attempt=1)


async def test_an_edited_plan_that_breaks_the_schema_is_shown_back_and_asked_again():
    edited = dict(PLAN, domains=["other.example"])
    typed = f'e\n{{"sub_questions": []}}\n{json.dumps(edited)}\n'
    out = io.StringIO()
    decision = await TerminalApprover(io.StringIO(typed), out).decide(_plan_request())
    assert decision.kind == PlanDecisionKind.EDITED and decision.plan.domains == ["other.example"]
    assert "sub_questions" in out.getvalue() and 'you wrote: {"sub_questions": []}' in out.getvalue()


async def test_replan_takes_written_feedback():
    decision = await TerminalApprover(io.StringIO("r\nfewer sub-questions\n"), io.StringIO()).decide(_plan_request())
    assert (decision.kind, decision.feedback) == (PlanDecisionKind.REPLAN, "fewer sub-questions")


async def test_approve_plan_approves_the_plan_only():
    approver = TerminalApprover(io.StringIO(""), io.StringIO(), approve_plan=True)
    decision = await approver.decide(_plan_request())
    assert decision.kind == PlanDecisionKind.APPROVED and decision.auto
    call = ApprovalRequest(call_id="c1", step=1, tool="visit", arguments={"url": ["https://x.example"]}, schema={},
                           outside_plan=True)
    out = io.StringIO()
    await TerminalApprover(io.StringIO("a\n"), out, approve_plan=True).decide(call)
    assert "outside the plan" in out.getvalue() and "[a]pprove" in out.getvalue()


async def test_clarifying_questions_on_the_terminal_and_from_a_file(tmp_path):
    req = ClarifyRequest(["Which bridge?", "Which year?"])
    got = await TerminalApprover(io.StringIO("the red one\n\n"), io.StringIO()).decide(req)
    assert got == ClarifyAnswers(["the red one", ""])
    path = tmp_path / "answers.txt"
    path.write_text("the red one\n1932\n")
    assert read_answers(str(path)) == ["the red one", "1932"]
    path.write_text('["a, with a comma", ""]')
    assert read_answers(str(path)) == ["a, with a comma", ""]
    got = await TerminalApprover(io.StringIO(""), io.StringIO(), clarify_answers=["x"]).decide(req)
    assert got == ClarifyAnswers(["x"])
