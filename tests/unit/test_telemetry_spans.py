"""The fold from events to spans (telemetry.spans) on the scripted engine's events, into a sink
that keeps spans as dicts: the tree, a person's decisions and waits as span events, failures as
error statuses with their cause, content only when asked for and then redacted."""

from __future__ import annotations

from typing import Any

from tests.helpers import NoteTool, RecordingApprover, call
from tests.unit.engine_kit import scripted_engine
from tui_agent.core.approval import Approve, Reject
from tui_agent.model.types import ModelError
from tui_agent.telemetry.spans import SpanFold


class ListSink:
    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []

    def start(self, name: str, parent: Any, start_s: float, attributes: dict[str, Any]) -> Any:
        span = {"name": name, "parent": parent, "start": start_s, "attributes": dict(attributes), "events": [],
                "end": None, "error": None}
        self.spans.append(span)
        return span

    def end(self, span: Any, end_s: float, attributes: dict[str, Any], error: str | None) -> None:
        assert span["end"] is None, f"{span['name']} ended twice"
        span["attributes"].update(attributes)
        span["end"], span["error"] = end_s, error

    def event(self, span: Any, name: str, ts: float, attributes: dict[str, Any]) -> None:
        span["events"].append((name, attributes))

    def named(self, prefix: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"].startswith(prefix)]


async def _spans(script: list, approver: Any = None, content: bool = False, redact: Any = None) -> ListSink:
    engine, rec, _ = scripted_engine(script, NoteTool(), approver=approver)
    try:
        await engine.run()
    except ModelError:
        pass
    sink = ListSink()
    fold = SpanFold(sink, content=content, redact=redact)
    for event in rec.events:
        fold.apply(event)
    fold.close()
    return sink


async def test_the_run_is_one_root_with_its_model_calls_and_tool_calls_below_it():
    sink = await _spans([call("lookup", topic="a"), "<answer>a [1]</answer>"], approver=RecordingApprover())
    (root,) = [s for s in sink.spans if s["parent"] is None]
    assert root["name"] == "invoke_agent tui-agent" and root["attributes"]["gen_ai.conversation.id"] == "unit"
    assert root["attributes"]["tui_agent.termination"] == "answer" and root["error"] is None
    assert [s["name"] for s in sink.spans if s["parent"] is root] == [
        "chat scripted/test", "execute_tool lookup", "chat scripted/test"]
    assert all(s["end"] is not None and s["start"] <= s["end"] for s in sink.spans)


async def test_a_persons_decisions_are_span_events_with_who_decided_and_the_wait():
    approver = RecordingApprover(lambda r: Approve({"topic": "edited"}, edited=True), Reject("no"))
    sink = await _spans([call("lookup", topic="a"), call("lookup", topic="b"), "<answer>x [1]</answer>"], approver)
    edited, rejected = sink.named("execute_tool")
    assert edited["attributes"]["tui_agent.decision"] == "edited" and edited["attributes"]["tui_agent.decision.by"] == "person"
    assert [name for name, _ in edited["events"]] == ["approval_requested", "decision"]
    assert "tui_agent.wait_s" in edited["events"][1][1]
    assert rejected["attributes"]["tui_agent.decision"] == "rejected"
    assert rejected["attributes"]["tui_agent.tool.status"] == "rejected" and rejected["error"] is None


async def test_a_model_failure_sets_the_roots_status_to_error_with_its_named_cause():
    sink = await _spans([call("lookup", topic="a"), ModelError("auth", "the key was refused")],
                        approver=RecordingApprover())
    (root,) = [s for s in sink.spans if s["parent"] is None]
    assert root["attributes"]["tui_agent.termination"] == "model_error"
    assert root["error"] is not None and root["error"].startswith("model_error")
    assert sink.named("chat")[-1]["error"] == "cancelled"


async def test_content_is_left_out_unless_asked_for_and_then_goes_through_the_redaction():
    def script() -> list:
        return [call("lookup", topic="secret-topic"), "<answer>a [1]</answer>"]

    plain = await _spans(script(), approver=RecordingApprover())
    assert "secret-topic" not in repr([s["attributes"] for s in plain.spans])
    shown = await _spans(script(), approver=RecordingApprover(), content=True,
                         redact=lambda text: text.replace("secret-topic", "[REDACTED]"))
    attrs = repr([s["attributes"] for s in shown.spans])
    assert "secret-topic" not in attrs and "[REDACTED]" in attrs
    assert "gen_ai.input.messages" in shown.named("chat")[0]["attributes"]
    assert "gen_ai.tool.call.result" in shown.named("execute_tool")[0]["attributes"]


async def test_a_run_that_never_ends_is_closed_at_its_last_event_with_an_error():
    engine, rec, _ = scripted_engine([call("lookup", topic="a"), "<answer>a [1]</answer>"], NoteTool(),
                                     approver=RecordingApprover())
    await engine.run()
    sink = ListSink()
    fold = SpanFold(sink)
    for event in rec.events[:-3]:  # stopped before its end (kill -9)
        fold.apply(event)
    fold.close()
    root = sink.spans[0]
    assert root["end"] == max(e.ts for e in rec.events[:-3]) and root["error"] == "the run did not end"
    assert all(s["end"] is not None for s in sink.spans)
