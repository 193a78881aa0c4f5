"""What a model call returns or raises (shared by every :class:`~tui_agent.model.Model`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ModelError(Exception):
    """The model could not be reached or refused the request (after retries where they help)."""

    def __init__(self, kind: str, message: str, status: int | None = None, url: str | None = None) -> None:
        super().__init__(message)
        # auth | not_found | context | bad_request | server_down | server_error (a 5xx that said the same twice)
        # | rate_limit | timeout | unreachable | unparseable (a reply the client cannot read)
        self.kind = kind
        self.status = status
        self.url = url  # the endpoint, for "unreachable"


@dataclass
class Reply:
    text: str
    reasoning: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    finish_reason: str | None = None
    model: str = ""
    # native tool calling: the reply's calls, OpenAI-shaped ({"id", "type", "function": {"name", "arguments"}})
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    # the provider refused the model's tool call (Groq's tool_use_failed): its message; ``text`` is then
    # the model's failed generation, for the engine to send back as a correction
    failed_call: str = ""


@dataclass
class RetryInfo:
    attempt: int
    delay_s: float
    reason: str
