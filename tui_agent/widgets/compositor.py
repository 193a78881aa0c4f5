"""A compositor that draws only what a partial update needs (Textual 8.2's, made lean).

Textual's partial update (a few changed lines, e.g. a streamed batch or the header after a key)
asks every widget whose *clip* overlaps the changed area for *all* its visible lines, then splits
each of those lines at every cut, back widgets included, although the front widget has already
filled them. On the main screen that is 13 widgets a frame while an answer streams, most of them
containers, the footer and the header, whose lines are then thrown away; and a key pressed while
a frame is drawn waits for it.

``LeanCompositor`` keeps Textual's result and skips the waste:

- a widget is drawn only when its *visible region* overlaps the changed area, and only the lines
  of that area (the full width of the widget, so the cuts line up as before);
- a widget's line is not split at all when the widgets in front of it already filled every cut
  it spans.

What reaches the terminal is the same, byte for byte (``tests/tui/test_compositor.py`` renders
every update both ways, while an answer streams and over random updates of nested, bordered,
scrolled and layered widgets); ``benchmarks/bench_frames.py`` measures both side by side. The
setting ``lean_compositor = false`` goes back to Textual's own, should a Textual release change
what this builds on (``Compositor._render_chops``, ``visible_widgets`` and ``cuts``; Textual is
pinned to 8.2).
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class LeanCompositor(Compositor):
    """Textual's compositor, drawing and splitting only what a partial update shows."""

    def _lean_renders(self, crop: Region) -> Iterable[tuple[Region, list[Strip]]]:
        """(region drawn, its lines) for each visible widget, front to back, cropped to the lines of
        ``crop``; widgets whose visible region misses ``crop`` are not drawn."""
        intersection = Region.intersection
        crop_y, crop_bottom = crop.y, crop.bottom
        for widget, (region, clip) in self.visible_widgets.items():
            visible = intersection(region, clip)
            if not visible.overlaps(crop):
                continue
            top, bottom = max(visible.y, crop_y), min(visible.bottom, crop_bottom)
            drawn = Region(visible.x, top, visible.width, bottom - top)
            yield drawn, widget.render_lines(
                Region(drawn.x - region.x, drawn.y - region.y, drawn.width, drawn.height))

    def _render_chops(self, crop: Region,
                      is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        for drawn, strips in self._lean_renders(crop):
            render_x = drawn.x
            first_cut, last_cut = drawn.column_span
            for y, strip in zip(drawn.line_range, strips):
                if not is_rendered_line(y):
                    continue
                chops_line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                if not any(chops_line.get(cut, False) is None for cut in final_cuts):
                    continue  # every cut it spans is filled by a widget in front: nothing shows
                # Since we paint front to back, the first strip for a cut wins.
                for cut, piece in zip(final_cuts, strip.divide([cut - render_x for cut in final_cuts[1:]])):
                    if chops_line.get(cut, False) is None:
                        chops_line[cut] = piece
        return chops  # type: ignore[return-value]
