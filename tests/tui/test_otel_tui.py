"""`otel = true` in the TUI: a research's spans reach a local OTLP/HTTP receiver, as `run --otel`'s do."""

from __future__ import annotations

from tests.helpers import call
from tests.otlp_receiver import OtlpReceiver
from tests.tui.conftest import SESSION_ID, scripted_app, wait_until

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"


async def test_a_tui_research_with_otel_on_sends_one_trace_named_by_its_session(tmp_path, monkeypatch):
    receiver = OtlpReceiver()
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "5")
        app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], auto_approve=True, otel=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: app.session.answer is not None, what="the answer")
            await wait_until(pilot, lambda: any(not s["parent_id"] for s in receiver.spans), what="the root span sent")
        roots = [s for s in receiver.spans if not s["parent_id"]]
        assert [r["name"] for r in roots] == ["invoke_agent tui-agent"]
        assert roots[0]["attributes"]["gen_ai.conversation.id"] == SESSION_ID
        names = {s["name"] for s in receiver.spans}
        assert "execute_tool lookup" in names and any(n.startswith("chat ") for n in names)
    finally:
        receiver.close()
