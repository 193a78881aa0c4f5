"""What a first hour with the TUI found (issue 26, item 6): stale pane titles on a new question,
the waiting header, Thought wrapping at 80×24, MCP names in the Calls list, allowed-by-policy
calls, the inspector's recount, the gauge, the model dialog's note and Ctrl-C."""

from __future__ import annotations

import pytest

from tests.helpers import NoteTool, call
from tests.tui.conftest import make_app, scripted_app, wait_ended, wait_pending, wait_until
from tui_agent.screens.question import QuestionScreen

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"


async def test_a_new_question_shows_no_step_numbers_of_the_last_session(tmp_path):
    app, _, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        assert "step 2" in app.main.thought.border_title
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question dialog")
        app.screen.query_one("Input").value = "Another question?"
        titles: list[list[str]] = []
        reset = app.main.reset

        def reset_and_look(session):  # the panes as the new session shows them before its first step
            reset(session)
            titles.append([str(app.main.query_one(p).border_title) for p in ("#thought", "#action", "#observation")])

        app.main.reset = reset_and_look
        await pilot.press("enter")
        await wait_ended(pilot, app)
        assert titles == [["Thought", "Action", "Observation"]]


PLAN = {"sub_questions": [{"question": "What does the note say?", "acceptance": "the number",
                           "queries": ["note number"]}], "domains": ["notes.example"]}


async def test_the_header_says_a_plan_or_clarifying_questions_wait_for_you(tmp_path):
    import json

    from textual.widgets import Input

    from tui_agent.screens.plan import ClarifyScreen, PlanScreen

    app, _, model = scripted_app(tmp_path, [json.dumps({"questions": ["Which notes?"]}), json.dumps(PLAN), ANSWER], plan="clarify", require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ClarifyScreen) and app.screen.query(Input),
                         what="the questions")
        await pilot.pause()
        assert app.main.header.state == "awaiting your answers"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen.query("#plan-view"),
                         what="the plan dialog")
        await pilot.pause()
        assert app.main.header.state == "awaiting plan approval"
        await pilot.press("a")
        await wait_ended(pilot, app)
        assert app.main.header.state == "ended: answer"


LONG_THOUGHT = " ".join(f"w{i}{'x' * (i % 9)}" for i in range(40))  # words of every length, a few lines


def pane_text(pane) -> list[str]:
    """Every line of text the pane paints, scrolled line by line from the top (without its title line)."""
    from textual.geometry import Region

    seen: list[str] = []
    for index in range(len(pane._vis)):
        pane.scroll_to(y=min(index, pane.max_scroll_y), animate=False, immediate=True)
        row = 1 + index - pane.scroll_offset.y  # under the title line
        seen.append(pane.render_lines(Region(0, row, pane.size.width, 1))[0].text)
    return seen


@pytest.mark.parametrize("chunk_size", [7, 4000])
async def test_at_80x24_a_long_streamed_thought_keeps_every_character(chat_server, tmp_path, chunk_size):
    """Streamed in small pieces or at once: the scrollbar comes with the piece that overflows the pane
    and takes its columns; no line may run under it."""
    from tests.servers import Reply

    chat_server.script(Reply(f"<think>{LONG_THOUGHT}</think>" + call("lookup", topic="a"), chunk_size=chunk_size),
                       ANSWER)
    app, _ = make_app(chat_server, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_pending(pilot, app)
        pane = app.main.thought
        assert pane.text == LONG_THOUGHT and pane.max_scroll_y > 0  # it scrolls: the scrollbar is there
        assert " ".join(pane_text(pane)).split() == LONG_THOUGHT.split()
        await pilot.press("a")
        await wait_ended(pilot, app)


class FileTool(NoteTool):
    """A tool named as an MCP server's tools are (``mcp__SERVER__TOOL``)."""

    name = "mcp__filesystem__read_text_file"


def calls_row(app, call_id: str = "c1") -> dict[str, str]:
    steps = app.main.steps
    return {str(key.value): str(steps.get_cell(call_id, key.value)) for key in steps.columns}


async def test_the_calls_list_shows_the_mcp_tool_not_its_prefix(tmp_path):
    from rich.cells import cell_len

    app, _, model = scripted_app(tmp_path, [call(FileTool.name, topic="a"), ANSWER], tool=FileTool())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_pending(pilot, app)
        cell = calls_row(app)["tool"]
        width = app.main.steps.columns["tool"].width
        assert cell_len(cell) <= width and cell.startswith("read_") and cell.endswith("file"), cell
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_a_call_an_allow_policy_ran_shows_as_allowed_by_policy(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call(FileTool.name, topic="a"), ANSWER], tool=FileTool(), tool_policies={"mcp__filesystem__*": "allow"})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        assert tool.runs == [{"topic": "a"}]  # it ran without asking
        assert calls_row(app)["status"] == "policy"
        app.main.view.go_to(1)
        await pilot.pause()
        assert "allowed by policy" in str(app.main.action.query_one("#call-view").render())


