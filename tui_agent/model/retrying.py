"""What every retry loop shares: the capped exponential backoff with jitter, and one line of an
error for a message (the model adapter, search and the visit tool's extraction use both)."""

from __future__ import annotations

import random

# An error message shown in an observation or a notice is cut to this many characters.
ERROR_EXCERPT_CHARS = 160


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None,
                  retry_after: float | None = None, jitter: float = 1.0) -> float:
    """Seconds to wait before retry ``attempt`` (0 for the first retry): base * 2**attempt plus
    uniform(0, jitter), capped; a server's Retry-After wins when it is longer (still capped)."""
    delay = base * (2**attempt) + (rng or random).uniform(0, jitter)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, cap)


def excerpt(error: BaseException | str, limit: int = ERROR_EXCERPT_CHARS) -> str:
    """An error as one short line (its type's name when it says nothing)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
