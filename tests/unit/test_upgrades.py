"""Sessions stored before the plan events carried their text (``PlanDecided.plan_text``,
``ClarifyAnswered.text``) still fold, resume and export as they did: ``core.upgrades`` fills the
field from the frozen copy of the text builders when a stored event lacks it."""

from __future__ import annotations

import json
import sqlite3

from tests.helpers import RecordingApprover, call
from tests.unit.plan_kit import FakeSearch, FakeVisit, plan_reply
from tui_agent.agent.runner import Run
from tui_agent.config import Settings
from tui_agent.core.fold import fold, result
from tui_agent.core.plan_schema import Plan
from tui_agent.core.upgrades import UPGRADES, upgrade
from tui_agent.kinds import PlanDecisionKind
from tui_agent.model.scripted import ScriptedModel
from tui_agent.plan import prompts
from tui_agent.plan.requests import ClarifyAnswers, PlanDecision
from tui_agent.session.exports import export
from tui_agent.session.resume import fork, load, prepare_resume
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

PAGE = "https://bridges.example/history"
ANSWER = "<answer>## 1. When did the bridge open?\nIn 1932 [1].\n\n## 2. Who built it?\nAcme [1].</answer>"
CARRIED = {"plan_decided": "plan_text", "clarify_answered": "text"}


async def _clarified_and_planned(tmp_path) -> tuple[Store, str]:
    store = Store(tmp_path / "data")
    approver = RecordingApprover(lambda r: ClarifyAnswers(["the Golden Gate", ""]),
                                 PlanDecision(PlanDecisionKind.REPLAN, feedback="fewer"),
                                 PlanDecision(PlanDecisionKind.APPROVED))
    model = ScriptedModel(['{"questions": ["Which bridge?", "Which period?"]}', plan_reply(), plan_reply(),
                           call("search", query=["bridge opening year"]), ANSWER])
    run = Run(Settings(model="scripted/test", plan="clarify", answer_reserve=4000, forced_answer_tokens=1000),
              "When did the bridge open?", store=store, approver=approver, llm=model,
              tools=ToolRegistry([FakeSearch({"bridge opening year": [PAGE]}), FakeVisit()]))
    await run.start()
    return store, run.session_id


def _to_the_old_shape(store: Store, session_id: str) -> int:
    """Rewrite the stored plan events as they were written before they carried their text."""
    store.flush(session_id)
    conn = sqlite3.connect(store.path)
    rows = conn.execute("SELECT seq, type, data FROM events WHERE session_id=? AND type IN (?, ?)",
                        (session_id, *CARRIED)).fetchall()
    for seq, kind, data in rows:
        d = json.loads(data)
        del d[CARRIED[kind]]
        conn.execute("UPDATE events SET data=? WHERE session_id=? AND seq=?", (json.dumps(d), session_id, seq))
    conn.commit()
    conn.close()
    return len(rows)


async def test_a_session_stored_before_the_plan_events_carried_their_text_folds_and_exports_as_before(tmp_path):
    store, sid = await _clarified_and_planned(tmp_path)
    new = load(store, sid)
    md, js = export(store.events(sid), "md"), json.loads(export(store.events(sid), "json"))
    assert "Which bridge? — the Golden Gate" in new.messages[1]["content"] and "Research plan" in new.messages[1]["content"]

    assert _to_the_old_shape(store, sid) == 3  # the answers, the replan, the approval
    old_dicts = list(store.event_dicts(sid))
    assert not any(CARRIED[d["type"]] in d for d in old_dicts if d["type"] in CARRIED)
    old = load(store, sid)
    assert old.messages == new.messages and old.context.items["question"].text == new.messages[1]["content"]
    assert result(old, None) == result(new, None)
    assert export(store.events(sid), "md") == md and json.loads(export(store.events(sid), "json")) == js


async def test_a_fork_of_a_session_in_the_old_shape_goes_on_with_the_question_its_model_read(tmp_path):
    store, sid = await _clarified_and_planned(tmp_path)
    read_then = load(store, sid).messages[1]["content"]
    _to_the_old_shape(store, sid)
    resumed = prepare_resume(store, fork(store, sid, at_step=1), {}, live_tools=True)
    model = ScriptedModel([ANSWER])
    run = Run(resumed.settings, resumed.question, store=store, approver=RecordingApprover(), llm=model,
              tools=ToolRegistry([FakeSearch(), FakeVisit()]), **resumed.run_kwargs())
    await run.start()
    assert model.calls and all(c.purpose == "research" for c in model.calls)  # the plan is not made again
    assert model.calls[0].messages[1]["content"] == read_then


def test_without_the_upgrades_an_old_plan_event_would_add_nothing_to_the_question():
    plan = {"sub_questions": [{"question": "When?", "acceptance": "a year", "queries": ["opening year"]}]}
    old = [{"type": "run_started", "question": "q", "model": "m", "system_prompt": "sys"},
           {"type": "plan_proposed", "plan": plan, "raw": "{}"},
           {"type": "plan_decided", "kind": "approved", "plan": plan}]
    from tui_agent.core.events import event_from_dict

    bare = fold(event_from_dict(d) for d in old)
    upgraded = fold(event_from_dict(d) for d in upgrade(old))
    assert bare.messages[1]["content"] == "q"
    assert upgraded.messages[1]["content"] == "q\n\n" + prompts.plan_block(Plan.from_dict(plan))


def test_an_upgrade_fills_only_a_missing_field_and_uses_the_questions_asked_before():
    asked = {"type": "clarify_asked", "questions": ["Which one?", "When?"]}
    old = {"type": "clarify_answered", "answers": ["the red one", ""]}
    carried = {"type": "clarify_answered", "answers": ["the red one", ""], "text": ""}
    skipped = {"type": "plan_decided", "kind": "skipped", "feedback": "Submit now"}
    out = list(upgrade([asked, old, carried, skipped]))
    assert out[1]["text"] == prompts.clarifications(["Which one?", "When?"], ["the red one", ""])
    assert out[2] is carried and out[3]["plan_text"] == ""
    assert [u.name for u in UPGRADES] == ["plan_decided_carries_plan_text", "clarify_answered_carries_text"]
