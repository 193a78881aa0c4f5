"""A budget that cannot be silently off: --budget-usd on a model without a price refuses to start,
a configured price makes it work, and --budget-tokens stops a run whatever the price. `run` and
`eval` against the scripted server, litellm for real."""

from __future__ import annotations

import json

from tests.helpers import call
from tests.integration.test_cli import isolated_env
from tests.integration.test_eval import PerQuestion, run_eval, tool_flags, write_set
from tests.servers import Reply
from tui_agent.cli import main
from tui_agent.session.store import Store

SEARCHES = [Reply(call("search", query=[f"q{n}"]), prompt_tokens=1000, completion_tokens=100) for n in range(5)]


def run_cli(monkeypatch, capsys, tmp_path, *args: str, env: dict | None = None) -> tuple[int, str, str]:
    for key, value in (isolated_env(tmp_path) | (env or {})).items():
        monkeypatch.setenv(key, value)
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_flags(chat, searx) -> list[str]:
    return ["What is the answer?", "--json", "--yes", *tool_flags(chat, searx)]


def test_a_usd_budget_on_a_model_without_a_price_refuses_to_start_and_says_how_to_set_one(
        tmp_path, monkeypatch, capsys, chat_server, searx_server):
    code, out, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server),
                             "--budget-usd", "0.0001")
    assert code == 2 and out == ""
    assert "openai/test-model" in err and "price_per_million_input" in err and "--budget-tokens" in err
    assert "Traceback" not in err
    path = write_set(tmp_path, {"id": "a", "question": "What is the answer?"})
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "b", "--budget-usd", "0.0001",
                              *tool_flags(chat_server, searx_server))
    assert code == 2 and "price_per_million_output" in err
    assert chat_server.requests == []  # nothing ran


def test_a_configured_price_prices_the_calls_and_the_usd_budget_stops_the_run(tmp_path, monkeypatch, capsys,
                                                                              chat_server, searx_server):
    chat_server.script(*SEARCHES[:2])  # then the default answer, for the forced call
    price = {"TUI_AGENT_PRICE_PER_MILLION_INPUT": "1000", "TUI_AGENT_PRICE_PER_MILLION_OUTPUT": "2000"}
    code, out, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server),
                             "--budget-usd", "1.5", env=price)
    assert code == 0, err
    result = json.loads(out)
    assert result["termination"] == "budget_limit" and result["model_calls"] == 2
    # 1000 prompt tokens at $1000/M and 100 completion tokens at $2000/M: $1.20 a research call.
    ended = [e for e in Store(tmp_path / "data").event_dicts(result["session_id"]) if e["type"] == "model_call_ended"]
    assert [round(e["cost_usd"], 6) for e in ended if e["purpose"] == "research"] == [1.2, 1.2]
    assert result["cost_usd"] == sum(e["cost_usd"] for e in ended)


def test_a_token_budget_stops_a_run(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    chat_server.script(*SEARCHES[:2])  # then the default answer, for the forced call
    code, out, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server),
                             "--budget-tokens", "2000")
    assert code == 0, err
    result = json.loads(out)
    assert result["termination"] == "budget_limit" and result["model_calls"] == 2  # 1,100 then 2,200 tokens
    assert result["answer"] == "default answer"  # the forced answer


def test_a_token_budget_stops_each_case_of_an_eval(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    chat_server.default = PerQuestion({"case": SEARCHES})
    path = write_set(tmp_path, {"id": "a", "question": "First case?"}, {"id": "b", "question": "Second case?"})
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "t", "--budget-tokens", "3000", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    for case in json.loads(out)["cases"]:
        assert case["termination"] == "budget_limit" and case["model_calls"] == 3 and case["answer"] == "forced answer"
