"""Streamed reply text split by tag while it arrives (no Textual, no I/O).

``StreamSplitter`` routes each piece of a streamed reply to the part it belongs to (thinking, a
tool call being written, an answer), tags removed, even when a tag arrives split across two
deltas. Text outside any tag counts as thought. The fold keeps one per session for the step that
is streaming (``fold.stream``).
"""

from __future__ import annotations

from enum import StrEnum


class Part(StrEnum):
    THOUGHT = "thought"
    CALL = "call"
    ANSWER = "answer"


THOUGHT, CALL, ANSWER = Part.THOUGHT, Part.CALL, Part.ANSWER

_TAGS = {
    "<think>": (THOUGHT, True), "</think>": (THOUGHT, False),
    "<tool_call>": (CALL, True), "</tool_call>": (CALL, False),
    "<answer>": (ANSWER, True), "</answer>": (ANSWER, False),
}
_MAX_TAG = max(len(t) for t in _TAGS)


class StreamSplitter:
    """Splits streamed reply text into (part, text) pieces."""

    def __init__(self) -> None:
        self.kind = THOUGHT
        self._held = ""

    def feed(self, text: str) -> list[tuple[Part, str]]:
        buf = self._held + text
        self._held = ""
        out: list[tuple[Part, str]] = []
        i = 0
        start = 0
        while True:
            j = buf.find("<", i)
            if j < 0:
                break
            for tag, (kind, opening) in _TAGS.items():
                if buf.startswith(tag, j):
                    if j > start:
                        out.append((self.kind, buf[start:j]))
                    self.kind = kind if opening else THOUGHT
                    start = i = j + len(tag)
                    break
            else:
                rest = buf[j:]
                if len(rest) < _MAX_TAG and any(t.startswith(rest) for t in _TAGS):
                    if j > start:
                        out.append((self.kind, buf[start:j]))
                    self._held = rest
                    return _merge(out)
                i = j + 1
        if start < len(buf):
            out.append((self.kind, buf[start:]))
        return _merge(out)

    def flush(self) -> list[tuple[Part, str]]:
        held, self._held = self._held, ""
        return [(self.kind, held)] if held else []


def _merge(pieces: list[tuple[Part, str]]) -> list[tuple[Part, str]]:
    merged: list[tuple[Part, str]] = []
    for kind, text in pieces:
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged
