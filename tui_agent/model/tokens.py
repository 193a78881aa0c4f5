"""Token counting: one tiktoken encoder per process, offline, a per-message cache and a bounded
per-process cache of counted texts; the head of a long text without encoding all of it.

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

import functools
import importlib.util
import json
import os
import re
import threading
import unicodedata
from typing import Any, Callable, Iterable, Mapping

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


_PIECE_CHARS = 65_536
"""Piece size when a text is encoded in pieces (see :func:`encode`)."""


def encode(text: str) -> list[int]:
    """The token ids of ``text``. tiktoken's pattern gives up on a very long run of whitespace
    (about a million spaces: ``ValueError: … Max stack size exceeded for backtracking``); such a
    text is encoded in pieces of :data:`_PIECE_CHARS` characters, whose ids decode to the same
    text (a cut inside the run may count a token or two more than one encoding would)."""
    enc = encoder()
    try:
        return enc.encode(text, disallowed_special=())
    except ValueError:
        ids: list[int] = []
        for start in range(0, len(text), _PIECE_CHARS):
            ids += enc.encode(text[start:start + _PIECE_CHARS], disallowed_special=())
        return ids


def count(text: str) -> int:
    """Tokens in ``text``; a text counted before in this process is looked up (:data:`_counts`)."""
    if not text:
        return 0
    enc = encoder()
    n = _counts.get(enc, text)
    if n is None:
        n = len(encode(text))
        _counts.put(enc, text, n)
    return n


class _Counts:
    """Token counts of texts seen in this process, keyed by the text itself (exact, no digest), so
    a text counted again (the system prompt of every eval case, a page that several cases read)
    costs one lookup. Bounded: at most ``max_entries`` texts and ``max_chars`` characters held,
    the oldest forgotten first; cleared when the encoder changes. Thread-safe."""

    def __init__(self, max_entries: int = 4096, max_chars: int = 4_000_000) -> None:
        self.max_entries, self.max_chars = max_entries, max_chars
        self._owner: object = None
        self._map: dict[str, int] = {}
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, enc: object, text: str) -> int | None:
        return self._map.get(text) if enc is self._owner else None

    def put(self, enc: object, text: str, n: int) -> None:
        if len(text) > self.max_chars // 4:
            return  # one text may not push out all the others
        with self._lock:
            if enc is not self._owner:
                self._owner, self._map, self._chars = enc, {}, 0
            if text in self._map:
                return
            self._map[text] = n
            self._chars += len(text)
            while len(self._map) > self.max_entries or self._chars > self.max_chars:
                oldest = next(iter(self._map))
                del self._map[oldest]
                self._chars -= len(oldest)


_counts = _Counts()


@functools.lru_cache(maxsize=64)
def _role_tokens(role: str) -> int:
    """Tokens of a message's role ("system", "user", ...): a handful of strings, counted once."""
    return len(encoder().encode(role, disallowed_special=())) if role else 0


# -- a long text's first tokens, without encoding all of it -------------------------------------
# tiktoken splits a text with its pattern into pieces and encodes each piece on its own, so the
# ids of a text are the ids of its parts when it is cut where the pattern always splits. In
# o200k_base and cl100k_base that is after a letter that is followed by anything that cannot
# continue a word (not a letter, a combining mark or an apostrophe, which may start "'s"), and
# after a digit followed by anything but a digit: no piece holds a letter and such a character, or
# a digit and a non-digit, and the pattern looks no further than one character past a piece
# (its only lookahead is ``\s+(?!\S)``, and a piece ending in a letter or digit is no run of
# spaces). Both characters are checked against Python's Unicode data too, so a character that a
# newer table calls a letter (unassigned here) never makes a cut.
_SPLIT_ENCODINGS = frozenset({"o200k_base", "cl100k_base"})
_SPLIT_CANDIDATE = re.compile(r"(?<=[^\W_])[^\w']")  # after a letter or digit: no word character
HEAD_MARGIN = 64
"""Tokens encoded beyond the ones asked for, so that an estimate a little short needs no second round."""
_FIRST_CHARS_PER_TOKEN = 4.0  # English prose runs 4.5-6.5 characters a token in o200k_base, Chinese < 1.5
_FIRST_CHARS = 16_384  # the first part encoded, to measure the characters a token of this text
_SPLIT_TRIES = 1000  # candidates looked at before giving up on a cut (each costs a Python step)


def split_point(text: str, start: int) -> int | None:
    """The first position at or after ``start`` (> 0) where ``text`` may be cut without changing
    its tokens (``encode(text) == encode(text[:n]) + encode(text[n:])``), or None."""
    for tried, m in enumerate(_SPLIT_CANDIDATE.finditer(text, max(1, start))):
        n = m.start()
        before, after = unicodedata.category(text[n - 1]), unicodedata.category(text[n])
        if before[0] in "LN" and after[0] not in "LMN" and after not in ("Cn", "Cs", "Co"):
            return n
        if tried >= _SPLIT_TRIES:  # a text of letters and combining marks only: encode it whole
            return None
    return None


