"""The Router and proxy paths: a LiteLLM Router over failing deployments answers every case with its
own retries and cooldowns, prices each reply by the deployment that gave it (so --budget-usd works
behind an alias), and names the deployment when it gives up; --api-key reaches a proxy, and a 400
from one names the key. Real litellm (a Router in a subprocess: it registers its deployments
process-wide) against scripted servers on 127.0.0.1."""

from __future__ import annotations

import itertools
import json

from tests.integration.test_budget import SEARCHES, run_cli, run_flags
from tests.integration.test_cli import cli, isolated_env
from tests.integration.test_eval import PerQuestion, write_set
from tests.servers import ChatServer, Fault, closed_port

# A priced model name for the deployments (the alias "fast" has no price of its own).
PRICED = "openai/gpt-4o-mini"


def router_file(tmp_path, *bases: str, settings: str = "") -> str:
    path = tmp_path / "router.yaml"
    entries = "".join(f"""  - model_name: fast
    litellm_params:
      model: {PRICED}
      api_base: {base}
      api_key: none
""" for base in bases)
    path.write_text("model_list:\n" + entries + settings)
    return str(path)


def by_question(request: dict) -> str:
    question = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return f"<answer>answered: {question}</answer>"


def every_other(fault: Fault):
    """Answers, failing every second request with ``fault``."""
    counter = itertools.count()

    def reply(request: dict):
        return fault if next(counter) % 2 else by_question(request)

    return reply


def router_eval(tmp_path, searx, config: str, label: str, *args: str, env: dict | None = None):
    path = write_set(tmp_path, *({"id": f"c{n}", "question": f"What is case {n}?", "expect": [f"case {n}\\b"]}
                                 for n in range(32)))
    return cli("eval", path, "--label", label, "--json", "--model", "fast", "--router-config", config,
               "--search-backend", "searxng", "--searxng-url", searx.url, *args,
               env=isolated_env(tmp_path) | {"TUI_AGENT_REQUIRE_EVIDENCE": "false"} | (env or {}), timeout=300)


def test_a_router_over_a_429ing_a_500ing_and_a_dead_deployment_answers_every_case(tmp_path, searx_server):
    with ChatServer(default=every_other(Fault(status=429, retry_after="1"))) as limited, \
            ChatServer(default=every_other(Fault(status=500))) as failing:
        dead = f"http://127.0.0.1:{closed_port()}/v1"
        config = router_file(tmp_path, limited.base_url, failing.base_url, dead)
        # Short rests and backoff (settings): the same faults, the same Router, in seconds not a minute.
        # Short waits mean more of them: 32 cases at once keep the deployments failing and resting, and
        # on two loaded cores a case once lost its 10 attempts in a row (CI). 30 attempts, each wait
        # at most 2 s, leave a margin and still end within a minute or two.
        proc = router_eval(tmp_path, searx_server, config, "r", "--concurrency", "32",
                           env={"TUI_AGENT_ROUTER_COOLDOWN_S": "1", "TUI_AGENT_RETRY_BASE_S": "0.2",
                                "TUI_AGENT_RETRY_ATTEMPTS": "30", "TUI_AGENT_RETRY_CAP_S": "2"})
        cases = json.loads(proc.stdout)["cases"] if proc.stdout.strip() else []
        failed = {c["id"]: c["error"] for c in cases if not c["passed"]}
        assert proc.returncode == 0, (failed, proc.stderr[-3000:])
        assert len(cases) == 32
        for case in cases:
            assert case["passed"] is True and case["termination"] == "answer" and case["error"] is None
            # Priced by the deployment that answered (gpt-4o-mini), not by the alias "fast".
            assert case["cost_usd"] is not None and case["cost_usd"] > 0
        statuses = [len(limited.requests), len(failing.requests)]
        assert all(n > 1 for n in statuses)  # both live deployments took calls, and served their faults


