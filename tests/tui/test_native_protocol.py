"""The prompt inspector with ``--protocol native``: the exact request, its tools and calls included."""

from __future__ import annotations

from textual.widgets import DataTable, TextArea

from tests.tui.conftest import inspector_open, scripted_app, wait_ended, wait_until
from tui_agent.model import Reply


async def test_the_inspector_shows_the_tools_sent_the_calls_and_the_results_ids(tmp_path):
    looking = Reply("Looking.", tool_calls=[{"id": "call_A", "type": "function",
                                             "function": {"name": "lookup", "arguments": '{"topic": "a"}'}}])
    app, tool, model = scripted_app(tmp_path, [looking, "It is 42 [1]."], auto_approve=True, breakpoint=True,
                                    protocol="native")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app), what="the pause before step 1")
        await pilot.press("c")
        await wait_until(pilot, lambda: inspector_open(app) and len(model.calls) == 1,
                         what="the pause before step 2")
        screen = app.screen
        table = screen.query_one("#messages", DataTable)
        assert [m["role"] for m in screen.messages] == ["system", "user", "assistant", "tool"]
        assert table.row_count == 5  # the four messages and the tools sent with them
        area = screen.query_one("#message-text", TextArea)
        await pilot.press("down", "down")
        assert "Looking." in area.text and '"id": "call_A"' in area.text and '"name": "lookup"' in area.text
        await pilot.press("down")
        assert area.text.startswith("tool_call_id: call_A") and "Notes on a" in area.text
        await pilot.press("down")
        assert area.read_only and area.text.startswith("tools:") and '"name": "lookup"' in area.text
        assert '"description": "Look up a topic in the local notes."' in area.text
        await pilot.press("c")
        await wait_ended(pilot, app)
        assert app.session.answer.text == "It is 42 [1]." and tool.runs == [{"topic": "a"}]
