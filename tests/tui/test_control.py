"""Submit now, the breakpoint and the prompt inspector, model errors, steps, the answer, quitting."""

from __future__ import annotations


from textual.widgets import Input, TextArea

from tests.helpers import call
from tests.servers import Fault, Reply
from tui_agent.model import Reply as ModelReply
from tests.tui.conftest import (
    SESSION_ID, inspector_open, make_app, scripted_app, wait_ended, wait_pending, wait_until,
)
from tui_agent.screens.confirm import ConfirmScreen
from tui_agent.screens.inspector import InspectorScreen
from tui_agent.screens.setup import ModelScreen
from tui_agent.session.store import Store

ANSWER = "<think>Found it.</think><answer>It is 42 [1].</answer>"
FORCED_MARK = "write your final answer now inside <answer>"


async def test_submit_now_during_a_stream_forces_the_answer_with_the_last_observation(chat_server, tmp_path):
    chat_server.script(
        call("lookup", topic="first"),
        Reply("<think>" + "long thinking " * 300 + "</think>", chunk_size=4, chunk_delay_s=0.01),
        "<answer>submitted</answer>",
    )
    app, tool = make_app(chat_server, tmp_path, auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: 2 in app.session.steps and len(app.session.steps[2].live_thought) > 40,
                         what="streamed thinking of step 2")
        assert "long thinking" in app.main.query_one("#thought").text
        await pilot.press("s")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "user_submit"
        assert app.last_result["answer"] == "submitted"
        forced = chat_server.requests[-1]["messages"]
        assert "Notes on first" in forced[-1]["content"] and FORCED_MARK in forced[-1]["content"]
        assert len(chat_server.requests) == 3


async def test_submit_now_button_during_a_pending_approval(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), "<answer>now</answer>"])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app, 1)
        await pilot.press("a")
        await wait_pending(pilot, app, 2)
        await pilot.click("#submit_now")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "user_submit"
        assert tool.runs == [{"topic": "a"}]
        forced = model.calls[-1].messages
        assert any("Notes on a" in m["content"] for m in forced)
        assert "Not run: the user asked for the answer now." in forced[-1]["content"]
        assert app.session.calls["c2"].label == "not run"


async def test_breakpoint_edit_of_the_system_prompt_is_what_the_model_is_sent(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], breakpoint=True, auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app), what="the breakpoint")
        inspector = app.screen
        assert inspector.paused and app.main.header.state == "paused" and not model.calls
        assert 0 in inspector.editable and len(inspector.messages) - 1 in inspector.editable
        area = inspector.query_one("#message-text", TextArea)
        assert not area.read_only and area.text.startswith("You are")
        area.load_text("EDITED SYSTEM PROMPT")
        await pilot.pause()
        area.focus()
        await pilot.press("c")  # typed into the editor, not a key binding
        assert isinstance(app.screen, InspectorScreen) and area.text == "cEDITED SYSTEM PROMPT"
        area.load_text("EDITED SYSTEM PROMPT")
        await pilot.press("escape")  # leave the editor
        assert not area.has_focus
        await pilot.press("b")  # breakpoint off, from inside the inspector
        assert not app.breakpoint
        await pilot.press("c")
        await wait_ended(pilot, app)
        assert model.calls[0].messages[0]["content"] == "EDITED SYSTEM PROMPT"
        assert model.calls[1].messages[0]["content"] == "EDITED SYSTEM PROMPT"
        store = Store(tmp_path / "data")
        edits = [e for e in store.events(SESSION_ID) if e.type == "prompt_edited"]
        assert [(e.index, e.role) for e in edits] == [(0, "system")]


async def test_one_step_then_pause_again(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), call("lookup", topic="b"), ANSWER], breakpoint=True, auto_approve=True)
    pauses = 0
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app))
        pauses += 1
        await pilot.press("b")  # off: only `n` pauses now
        await pilot.press("n")
        await wait_until(pilot, lambda: inspector_open(app) and len(model.calls) == 1,
                         what="the pause after one step")
        pauses += 1
        assert app.screen.step == 2
        await pilot.press("c")
        await wait_ended(pilot, app)
        assert pauses == 2 and len(model.calls) == 3


async def test_inspector_is_read_only_while_running(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("i")
        assert isinstance(app.screen, InspectorScreen) and not app.screen.paused
        area = app.screen.query_one("#message-text", TextArea)
        assert area.read_only
        summary = str(app.screen.query_one("#inspector-summary").render())
        assert "2 messages" in summary and "tokens" in summary
        await pilot.press("escape")
        assert app.screen is app.main
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_submit_now_at_a_breakpoint(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), "<answer>at once</answer>"], auto_approve=True, breakpoint=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: inspector_open(app))
        await pilot.press("c")
        await wait_until(pilot, lambda: inspector_open(app) and len(model.calls) == 1,
                         what="the pause before step 2")
        await pilot.press("s")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "user_submit"
        assert app.screen is app.main
        assert len(model.calls) == 2 and "Notes on a" in model.calls[1].messages[-1]["content"]


