"""`tui-agent eval --plan`: every case plans first; with no one to ask, its plan is approved and kept."""

from __future__ import annotations

import json

from tests.helpers import call
from tests.integration.test_eval import run_eval, tool_flags, write_set
from tui_agent.session.store import Store


def test_eval_plan_makes_each_case_plan_first_and_keeps_the_approved_plan(tmp_path, monkeypatch, capsys,
                                                                          chat_server, searx_server):
    plan = {"sub_questions": [{"question": "When?", "acceptance": "a date", "queries": ["spring tides"]}]}
    chat_server.script(json.dumps(plan), call("search", query=["spring tides"]),
                       "<answer>## 1. When?\nAt new and full moon [1].</answer>")
    searx_server.results["spring tides"] = [{"url": "https://tides.example/", "title": "Tides", "content": "moon"}]
    path = write_set(tmp_path, {"id": "tides", "question": "When are spring tides?", "expect": ["full moon"]})
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "planned", "--plan", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    assert chat_server.requests[0]["messages"][0]["content"].startswith("You plan a web research")
    assert "Research plan" in chat_server.requests[1]["messages"][1]["content"]
    store = Store(tmp_path / "data")
    sid = json.loads(out)["cases"][0]["session_id"]
    decided = [e for e in store.events(sid) if e.type == "plan_decided"]
    assert [(e.kind, e.auto) for e in decided] == [("approved", True)]
