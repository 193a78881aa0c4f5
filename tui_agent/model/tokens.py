"""Token counting: one tiktoken encoder per process, offline, and a per-message cache.

tiktoken downloads its encodings on first use, which fails offline; litellm ships cl100k_base
and o200k_base in its package, so we point TIKTOKEN_CACHE_DIR there (found without importing
litellm, whose import costs seconds).

Loading o200k_base means decoding 200,000 base64 lines (~0.3 s) before tiktoken builds its
encoder (~0.15 s); a command like ``tui-agent read`` should answer in well under a second. So
the decoded tokens are kept in the user cache directory (``TUI_AGENT_CACHE_DIR`` or the XDG
cache) as a marshalled list of bytes in rank order — data only, no pickle — and read back in
~50 ms; a missing, stale or damaged cache file falls back to tiktoken's own loader (and is
rewritten).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Callable, Iterable, Mapping

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
                _encoder = _load_encoding()
    return _encoder


def _ranks_cache_path() -> str | None:
    try:
        import platformdirs
        import tiktoken

        base = os.environ.get("TUI_AGENT_CACHE_DIR") or platformdirs.user_cache_dir("tui-agent")
        return os.path.join(base, f"{ENCODING}-tiktoken-{tiktoken.__version__}.tokens")
    except Exception:
        return None


def _read_ranks(path: str) -> dict[bytes, int] | None:
    """The ranks from the cache file (a marshalled list of the tokens in rank order: data, never
    code), or None when it is missing or does not check out."""
    import marshal

    try:
        with open(path, "rb") as fh:
            tokens = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(tokens, list) or not tokens or not all(type(t) is bytes for t in tokens):
        return None
    ranks = dict(zip(tokens, range(len(tokens))))
    return ranks if len(ranks) == len(tokens) else None


def _write_ranks(path: str, ranks: dict[bytes, int]) -> None:
    import marshal

    ordered = sorted(ranks.items(), key=lambda kv: kv[1])
    if [r for _, r in ordered] != list(range(len(ordered))):
        return  # not the dense table this format holds
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(marshal.dumps([t for t, _ in ordered]))
        os.replace(tmp, path)
    except OSError:
        pass


def _load_encoding():
    import tiktoken

    path = _ranks_cache_path()
    ranks = _read_ranks(path) if path else None
    if ranks is not None:
        try:
            import tiktoken_ext.openai_public as public

            # tiktoken's own constructor arguments (pattern, special tokens), with the ranks
            # from the cache instead of the base64 file
            loader = public.load_tiktoken_bpe
            public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
            try:
                spec = getattr(public, ENCODING)()
            finally:
                public.load_tiktoken_bpe = loader
            return tiktoken.Encoding(**spec)
        except Exception:
            pass
    encoding = tiktoken.get_encoding(ENCODING)
    if path:
        ranks = getattr(encoding, "_mergeable_ranks", None)
        if isinstance(ranks, dict):
            _write_ranks(path, ranks)
    return encoding


def count(text: str) -> int:
    if not text:
        return 0
    return len(encoder().encode(text, disallowed_special=()))


def truncate(text: str, max_tokens: int) -> tuple[str, int]:
    """Keep the first ``max_tokens`` tokens; returns (text, tokens cut) (``context.budgets.cut``)."""
    from tui_agent.context import budgets

    return budgets.cut(text, max_tokens)


class TokenCounter:
    """Counts chat prompts; each distinct message content is tokenized once (the oldest of
    ``max_entries`` forgotten first: a hit costs one lookup, no reordering)."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._cache: dict[tuple[str, str], int] = {}
        self._max = max_entries

    def message(self, msg: Mapping[str, str]) -> int:
        key = (msg.get("role", ""), msg.get("content") or "")
        n = self._cache.get(key)
        if n is None:
            n = count(key[1]) + count(key[0]) + MESSAGE_OVERHEAD
            self._cache[key] = n
            if len(self._cache) > self._max:
                del self._cache[next(iter(self._cache))]
        return n

    def messages(self, msgs: Iterable[Mapping[str, str]]) -> tuple[int, list[int]]:
        per = [self.message(m) for m in msgs]
        return sum(per) + REPLY_PRIMING, per


class CountedPrompt:
    """The next model call's messages and their counts, built once until :meth:`stale` (the engine
    calls it at every event): the gate and the call that follows it share one build and count."""

    def __init__(self, counter: TokenCounter, build: Callable[[], list[dict[str, str]]]) -> None:
        self.counter, self.build = counter, build
        self._current: tuple[list[dict[str, str]], int, list[int]] | None = None

    def stale(self) -> None:
        self._current = None

    def current(self) -> tuple[list[dict[str, str]], int, list[int]]:
        """(messages, tokens in all, tokens per message)."""
        if self._current is None:
            msgs = self.build()
            self._current = (msgs, *self.counter.messages(msgs))
        return self._current