def encode_head(text: str, min_tokens: int) -> tuple[list[int], int]:
    """``(ids, end)``: the token ids of ``text[:end]``, which are the first ids of the whole text,
    with ``end`` where the text may be cut and at least ``min_tokens`` ids, or the whole text's
    ids (``end == len(text)``) when it has fewer or cannot be cut. Only a prefix is encoded, in
    parts cut where the text may be cut: a first part of at most 16K characters measures the
    characters a token, the next is sized for ``min_tokens`` and :data:`HEAD_MARGIN` more tokens
    at that rate, and more follow while the prefix holds fewer than ``min_tokens``."""
    enc = encoder()
    if getattr(enc, "name", None) not in _SPLIT_ENCODINGS:
        return encode(text), len(text)
    ids: list[int] = []
    start, per_token = 0, _FIRST_CHARS_PER_TOKEN
    while True:
        want = (min_tokens + HEAD_MARGIN - len(ids)) * per_token
        guess = start + max(1, int(want if ids else min(want, _FIRST_CHARS)))  # the first part measures
        end = split_point(text, guess) if guess < len(text) else None
        end = len(text) if end is None else end
        ids += encode(text[start:end])
        if end >= len(text) or len(ids) >= min_tokens:
            return ids, end
        start, per_token = end, end / max(1, len(ids))


def truncate(text: str, max_tokens: int) -> str:
    """The first ``max_tokens`` tokens of ``text`` (the text itself when it has no more), exactly
    as decoding the first ``max_tokens`` ids of the whole text gives, though only a prefix of a
    long text is encoded (:func:`encode_head`); no note (``core.budgets.fit`` adds one)."""
    if max_tokens <= 0:
        return ""
    if len(text) <= max_tokens and len(text.encode("utf-8", "surrogatepass")) <= max_tokens:
        return text  # a token is at least one byte
    enc = encoder()
    known = _counts.get(enc, text)
    if known is not None and known <= max_tokens:
        return text
    ids, end = encode_head(text, max_tokens)
    if end >= len(text):
        _counts.put(enc, text, len(ids))
        if len(ids) <= max_tokens:
            return text
    return enc.decode(ids[:max_tokens])


class TokenCounter:
    """Counts chat prompts; each distinct message is tokenized once (the oldest of ``max_entries``
    forgotten first: a hit costs one lookup, no reordering). A native assistant message's
    ``tool_calls`` (names and arguments, as sent) count with it, and a tool result's id."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._cache: dict[tuple[str, str, str], int] = {}
        self._max = max_entries

    def message(self, msg: Mapping[str, Any]) -> int:
        extra = _call_text(msg) if "tool_calls" in msg or "tool_call_id" in msg else ""
        key = (msg.get("role", ""), msg.get("content") or "", extra)
        n = self._cache.get(key)
        if n is None:
            n = count(key[1]) + count(extra) + _role_tokens(key[0]) + MESSAGE_OVERHEAD
            self._cache[key] = n
            if len(self._cache) > self._max:
                del self._cache[next(iter(self._cache))]
        return n

    def messages(self, msgs: Iterable[Mapping[str, Any]]) -> tuple[int, list[int]]:
        per = [self.message(m) for m in msgs]
        return sum(per) + REPLY_PRIMING, per


def _call_text(msg: Mapping[str, Any]) -> str:
    """What a message carries besides its content: its tool calls' names and arguments (the JSON
    a provider is sent) and a tool result's call id."""
    parts = [str(msg.get("tool_call_id") or "")]
    for call in msg.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        parts += [str(call.get("id") or ""), str(function.get("name") or ""), str(function.get("arguments") or "")]
    return " ".join(p for p in parts if p)


def request_tokens(request: Mapping[str, Any]) -> int:
    """Tokens of what a request sends besides its messages: the ``tools`` specs (native calling),
    counted as their JSON."""
    tools = request.get("tools")
    return count(json.dumps(tools, ensure_ascii=False, separators=(",", ":"))) if tools else 0


class CountedPrompt:
    """The next model call's messages and their counts, built once until :meth:`stale` (the engine
    calls it at every event): the gate and the call that follows it share one build and count.
    ``fixed`` tokens (the request's tools specs) are part of every total."""

    def __init__(self, counter: TokenCounter, build: Callable[[], list[dict[str, str]]], fixed: int = 0) -> None:
        self.counter, self.build, self.fixed = counter, build, fixed
        self._current: tuple[list[dict[str, str]], int, list[int]] | None = None

    def stale(self) -> None:
        self._current = None

    def count(self, msgs: list[dict[str, str]]) -> tuple[int, list[int]]:
        """(tokens in all, the fixed ones included; tokens per message) of ``msgs``."""
        total, per = self.counter.messages(msgs)
        return total + self.fixed, per

    def current(self) -> tuple[list[dict[str, str]], int, list[int]]:
        """(messages, tokens in all, tokens per message)."""
        if self._current is None:
            msgs = self.build()
            self._current = (msgs, *self.count(msgs))
        return self._current
