"""`tui-agent run` and `tui-agent sessions` as a user runs them: real subprocesses, local servers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers import call
from tests.servers import Fault
from tui_agent.session.store import short_id

ARTICLE = """<html><head><title>The Answer Article</title></head><body>
<nav>Home | About | Contact</nav>
<article><h1>The Answer</h1>
<p>Deep Thought computed for seven and a half million years and found that the answer to life,
the universe and everything is forty-two. The number has been quoted ever since by programmers,
physicists and fans of the books, and it appears in many test suites as a placeholder value.</p>
<p>The question itself, however, remained unknown, which is why a second computer was built.</p>
</article><footer>(c) 2026</footer></body></html>"""


def cli(*args: str, env: dict | None = None, stdin: str | None = "", timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "tui_agent", *args], capture_output=True, text=True,
                          input=stdin, timeout=timeout, env=full_env)


def isolated_env(tmp_path: Path) -> dict:
    return {"TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "TUI_AGENT_DATA_DIR": str(tmp_path / "data")}


def without_timestamps(text: str) -> list[str]:
    return [re.sub(r"^\[\d\d:\d\d:\d\d\]", "[time]", line) for line in text.splitlines()]


def test_run_json_search_visit_answer_and_the_stored_trace_matches_what_was_printed(
        tmp_path, chat_server, page_server, searx_server):
    url = page_server.add("/answer", ARTICLE)
    searx_server.results["meaning of life"] = [{"url": url, "title": "The Answer Article", "content": "forty-two"}]
    chat_server.script(
        "<think>Search first.</think>" + call("search", query=["meaning of life"]),
        "<think>Read the top result.</think>" + call("visit", url=[url], goal="what is the answer"),
        "<think>Enough.</think><answer>The answer is 42 [1].</answer>",
    )
    env = isolated_env(tmp_path)
    proc = cli("run", "What is the meaning of life?", "--json", "--yes", "--model", "openai/test-model",
               "--api-base", chat_server.base_url, "--search-backend", "searxng", "--searxng-url", searx_server.url,
               "--allow-private-urls", "--no-extract", env=env | {"OPENAI_API_KEY": "sk-test-not-real-000000"})
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert set(result) == {"session_id", "question", "answer", "answer_tagged", "answer_truncated", "unsupported",
                           "termination",
                           "model_calls", "tool_calls", "prompt_tokens", "total_tokens", "cost_usd", "elapsed_s",
                           "sources", "compactions", "peak_prompt_tokens"}
    assert result["compactions"] == 0 and result["peak_prompt_tokens"] > 0
    assert result["answer"] == "The answer is 42 [1]."
    assert result["termination"] == "answer" and result["answer_tagged"] and not result["unsupported"]
    assert result["model_calls"] == 3 and result["tool_calls"] == 2
    assert result["sources"] == [url]
    assert searx_server.queries == ["meaning of life"]
    assert page_server.hits == ["/answer"]
    # The page text reached the model inside a <tool_response>.
    third = chat_server.requests[2]["messages"][-1]["content"]
    assert third.startswith("<tool_response>") and "forty-two" in third
    # Trace on stderr: step numbers, thought, action, observation, usage.
    assert "step   1 │ thought: Search first." in proc.stderr
    assert "action c2: visit" in proc.stderr
    # The stored events, printed again, are exactly the trace the user saw.
    shown = cli("sessions", "show", result["session_id"], env=env)
    assert shown.returncode == 0, shown.stderr
    assert without_timestamps(shown.stdout) == without_timestamps(proc.stderr)
    listed = cli("sessions", "list", env=env)
    assert short_id(result["session_id"]) in listed.stdout.split()  # lists show the random part


def test_run_without_a_terminal_and_without_yes_is_a_usage_error(tmp_path, chat_server):
    proc = cli("run", "q", "--model", "openai/test-model", "--api-base", chat_server.base_url, env=isolated_env(tmp_path))
    assert proc.returncode == 2
    assert "not a terminal" in proc.stderr and "--yes" in proc.stderr
    assert chat_server.requests == []


def test_no_model_configured_explains_how_and_exits_2(tmp_path):
    env = isolated_env(tmp_path)
    keys = [k for k in os.environ if k.endswith("_API_KEY")]
    proc = subprocess.run([sys.executable, "-m", "tui_agent", "run", "q", "--yes"], capture_output=True, text=True,
                          timeout=60, env={k: v for k, v in os.environ.items() if k not in keys} | env)
    assert proc.returncode == 2
    assert "No model is configured" in proc.stderr and "--model" in proc.stderr and "Ollama" in proc.stderr


def test_bad_setting_names_its_key_and_exits_2(tmp_path):
    proc = cli("run", "q", "--yes", "--model", "m", env=isolated_env(tmp_path) | {"TUI_AGENT_MAX_CALLS": "lots"})
    assert proc.returncode == 2
    assert "'max_calls'" in proc.stderr and "lots" in proc.stderr
    cfg = tmp_path / "config"
    cfg.mkdir()
    (cfg / "config.toml").write_text('answer_reserve = "big"\n')
    proc = cli("run", "q", "--yes", "--model", "m", env=isolated_env(tmp_path))
    assert proc.returncode == 2 and "'answer_reserve'" in proc.stderr and "config.toml" in proc.stderr


def test_model_error_exits_1_with_a_plain_message(tmp_path, chat_server):
    chat_server.script(Fault(status=401))
    proc = cli("run", "q", "--yes", "--model", "openai/test-model", "--api-base", chat_server.base_url,
               env=isolated_env(tmp_path))
    assert proc.returncode == 1
    assert "model_error" in proc.stderr and "API key" in proc.stderr
    assert proc.stdout == ""


def test_escape_sequences_from_the_model_never_reach_the_terminal(tmp_path, chat_server):
    hostile = "\x1b]0;owned title\x07\x1b[2J\x1b[31mred\x1b[0m\x9b1;1H plain"
    chat_server.script(f"<think>{hostile}</think>" + call("search", query=[hostile]),
                       f"<answer>{hostile} answer</answer>")
    proc = cli("run", "q", "--yes", "--model", "openai/test-model", "--api-base", chat_server.base_url,
               "--search-backend", "searxng", "--searxng-url", "http://127.0.0.1:9", env=isolated_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert "\x1b" not in stream and "\x07" not in stream and "\x9b" not in stream
    assert "red" in proc.stdout and "answer" in proc.stdout


def test_ctrl_c_submits_now_and_a_second_ctrl_c_cancels(tmp_path, chat_server):
    import signal
    import time

    from tests.servers import Reply

    chat_server.script(call("search", query=["q"]),
                       Reply("<think>" + "pondering " * 500 + "</think>", chunk_delay_s=0.05, chunk_size=4),
                       "<answer>answered on Ctrl-C</answer>")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "run", "q", "--yes", "--json", "--model",
                             "openai/test-model", "--api-base", chat_server.base_url, "--search-backend", "searxng",
                             "--searxng-url", "http://127.0.0.1:9"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    chat_server.wait_for_requests(2, timeout=60)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert result["termination"] == "user_submit" and result["answer"] == "answered on Ctrl-C"
    assert "submitting now" in err


def test_help_lists_every_subcommand_with_a_line_each_and_help_is_a_command_not_a_question(tmp_path):
    env = isolated_env(tmp_path)
    shown = cli("--help", env=env, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert "What every subcommand shares" not in shown.stdout  # no internal docstring
    for command in ("run", "sessions", "read", "eval", "help"):
        assert re.search(rf"^  {command}\s+\S", shown.stdout, re.M), command
    assert "--model" in shown.stdout and "--data-dir" in shown.stdout  # the common flags
    asked = cli("help", env=env, timeout=60)  # not taken as a question for the TUI
    assert (asked.returncode, asked.stdout) == (0, shown.stdout)
    run_help = cli("help", "run", env=env, timeout=60)
    assert run_help.returncode == 0 and run_help.stdout.startswith("usage: tui-agent run")
    assert run_help.stdout == cli("run", "--help", env=env, timeout=60).stdout
    unknown = cli("help", "frobnicate", env=env, timeout=60)
    assert unknown.returncode == 2 and "run, sessions, read, eval" in unknown.stderr


import pytest  # noqa: E402


@pytest.mark.parametrize("args", [("sessions", "list"), ("eval", "list")])
def test_a_closed_pipe_on_stdout_ends_quietly_without_a_traceback(tmp_path, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    proc.stdout.close()  # the reader is gone before anything is written, as with `| head -0`
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def _long_article(n: int) -> str:
    paragraphs = "".join(
        f"<p>Page {n}, paragraph {p}: " + " ".join(f"observation{n}x{p}x{w} was recorded carefully"
                                                    for w in range(40)) + ".</p>"
        for p in range(4))
    return f"<html><head><title>Report {n}</title></head><body><article><h1>Report {n}</h1>{paragraphs}</article></body></html>"


def test_run_context_policy_compacts_at_the_gate_and_json_and_trace_say_so(tmp_path, chat_server, page_server):
    urls = [page_server.add(f"/report{n}", _long_article(n)) for n in range(1, 9)]

    def step(i: int):
        def reply(request):
            if "Stop calling tools now" in request["messages"][-1]["content"]:
                return "<answer>forced [1]</answer>"
            if i < len(urls):
                return f"<think>Read report {i + 1}.</think>" + call("visit", url=[urls[i]], goal="the reports")
            return "<answer>All eight reports agree [1] [8].</answer>"
        return reply

    env = isolated_env(tmp_path) | {"OPENAI_API_KEY": "sk-test-not-real-000000"}
    common = ["--json", "--yes", "--model", "openai/test-model", "--api-base", chat_server.base_url,
              "--allow-private-urls", "--no-extract", "--context-window", "12000", "--answer-reserve", "2000"]
    chat_server.script(*[step(i) for i in range(len(urls) + 1)])
    proc = cli("run", "What do the reports say?", *common, "--context-policy", "truncate", env=env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["termination"] == "answer" and result["compactions"] >= 1, proc.stderr[-2000:]
    assert 0 < result["peak_prompt_tokens"] <= 10000
    assert re.search(r"context compacted \(truncate\): [\d,]+ → [\d,]+ tokens", proc.stderr)
    chat_server.clear_script()
    chat_server.script(*[step(i) for i in range(len(urls) + 1)])
    proc = cli("run", "What do the reports say?", *common, "--context-policy", "none", env=env)
    result = json.loads(proc.stdout)
    assert result["termination"] == "token_limit" and result["compactions"] == 0
    assert result["peak_prompt_tokens"] <= 10000
    bad = cli("run", "q", "--context-policy", "squash", env=env)
    assert bad.returncode == 2 and "unknown context policy squash" in bad.stderr and "Traceback" not in bad.stderr
