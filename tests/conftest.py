"""Shared pytest fixtures: loopback fake servers (see tests/servers.py)."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import warnings  # noqa: E402

import pytest  # noqa: E402

from tests.servers import ChatServer, PageServer, SearxServer  # noqa: E402


def _warn_on_errors(server):
    # Exceptions raised by test-supplied callables/handlers are answered with
    # HTTP 500 by the server; surface them so a broken script is not silent.
    if server.errors:
        warnings.warn(
            f"{type(server).__name__} recorded handler errors: {server.errors!r}",
            stacklevel=2,
        )


@pytest.fixture
def chat_server():
    """OpenAI-compatible fake LLM; ``chat_server.script(...)`` queues replies.

    Use ``api_base=chat_server.url`` (or ``.base_url``) with model
    ``"openai/test-model"``."""
    with ChatServer() as server:
        yield server
    _warn_on_errors(server)


@pytest.fixture
def page_server():
    """Web page server; register routes with ``add``/``redirect``/``hang``/
    ``slow``/``big``/``add_handler``."""
    with PageServer() as server:
        yield server
    _warn_on_errors(server)


@pytest.fixture
def searx_server():
    """SearXNG-style JSON search server; fill ``searx_server.results[q]``."""
    with SearxServer() as server:
        yield server
    _warn_on_errors(server)