async def test_model_error_then_retry_with_another_model_is_a_new_session(chat_server, tmp_path):
    chat_server.script(Fault(status=404), "<answer>from the other model</answer>")
    app, tool = make_app(chat_server, tmp_path, require_evidence=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "model_error"
        assert app.main.header.state == "ended: model_error"
        assert any("Model error" in n.message for n in app._notifications)
        assert app.is_running
        await pilot.press("m")
        assert isinstance(app.screen, ModelScreen)
        app.screen.query_one("#model-input", Input).value = "openai/other-model"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.ended is not None and app.session.session_id != SESSION_ID)
        assert app.session.ended.termination == "answer"
        assert chat_server.requests[-1]["model"] == "other-model"
        assert app.main.header.model == "openai/other-model"
        store = Store(tmp_path / "data")
        sessions = {s.id: s for s in store.list_sessions()}
        assert sessions[SESSION_ID].termination == "model_error"
        assert sessions[app.session.session_id].termination == "answer"


async def test_steps_can_be_browsed_while_the_run_waits(tmp_path):
    app, tool, model = scripted_app(tmp_path, ["<think>first thought</think>" + call("lookup", topic="a"),
                       "<think>second thought</think>" + call("lookup", topic="b"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app, 1)
        await pilot.press("a")
        await wait_pending(pilot, app, 2)
        thought = app.main.query_one("#thought")
        assert "second thought" in thought.text
        await pilot.press("left")
        assert app.main.view_step == 1
        assert "first thought" in thought.text
        await wait_until(pilot, lambda: "Notes on a" in app.main.query_one("#observation").text)
        assert app.pending is not None  # still waiting, still shown
        await pilot.press("right")
        assert app.main.view_step is None and "second thought" in thought.text
        await pilot.press("a")
        await wait_ended(pilot, app)


async def test_copy_says_what_it_did_and_save_asks_where_in_the_export_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exports = tmp_path / "exports"
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="life"), ANSWER], auto_approve=True, export_dir=str(exports))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        await pilot.press("C")
        assert "It is 42 [1]." in app.clipboard and "https://notes.example/life" in app.clipboard
        assert any("OSC 52" in n.message and "ignores" in n.message for n in app._notifications)
        await pilot.press("W")
        await pilot.pause()
        box = app.screen.query_one("#path-input", Input)
        assert box.value == str(exports / f"answer-{SESSION_ID}.md")  # pre-filled, nothing written yet
        assert not exports.exists() and not list(tmp_path.glob("answer-*.md"))
        await pilot.press("enter")
        await pilot.pause()
        saved = exports / f"answer-{SESSION_ID}.md"
        text = saved.read_text()
        assert "# What is the answer to life?" in text and "[1]" in text and "notes.example/life" in text
        assert any(str(saved) in n.message for n in app._notifications)
        await pilot.press("W")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(tmp_path / "elsewhere" / "mine.md")
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "elsewhere" / "mine.md").read_text() == text


async def test_quit_asks_while_a_run_is_active_and_the_session_stays(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is app.main and app.is_running
        await pilot.press("q")
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running, what="the app to exit")
    assert app.return_code == 1
    row = Store(tmp_path / "data").get_session(SESSION_ID)
    assert row.termination == "cancelled"


