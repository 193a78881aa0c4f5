"""Redaction of streamed text: pieces go out redacted, and text that could still be the start of a
secret waits until it cannot.

A :class:`StreamRedactor` takes the pieces of one streamed reply (:meth:`feed`) and returns what
may be shown now; :meth:`flush` returns the rest at the end. Held back:

- the trailing run without whitespace (a token, or an assignment's value, may go on);
- a secret found that reaches the end of the text so far, or a private key block without its END
  line yet, from its start;
- an unfinished ``-----BEGIN`` line;
- a tail that is the start of a secret value with whitespace in it.

Text goes out in batches of STREAM_BATCH_CHARS or more. At most STREAM_HOLDBACK_CHARS wait: beyond that the text goes out redacted as it stands (a secret
longer than that is still masked, as one ``[REDACTED]`` or more). What was shown stays as context
(STREAM_CONTEXT_CHARS) for the detectors that read a name or a keyword before a value. The pieces
joined equal :func:`tui_agent.safety.redaction.redact` of the whole text whenever no secret
outgrew the holdback.
"""

from __future__ import annotations

import re
from typing import Mapping

from tui_agent.safety import redaction

STREAM_HOLDBACK_CHARS = 4_096
"""Streamed text that could still be part of a secret waits for at most this many characters."""
STREAM_CONTEXT_CHARS = 128
"""Text already shown that is read again with the next pieces (the name and operator of an
assignment, the ``curl`` before ``-u``)."""

STREAM_BATCH_CHARS = 16
"""Streamed text goes out in pieces of at least this many characters (or at the end, or when a piece
ends in whitespace, so a word the model stops after is shown while it thinks): each
piece costs one detector pass over it and its context, so token-sized pieces would cost several
times as much; more than a few words would leave a slow model's last words unseen while it thinks."""

_SPACES = " \t\n\r\x0b\x0c"
_BEGIN_LINE = re.compile(r"-----BEGIN[^\n]*\Z")


class StreamRedactor:
    """Redacts one stream of text piece by piece (not thread-safe: one per stream)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self.values = redaction.secret_values(environ)
        self._spaced = tuple(v for v in self.values if any(c.isspace() for c in v))
        self.raw = ""  # the text from ``base`` on: context already shown, then what waits
        self.base = 0  # the stream position of raw[0]
        self.shown = 0  # the stream position up to which text went out
        self.masked_to = -1  # the stream position where the last [REDACTED] shown ends

    def feed(self, piece: str) -> str:
        """Take the next piece; return the redacted text that may be shown now (maybe "")."""
        if not piece:
            return ""
        self.raw += piece
        waiting = self.base + len(self.raw) - self.shown
        if (waiting < STREAM_BATCH_CHARS and not piece[-1].isspace()) or (
                waiting <= STREAM_HOLDBACK_CHARS and self._run_start(self.shown - self.base) + self.base <= self.shown):
            return ""  # too little to be worth a pass, or one run without whitespace: nothing goes out yet
        return self._emit(final=False)

    def flush(self) -> str:
        """The end of the stream: everything that waits, redacted."""
        return self._emit(final=True)

    def _run_start(self, lo: int) -> int:
        """Where the trailing run without whitespace starts (at least ``lo``)."""
        return max(lo, max(self.raw.rfind(c, lo) for c in _SPACES) + 1)

    def _emit(self, final: bool) -> str:
        raw, base = self.raw, self.base
        end = len(raw)
        spans = self._spans()
        hold = end
        if not final:
            hold = self._run_start(self.shown - base)
            begin = _BEGIN_LINE.search(raw, max(0, self.shown - base))
            if begin:
                hold = min(hold, begin.start())
            hold = min(hold, self._spaced_value_start())
            for s, e, is_open in spans:
                if is_open or s < hold < e:
                    hold = min(hold, s)
            if end - hold > STREAM_HOLDBACK_CHARS:
                hold = end - STREAM_HOLDBACK_CHARS // 2  # out as it stands, in halves of the holdback
            hold = max(hold, self.shown - base)
        out: list[str] = []
        pos = self.shown - base
        for s, e, _ in spans:
            if e <= pos or s >= hold:
                continue
            if s > pos:
                out.append(raw[pos:s])
            if s + base > self.masked_to:
                out.append(redaction.REDACTED)  # a span that went on past what was shown is one mask
            self.masked_to = e + base
            pos = max(pos, e)
        if pos < hold:
            out.append(raw[pos:hold])
            pos = hold
        self.shown = pos + base
        keep = max(0, min(pos, end) - STREAM_CONTEXT_CHARS)
        self.raw, self.base = raw[keep:], base + keep
        return "".join(out)

    def _spans(self) -> list[tuple[int, int, bool]]:
        """Merged secret spans of the text held (context included): (start, end, open)."""
        raw = self.raw
        found = sorted(redaction.find_with_values(raw, self.values), key=lambda f: (f.start, f.end))
        merged: list[list] = []
        for f in found:
            if f.end <= f.start:
                continue
            is_open = f.end >= len(raw) or (f.kind == "private-key-block" and "-----END" not in raw[f.start:f.end])
            if merged and f.start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], f.end)
                merged[-1][2] = merged[-1][2] or is_open
            else:
                merged.append([f.start, f.end, is_open])
        return [(s, e, o) for s, e, o in merged]

    def _spaced_value_start(self) -> int:
        """Where a tail that begins a secret value with whitespace in it starts (else the end)."""
        raw = self.raw
        start = len(raw)
        for value in self._spaced:
            for i in range(max(0, len(raw) - len(value) + 1), len(raw)):
                if value.startswith(raw[i:]):
                    start = min(start, i)
                    break
        return start
