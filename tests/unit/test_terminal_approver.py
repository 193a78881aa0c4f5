"""The headless approver on the terminal: editing a call's arguments as JSON."""
import io

from tui_agent.core.approval import Approve, ApprovalRequest, Reject
from tui_agent.cli.headless import TerminalApprover

SCHEMA = {"type": "object", "properties": {"query": {"type": "array", "items": {"type": "string"}}},
          "required": ["query"]}


def _request() -> ApprovalRequest:
    return ApprovalRequest(call_id="c1", step=1, tool="search", arguments={"query": ["a"]}, schema=SCHEMA)


async def test_invalid_edited_json_is_shown_back_and_asked_again_not_dropped_at_the_menu():
    typed = 'e\n{"query": ["tides"\n{"query": ["tides"]}\n'
    out = io.StringIO()
    decision = await TerminalApprover(io.StringIO(typed), out).decide(_request())
    assert decision == Approve({"query": ["tides"]}, edited=True)
    text = out.getvalue()
    assert "not valid JSON" in text
    assert 'you wrote: {"query": ["tides"' in text
    # asked at the JSON prompt again, not at the menu
    assert text.count("arguments as JSON") == 2
    assert text.count("[a]pprove") == 1


async def test_edited_arguments_that_break_the_schema_are_shown_back_with_the_error():
    typed = 'e\n{"query": 3}\n{"query": ["x"]}\n'
    out = io.StringIO()
    decision = await TerminalApprover(io.StringIO(typed), out).decide(_request())
    assert decision == Approve({"query": ["x"]}, edited=True)
    assert 'you wrote: {"query": 3}' in out.getvalue()


async def test_an_empty_line_at_the_json_prompt_goes_back_to_the_menu():
    typed = "e\n\nr\nnot needed\n"
    decision = await TerminalApprover(io.StringIO(typed), io.StringIO()).decide(_request())
    assert decision == Reject("not needed")
