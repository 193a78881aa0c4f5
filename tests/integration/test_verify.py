"""`sessions verify` as a command: a recorded session's answer checked claim by claim against the
scripted server (its own endpoint, another model, a rejected key, bad usage).

Sessions are recorded for real (the runner, the visit tool on a local page server, the store);
the verifier is the scripted ChatServer, answering by the claim it is asked about (claims are
checked concurrently, so the order of requests is not the order of claims). The check itself
(verdicts, retries, sampling, concurrency) is tested on the in-memory model in
tests/unit/test_verify_check.py (issue 28).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import call, settings_for
from tests.integration.test_cli import cli, isolated_env
from tests.servers import Fault
from tui_agent.agent.runner import Run
from tui_agent.session.exports import export
from tui_agent.session.store import Store

from tests.verify_pages import ALPHA, ANSWER, BETA, CLAIMS  # noqa: E402


def verdict(v: str, evidence: str = "") -> str:
    return json.dumps({"verdict": v, "evidence": evidence})


def claim_of(request: dict) -> str:
    """The claim a verifier request asks about."""
    content = request["messages"][0]["content"]
    return re.search(r"refer to the sources below\):\n(.*?)\n\nThe sources", content, re.S).group(1)


async def record(tmp_path, chat, pages, answer: str = ANSWER) -> tuple[Store, str]:
    """A finished session that visited Alpha [1] and Beta [2] in one call, then answered."""
    a, b = pages.add("/alpha", ALPHA), pages.add("/beta", BETA)
    chat.script(call("visit", url=[a, b], goal="facts"), f"<answer>{answer}</answer>")
    store = Store(tmp_path / "data")
    run = Run(settings_for(chat, auto_approve=True), "What are Alpha and Beta?", store=store, approver=None)
    result = await run.start()
    assert result["termination"] == "answer"
    chat.requests.clear()
    return store, run.session_id


# -- the command ------------------------------------------------------------------------------------


async def test_cli_verify_by_id_prefix_prints_json_and_exits_0_when_fine(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = lambda req: verdict("unsupported" if claim_of(req) == CLAIMS[2] else "supported",
                                              "quoted text")
    # No --model or --api-base: the session's own model and endpoint.
    proc = cli("sessions", "verify", sid[:-2], "--json", env=isolated_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"session_id", "model", "claims", "found", "checked", "supported", "unsupported", "unclear",
                         "unsupported_share", "needs_review", "cost_usd"}
    assert data["session_id"] == sid and data["model"] == "openai/test-model"
    assert (data["checked"], data["supported"], data["unsupported"], data["unclear"]) == (5, 4, 1, 0)
    assert data["unsupported_share"] == pytest.approx(0.2) and data["needs_review"] is False
    assert data["claims"][2] == {"claim": CLAIMS[2], "sources": [2], "verdict": "unsupported",
                                 "evidence": "quoted text", "note": ""}
    assert len(chat_server.requests) == 5
    show = cli("sessions", "show", sid, env=isolated_env(tmp_path))
    assert "claim unsupported: Beta is licensed under the GPL [2]." in show.stdout
    assert "citation check: 5 checked · 4 supported · 1 unsupported · 0 unclear" in show.stdout


async def test_cli_verify_prints_each_claim_and_exits_1_when_it_needs_review(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = lambda req: verdict("unsupported" if "Beta" in claim_of(req) else "supported",
                                              "\x1b[31mred\x1b[0m quote")
    proc = cli("sessions", "verify", sid, "--verify-model", "openai/checker", env=isolated_env(tmp_path))
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out
    assert f"Citation check of session {sid} with openai/checker: 5 claims cite sources, 5 checked" in out
    assert "[3/5] UNSUPPORTED  Beta is licensed under the GPL [2]." in out
    assert "evidence: \u201cred quote\u201d" in out
    assert out.rstrip().splitlines()[-1] == ("5 checked: 3 supported, 2 unsupported, 0 unclear · needs review: "
                                             "40% unsupported, more than 20%")
    assert {r["model"] for r in chat_server.requests} == {"checker"}


async def test_cli_verify_of_an_answer_without_citations_needs_review(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server, answer="Alpha is old and Beta is new.")
    store.close()
    proc = cli("sessions", "verify", sid, env=isolated_env(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.rstrip().endswith("needs review: the answer cites no sources")
    assert chat_server.requests == []
    report = export(Store(tmp_path / "data").events(sid), "md")
    assert "**Needs review:** the answer cites no sources." in report


def test_cli_verify_bad_usage_exits_2_with_a_message(tmp_path, chat_server):
    env = isolated_env(tmp_path)
    store = Store(tmp_path / "data")
    for sid in ("20260101-000000-aaaaaa", "20260101-000000-aaaaab"):
        store.create_session(sid, "unanswered question", "openai/test-model")
    store.close()
    unknown = cli("sessions", "verify", "nope", env=env)
    assert unknown.returncode == 2 and "no session with an id starting 'nope'" in unknown.stderr
    ambiguous = cli("sessions", "verify", "20260101", env=env)
    assert ambiguous.returncode == 2 and "matches 2 sessions" in ambiguous.stderr
    no_answer = cli("sessions", "verify", "20260101-000000-aaaaaa", "--model", "openai/test-model",
                    "--api-base", chat_server.base_url, env=env)
    assert no_answer.returncode == 2 and "has no answer to check" in no_answer.stderr
    bad_sample = cli("sessions", "verify", "20260101-000000-aaaaaa", "--sample", "0", env=env)
    assert bad_sample.returncode == 2 and "--sample must be at least 1" in bad_sample.stderr
    for proc in (unknown, ambiguous, no_answer, bad_sample):
        assert "Traceback" not in proc.stderr
    assert chat_server.requests == []


async def test_cli_verify_with_a_rejected_key_exits_1_with_a_plain_message(tmp_path, chat_server, page_server):
    store, sid = await record(tmp_path, chat_server, page_server)
    store.close()
    chat_server.default = Fault(status=401)
    proc = cli("sessions", "verify", sid, env=isolated_env(tmp_path))
    assert proc.returncode == 1
    assert "cannot be used" in proc.stderr and "API key" in proc.stderr and "Traceback" not in proc.stderr


