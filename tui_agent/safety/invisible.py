"""Characters that render as nothing, and text folded the way a reader sees it.

- :func:`ignorable_class`: a regex character class of every format character (general category
  Cf, read from :mod:`unicodedata`: bidirectional controls, U+0600–0605, U+FFF9–FFFB, Egyptian and
  shorthand format controls, tag characters, …) and every Default_Ignorable_Code_Point (Unicode's
  DerivedCoreProperties.txt: soft hyphen, combining grapheme joiner, Hangul fillers, variation
  selectors, …). Page text can hide them inside a tag or a token: they are folded away before
  either is judged.
- :func:`fold`: the text with each character in its NFKC form (fullwidth ``ｇｈｐ`` is ``ghp``) and
  the ignorable characters removed, with a map from spans of the folded text back to the original,
  so what is found in the folded text is replaced in the original.

The tables are built once, on first use (about 0.1 s), not at import.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

# Default_Ignorable_Code_Point, DerivedCoreProperties.txt (Unicode 15; the property is stable: code
# points are only ever added to it from these reserved ranges). Format characters (Cf) come from
# unicodedata and are added below, so a newer Python brings its new ones.
DEFAULT_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
# Format characters are assigned only in planes 0, 1 and 14 (2 and 3 hold ideographs, 15 and 16
# private use): scanning those is 8 times quicker than all 17 planes.
_CF_PLANES = (range(0x0, 0x20000), range(0xE0000, 0xE1000))
# Characters with a compatibility or canonical decomposition are in planes 0 to 2.
_NFKC_SCAN = range(0x80, 0x30000)


@cache
def ignorable() -> frozenset[int]:
    """Every code point that is a format character (Cf) or Default_Ignorable_Code_Point."""
    points = {c for lo, hi in DEFAULT_IGNORABLE_RANGES for c in range(lo, hi + 1)}
    points.update(c for plane in _CF_PLANES for c in plane if unicodedata.category(chr(c)) == "Cf")
    return frozenset(points)


def _as_class(points: set[int] | frozenset[int]) -> str:
    """A regex character class body for ``points`` (ranges of consecutive code points)."""
    out, ordered = [], sorted(points)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        lo, hi = chr(ordered[i]), chr(ordered[j])
        out.append(re.escape(lo) if i == j else f"{re.escape(lo)}-{re.escape(hi)}")
        i = j + 1
    return "".join(out)


@cache
def ignorable_class() -> str:
    """:func:`ignorable` as the body of a regex character class (``f"[{ignorable_class()}]"``)."""
    return _as_class(ignorable())


@cache
def ignorable_re() -> re.Pattern[str]:
    return re.compile(f"[{ignorable_class()}]")


@cache
def _fold_table() -> tuple[re.Pattern[str], dict[int, str]]:
    """The characters that fold (ignorable ones to nothing, others to their NFKC form), as a
    pattern that finds them and a table of what each becomes."""
    gone = ignorable()
    table = {c: "" for c in gone}
    for c in _NFKC_SCAN:
        if c not in gone:
            ch = chr(c)
            folded = unicodedata.normalize("NFKC", ch)
            if folded != ch:
                table[c] = "".join(x for x in folded if ord(x) not in gone)
    return re.compile(f"[{_as_class(set(table))}]"), table


@dataclass(frozen=True)
class Folded:
    """A folded text and how its positions map back to the original's."""

    text: str
    _starts: tuple[int, ...]  # where each piece of the folded text starts
    _origins: tuple[int, ...]  # where it came from in the original
    _verbatim: tuple[bool, ...]  # a copied run (True) or one folded character (False)

    def start(self, pos: int) -> int:
        """The original position of the folded character at ``pos`` (a span's start)."""
        k = bisect.bisect_right(self._starts, pos) - 1
        return self._origins[k] + (pos - self._starts[k] if self._verbatim[k] else 0)

    def end(self, pos: int) -> int:
        """The original position just after the folded character before ``pos`` (a span's end)."""
        if pos <= 0:
            return self.start(0)
        k = bisect.bisect_right(self._starts, pos - 1) - 1
        return self._origins[k] + (pos - self._starts[k] if self._verbatim[k] else 1)


def fold(text: str) -> Folded | None:
    """``text`` folded (NFKC per character, ignorable characters removed), or None when nothing in
    it folds (ASCII text always). Linear: one regex scan, then one step per folded character."""
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not ignorable_re().search(text)):
        return None  # both checks run at C speed; most text that is not ASCII stops here
    pattern, table = _fold_table()
    starts: list[int] = []
    origins: list[int] = []
    verbatim: list[bool] = []
    out: list[str] = []
    pos = fpos = 0
    for m in pattern.finditer(text):
        i = m.start()
        if i > pos:
            starts.append(fpos), origins.append(pos), verbatim.append(True)
            out.append(text[pos:i])
            fpos += i - pos
        rep = table[ord(text[i])]
        starts.append(fpos), origins.append(i), verbatim.append(False)
        out.append(rep)
        fpos += len(rep)
        pos = i + 1
    if not starts:
        return None
    starts.append(fpos), origins.append(pos), verbatim.append(True)  # the rest, possibly empty
    out.append(text[pos:])
    return Folded("".join(out), tuple(starts), tuple(origins), tuple(verbatim))
