"""`tui-agent eval`, `eval compare` and `eval list` against the scripted model server, a SearXNG
endpoint and a page server; litellm, httpx and the tools run for real."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from tests.helpers import call
from tests.integration.test_cli import ARTICLE, cli, isolated_env
from tests.servers import Fault
from tui_agent.cli import main
from tui_agent.session.store import Store


class PerQuestion:
    """A model that answers each case by its question: the n-th reply of a case is the n-th item
    of its script, whatever order the cases' requests arrive in (they run concurrently)."""

    def __init__(self, scripts: dict[str, list], before=None) -> None:
        self.scripts = scripts
        self.before = before  # called with (question, turn) before answering

    def __call__(self, request: dict):
        messages = request["messages"]
        question = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        forced = "Stop calling tools now" in messages[-1]["content"]
        if self.before is not None:
            self.before(question, turn)
        script = next(v for k, v in self.scripts.items() if k in question)
        if forced:
            return "<answer>forced answer</answer>"
        return script[min(turn, len(script) - 1)]


def write_set(tmp_path, *cases: dict, name: str = "set.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return str(path)


def tool_flags(chat, searx) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", chat.base_url, "--search-backend", "searxng",
            "--searxng-url", searx.url, "--allow-private-urls", "--no-extract"]


def run_eval(monkeypatch, capsys, tmp_path, *args: str) -> tuple[int, str, str]:
    """`tui-agent eval …` in this process (the CLI's own main), with the test's config and data."""
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


CASES = [
    {"id": "tides", "question": "When are spring tides?", "expect": ["new and full moon"]},
    {"id": "life", "question": "What is the answer to life?", "expect": ["\\b42\\b"]},
    {"id": "open", "question": "Anything to say about tea?"},
]


def standard_scripts(url: str) -> dict[str, list]:
    return {
        "spring tides": [call("search", query=["spring tides"]), call("visit", url=[url], goal="when"),
                         "<answer>At new and full moon [1].</answer>"],
        "answer to life": [call("search", query=["answer to life"]), "<answer>It is 41 [1].</answer>"],
        "about tea": [call("search", query=["tea"]), "<answer>Tea is nice.</answer>"],
    }


def test_a_set_runs_every_case_as_a_labelled_session_with_pass_and_fail(tmp_path, monkeypatch, capsys, chat_server,
                                                                          searx_server, page_server):
    url = page_server.add("/tides", ARTICLE)
    for q in ("spring tides", "answer to life", "tea"):
        searx_server.results[q] = [{"url": url, "title": "Tides", "content": "tides"}]
    chat_server.default = PerQuestion(standard_scripts(url))
    path = write_set(tmp_path, *CASES)
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "base", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 1, err  # "life" answered 41
    data = json.loads(out)
    assert data["label"] == "base" and [c["id"] for c in data["cases"]] == ["tides", "life", "open"]
    tides, life, open_ = data["cases"]
    assert (tides["passed"], life["passed"], open_["passed"]) == (True, False, None)
    assert tides["termination"] == "answer" and tides["tool_calls"] == 2
    assert tides["path"] == [{"tool": "search", "arguments": {"query": ["spring tides"]}},
                             {"tool": "visit", "arguments": {"url": [url], "goal": "when"}}]
    assert set(tides) >= {"id", "session_id", "answer", "termination", "passed", "path", "model_calls",
                          "tool_calls", "total_tokens", "cost_usd", "compactions", "peak_prompt_tokens"}
    assert tides["compactions"] == 0 and tides["peak_prompt_tokens"] > 0
    store = Store(tmp_path / "data")
    tagged = store.eval_sessions("base")
    assert {k: v.id for k, v in tagged.items()} == {c["id"]: c["session_id"] for c in data["cases"]}
    assert all(store.get_session(c["session_id"]).status == "ended" for c in data["cases"])
    assert "[1/3]" in err and "[3/3]" in err  # progress lines without a terminal
    # The table form of the same run: the label continues, every case kept.
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "base", "--context-policy", "summarise",
                            *tool_flags(chat_server, searx_server))
    assert code == 1 and "(kept)" in out and "1 of 2 cases with expectations passed" in out
    assert "compactions" in out.splitlines()[0] and "peak prompt" in out.splitlines()[0]
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:4]}
    assert lines["tides"][1:3] == ["yes", "answer"] and lines["life"][1] == "NO" and lines["open"][1] == "-"


