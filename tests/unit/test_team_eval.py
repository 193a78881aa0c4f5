"""eval --team: a set's cases researched by teams, and eval compare between a plain and a team
label showing answers, sources, tokens and cost side by side."""

from __future__ import annotations

from tests.unit.team_kit import KEYS, PageVisit, standard, url
from tests.unit.plan_kit import FakeSearch
from tui_agent.cli.eval import comparison_text
from tui_agent.config import Settings
from tui_agent.evals.cases import Case
from tui_agent.evals.compare import compare
from tui_agent.evals.runs import EvalRun
from tui_agent.model.scripted import ScriptedModel
from tui_agent.session.store import Store
from tui_agent.tools.base import ToolRegistry

CASE = Case("works", "Tell me about the Alpha tower, the Beta bridge and the Gamma dam.", ["42"])


def plain(messages, purpose):
    steps = sum(1 for m in messages if m["role"] == "assistant")
    if steps == 0:
        from tests.helpers import call

        return call("visit", url=[url("alpha")], goal="figure")
    return "<answer>The alpha figure is 42 units [1].</answer>"


async def run_label(store: Store, label: str, script, **settings) -> None:
    s = Settings(model="scripted/test", answer_reserve=4000, forced_answer_tokens=1000, **settings)
    tools = ToolRegistry([FakeSearch({f"{k} facts": [url(k)] for k in KEYS}), PageVisit()])
    run = EvalRun(s, store, label, "set.jsonl", 1, run_kwargs={"llm": ScriptedModel(script), "tools": tools})
    run.record([CASE])
    results = await run.run([CASE])
    assert results[0].termination == "answer", results[0]


async def test_eval_team_runs_cases_as_teams_and_compare_shows_both_side_by_side(tmp_path):
    store = Store(tmp_path)
    await run_label(store, "plain", plain)
    await run_label(store, "team", standard, team=True)
    team_row = store.eval_sessions("team")["works"]
    assert len(store.team_children(team_row.id)) == 3  # the case was researched by three agents
    cmp = compare(store, "plain", "team")
    sides = cmp.cases[0].as_json()["side_by_side"]
    assert sides["a"]["sources"] == [url("alpha")]
    assert sides["b"]["sources"] == [url(k) for k in KEYS]
    assert sides["b"]["answer"].count("## ") == 3
    assert sides["b"]["tokens"] > sides["a"]["tokens"] > 0
    text = comparison_text(cmp)
    assert "plain: 1 sources" in text and "team: 3 sources" in text
