"""Whether litellm's model map may know a model, answered without importing litellm.

Importing litellm costs about three seconds of CPU. A run whose calls go through the direct client
(:mod:`tui_agent.model.direct`: a local or self-hosted OpenAI-compatible server) needs litellm for
two facts only, the model's price and its context window, and a model served locally is in
litellm's map only by accident. So the map that litellm ships (``model_prices_and_context_window_backup.json``,
the one it reads itself with ``LITELLM_LOCAL_MODEL_COST_MAP``) is read as JSON, and only a model
it may know imports litellm to ask. "May know" is wide on purpose: a model matches when its full
name, its name after the provider prefix or its last path part equals any of those of a key,
ignoring case, so every name litellm's own lookup could resolve is answered by litellm. Without the
file (another litellm layout) every model "may be known", which is the old behaviour.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from functools import lru_cache

MAP_FILE = "model_prices_and_context_window_backup.json"

_lock = threading.Lock()


def _names(name: str) -> set[str]:
    name = name.lower()
    return {name, name.split("/", 1)[-1], name.rsplit("/", 1)[-1]}


@lru_cache(maxsize=1)
def _map_names() -> frozenset[str] | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], MAP_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            keys = json.load(f)
    except (OSError, ValueError):
        return None
    names: set[str] = set()
    for key in keys:
        names |= _names(key)
    return frozenset(names)


def map_names() -> frozenset[str] | None:
    """Every name litellm's map may resolve (about 80 ms to read, once per process), or None
    when the map file cannot be read."""
    with _lock:
        return _map_names()


MAP_ONLY_PREFIXES = ("openai/", "hosted_vllm/")
"""Providers whose price and context window litellm takes from its map alone (it asks no server):
for their models a miss in the map is litellm's answer too."""


def unknown(model: str | None) -> bool:
    """True when litellm surely has neither price nor context window for ``model`` (a map-only
    provider's model that is not in the map): asking it would import litellm for nothing."""
    return bool(model) and model.startswith(MAP_ONLY_PREFIXES) and not might_know(model)


def might_know(model: str | None) -> bool:
    """False only when no name of ``model`` is in litellm's map: it has no price and no context
    window there, and asking litellm would only import it."""
    if not model:
        return False
    names = map_names()
    return names is None or not names.isdisjoint(_names(model))
