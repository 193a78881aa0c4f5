"""Token counting: one tiktoken encoder per process, offline, and a per-message cache.

tiktoken downloads its encodings on first use, which fails offline; litellm ships cl100k_base
and o200k_base in its package, so we point TIKTOKEN_CACHE_DIR there (found without importing
litellm, whose import costs seconds).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections import OrderedDict
from typing import Iterable, Mapping

ENCODING = "o200k_base"
# Per-message overhead of the chat format (role and separators), as OpenAI documents it.
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3

_lock = threading.Lock()
_encoder = None


def _litellm_tokenizer_dir() -> str | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "litellm_core_utils", "tokenizers")
    return path if os.path.isdir(path) else None


def encoder():
    """The process-wide encoder, loaded once."""
    global _encoder
    if _encoder is None:
        with _lock:
            if _encoder is None:
                if "TIKTOKEN_CACHE_DIR" not in os.environ:
                    bundled = _litellm_tokenizer_dir()
                    if bundled:
                        os.environ["TIKTOKEN_CACHE_DIR"] = bundled
                import tiktoken

                _encoder = tiktoken.get_encoding(ENCODING)
    return _encoder


def count(text: str) -> int:
    if not text:
        return 0
    return len(encoder().encode(text, disallowed_special=()))


def truncate(text: str, max_tokens: int) -> tuple[str, int]:
    """Keep the first ``max_tokens`` tokens; returns (text, tokens cut)."""
    if max_tokens <= 0:
        return "", count(text)
    ids = encoder().encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text, 0
    return encoder().decode(ids[:max_tokens]), len(ids) - max_tokens


class TokenCounter:
    """Counts chat prompts; each distinct message content is tokenized once (LRU-bounded)."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._cache: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._max = max_entries

    def message(self, msg: Mapping[str, str]) -> int:
        key = (msg.get("role", ""), msg.get("content") or "")
        n = self._cache.get(key)
        if n is None:
            n = count(key[1]) + count(key[0]) + MESSAGE_OVERHEAD
            self._cache[key] = n
            if len(self._cache) > self._max:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return n

    def messages(self, msgs: Iterable[Mapping[str, str]]) -> tuple[int, list[int]]:
        per = [self.message(m) for m in msgs]
        return sum(per) + REPLY_PRIMING, per
