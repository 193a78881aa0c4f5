"""The research loop where it crosses HTTP, against the scripted OpenAI-compatible server, through
litellm for real and through the direct OpenAI-compatible client (``transport``): the price map, the
model's faults, Submit now cutting a streamed call, and a run stopped by a signal then resumed by the
CLI. The loop's own logic is tested on the in-memory model: tests/unit/test_engine_*.py (issue 28)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading

import pytest

from tests.helpers import call, make_engine
from tests.servers import Fault, Reply, closed_port
from tui_agent.session.store import Store


# Both ways a model call can go (model/direct.py or litellm): the same faults, the same names.
BOTH_TRANSPORTS = pytest.mark.parametrize("transport", ["litellm", "direct"])


# -- gates ----------------------------------------------------------------------------------------

def assert_forced_request_keeps_last_observation(chat_server, marker: str) -> None:
    forced = chat_server.requests[-1]
    last = forced["messages"][-1]
    assert last["role"] == "user"
    assert marker in last["content"]
    assert "write your final answer now inside <answer>" in last["content"]
    assert forced["messages"][0] == chat_server.requests[0]["messages"][0]  # same system prompt


@BOTH_TRANSPORTS
async def test_budget_limit_uses_the_price_map(chat_server, transport):
    chat_server.script(Reply(call("lookup", topic="a"), prompt_tokens=100000, completion_tokens=1000),
                       "<answer>cheap now</answer>")
    engine, rec = make_engine(chat_server, model="openai/gpt-4o-mini", budget_usd=0.01, transport=transport)
    result = await engine.run()
    assert result["termination"] == "budget_limit"
    assert result["cost_usd"] is not None and result["cost_usd"] > 0.01
    assert_forced_request_keeps_last_observation(chat_server, "Notes on a")


@BOTH_TRANSPORTS
async def test_unknown_model_has_no_cost_rather_than_zero(chat_server, transport):
    chat_server.script(call("lookup", topic="a"), "<answer>x</answer>")
    engine, _ = make_engine(chat_server, transport=transport)
    result = await engine.run()
    assert result["cost_usd"] is None
    assert result["prompt_tokens"] > 0


# -- model faults ---------------------------------------------------------------------------------

@BOTH_TRANSPORTS
async def test_429_with_retry_after_is_retried_after_the_delay(chat_server, transport):
    sleeps: list[float] = []
    chat_server.script(Fault(status=429, retry_after="7"), call("lookup", topic="a"), "<answer>x</answer>")
    engine, rec = make_engine(chat_server, sleeps=sleeps, transport=transport)
    result = await engine.run()
    assert result["termination"] == "answer"
    assert sleeps and sleeps[0] >= 7
    retry = rec.of("retry")[0]
    assert "429" in retry.reason and retry.delay_s == sleeps[0]


@BOTH_TRANSPORTS
async def test_401_ends_as_model_error_without_retries(chat_server, transport):
    sleeps: list[float] = []
    chat_server.script(Fault(status=401))
    engine, rec = make_engine(chat_server, sleeps=sleeps, transport=transport)
    result = await engine.run()
    assert result["termination"] == "model_error"
    assert len(chat_server.requests) == 1 and sleeps == []
    assert "API key" in engine.ended.message


@BOTH_TRANSPORTS
async def test_unknown_model_404_is_named(chat_server, transport):
    chat_server.script(Fault(status=404))
    engine, _ = make_engine(chat_server, transport=transport)
    result = await engine.run()
    assert result["termination"] == "model_error"
    assert "unknown model" in engine.ended.message


@BOTH_TRANSPORTS
async def test_context_too_long_is_named(chat_server, transport):
    chat_server.script(Fault.context_length_exceeded())
    engine, _ = make_engine(chat_server, transport=transport)
    await engine.run()
    assert "context window" in engine.ended.message


@BOTH_TRANSPORTS
async def test_server_down_on_the_first_call_ends_as_model_error_in_two_quick_attempts(transport):
    # Issue 12: nothing listening at --api-base fails fast (the full backoff is for a server that
    # answered, or that went away after a successful call: tests/integration/test_llm_failfast.py).
    port = closed_port()

    class Down:
        base_url = f"http://127.0.0.1:{port}/v1"

    sleeps: list[float] = []
    engine, rec = make_engine(Down, sleeps=sleeps, retry_attempts=4, retry_base_s=1.0, retry_cap_s=30.0,
                              transport=transport)
    result = await engine.run()
    assert result["termination"] == "model_error"
    assert len(sleeps) == 1 and len(rec.of("retry")) == 1
    assert "gave up after 2 attempts" in engine.ended.message
    assert Down.base_url in engine.ended.message and "openai/test-model" in engine.ended.message


@BOTH_TRANSPORTS
async def test_dropped_stream_and_500_are_retried(chat_server, transport):
    chat_server.script(Fault(drop_after_chunks=2), Fault(status=500), Fault(status=503),
                       call("lookup", topic="a"), "<answer>x</answer>")
    engine, rec = make_engine(chat_server, retry_attempts=5, transport=transport)
    result = await engine.run()
    assert result["termination"] == "answer"
    assert len(rec.of("retry")) == 3


@BOTH_TRANSPORTS
async def test_hanging_model_times_out_and_is_retried(chat_server, transport):
    chat_server.script(Fault(hang=True), call("lookup", topic="a"), "<answer>x</answer>")
    engine, rec = make_engine(chat_server, model_timeout_s=2.0, transport=transport)  # the answering calls: a margin
    result = await engine.run()
    assert result["termination"] == "answer"
    assert "timed out" in rec.of("retry")[0].reason
    assert len(rec.of("retry")) == 1 and len(chat_server.requests) == 3  # one hang, then the script as written


# -- submit now -----------------------------------------------------------------------------------

@BOTH_TRANSPORTS
async def test_submit_now_during_a_stream_cancels_it_and_forces_the_answer(chat_server, transport):
    chat_server.script(
        call("lookup", topic="first"),
        Reply("<think>" + "long thinking " * 200 + "</think>", chunk_delay_s=0.02, chunk_size=4),
        "<answer>submitted</answer>",
    )
    engine, rec = make_engine(chat_server, transport=transport)
    submitted = threading.Event()

    def on_event(e):
        rec(e)
        if e.type == "model_delta" and e.step == 2 and not submitted.is_set():
            submitted.set()
            threading.Thread(target=engine.request_submit).start()  # from another thread

    engine._emit = on_event
    result = await asyncio.wait_for(engine.run(), 10)
    assert result["termination"] == "user_submit"
    assert result["answer"] == "submitted"
    cancelled = [e for e in rec.of("model_call_ended") if e.cancelled]
    assert cancelled and cancelled[0].text and "<think>long thinking".startswith(cancelled[0].text[:20])
    assert_forced_request_keeps_last_observation(chat_server, "Notes on first")


def test_engine_does_not_import_textual():
    code = ("import sys, tui_agent.agent.engine, tui_agent.cli.headless, tui_agent.agent.runner, tui_agent.tools;"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('textual','litellm')];"
            "print(','.join(bad)); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"imported: {proc.stdout} {proc.stderr}"


# -- stopped by a signal, then resumed through the headless CLI ---------------------------------------


def _stop_during_second_call(tmp_path, chat_server, sig, second) -> str:
    """A headless run whose first reply is a (refused) tool call and whose second call is stopped by ``sig``."""
    import os
    import re
    import time

    from tests.integration.test_cli import isolated_env

    chat_server.script(call("no_such_tool", q="x"), second)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")} | isolated_env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "tui_agent", "run", "What is the answer?", "--yes", "--json",
                             "--model", "openai/test-model", "--api-base", chat_server.base_url],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(chat_server.requests) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(1.0)  # the streamed part reaches the run
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err.decode()[-2000:]
    return re.search(r"--resume (\S+)", err.decode()).group(1)


def _resume(tmp_path, chat_server, sid):
    from tests.integration.test_cli import cli, isolated_env

    chat_server.script("<answer>It is 42.</answer>", "<answer>It is 42.</answer>")
    resumed = cli("run", "--resume", sid, "--yes", "--json", "--api-base", chat_server.base_url,
                  env=isolated_env(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    return resumed


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_call_stopped_by_a_signal_keeps_its_step_number_on_resume(tmp_path, chat_server, sig):
    sid = _stop_during_second_call(tmp_path, chat_server, sig,
                                   Fault(hang_after_chunks=3, content="<think>I was half way through a thought"))
    _resume(tmp_path, chat_server, sid)
    store = Store(tmp_path / "data")
    try:
        starts = [e["step"] for e in store.event_dicts(sid) if e["type"] == "model_call_started"]
    finally:
        store.close()
    # The stopped call is made again as step 2, as after kill -9 (step 3: the answer after the evidence guard).
    assert starts == [1, 2, 2, 3]
    from tui_agent.core.fold import fold

    state = fold(Store(tmp_path / "data").events(sid))
    assert state.step_numbers == [1, 2, 3] and state.steps[2].reply == "<answer>It is 42.</answer>"
    assert not state.steps[2].cancelled


def test_the_trace_of_a_resumed_run_counts_what_run_json_counts(tmp_path, chat_server):
    import json
    import re

    sid = _stop_during_second_call(tmp_path, chat_server, signal.SIGTERM, Fault(hang=True))
    resumed = _resume(tmp_path, chat_server, sid)
    result = json.loads(resumed.stdout)
    ended = re.search(r"ended: answer · (\d+) model calls · (\d+) tool calls · ([\d,]+) tokens", resumed.stderr)
    assert ended, resumed.stderr
    assert (int(ended.group(1)), int(ended.group(2)), int(ended.group(3).replace(",", ""))) == \
        (result["model_calls"], result["tool_calls"], result["total_tokens"])
    assert result["model_calls"] == 3  # the first run's call is counted too
