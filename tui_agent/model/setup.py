"""Finding a model when none is configured: provider keys in the environment, a local Ollama."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Mapping

# (environment variable, default model for it); the first one set wins.
PROVIDER_DEFAULTS: list[tuple[str, str]] = [
    ("OPENAI_API_KEY", "openai/gpt-4.1-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("MISTRAL_API_KEY", "mistral/mistral-small-latest"),
    ("OPENROUTER_API_KEY", "openrouter/openai/gpt-4.1-mini"),
    ("GROQ_API_KEY", "groq/llama-3.3-70b-versatile"),
]
OLLAMA_URL = "http://127.0.0.1:11434"
OLLAMA_PROBE_TIMEOUT_S = 0.5

HOW_TO_CONFIGURE = """No model is configured. Any one of these works:
  * pass a litellm model string:   tui-agent run "question" --model openai/gpt-4.1-mini
  * set a provider key, e.g.        export OPENAI_API_KEY=...   (or ANTHROPIC_API_KEY, GEMINI_API_KEY, …)
  * run a local Ollama server       (ollama serve; ollama pull qwen3) — it is found automatically
  * any OpenAI-compatible server:   --model openai/MODEL --api-base http://host:port/v1
  * or put  model = "..."  in {config}, or set TUI_AGENT_MODEL."""


def from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    environ = os.environ if environ is None else environ
    for var, model in PROVIDER_DEFAULTS:
        if environ.get(var):
            return model
    return None


def probe_ollama(base: str = OLLAMA_URL, timeout: float = OLLAMA_PROBE_TIMEOUT_S) -> str | None:
    """The first model a local Ollama server lists, as a litellm string; None if unreachable."""
    try:
        with urllib.request.urlopen(f"{base}/api/tags", timeout=timeout) as resp:  # user's own machine, unguarded
            data = json.loads(resp.read().decode("utf-8"))
    except Exception:
        return None
    models = [m.get("name") for m in data.get("models", []) if m.get("name")]
    return f"ollama_chat/{models[0]}" if models else None


def detect(environ: Mapping[str, str] | None = None, ollama: str = OLLAMA_URL) -> tuple[str | None, str | None]:
    """(model, api_base) found without configuration, or (None, None)."""
    model = from_environment(environ)
    if model:
        return model, None
    model = probe_ollama(ollama)
    if model:
        return model, ollama
    return None, None