async def test_every_action_is_in_the_command_palette(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for title in ("Approve tool call", "Edit tool call arguments", "Reject tool call", "Always approve this tool",
                      "Auto mode on/off", "Submit now", "Breakpoint on/off", "Prompt inspector", "Previous step",
                      "Next step", "Help", "Theme", "Quit"):
            assert title in titles, title
        approve = next(c for c in app.get_system_commands(app.screen) if c.title == "Approve tool call")
        await approve.callback()
        await wait_ended(pilot, app)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Copy answer", "Save answer as Markdown", "Change model and run again", "New question"} <= titles
        assert "Approve tool call" not in titles


async def test_a_quit_session_is_resumed_from_the_command_line_and_the_browser_hook(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), ANSWER)
    app, tool = make_app(chat_server, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_pending(pilot, app)
        await pilot.press("q", "y")
        await wait_until(pilot, lambda: not app.is_running, what="the app to exit")
    assert Store(tmp_path / "data").get_session(SESSION_ID).termination == "cancelled"

    from tests.helpers import settings_for
    from tui_agent.app.application import ResearchApp
    from tui_agent.tools.base import ToolRegistry

    settings = settings_for(chat_server, data_dir=str(tmp_path / "data"))
    app2 = ResearchApp(settings, None, resume=SESSION_ID, tools=ToolRegistry([tool]), store=Store(tmp_path / "data"))
    async with app2.run_test(size=(120, 40)) as pilot:
        assert app2.main.header.session_id == SESSION_ID
        await wait_pending(pilot, app2)  # the interrupted call is asked again
        assert "What is the answer to life?" in str(app2.main.query_one("#question").render())
        await pilot.press("a")
        await wait_ended(pilot, app2)
        assert app2.session.ended.termination == "answer" and tool.runs == [{"topic": "a"}]
        assert app2.session.session_id == SESSION_ID


async def test_the_sessions_browser_opens_from_the_app_with_its_store(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        assert "Sessions" in {c.title for c in app.get_system_commands(app.screen)}
        await pilot.press("o")
        from tui_agent.screens.sessions import SessionsScreen

        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser")

        assert isinstance(app.screen, SessionsScreen) and app.screen.store is app.store


async def test_a_forced_answer_cut_by_the_length_limit_is_marked_in_the_answer_pane(tmp_path):
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ModelReply("<answer>It is 42 [1], because",
                                                                                    finish_reason="length")],
                                    auto_approve=True, max_calls=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        assert app.session.answer.truncated and app.session.ended.termination == "call_limit"
        assert "truncated: cut by the model's length limit" in app.main.query_one("#answer").border_title


async def test_v_checks_the_citations_and_marks_the_claims_in_the_answer(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="life"), "<think>ok</think><answer>The answer is 42 [1]. The sky is green "
                                                     "[1].</answer>")
    app, tool = make_app(chat_server, tmp_path, auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ended(pilot, app)
        def verifier(req):  # the claim sits between "The claim" and the sources
            claim = req["messages"][-1]["content"].split("=== SOURCES START ===")[0]
            return ('{"verdict": "supported", "evidence": "the answer is 42"}' if "42" in claim
                    else '{"verdict": "unsupported", "evidence": ""}')

        chat_server.default = verifier
        await pilot.press("v")
        await wait_until(pilot, lambda: app.session.verification is not None and app.session.verification.ended
                         and not app.verifying, what="the citation check")
        await pilot.pause(0.3)
        v = app.session.verification
        assert [str(c.verdict) for c in v.claims] == ["supported", "unsupported"] and v.needs_review
        text = app.main.query_one("#answer").text
        assert "The answer is 42 [1]. **[✓ supported]**" in text and "**[✗ unsupported]**" in text
        assert "citations: needs review" in app.main.query_one("#answer").border_title
    stored = [e.type for e in Store(tmp_path / "data").events(SESSION_ID)]
    assert stored.count("claim_checked") == 2 and stored[-1] == "verification_ended"


async def test_submit_now_before_any_text_arrived_leaves_no_empty_step(chat_server, tmp_path):
    chat_server.script(call("lookup", topic="a"), Reply("<answer>too late</answer>", delay_s=30),
                       "<answer>It is 42 [1].</answer>")
    app, tool = make_app(chat_server, tmp_path, auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: len(chat_server.requests) == 2 and app.session.in_flight,
                         what="the second model call")
        await pilot.press("s")
        await wait_ended(pilot, app)
        assert app.session.ended.termination == "user_submit" and app.session.answer.text == "It is 42 [1]."
        # The cancelled call showed nothing: the forced answer takes its place as step 2.
        assert app.session.step_numbers == [1, 2] and app.session.steps[2].purpose == "forced"
        await pilot.press("left")
        assert app.main.view_step == 1 and "step 1 of 2" in app.main.thought.border_title


async def test_m_works_while_a_call_is_retried_and_the_dialog_takes_an_api_key(chat_server, tmp_path, config_dir):
    # 503s with a 10 s backoff: the run is waiting to retry when m is pressed.
    chat_server.script(*[Fault(status=503)] * 5)
    app, tool = make_app(chat_server, tmp_path, require_evidence=False, retry_base_s=10.0, retry_cap_s=10.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.retrying(), what="the first retry")
        assert app.session.active
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelScreen), what="the model dialog")
        app.screen.query_one("#model-input", Input).value = "openai/other-model"
        app.screen.query_one("#api-key-input", Input).value = "sk-other-key-0123456789abcdef"
        app.screen.query_one("#remember").value = True
        chat_server.clear_script()
        chat_server.script("<answer>from the other model</answer>")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.ended is not None and app.session.session_id != SESSION_ID,
                         what="the new session")
        assert app.session.ended.termination == "answer" and chat_server.requests[-1]["model"] == "other-model"
        assert chat_server.request_headers[-1]["authorization"] == "Bearer sk-other-key-0123456789abcdef"
    assert Store(tmp_path / "data").get_session(SESSION_ID).status == "cancelled"  # the retried run stopped
    saved = config_dir / "config.toml"
    assert 'model = "openai/other-model"' in saved.read_text() and "sk-other-key" in saved.read_text()
    assert saved.stat().st_mode & 0o777 == 0o600  # a key is saved readable by its owner only


async def test_the_header_says_what_start_up_waits_for(tmp_path, monkeypatch):
    import threading

    import tui_agent.agent.handle as run_handle  # the run's thread imports the engine there

    loaded = threading.Event()
    real = run_handle.warm_up
    monkeypatch.setattr(run_handle, "warm_up", lambda *settings: (loaded.wait(30), real(*settings)))
    app, tool, model = scripted_app(tmp_path, [call("lookup", topic="a"), ANSWER], auto_approve=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main.header.state == "loading model library…", what="the loading note")
        loaded.set()
        await wait_ended(pilot, app)
        assert app.main.header.state == "ended: answer"
