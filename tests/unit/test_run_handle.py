"""The RunHandle on the in-memory model: a front end's one way to a run (decide, Submit now, the
breakpoint, auto mode, the events it follows), with no UI and no server."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.helpers import NoteTool, Recorder, call
from tui_agent.agent.handle import Pause, Phase, Request, RunHandle, RunSpec, Waiting
from tui_agent.config import Settings
from tui_agent.core import fold
from tui_agent.core.approval import Approve
from tui_agent.kinds import ContextEditKind
from tui_agent.model.scripted import ScriptedModel
from tui_agent.tools.base import ToolRegistry

QUESTION = "What is the answer?"


class Sink:
    """A front end's side of the handle: records what the run hands it, and answers with ``on_ask``/``on_pause``."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.pauses: list[Pause] = []
        self.notes: list[str | None] = []
        self.result: dict[str, object] | None = None
        self.error: str | None = None
        self.done = threading.Event()
        self.on_ask = lambda req: None
        self.on_pause = lambda pause: None

    def asked(self, request: Request) -> None:
        self.requests.append(request)
        self.on_ask(request)

    def paused(self, pause: Pause) -> None:
        self.pauses.append(pause)
        self.on_pause(pause)

    def released(self) -> None:
        pass

    def finished(self, result: dict[str, object] | None, error: str | None) -> None:
        self.result, self.error = result, error
        self.done.set()

    def note(self, text: str | None) -> None:
        self.notes.append(text)

    def settings_changed(self, settings: Settings) -> None:
        pass


def _setup(script: list, *, breakpoint_on=lambda: False, cli_auto: bool = False):
    sink, followed, tool = Sink(), Recorder(), NoteTool()
    model = ScriptedModel(script)
    handle = RunHandle(sink, fold.new_state("h1", QUESTION, "scripted/test"), breakpoint_on=breakpoint_on,
                       cli_auto=cli_auto)
    handle.follow(followed)
    handle.follow(handle.apply)  # the front end folds what it follows into the handle's state
    handle.reset(fold.new_state("h1", QUESTION, "scripted/test"))
    settings = Settings(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000)
    spec = RunSpec(session_id="h1", tools=ToolRegistry([tool]), llm=model)
    return handle, sink, followed, tool, model, settings, spec


def _waits(handle: RunHandle, req: Request) -> None:
    handle.pending = req  # what the front end does when a request reaches it


async def test_a_call_approved_through_the_handle_runs_and_its_events_are_followed_in_order():
    handle, sink, followed, tool, _, settings, spec = _setup([call("lookup", topic="a"), "<answer>a [1]</answer>"])
    seen: list[object] = []

    def ask(req: Request) -> None:
        _waits(handle, req)
        seen.append(handle.waiting_on()[1])
        assert handle.approve()

    sink.on_ask = ask
    await handle.drive(QUESTION, settings, spec)
    assert sink.error is None and sink.result["answer"] == "a [1]"
    assert tool.runs == [{"topic": "a"}] and seen == [Waiting.TOOL_CALL] and handle.pending is None
    kinds = [e.type for e in followed.events if e.type != "model_delta"]
    assert kinds[0] == "run_started" and kinds[-1] == "run_ended" and "decision" in kinds
    assert handle.state.answer is not None and handle.state.answer.text == "a [1]"
    assert followed.of("decision")[0].kind == "approved"


async def test_a_rejection_through_the_handle_reaches_the_model_with_its_reason():
    handle, sink, followed, tool, model, settings, spec = _setup([call("lookup", topic="a"), "<answer>no</answer>"])
    sink.on_ask = lambda req: (_waits(handle, req), handle.reject("not that one"))
    await handle.drive(QUESTION, settings, spec)
    assert tool.runs == [] and "Reason: not that one" in model.calls[1].messages[-1]["content"]


async def test_submit_now_through_the_handle_at_an_approval_forces_the_answer():
    handle, sink, followed, tool, _, settings, spec = _setup([call("lookup", topic="a"), "<answer>so far</answer>"])
    sink.on_ask = lambda req: (_waits(handle, req), handle.submit_now())
    await handle.drive(QUESTION, settings, spec)
    assert tool.runs == [] and sink.result["termination"] == "user_submit"
    assert followed.of("decision")[0].kind == "submit"


async def test_the_breakpoint_released_with_edited_messages_sends_the_edited_prompt():
    calls = {"n": 0}

    def first_only() -> bool:
        calls["n"] += 1
        return calls["n"] == 1

    handle, sink, _, _, model, settings, spec = _setup(["<answer>x</answer>"], breakpoint_on=first_only)

    def pause(p: Pause) -> None:
        handle.paused = p
        assert handle.waiting_on()[1] == Waiting.BREAKPOINT
        edited = [dict(m) for m in p.messages]
        edited[0]["content"] = "EDITED SYSTEM PROMPT"
        assert not handle.release(Pause(p.messages, p.started, p.future), edited)  # not the pause that waits
        assert handle.release(p, edited)

    sink.on_pause = pause
    await handle.drive(QUESTION, settings, spec)
    assert len(sink.pauses) == 1 and handle.paused is None
    assert model.calls[0].messages[0]["content"] == "EDITED SYSTEM PROMPT"


async def test_auto_mode_set_while_the_run_starts_approves_without_asking():
    handle, sink, followed, tool, _, settings, spec = _setup([call("lookup", topic="a"), "<answer>a [1]</answer>"])
    assert handle.phase is Phase.STARTING and handle.set_auto(True) and handle.auto_on()
    await handle.drive(QUESTION, settings, spec)
    assert sink.requests == [] and tool.runs == [{"topic": "a"}]
    assert followed.of("decision")[0].kind == "auto"


def test_nothing_waits_so_nothing_is_decided_released_or_edited():
    handle, *_ = _setup([])
    assert handle.decide(Approve({})) is False and handle.approve() is False and handle.waiting_on() is None
    assert handle.submit_now() is False and not handle.can_submit and not handle.context_live
    with pytest.raises(ValueError):
        handle.edit_context(ContextEditKind.DROP, "obs:c1")
    handle.phase = Phase.NONE
    assert handle.set_auto(True) is False  # no run holds auto mode


async def test_a_run_on_its_own_thread_is_decided_from_another_thread_and_stopped():
    gate = asyncio.Event()

    async def slow(messages, purpose):
        await gate.wait()
        return "<answer>late</answer>"

    handle, sink, followed, tool, model, settings, spec = _setup([call("lookup", topic="a"), slow])
    decided = threading.Event()
    handle.on_decided(decided.set)
    requests: list[Request] = []
    sink.on_ask = requests.append
    worker = threading.Thread(target=handle.thread(QUESTION, settings, spec))
    worker.start()
    for _ in range(500):
        if requests:
            break
        await asyncio.sleep(0.01)
    _waits(handle, requests[0])
    assert handle.approve() and decided.is_set()  # resolved across threads
    for _ in range(500):
        if len(model.calls) == 2:
            break
        await asyncio.sleep(0.01)
    assert await handle.stop(timeout=10)  # the second model call waits: stopping cancels it
    worker.join(10)
    assert tool.runs == [{"topic": "a"}] and followed.of("run_ended")[0].termination == "cancelled"
