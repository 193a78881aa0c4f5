"""Failures are not results: a case that did not answer says what failed, runs again when its label
does, and `eval compare` counts it as errored, not regressed. Real litellm against the scripted
server and a closed port on 127.0.0.1."""

from __future__ import annotations

import json

from tests.helpers import call
from tests.integration.test_eval import PerQuestion, run_eval, tool_flags, write_set
from tests.servers import closed_port
from tui_agent.session.store import Store

CASES = [{"id": "one", "question": "What is case one?", "expect": ["first"]},
         {"id": "two", "question": "What is case two?", "expect": ["second"]}]


def answering(chat) -> None:
    chat.default = PerQuestion({"case one": [call("search", query=["one"]), "<answer>the first</answer>"],
                                "case two": [call("search", query=["two"]), "<answer>the second</answer>"]})


def dead_flags(chat, searx, base: str) -> list[str]:
    flags = tool_flags(chat, searx)
    flags[flags.index("--api-base") + 1] = base
    return flags


def test_a_case_against_a_dead_endpoint_says_what_failed_and_runs_again_with_the_label(
        tmp_path, monkeypatch, capsys, chat_server, searx_server):
    answering(chat_server)
    path = write_set(tmp_path, *CASES)
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "x", "--json",
                              *dead_flags(chat_server, searx_server, dead))
    assert code == 1, err
    first = {c["id"]: c for c in json.loads(out)["cases"]}
    for case in first.values():
        assert case["termination"] == "model_error" and case["answer"] is None
        assert dead in case["error"] and "connection refused" in case["error"] and "openai/test-model" in case["error"]
    # The table says it too: the termination in its column, what failed under the table.
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "y",
                              *dead_flags(chat_server, searx_server, dead))
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:3]}
    assert rows["one"][2] == "model_error"
    assert any(line.startswith("one: model error: cannot reach") and dead in line for line in out.splitlines())
    # The same label again, now with the server up: the failed cases run again (new sessions).
    assert chat_server.requests == []
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "x", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    again = {c["id"]: c for c in json.loads(out)["cases"]}
    for case_id, case in again.items():
        assert case["termination"] == "answer" and case["passed"] is True and case["error"] is None
        assert case["session_id"] != first[case_id]["session_id"]
    assert "(kept)" not in out and len(chat_server.requests) == 4
    latest = Store(tmp_path / "data").eval_sessions("x")
    assert {k: v.id for k, v in latest.items()} == {k: v["session_id"] for k, v in again.items()}
    # Now they are results: a third run keeps them.
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "x", *tool_flags(chat_server, searx_server))
    assert code == 0 and out.count("(kept)") == 2 and len(chat_server.requests) == 4


def test_compare_counts_a_case_that_errored_in_b_as_errored_not_regressed(tmp_path, monkeypatch, capsys, chat_server,
                                                                         searx_server):
    answering(chat_server)
    path = write_set(tmp_path, *CASES)
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "a", *tool_flags(chat_server, searx_server))[0] == 0
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "b",
                    *dead_flags(chat_server, searx_server, dead))[0] == 1
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "b", "--json")
    assert code == 0  # an outage is not a regression
    data = json.loads(out)
    assert data["regressions"] == 0 and data["errored"] == 2
    for case in data["cases"]:
        assert case["errored"] and not case["regressed"] and "connection refused" in case["error_b"]
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "b")
    assert code == 0 and "one: ERRORED" in out and "REGRESSED" not in out and "2 errored" in out
    assert "0 regressed" in out
    code, _, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "b", "--strict")
    assert code == 1
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "b", "a")
    assert code == 0 and "fixed" not in out.split("\n\n")[0]  # an outage in A, mended in B: no fix either
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "list")
    header, *rows = out.splitlines()
    assert header.split()[2:6] == ["CASES", "PASSED", "FAILED", "ERRORED"]
    (b_row,) = [row.split() for row in rows if row.startswith("b ")]
    assert b_row[3:7] == ["2", "0", "0", "2"]  # label, date, time, then the counts


def test_rerun_failed_runs_format_errors_again_and_a_plain_rerun_keeps_them(tmp_path, monkeypatch, capsys,
                                                                            chat_server, searx_server):
    chat_server.default = "I will not use the format."
    path = write_set(tmp_path, CASES[0])
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "f", "--json",
                              *tool_flags(chat_server, searx_server))
    (case,) = json.loads(out)["cases"]
    assert case["termination"] == "format_error"
    calls = len(chat_server.requests)
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "f", *tool_flags(chat_server, searx_server))
    assert "(kept)" in out and len(chat_server.requests) == calls  # a result: kept
    answering(chat_server)
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "f", "--rerun-failed", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    (again,) = json.loads(out)["cases"]
    assert again["termination"] == "answer" and again["session_id"] != case["session_id"]
