"""`--otel`: a research's spans sent over OTLP/HTTP to a local receiver the test starts (decoded
with opentelemetry-proto): the span tree and its GenAI attributes, no content by default and
redacted content with --otel-content, a team research's sub-agent spans, `sessions export --otel`
with the stored events' times, TRACEPARENT, an unreachable collector, and no SDK import without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import call
from tests.integration.test_team_headless import KEYS, _setup as team_setup
from tests.integration.test_tui_process import env_for
from tests.otlp_receiver import OtlpReceiver
from tests.servers import Reply, closed_port
from tui_agent.session.store import Store

TIMEOUT_S = 120
SECRET = "sk-test-not-real-000000"  # OPENAI_API_KEY in env_for: the redaction knows the value
QUESTION = f"What does the key {SECRET} unlock at the Alpha tower?"
PAGE_TEXT = "The Alpha tower is 42 metres tall, the city archive says in its careful history of the tower."


@pytest.fixture
def receiver():
    r = OtlpReceiver()
    yield r
    r.close()


def _research(chat_server, page_server, searx_server) -> str:
    url = page_server.add("/alpha", f"<html><head><title>Alpha</title></head><body><article><p>{PAGE_TEXT}</p>"
                                    f"</article></body></html>")
    searx_server.results["alpha tower"] = [{"url": url, "title": "Alpha", "content": "tower"}]

    def reply(req: dict):
        steps = sum(1 for m in req.get("messages") or [] if m.get("role") == "assistant")
        if steps == 0:
            return call("search", query=["alpha tower"])
        if steps == 1:
            return call("visit", url=[url], goal="the height")
        return Reply(content="<answer>The Alpha tower is 42 metres tall [1].</answer>")

    chat_server.default = reply
    return url


def _args(chat_server, searx_server, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tui_agent", "run", *extra, "--yes", "--json", "--model", "openai/test-model",
            "--api-base", chat_server.base_url, "--search-backend", "searxng", "--searxng-url", searx_server.url,
            "--allow-private-urls", "--no-extract", "--no-stream"]


def _env(tmp_path, endpoint: str, **extra: str) -> dict:
    env = env_for(tmp_path) | {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
                               "OTEL_EXPORTER_OTLP_TIMEOUT": "5"}
    env.pop("TRACEPARENT", None)
    return env | extra


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _all_text(receiver: OtlpReceiver) -> str:
    return json.dumps([[s["attributes"], s["events"], s["status_message"]] for s in receiver.spans])


def test_a_research_becomes_one_trace_of_chat_and_tool_spans_under_invoke_agent(
        tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    out = json.loads(_run(_args(chat_server, searx_server, QUESTION, "--otel"), _env(tmp_path, receiver.url)).stdout)
    roots = [s for s in receiver.spans if not s["parent_id"]]
    assert [r["name"] for r in roots] == ["invoke_agent tui-agent"]
    root = roots[0]
    assert root["attributes"]["gen_ai.conversation.id"] == out["session_id"]
    assert root["attributes"]["gen_ai.operation.name"] == "invoke_agent"
    assert root["attributes"]["tui_agent.termination"] == "answer"
    assert {s["trace_id"] for s in receiver.spans} == {root["trace_id"]}
    assert all(r.get("service.name") == "tui-agent" for r in receiver.resources)
    kids = receiver.children(root)
    chats = [s for s in kids if s["name"] == "chat openai/test-model"]
    tools = [s for s in kids if s["name"].startswith("execute_tool ")]
    assert len(chats) == 3
    assert [t["name"] for t in tools] == ["execute_tool search", "execute_tool visit"]
    first = chats[0]["attributes"]
    assert first["gen_ai.operation.name"] == "chat" and first["gen_ai.request.model"] == "openai/test-model"
    assert first["gen_ai.provider.name"] == "openai" and first["tui_agent.purpose"] == "research"
    assert first["gen_ai.usage.input_tokens"] > 0 and "gen_ai.usage.output_tokens" in first
    visit = tools[1]["attributes"]
    assert visit["gen_ai.tool.name"] == "visit" and visit["gen_ai.tool.call.id"]
    assert visit["tui_agent.decision"] == "auto" and visit["tui_agent.decision.by"] == "auto"
    assert visit["tui_agent.tool.status"] == "ok" and visit["tui_agent.tool.result.size"] > 0
    assert all(root["start_ns"] <= s["start_ns"] <= s["end_ns"] <= root["end_ns"] for s in kids)


def test_no_content_leaves_by_default_only_sizes_and_names(tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    _run(_args(chat_server, searx_server, QUESTION, "--otel"), _env(tmp_path, receiver.url))
    text = _all_text(receiver)
    assert receiver.spans
    assert "Alpha tower" not in text and "42 metres" not in text and SECRET not in text
    assert "gen_ai.input.messages" not in text and "gen_ai.tool.call.result" not in text


def test_otel_content_adds_the_messages_and_tool_results_redacted(
        tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    _run(_args(chat_server, searx_server, QUESTION, "--otel", "--otel-content"), _env(tmp_path, receiver.url))
    text = _all_text(receiver)
    assert SECRET not in text
    chat = receiver.named("chat ")[0]["attributes"]
    sent = json.loads(chat["gen_ai.input.messages"])
    assert [m["role"] for m in sent][-1] == "user" and "[REDACTED]" in json.dumps(sent)
    visit = receiver.named("execute_tool visit")[0]["attributes"]
    assert "42 metres" in visit["gen_ai.tool.call.result"] and "the height" in visit["gen_ai.tool.call.arguments"]
    last = receiver.named("chat ")[-1]["attributes"]
    assert "42 metres" in json.loads(last["gen_ai.output.messages"])[0]["parts"][0]["content"]


def test_traceparent_makes_the_run_a_child_of_that_trace(tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    trace_id, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    _run(_args(chat_server, searx_server, QUESTION, "--otel"),
         _env(tmp_path, receiver.url, TRACEPARENT=f"00-{trace_id}-{parent}-01"))
    root = receiver.named("invoke_agent")[0]
    assert root["trace_id"] == trace_id and root["parent_id"] == parent
    assert {s["trace_id"] for s in receiver.spans} == {trace_id}


def test_a_team_research_has_one_invoke_agent_span_per_sub_agent_with_its_own_spans(
        tmp_path, chat_server, page_server, searx_server, receiver):
    team_setup(chat_server, page_server, searx_server, set())
    out = json.loads(_run(_args(chat_server, searx_server, "Tell me about the three works.", "--team", "--otel"),
                          _env(tmp_path, receiver.url)).stdout)
    root = next(s for s in receiver.spans if not s["parent_id"])
    assert root["attributes"]["gen_ai.conversation.id"] == out["session_id"]
    kids = receiver.children(root)
    assert [s["name"] for s in kids if s["name"] == "plan"] == ["plan"]
    agents = [s for s in kids if s["name"].startswith("invoke_agent")]
    assert sorted(s["attributes"]["gen_ai.agent.id"] for s in agents) == ["1", "2", "3"]
    children = {c.id for c in Store(tmp_path / "data", read_only=True).team_children(out["session_id"])}
    assert {s["attributes"]["gen_ai.conversation.id"] for s in agents} == children
    for agent in agents:
        below = [s["name"] for s in receiver.children(agent)]
        assert below.count("execute_tool search") == 1 and below.count("execute_tool visit") == 1
        assert any(n.startswith("chat ") for n in below)
        assert agent["attributes"]["tui_agent.agent.status"] == "done"
        assert any(ev["name"] == "facts_extracted" for ev in agent["events"])
    assert len(KEYS) == len(agents)


def test_sessions_export_otel_sends_a_stored_session_with_its_original_times(
        tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    out = json.loads(_run(_args(chat_server, searx_server, QUESTION), _env(tmp_path, receiver.url)).stdout)
    assert receiver.spans == []  # the run itself sent nothing
    proc = _run([sys.executable, "-m", "tui_agent", "sessions", "export", out["session_id"], "--otel"],
                _env(tmp_path, receiver.url))
    assert "spans of session" in proc.stderr
    events = Store(tmp_path / "data", read_only=True).events(out["session_id"])
    root = receiver.named("invoke_agent")[0]
    assert root["start_ns"] == int(events[0].ts * 1e9) and root["end_ns"] == int(events[-1].ts * 1e9)
    starts = [int(e.ts * 1e9) for e in events if e.type == "model_call_started"]
    assert sorted(s["start_ns"] for s in receiver.named("chat ")) == starts
    assert len(receiver.named("execute_tool")) == 2


def test_sessions_export_otel_content_rebuilds_each_calls_messages_from_the_fold(
        tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    out = json.loads(_run(_args(chat_server, searx_server, QUESTION), _env(tmp_path, receiver.url)).stdout)
    _run([sys.executable, "-m", "tui_agent", "sessions", "export", out["session_id"], "--otel", "--otel-content"],
         _env(tmp_path, receiver.url))
    chats = sorted(receiver.named("chat "), key=lambda s: s["start_ns"])
    sent = [json.loads(c["attributes"]["gen_ai.input.messages"]) for c in chats]
    assert [len(m) for m in sent] == [2, 4, 6]  # system and question, then a reply and its observation per step
    assert "Alpha tower" in json.dumps(sent[0]) and "42 metres" in json.dumps(sent[2])
    assert SECRET not in _all_text(receiver)


def test_an_unreachable_collector_costs_one_warning_naming_it_and_no_traceback(
        tmp_path, chat_server, page_server, searx_server):
    _research(chat_server, page_server, searx_server)
    endpoint = f"http://127.0.0.1:{closed_port()}"
    proc = _run(_args(chat_server, searx_server, QUESTION, "--otel"),
                _env(tmp_path, endpoint, OTEL_EXPORTER_OTLP_TIMEOUT="1"))
    assert json.loads(proc.stdout)["termination"] == "answer"
    warnings = [line for line in proc.stderr.splitlines() if "traces not sent" in line]
    assert len(warnings) == 1 and f"{endpoint}/v1/traces" in warnings[0]
    assert "Traceback" not in proc.stderr


def test_a_run_without_otel_never_imports_the_sdk(tmp_path, chat_server, page_server, searx_server):
    _research(chat_server, page_server, searx_server)
    code = ("import sys; from tui_agent.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    args = _args(chat_server, searx_server, QUESTION)
    proc = subprocess.run([sys.executable, "-c", code, *args[3:]], env=_env(tmp_path, "http://127.0.0.1:9"),
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    assert "LOADED []" in proc.stdout, proc.stdout[-500:] + proc.stderr[-2000:]


def test_eval_otel_sends_one_trace_per_case(tmp_path, chat_server, page_server, searx_server, receiver):
    _research(chat_server, page_server, searx_server)
    cases = tmp_path / "set.jsonl"
    cases.write_text("".join(json.dumps({"id": k, "question": f"How tall is the {k} tower?"}) + "\n"
                             for k in ("alpha", "beta")))
    args = _args(chat_server, searx_server)
    proc = subprocess.run([sys.executable, "-m", "tui_agent", "eval", str(cases), "--label", "traced", "--otel",
                           "--workers", "1", *args[args.index("--model"):]],
                          env=_env(tmp_path, receiver.url), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    roots = [s for s in receiver.spans if not s["parent_id"]]
    assert len(roots) == 2 and len({r["trace_id"] for r in roots}) == 2
    assert all(len(receiver.children(r)) == 5 for r in roots)  # three model calls, search and visit


def test_a_collector_that_never_answers_is_not_waited_for_at_close(monkeypatch):
    """The collector takes the request and holds it: close() returns while it still holds it (the
    exporter's timeout bounds the wait), with the one warning naming the endpoint."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tui_agent.core.events import RunEnded, RunStarted
    from tui_agent.kinds import Termination
    from tui_agent.telemetry.otlp import Tracing

    arrived, release = threading.Event(), threading.Event()

    class Hold(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            arrived.set()
            release.wait(60)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hold)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    warnings: list[str] = []
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
        monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
        tracing = Tracing(warn=warnings.append)
        tracing.listener(RunStarted(session_id="s1", question="q", model="m", ts=1000.0))
        tracing.listener(RunEnded(session_id="s1", termination=Termination.ANSWER, ts=1001.0))
        tracing.close()
        held = arrived.is_set() and not release.is_set()
    finally:
        release.set()
        server.shutdown()
        server.server_close()
    assert held
    assert len(warnings) == 1 and f"{endpoint}/v1/traces" in warnings[0]
