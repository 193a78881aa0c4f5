"""A call whose arguments a person edited at approval: the transcript the model reads next shows
the call that ran, with a note that the user changed it (both protocols), and the stored session,
resume included, rebuilds the same transcript (scripted model)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import NoteTool, Recorder, RecordingApprover, call
from tests.unit.engine_kit import scripted_engine
from tui_agent import protocol
from tui_agent.core.approval import Approve
from tui_agent.agent.engine import Engine
from tui_agent.agent.runner import Run
from tui_agent.config import Settings
from tui_agent.model.scripted import Reply, ScriptedModel
from tui_agent.core.events import event_from_dict
from tui_agent.core.fold import fold, prompt
from tui_agent.session.resume import load
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

NOTE = '(arguments edited by the user: you proposed {"topic": "a"}; the call above shows the arguments that ran)'


def native_call(topic: str) -> Reply:
    return Reply("", tool_calls=[{"id": "call_1", "type": "function",
                                  "function": {"name": "lookup", "arguments": json.dumps({"topic": topic})}}])


def first_call(proto: str) -> str | Reply:
    return native_call("a") if proto == "native" else call("lookup", topic="a")


def answer(proto: str) -> str:
    return "It is 42 [1]." if proto == "native" else "<answer>It is 42 [1].</answer>"


def edit(request) -> Approve:
    return Approve({"topic": "edited"}, edited=True)


def sent_call(messages: list[dict], proto: str) -> dict:
    """The call the request's last assistant message shows: tool name and arguments."""
    msg = next(m for m in reversed(messages) if m["role"] == "assistant")
    if proto == "native":
        fn = msg["tool_calls"][0]["function"]
        return {"name": fn["name"], "arguments": json.loads(fn["arguments"])}
    (parsed,) = protocol.parse_reply(msg["content"]).calls
    return {"name": parsed.name, "arguments": parsed.arguments}


def result_text(messages: list[dict]) -> str:
    return messages[-1]["content"]


@pytest.mark.parametrize("proto", ["tags", "native"])
async def test_after_an_edit_the_model_reads_the_call_that_ran_and_a_note_that_the_user_changed_it(proto):
    tool = NoteTool()
    engine, rec, model = scripted_engine([first_call(proto), answer(proto)], tool,
                                         approver=RecordingApprover(edit), protocol=proto)
    await engine.run()
    sent = model.calls[1].messages
    assert tool.runs == [{"topic": "edited"}]
    assert sent_call(sent, proto) == {"name": "lookup", "arguments": {"topic": "edited"}}
    assert '"a"' not in str(next(m for m in reversed(sent) if m["role"] == "assistant"))  # the model's original is gone
    observation = rec.of("observation")[0].text
    assert NOTE + "\n" + observation in result_text(sent)
    if proto == "native":
        assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "call_1"
    # The stored reply keeps what the model wrote: only the transcript shows the call that ran.
    stored = rec.of("model_call_ended")[0]
    assert ("a" in json.dumps(stored.tool_calls)) if proto == "native" else '"topic": "a"' in stored.text


@pytest.mark.parametrize("proto", ["tags", "native"])
async def test_the_stored_session_rebuilds_the_transcript_with_the_edited_call(proto, tmp_path):
    store = Store(tmp_path / "data")
    model = ScriptedModel([first_call(proto), answer(proto)])
    run = Run(Settings(model="scripted/test", protocol=proto, answer_reserve=4000, forced_answer_tokens=1000),
              "What is the answer?", store=store, approver=RecordingApprover(edit), llm=model,
              tools=ToolRegistry([NoteTool()]))
    await run.start()
    state = load(store, run.session_id)
    assert prompt(state)[:-1] == model.calls[1].messages  # all but the final answer's message
    assert sent_call(prompt(state)[:-1], proto) == {"name": "lookup", "arguments": {"topic": "edited"}}
    assert state.calls["c1"].proposed == {"topic": "a"} and state.calls["c1"].arguments == {"topic": "edited"}


@pytest.mark.parametrize("proto", ["tags", "native"])
async def test_a_run_resumed_after_the_edit_runs_the_edited_call_once_and_sends_it_with_the_note(proto):
    first, rec, _ = scripted_engine([first_call(proto), answer(proto)], NoteTool(),
                                    approver=RecordingApprover(edit), protocol=proto)
    await first.run()
    decided = next(i for i, e in enumerate(rec.events) if e.type == "decision")
    state = fold(event_from_dict(e.stored_dict()) for e in rec.events[: decided + 1])  # stopped before it ran
    tool, model = NoteTool(), ScriptedModel([answer(proto)])
    again = Engine(Settings(model="scripted/test", protocol=proto), "", tools=ToolRegistry([tool]), llm=model,
                   emit=Recorder(), state=state)
    result = await again.run()
    sent = model.calls[0].messages
    assert result["termination"] == "answer" and tool.runs == [{"topic": "edited"}]
    assert sent_call(sent, proto) == {"name": "lookup", "arguments": {"topic": "edited"}}
    assert result_text(sent).removeprefix("<tool_response>\n").startswith(NOTE)
