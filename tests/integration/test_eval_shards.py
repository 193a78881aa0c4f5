"""`tui-agent eval SET --shard i/n` on separate data directories (as on separate machines), then
`eval merge DIR…`: the merged label is the same run as one unsharded run of the set, for
`eval compare` and `eval list`. Against the scripted model and SearXNG servers."""

from __future__ import annotations

import json

from tests.helpers import call
from tests.integration.test_eval import run_eval, tool_flags, write_set
from tui_agent.evals.shards import parse_shard

CASES = [{"id": f"case-{i}", "question": f"Question number {i}?", "expect": [f"answer {i}\\b" if i % 3 else "never"]}
         for i in range(8)]


def model(request: dict) -> str:
    messages = request["messages"]
    question = next(m["content"] for m in messages if m["role"] == "user")
    n = int(question.split("number ")[1].split("?")[0])
    if sum(1 for m in messages if m["role"] == "assistant") == 0:
        return call("search", query=[f"topic {n}"])
    return f"<answer>This is answer {n}.</answer>"


def test_two_shards_merged_equal_one_unsharded_run(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    chat_server.default = model
    path = write_set(tmp_path, *CASES)
    flags = [*tool_flags(chat_server, searx_server), "--workers", "1"]
    code, _, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "whole", *flags)
    assert code == 1, err  # the cases expecting "never" fail, as they must in the merged run too
    ran = {}
    for i in (1, 2):
        code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "split", "--shard", f"{i}/2", "--json",
                                  "--data-dir", str(tmp_path / f"machine{i}"), *flags)
        assert code in (0, 1), err
        ran[i] = {c["id"] for c in json.loads(out)["cases"]}
    assert ran[1] and ran[2] and not ran[1] & ran[2] and ran[1] | ran[2] == {c["id"] for c in CASES}
    assert all(parse_shard(f"{i}/2").holds(cid) for i in (1, 2) for cid in ran[i])

    code, out, err = run_eval(monkeypatch, capsys, tmp_path, "merge", str(tmp_path / "machine1"),
                              str(tmp_path / "machine2" / "sessions.sqlite3"))
    assert code == 0, err
    assert out.strip() == f"split: {len(CASES)} case sessions copied"
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "whole", "split", "--json")
    assert code == 0
    data = json.loads(out)
    assert [c["id"] for c in data["cases"]] == [c["id"] for c in CASES]
    assert all(c["in_a"] and c["in_b"] and c["passed_a"] == c["passed_b"] for c in data["cases"])
    assert data["regressions"] == data["fixed"] == data["answers_changed"] == data["paths_changed"] == 0
    assert data["totals"]["model_calls_a"] == data["totals"]["model_calls_b"] == 16
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "list")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert rows["split"][3:6] == rows["whole"][3:6]  # cases, passed, failed
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "merge", str(tmp_path / "machine1"))
    assert code == 0 and "split: 0 case sessions copied" in out  # merging again copies nothing twice


def test_a_bad_shard_or_merge_source_is_a_usage_error(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    path = write_set(tmp_path, *CASES)
    for shard in ("3/2", "0/2", "1of2"):
        code, _, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "x", "--shard", shard,
                                *tool_flags(chat_server, searx_server))
        assert code == 2 and "--shard" in err and ("i/n" in err or "from 1" in err), err
    assert chat_server.requests == []
    code, _, err = run_eval(monkeypatch, capsys, tmp_path, "merge", str(tmp_path / "nowhere"))
    assert code == 2 and "no session database there" in err