async def test_the_inspector_counts_an_edited_message_again(tmp_path):
    from textual.widgets import DataTable, TextArea

    from tests.tui.conftest import inspector_open

    app, _, model = scripted_app(tmp_path, [ANSWER], breakpoint=True, require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app), what="the breakpoint")
        inspector = app.screen
        table = inspector.query_one("#messages", DataTable)
        before, total = str(table.get_cell("0", "tokens")), inspector.total
        area = inspector.query_one("#message-text", TextArea)
        area.load_text("You are brief. " + "Cite every source you use, by its number. " * 100)
        await wait_until(pilot, lambda: str(table.get_cell("0", "tokens")) != before, what="the new count")
        grown = int(str(table.get_cell("0", "tokens")).replace(",", ""))
        old = int(before.replace(",", ""))
        assert grown > old + 300 and inspector.total == total + grown - old
        assert f"{inspector.total:,}" in str(inspector.query_one("#inspector-summary").render())
        assert f"{grown:,} tokens" in str(inspector.query_one("#message-title").render())
        await pilot.press("c")
        await wait_ended(pilot, app)


def words(text: str) -> list[str]:
    """The words of a gauge line without its figures: what says which format it is."""
    import re

    return re.findall(r"[a-z]+", re.sub(r"\d[\d.,]*k?", "#", text.split("│")[0]))


@pytest.mark.parametrize("width", [80, 100, 160])
async def test_the_gauge_keeps_one_format_as_the_run_goes_and_explains_measured(tmp_path, width):
    from tui_agent.widgets.token_gauge import GaugeFigures, TokenGauge

    app, _, model = scripted_app(tmp_path, [], question=None)
    async with app.run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        gauge = app.main.query_one(TokenGauge)
        seen = []
        for tokens, measured in [(0, None), (373, None), (373, 410), (9_876, 9_990), (27_500, 27_610)]:
            gauge.set_figures(GaugeFigures(prompt_tokens=tokens, threshold=28_000, window=32_768, measured=measured,
                                           calls=12, max_calls=100, elapsed_s=65, max_s=9000))
            seen.append(words(str(gauge.render())))
        with_measured = [w for w in seen[2:]]
        assert all(w == with_measured[0] for w in with_measured), seen
        assert [w for w in seen[0] if not w.startswith("meas")] == \
            [w for w in with_measured[0] if not w.startswith("meas")], seen  # measured comes, nothing else changes
        tip = str(gauge.tooltip)
        assert "estimated" in tip and "measured" in tip and "reserve" in tip


async def test_the_model_dialog_before_any_question_does_not_promise_a_rerun(tmp_path):
    from tui_agent.screens.setup import ModelScreen

    app, _, model = scripted_app(tmp_path, [], question=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question dialog")
        await pilot.press("escape", "m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="the model dialog")
        note = str(app.screen.query_one(".dialog-text").render())
        assert "runs again" not in note and "session" not in note
        assert "question" in note  # what comes next: the question is asked


async def test_the_model_dialog_after_a_run_says_the_question_runs_again(tmp_path):
    from tui_agent.screens.setup import ModelScreen

    app, _, model = scripted_app(tmp_path, [ANSWER], require_evidence=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ended(pilot, app)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="the model dialog")
        note = str(app.screen.query_one(".dialog-text").render())
        assert "The last run ended with answer." in note and "runs again as a new session" in note


def told_to_quit(app) -> bool:
    return any("ctrl+q" in f"{n.title} {n.message}".lower() for n in app._notifications)


@pytest.mark.parametrize("where", ["question dialog", "main screen", "model dialog"])
async def test_ctrl_c_says_how_to_quit_wherever_it_is_pressed(tmp_path, where):
    from tui_agent.screens.setup import ModelScreen

    app, _, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], question="What is it?" if where == "main screen" else None)
    async with app.run_test(size=(100, 30)) as pilot:
        if where == "main screen":
            await wait_pending(pilot, app)
        else:
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question dialog")
        if where == "model dialog":
            await pilot.press("escape", "m")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="the model dialog")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert told_to_quit(app), [n.message for n in app._notifications]
        assert app.is_running and app.return_code is None


async def test_ctrl_c_still_copies_the_text_selected_in_a_box(tmp_path):
    from textual.widgets import Input
    from textual.widgets.input import Selection

    app, _, model = scripted_app(tmp_path, [], question=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question dialog")
        box = app.screen.query_one(Input)
        box.value = "tides of the harbour"
        box.selection = Selection(0, 5)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "tides" and app.is_running
        assert any("Copied" in n.message for n in app._notifications) and told_to_quit(app)


async def test_the_browser_counts_the_tools_a_live_session_ran(tmp_path):
    """Issue 26 item 7: a running (here: waiting) session whose call ran showed `tools 0`."""
    from textual.widgets import DataTable

    from tests.tui.conftest import SESSION_ID
    from tui_agent.screens.sessions import SessionsScreen

    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app, 1)
        await pilot.press("a")
        await wait_pending(pilot, app, 2)
        assert len(tool.runs) == 1
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.query(DataTable),
                         what="the browser")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        row = {str(c.label): str(v) for c, v in zip(table.columns.values(), table.get_row(SESSION_ID))}
        assert row["status"] in ("running", "awaiting approval") and row["tools"] == "1", row


async def test_at_80x24_the_thought_panes_placeholder_is_whole(tmp_path):
    app, _, model = scripted_app(tmp_path, [], question=None)
    from textual.geometry import Region

    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), what="the question dialog")
        await pilot.press("escape")
        await pilot.pause()
        pane = app.main.thought
        lines = [s.text for s in pane.render_lines(Region(0, 0, pane.size.width, pane.size.height))]
        assert " ".join(" ".join(lines[1:]).split()) == pane.placeholder, lines  # under the title line
