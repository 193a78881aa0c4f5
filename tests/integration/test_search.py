"""The search tool: SearXNG against the loopback fake, ddgs for real (offline here)."""

from __future__ import annotations

import threading
import time

from tests.servers import Fault, closed_port
from tui_agent.config import Settings
from tui_agent.safety.hygiene import REDACTED
from tui_agent.tools.base import FAILED, INVALID, OK, SourceRegistry, ToolContext, validate_arguments
from tui_agent.web.net import make_client
from tui_agent.tools.search import SearchTool


class Sleeps:
    """An injected sleep: records the backoff delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def searx_settings(searx, **overrides) -> Settings:
    base = dict(search_backend="searxng", searxng_url=searx.url, search_results=3, search_retries=3,
                search_timeout_s=5.0)
    base.update(overrides)
    return Settings(**base)


async def search(queries, settings, tool=None):
    progress: list[str] = []
    async with make_client(settings) as client:
        ctx = ToolContext(settings=settings, http=client, sources=SourceRegistry(),
                          progress=lambda text, **kw: progress.append(text))
        tool = tool or SearchTool(backoff=lambda attempt: 0.01 * attempt, sleep=Sleeps())
        result = await tool.run({"query": list(queries)}, ctx)
    return result, progress


def test_schema_takes_one_to_five_non_empty_queries():
    tool = SearchTool()
    assert validate_arguments(tool.name, tool.parameters, {"query": ["tides"]}) is None
    assert validate_arguments(tool.name, tool.parameters, {"query": []})
    assert validate_arguments(tool.name, tool.parameters, {"query": [""]})
    assert validate_arguments(tool.name, tool.parameters, {"query": ["q"] * 6})
    assert validate_arguments(tool.name, tool.parameters, {"query": "tides"})
    assert validate_arguments(tool.name, tool.parameters, {"query": ["q"], "extra": 1})


async def test_searxng_results_are_numbered_with_title_url_and_snippet(searx_server):
    searx_server.results["tides"] = [
        ("https://a.example/tides", "All about tides", "Tides are caused by the Moon."),
        ("https://b.example/moon", "The Moon", "Our natural satellite."),
        ("https://c.example/sea", "The sea", "Salty water."),
        ("https://d.example/more", "One too many", "Beyond the limit of 3."),
    ]
    result, _ = await search(["tides"], searx_settings(searx_server))
    assert result.status == OK
    assert result.text == (
        'Results for "tides" (3):\n'
        "1. All about tides\n   https://a.example/tides\n   Tides are caused by the Moon.\n"
        "2. The Moon\n   https://b.example/moon\n   Our natural satellite.\n"
        "3. The sea\n   https://c.example/sea\n   Salty water."
    )
    assert searx_server.params[0]["format"] == "json"


async def test_urls_are_deduplicated_across_the_queries_of_one_call(searx_server):
    searx_server.results["tides"] = [("https://a.example/tides", "Tides", "x"),
                                     ("https://b.example/moon", "Moon", "y")]
    searx_server.results["moon"] = [("https://b.example/moon/", "Moon again", "y"),
                                    ("https://c.example/phases", "Phases", "z")]
    result, _ = await search(["tides", "moon"], searx_settings(searx_server))
    assert result.text.count("https://b.example/moon") == 1
    assert 'Results for "moon" (1) (1 already listed above, left out):\n1. Phases' in result.text


async def test_queries_of_one_call_run_concurrently(searx_server):
    # Each query is answered only once all three are in flight: run one after another, the first
    # would wait for the others in vain and fail (no timing involved, so load cannot flip it).
    together = threading.Barrier(3, timeout=30)

    def answer_when_all_arrived(q):
        together.wait()
        return [(f"https://e.example/{q}", q, "")]

    searx_server.responder = answer_when_all_arrived
    result, _ = await search(["one", "two", "three"], searx_settings(searx_server, search_timeout_s=60.0))
    assert result.status == OK and result.text.count("Results for") == 3 and not together.broken


async def test_empty_results_are_ok_with_a_broader_query_suggestion(searx_server):
    result, _ = await search(["zzqx unfindable"], searx_settings(searx_server))
    assert result.status == OK
    assert result.text.startswith('Results for "zzqx unfindable": no results. Try a broader query')


async def test_server_errors_are_retried_with_backoff_then_reported(searx_server):
    searx_server.fail_with(500)
    sleeps = Sleeps()
    tool = SearchTool(backoff=lambda attempt: 0.1 * attempt, sleep=sleeps)
    result, progress = await search(["tides"], searx_settings(searx_server), tool)
    assert result.status == FAILED
    assert len(searx_server.queries) == 3
    assert sleeps.delays == [0.1, 0.2]
    assert "the search failed after 3 attempts: SearXNG answered HTTP 500" in result.text
    assert len(progress) == 2 and "retrying" in progress[0]


async def test_a_rate_limit_that_clears_is_retried_and_succeeds(searx_server):
    searx_server.results["tides"] = [("https://a.example/tides", "Tides", "x")]
    searx_server.fail_with(429, times=1)
    result, _ = await search(["tides"], searx_settings(searx_server))
    assert result.status == OK and "1. Tides" in result.text
    assert len(searx_server.queries) == 2


async def test_retry_after_is_honoured_within_bounds(searx_server):
    calls = {"n": 0}

    def once_limited(q):
        calls["n"] += 1
        return Fault(status=429, retry_after="2") if calls["n"] == 1 else [("https://a.example/t", "T", "")]

    searx_server.responder = once_limited
    sleeps = Sleeps()
    tool = SearchTool(backoff=lambda attempt: 0.01, sleep=sleeps)
    result, _ = await search(["tides"], searx_settings(searx_server), tool)
    assert result.status == OK and sleeps.delays == [2.0]


async def test_one_failed_query_among_good_ones_is_ok(searx_server):
    def responder(q):
        return 502 if q == "bad" else [(f"https://e.example/{q}", q.title(), "")]

    searx_server.responder = responder
    result, _ = await search(["good", "bad"], searx_settings(searx_server, search_retries=1))
    assert result.status == OK
    assert '1. Good' in result.text and 'Results for "bad": the search failed: SearXNG answered HTTP 502' in result.text


async def test_a_forbidden_json_format_is_explained_and_not_retried(searx_server):
    searx_server.fail_with(403)
    result, _ = await search(["tides"], searx_settings(searx_server))
    assert result.status == FAILED and len(searx_server.queries) == 1
    assert "json format" in result.text


async def test_a_non_json_reply_is_explained(searx_server):
    searx_server.responder = lambda q: Fault(status=200, body="<html>not json</html>")
    result, _ = await search(["tides"], searx_settings(searx_server))
    assert result.status == FAILED and "did not return JSON" in result.text


async def test_unreachable_searxng_fails_fast_and_clearly():
    port = closed_port()
    # A refused connection is not waited on: the 60 s search timeout never comes into play.
    settings = Settings(search_backend="searxng", searxng_url=f"http://127.0.0.1:{port}", search_retries=3,
                        search_timeout_s=60.0)
    start = time.monotonic()
    result, _ = await search(["tides"], settings)
    assert time.monotonic() - start < 30
    assert result.status == FAILED and "could not connect to SearXNG" in result.text


async def test_unresolvable_searxng_host_is_a_dns_failure():
    settings = Settings(search_backend="searxng", searxng_url="http://searx.invalid", search_retries=3)
    result, _ = await search(["tides"], settings)
    assert result.status == FAILED and "could not be resolved" in result.text


async def test_a_search_that_hangs_is_bounded_by_the_search_timeout(searx_server):
    searx_server.responder = lambda q: (time.sleep(60), [])[1]
    start = time.monotonic()
    result, _ = await search(["tides"], searx_settings(searx_server, search_timeout_s=1.0))
    assert time.monotonic() - start < 30  # bounded by the 1 s timeout, far from the 60 s the server takes
    assert result.status == FAILED
    assert "did not answer in time" in result.text or "no answer within 1 s" in result.text


async def test_blank_queries_are_invalid_not_a_crash(searx_server):
    result, _ = await search(["   "], searx_settings(searx_server))
    assert result.status == INVALID and searx_server.queries == []


async def test_searxng_endpoint_is_not_guarded_even_with_the_guard_on(searx_server):
    searx_server.results["tides"] = [("https://a.example/tides", "Tides", "x")]
    result, _ = await search(["tides"], searx_settings(searx_server, allow_private_urls=False))
    assert result.status == OK


async def test_ddgs_for_real_fails_fast_and_clearly_when_offline():
    settings = Settings(search_backend="ddgs", search_retries=2, search_timeout_s=10.0)
    start = time.monotonic()
    result, _ = await search(["python asyncio tutorial"], settings, SearchTool(sleep=Sleeps()))
    elapsed = time.monotonic() - start
    assert elapsed < 30
    if result.status == FAILED:  # no network here: the usual case
        assert 'Results for "python asyncio tutorial": the search failed' in result.text
        assert "could not be reached" in result.text or "timed out" in result.text
    else:  # with a network, real results
        assert result.status == OK and "1. " in result.text


async def test_a_secret_in_a_query_is_redacted_before_it_reaches_the_search_engine(searx_server, monkeypatch):
    monkeypatch.setenv("TUI_TEST_SEARCH_API_KEY", "query-secret-9f8e7d6c5b")
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    searx_server.results[f"why does {REDACTED} fail"] = [("https://a.example/auth", "Auth errors", "Check the token.")]
    result, progress = await search([f"why does {token} fail", "tides query-secret-9f8e7d6c5b", "plain tides"],
                                    searx_settings(searx_server))
    assert result.status == OK
    # what left the machine
    assert sorted(searx_server.queries) == sorted([f"why does {REDACTED} fail", f"tides {REDACTED}", "plain tides"])
    assert not any(token in q or "query-secret" in q for q in searx_server.queries)
    # what the model (and the user, in the trace) read: the query as it was sent, and why it differs
    assert (f'Results for "why does {REDACTED} fail" (a secret in the query was redacted before it was sent) (1):\n'
            f"1. Auth errors\n   https://a.example/auth") in result.text
    assert 'Results for "plain tides": no results.' in result.text
    assert token not in result.text and "query-secret" not in result.text
