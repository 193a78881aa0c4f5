"""Shards of a regression set, for running one set on several machines: ``eval SET --shard i/n``.

A case belongs to shard ``hash(id) mod n + 1`` (shards are numbered from 1, as a CI matrix index
or GNU parallel's job slot usually is), where the hash is the first 8 bytes of the SHA-256 of the
case id: the same on every machine and Python version, and unchanged when cases are added to or
removed from the set, so a case stays in its shard. The n shards together hold every case once.
Each shard is an ordinary labelled run (the same label on every machine); ``eval merge`` gathers
them into one data directory (evals/merge.py).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from tui_agent.evals.cases import Case

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class ShardError(ValueError):
    """A --shard that is not i/n with 1 ≤ i ≤ n."""


@dataclass(frozen=True)
class Shard:
    index: int  # from 1
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index

    def select(self, cases: list[Case]) -> list[Case]:
        return [c for c in cases if self.holds(c.id)]


def shard_of(case_id: str, count: int) -> int:
    """The shard (from 1) of a case id among ``count`` shards."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str) -> Shard:
    m = _SHARD.fullmatch(text)
    if m is None:
        raise ShardError(f"--shard {text!r}: give it as i/n, e.g. --shard 1/4 (shard 1 of 4)")
    index, count = int(m[1]), int(m[2])
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: the shard number must be from 1 to {max(count, 1)} "
                         f"(shards are numbered from 1)")
    return Shard(index, count)
