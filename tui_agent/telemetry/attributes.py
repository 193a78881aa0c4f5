"""The attributes' shapes: usage, the provider from a model name, and content as the GenAI
conventions write it (``gen_ai.input.messages``: a JSON list of role and parts)."""

from __future__ import annotations

import json
from typing import Any, Callable


def provider_of(model: str) -> str:
    """``gen_ai.provider.name`` from a litellm-style model name (``openai/gpt-4o`` → openai)."""
    return model.split("/", 1)[0] if "/" in model else ""


def usage(prompt: int, completion: int, cost: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"gen_ai.usage.input_tokens": prompt, "gen_ai.usage.output_tokens": completion}
    if cost is not None:
        out["tui_agent.cost_usd"] = cost
    return out


def json_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def messages(messages: list[dict[str, Any]], redact: Callable[[str], str]) -> str:
    """Messages in the conventions' shape (role and parts), as the JSON string the attribute holds."""
    out = []
    for m in messages:
        parts: list[dict[str, Any]] = []
        if m.get("content"):
            parts.append({"type": "text", "content": redact(str(m["content"]))})
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            parts.append({"type": "tool_call", "id": call.get("id", ""), "name": fn.get("name", ""),
                          "arguments": redact(json_text(fn.get("arguments", "")))})
        out.append({"role": m.get("role", ""), "parts": parts})
    return json.dumps(out, ensure_ascii=False)