def test_bad_lines_are_reported_by_number_and_nothing_runs(tmp_path, chat_server):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "question": "q?"}\nnot json\n{"id": "b"}\n{"id": "a", "question": "again"}\n'
                    '{"id": "c", "question": "q", "expect": ["(unclosed"]}\n')
    proc = cli("eval", str(path), "--label", "x", "--model", "openai/test-model", "--api-base", chat_server.base_url,
               env=isolated_env(tmp_path))
    assert proc.returncode == 2
    for expected in ("line 2: not valid JSON", 'line 3: "question" is missing',
                     "line 4: the id 'a' is already used on line 1", "line 5: expect pattern"):
        assert expected in proc.stderr, proc.stderr
    assert chat_server.requests == [] and "Traceback" not in proc.stderr


def test_a_line_without_an_id_names_the_file_the_line_what_is_missing_and_shows_a_good_line(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "ok", "question": "q?"}\n{"question": "Who wrote Dune?", "expected": ["Herbert"]}\n')
    proc = cli("eval", str(path), "--label", "x", "--model", "m", env=isolated_env(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if "line 2" in line]
    assert f"{path} line 2" in line
    assert '"id" is missing' in line and 'unknown key "expected"' in line
    assert "is a required property" not in proc.stderr and "arguments:" not in proc.stderr
    example = proc.stderr.rsplit("e.g. ", 1)[1].strip().rstrip(")")
    from tui_agent.evals.cases import load_cases

    good = tmp_path / "good.jsonl"
    good.write_text(example + "\n")
    assert [c.id for c in load_cases(good)] == [json.loads(example)["id"]]  # the example is a valid line


def test_cases_run_concurrently(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    # The first model request of each case is answered only once both cases have sent theirs: run
    # one after the other, the first would wait in vain and the barrier would break.
    both = threading.Barrier(2, timeout=30)

    def first_requests_together(question: str, turn: int) -> None:
        if turn == 0:
            both.wait()

    chat_server.default = PerQuestion({"one?": ["<answer>one</answer>"] * 2, "two?": ["<answer>two</answer>"] * 2},
                                      before=first_requests_together)
    path = write_set(tmp_path, {"id": "1", "question": "Case one?", "expect": ["one"]},
                     {"id": "2", "question": "Case two?", "expect": ["two"]})
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "c", "--concurrency", "2", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    assert not both.broken and [c["passed"] for c in json.loads(out)["cases"]] == [True, True]


def test_replay_answers_recorded_calls_without_the_network(tmp_path, monkeypatch, capsys, chat_server, searx_server,
                                                          page_server):
    url = page_server.add("/tides", ARTICLE)
    searx_server.results["spring tides"] = [{"url": url, "title": "Tides", "content": "tides"}]
    chat_server.default = PerQuestion({"spring tides": standard_scripts(url)["spring tides"]})
    path = write_set(tmp_path, CASES[0])
    code, _, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "live", *tool_flags(chat_server, searx_server))
    assert code == 0, err
    hits, queries = list(page_server.hits), list(searx_server.queries)
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "again", "--replay", "live", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    assert page_server.hits == hits and searx_server.queries == queries  # nothing reached the network
    sid = json.loads(out)["cases"][0]["session_id"]
    statuses = [e["status"] for e in Store(tmp_path / "data").event_dicts(sid) if e["type"] == "observation"]
    assert statuses == ["replayed", "replayed"]
    code, _, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "x", "--replay", "nope",
                            *tool_flags(chat_server, searx_server))
    assert code == 2 and "no eval run has that label" in err


