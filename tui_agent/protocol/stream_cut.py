"""The streamed text as it may be shown: it ends where the wire cuts the whole reply.

A server that ignores the stop sequences streams on past ``<tool_response>``: the observation
and answer the model wrote after it are cut from the reply (``Wire.cut``), and must not reach the
live view either. :class:`VisibleText` takes the pieces and returns what may be shown: a tail that
could still be the start of the cut's marker waits (at most ``MARKER_WINDOW`` characters) until
it cannot, and nothing after the marker is ever returned.
"""

from __future__ import annotations

from typing import Callable

MARKER_WINDOW = 32
"""Characters from the last ``<`` that wait while they could still begin the marker the wire cuts at."""


class VisibleText:
    """One text stream, cut as the whole reply will be (not thread-safe: one per stream)."""

    def __init__(self, cut: Callable[[str], tuple[str, bool]]) -> None:
        self.cut = cut
        self.text = ""  # every piece so far
        self.given = 0  # how much of it went out
        self.done = False  # the marker was seen: nothing more goes out

    def feed(self, piece: str) -> str:
        """Take the next piece; return what may be shown now (maybe "")."""
        if self.done or not piece:
            return ""
        start = len(self.text)
        self.text += piece
        lo = max(0, start - MARKER_WINDOW)  # the marker may begin in the pieces before this one
        kept, was_cut = self.cut(self.text[lo:])
        if was_cut:
            self.done = True
            end = lo + len(kept)
        else:
            end = len(self.text)
            lt = self.text.rfind("<", max(self.given, end - MARKER_WINDOW))
            if lt >= 0 and ">" not in self.text[lt:]:
                end = lt  # '<tool_res' may go on into the marker
        out = self.text[self.given:end] if end > self.given else ""
        self.given = max(self.given, end)
        return out

    def flush(self) -> str:
        """The end of the stream: what waited, unless the marker was seen."""
        if self.done:
            return ""
        out, self.given = self.text[self.given:], len(self.text)
        return out