def test_a_usd_budget_behind_a_router_alias_is_priced_by_the_deployment_and_stops_the_run(tmp_path, chat_server,
                                                                                         searx_server):
    chat_server.default = PerQuestion({"budget": SEARCHES})
    config = router_file(tmp_path, chat_server.base_url)
    path = write_set(tmp_path, {"id": "b", "question": "How far does the budget go?"})
    proc = cli("eval", path, "--label", "b", "--json", "--model", "fast", "--router-config", config,
               "--budget-usd", "0.0001", "--search-backend", "searxng", "--searxng-url", searx_server.url,
               env=isolated_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    (case,) = json.loads(proc.stdout)["cases"]
    # 1000 prompt + 100 completion tokens of gpt-4o-mini cost $0.00021: over the budget after one call.
    assert case["termination"] == "budget_limit" and case["model_calls"] == 1 and case["cost_usd"] > 0.0001


def test_a_router_whose_deployments_are_all_dead_names_them_and_not_api_base(tmp_path, searx_server):
    dead = [f"http://127.0.0.1:{closed_port()}/v1" for _ in range(2)]
    config = router_file(tmp_path, *dead, settings="router_settings:\n  num_retries: 1\n")
    path = write_set(tmp_path, {"id": "d", "question": "Is anyone there?"})
    proc = cli("eval", path, "--label", "d", "--json", "--model", "fast", "--router-config", config,
               "--search-backend", "searxng", "--searxng-url", searx_server.url,
               env=isolated_env(tmp_path) | {"TUI_AGENT_RETRY_BASE_S": "0.1"})
    assert proc.returncode == 1, proc.stderr[-3000:]
    (case,) = json.loads(proc.stdout)["cases"]
    assert case["termination"] == "model_error"
    error = case["error"]
    assert f"deployment {PRICED} of fast at http://127.0.0.1:" in error and "connection refused" in error
    assert config in error and "--api-base" not in error


def test_api_key_reaches_the_endpoint(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    chat_server.script("<answer>done</answer>", "<answer>done</answer>")
    code, _, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server),
                           "--api-key", "sk-proxy-key-0001", env={"TUI_AGENT_REQUIRE_EVIDENCE": "false"})
    assert code == 0, err
    assert chat_server.request_headers[0]["authorization"] == "Bearer sk-proxy-key-0001"
    # From the config file, a secret like any other.
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text('api_key = "sk-from-config-0002"\n')
    code, out, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server),
                             env={"TUI_AGENT_REQUIRE_EVIDENCE": "false"})
    assert code == 0, err
    assert chat_server.request_headers[1]["authorization"] == "Bearer sk-from-config-0002"
    assert "sk-from-config-0002" not in out


def test_a_400_from_a_proxy_without_a_key_names_the_key(tmp_path, monkeypatch, capsys, chat_server, searx_server):
    no_db = {"error": {"message": "No connected db.", "type": "no_db_connection", "param": None, "code": "400"}}
    chat_server.script(Fault(status=400, body=no_db))
    code, out, err = run_cli(monkeypatch, capsys, tmp_path, *run_flags(chat_server, searx_server))
    assert code == 1
    message = json.loads(out)["termination"], err
    assert message[0] == "model_error"
    assert "No connected db" in err and "--api-key" in err and chat_server.base_url in err


def test_the_router_file_s_retries_and_cooldown_win_over_the_settings_which_fill_in_the_rest(tmp_path):
    from tui_agent.config import Settings
    from tui_agent.model.routing import load_router_config, router_options

    settings = Settings(router_retries=5, router_cooldown_s=7.0)
    bare = load_router_config(router_file(tmp_path, "http://127.0.0.1:1/v1"))
    assert router_options(bare, settings) == {"num_retries": 5, "cooldown_time": 7.0}
    given = load_router_config(router_file(tmp_path, "http://127.0.0.1:1/v1", settings=(
        "router_settings:\n  num_retries: 1\n  cooldown_time: 2\n  fallbacks: [{fast: [slow]}]\n")))
    assert router_options(given, settings) == {"num_retries": 1, "cooldown_time": 2, "fallbacks": [{"fast": ["slow"]}]}
    assert router_options(bare, Settings()) == {"num_retries": 3}  # the Router's own cooldown default