def test_compare_finds_a_changed_path_and_a_regression(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    path = write_set(tmp_path, {"id": "life", "question": "What is the answer to life?", "expect": ["42"]},
                     {"id": "tea", "question": "Anything about tea?"})
    chat_server.default = PerQuestion({"answer to life": [call("search", query=["life"]), "<answer>42 [1]</answer>"],
                                       "about tea": [call("search", query=["tea"]), "<answer>nice</answer>"]})
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "a", *tool_flags(chat_server, searx_server))[0] == 0
    chat_server.default = PerQuestion({"answer to life": [call("search", query=["meaning"]), "<answer>7</answer>"],
                                       "about tea": [call("search", query=["tea"]), "<answer>nice</answer>"]})
    assert run_eval(monkeypatch, capsys, tmp_path, path, "--label", "b", *tool_flags(chat_server, searx_server))[0] == 1
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "b", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["regressions"] == 1
    life, tea = data["cases"]
    assert life["regressed"] and life["path_changed"] and life["answer_changed"]
    assert life["diverges"] == {"index": 0, "a": {"tool": "search", "arguments": {"query": ["life"]}},
                                "b": {"tool": "search", "arguments": {"query": ["meaning"]}}}
    assert not tea["path_changed"] and not tea["answer_changed"] and not tea["regressed"]
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "b")
    assert code == 1 and "life: REGRESSED, answer changed, path changed" in out
    assert "paths diverge at tool call 1" in out and "1 regressed" in out
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "b", "a")
    assert code == 0 and "life: fixed" in out
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "list")
    assert code == 0 and out.splitlines()[1].split()[0] in ("a", "b") and len(out.splitlines()) == 3
    code, _, err = run_eval(monkeypatch, capsys, tmp_path, "compare", "a", "nope")
    assert code == 2 and "no eval run labelled 'nope'" in err


def test_an_interrupted_eval_continues_its_unfinished_cases(tmp_path, chat_server, searx_server):
    path = write_set(tmp_path, {"id": "first", "question": "First question?", "expect": ["one"]},
                     {"id": "second", "question": "Second question?", "expect": ["two"]})
    hang = threading.Event()

    def second_hangs_once(question: str, turn: int) -> None:
        if "Second" in question and not hang.is_set():
            hang.set()
            raise_hang[0] = True

    raise_hang = [False]
    scripts = {"First": ["<answer>one</answer>"] * 2, "Second": ["<answer>two</answer>"] * 2}

    def model(request):
        question = next(m["content"] for m in request["messages"] if m["role"] == "user")
        second_hangs_once(question, 0)
        if raise_hang[0]:
            raise_hang[0] = False
            return Fault(hang=True)
        return PerQuestion(scripts)(request)

    chat_server.default = model
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "eval", path, "--label", "half", "--concurrency", "1",
                             *tool_flags(chat_server, searx_server)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not hang.is_set():  # the first case has finished and the second one's call hangs
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    store = Store(tmp_path / "data")
    before = store.eval_sessions("half")
    assert before["first"].status == "ended" and before["second"].status == "interrupted"
    first_requests = len(chat_server.requests)
    again = cli("eval", path, "--label", "half", "--json", *tool_flags(chat_server, searx_server),
                env=isolated_env(tmp_path))
    assert again.returncode == 0, again.stderr
    cases = {c["id"]: c for c in json.loads(again.stdout)["cases"]}
    assert cases["first"]["session_id"] == before["first"].id and cases["second"]["session_id"] == before["second"].id
    assert cases["second"]["answer"] == "two" and cases["first"]["answer"] == "one"
    new_questions = [next(m["content"] for m in r["messages"] if m["role"] == "user")
                     for r in chat_server.requests[first_requests:]]
    assert new_questions and all("Second" in q for q in new_questions)  # the finished case was not run again


def test_a_router_configuration_spreads_the_calls(tmp_path, chat_server, searx_server):
    # A subprocess: a LiteLLM Router registers its deployments in litellm's process-wide model map.
    config = tmp_path / "router.yaml"
    config.write_text(f"""model_list:
  - model_name: fast
    litellm_params:
      model: openai/test-model
      api_base: {chat_server.base_url}
      api_key: none
""")
    chat_server.default = PerQuestion({"via the router": ["<answer>routed</answer>"] * 2})
    path = write_set(tmp_path, {"id": "r", "question": "Does it go via the router?", "expect": ["routed"]})
    env = isolated_env(tmp_path)
    proc = cli("eval", path, "--label", "router", "--json", "--model", "fast", "--router-config", str(config),
               "--search-backend", "searxng", "--searxng-url", searx_server.url, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cases"][0]["passed"] is True and chat_server.requests
    assert all(r["model"] == "test-model" for r in chat_server.requests)
    bad = tmp_path / "bad.yaml"
    bad.write_text("model_list: [{model_name: x}]\n")
    proc = cli("eval", path, "--label", "bad", "--model", "x", "--router-config", str(bad), env=env)
    assert proc.returncode == 2 and "litellm_params.model" in proc.stderr


def test_verify_adds_the_unsupported_share_of_each_answer(tmp_path, monkeypatch, capsys, chat_server, searx_server,
                                                          page_server):
    url = page_server.add("/tides", ARTICLE)
    searx_server.results["spring tides"] = [{"url": url, "title": "Tides", "content": "tides"}]
    research = PerQuestion({"spring tides": [call("visit", url=[url], goal="when"),
                                             "<answer>Spring tides come at new and full moon [1]. They are purple "
                                             "[1].</answer>"]})

    def model(request):
        prompt = request["messages"][-1]["content"]
        if "=== SOURCES START ===" in prompt:  # the citation check's verifier
            claim = prompt.split("=== SOURCES START ===")[0]
            return ('{"verdict": "unsupported", "evidence": ""}' if "purple" in claim
                    else '{"verdict": "supported", "evidence": "new and full moon"}')
        return research(request)

    chat_server.default = model
    path = write_set(tmp_path, CASES[0])
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "checked", "--verify", "--json",
                              *tool_flags(chat_server, searx_server))
    assert code == 0, err
    (case,) = json.loads(out)["cases"]
    assert case["unsupported_share"] == 0.5 and case["needs_review"] is True and case["passed"] is True
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "checked", "--verify",
                            *tool_flags(chat_server, searx_server))
    assert "unsupported" in out.splitlines()[0] and "50% review" in out  # kept, with its check


def test_compare_of_a_replay_against_a_live_run_puts_the_skipped_extraction_apart_from_research_tokens(
        tmp_path, monkeypatch, capsys, chat_server, searx_server, page_server):
    from tests.servers import Reply

    url = page_server.add("/tides", ARTICLE)
    searx_server.results["spring tides"] = [{"url": url, "title": "Tides", "content": "tides"}]
    script = [call("search", query=["spring tides"]), call("visit", url=[url], goal="when"),
              "<answer>At new and full moon [1].</answer>"]

    def model(request: dict) -> Reply:
        messages = request["messages"]
        if "=== PAGE START ===" in messages[-1]["content"]:  # the visit tool's extraction call
            return Reply('{"rational": "r", "evidence": "new and full moon", "summary": "s"}',
                         prompt_tokens=9000, completion_tokens=878)
        turn = sum(1 for m in messages if m["role"] == "assistant")
        return Reply(script[min(turn, len(script) - 1)], prompt_tokens=1000, completion_tokens=50)

    chat_server.default = model
    path = write_set(tmp_path, CASES[0])
    flags = [f for f in tool_flags(chat_server, searx_server) if f != "--no-extract"]  # extraction on
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "live", "--json", *flags)
    assert code == 0, err
    (live,) = json.loads(out)["cases"]
    assert (live["research_tokens"], live["auxiliary_tokens"], live["total_tokens"]) == (3 * 1050, 9878, 3 * 1050 + 9878)
    code, out, err = run_eval(monkeypatch, capsys, tmp_path, path, "--label", "replayed", "--replay", "live", *flags)
    assert code == 0, err
    assert "research" in out.splitlines()[0] and "auxiliary" in out.splitlines()[0]
    assert out.splitlines()[1].split()[4:6] == ["3,150", "0"]  # the table: research, auxiliary
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "live", "replayed", "--json")
    (case,) = json.loads(out)["cases"]
    assert case["delta_research_tokens"] == 0  # the prompt did not change: neither did the research
    assert case["delta_auxiliary_tokens"] == -9878  # the extraction the replay did not make
    totals = json.loads(out)["totals"]
    assert (totals["research_tokens_a"], totals["research_tokens_b"]) == (3150, 3150)
    assert (totals["auxiliary_tokens_a"], totals["auxiliary_tokens_b"]) == (9878, 0)
    code, out, _ = run_eval(monkeypatch, capsys, tmp_path, "compare", "live", "replayed")
    assert "Δresearch tokens 0 · Δauxiliary tokens -9,878" in out
    assert "research tokens 3,150 → 3,150 · auxiliary tokens 9,878 → 0" in out
