"""The main screen's footer: Textual's compact ``Footer``, its keys updated in place.

Textual's footer composes itself anew whenever the screen's bindings may have changed: every key
unmounted and mounted again, styles and all (about 20 ms a time on the main screen, and a switch of
tabs does it every time). ``KeysFooter`` composes a key for every binding the screen could show,
the unavailable ones hidden, and when the bindings change it only shows, hides, dims or undims
the keys it has. It composes anew only when what the footer would show cannot be had that way (a
binding it has no key for, or a key group that would be drawn otherwise); what it shows is what
Textual's footer shows for the same bindings (``tests/tui/test_snapshots.py``, and
``tests/tui/test_tab_catch_up.py`` checks its keys against the screen's active bindings at every stop).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.screen import Screen
    from textual.widget import Widget


class Shown(NamedTuple):
    """One key the footer shows (the first binding of its action)."""

    binding: Binding
    enabled: bool


def ident(binding: Binding) -> tuple[str, str, str]:
    return binding.action, binding.key, binding.description


def _bindings(screen: Screen, every: bool) -> dict[str, Shown]:
    """Textual's ``Screen.active_bindings`` (key → binding), with ``every`` the unavailable too."""
    found: dict[str, Shown] = {}
    app = screen.app
    for namespace, bindings in screen._modal_binding_chain:
        for key, binding in bindings:
            state = app._check_action_state(binding.action, namespace)
            if state is False and not every:
                continue
            shown = Shown(binding, bool(state))
            existing = found.get(key)
            if existing is None or (binding.priority and not existing.binding.priority):
                found[key] = shown
    return found


def _runs(found: dict[str, Shown]) -> list[tuple[Any, list[Shown]]]:
    """What Textual's footer composes: (group, keys) runs, a group of one or none as plain keys
    (group None); each key the first binding of its action."""
    by_action: defaultdict[str, list[Shown]] = defaultdict(list)
    for s in found.values():
        if s.binding.show:
            by_action[s.binding.action].append(s)
    runs: list[tuple[Any, list[Shown]]] = []
    for group, items in groupby((v[0] for v in by_action.values()), lambda s: s.binding.group):
        keys = list(items)
        if group is not None and len(keys) > 1:
            runs.append((group, keys))
        else:
            runs += [(None, [k]) for k in keys]
    return runs


def _layout(runs: list[tuple[Any, list[Shown]]]) -> list[tuple[Any, tuple]]:
    return [(group, tuple(ident(s.binding) for s in keys)) for group, keys in runs]


class KeysFooter(Footer):
    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._keys: dict[tuple[str, str, str], FooterKey] = {}
        self._groups: list[tuple[Any, list[tuple[str, str, str]], list[Widget]]] = []
        self._palette: FooterKey | None = None

    def compose(self) -> ComposeResult:
        self._keys, self._groups, self._palette = {}, [], None
        if not self._bindings_ready:
            return
        screen = self.screen
        shown = _bindings(screen, every=False)
        every = _bindings(screen, every=True)
        runs = _runs(every)
        if _projected_layout(_layout(runs), {ident(s.binding) for s in shown.values()}) != _layout(_runs(shown)):
            runs = _runs(shown)  # the keys cannot be had by hiding some: compose what is shown
        available = {ident(s.binding): s for s in shown.values()}
        for group, keys in runs:
            widgets: list[Widget] = []
            if group is not None:
                with KeyGroup(classes="-compact" if group.compact else "") as box:
                    for s in keys:
                        yield self._key(s, available, grouped=True)
                label = FooterLabel(group.description)
                widgets += [box, label]
                yield label
            else:
                widgets.append(self._key(keys[0], available, grouped=False))
                yield widgets[0]
            self._groups.append((group, [ident(s.binding) for s in keys], widgets))
            self._show_group(self._groups[-1], available)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            s = shown.get(self.app.COMMAND_PALETTE_BINDING)
            if s is not None:
                b = s.binding
                self._palette = FooterKey(b.key, self.app.get_key_display(b), b.description, b.action,
                                          classes="-command-palette", disabled=not s.enabled,
                                          tooltip=b.tooltip or b.description)
                yield self._palette

    def _key(self, s: Shown, available: dict[tuple[str, str, str], Shown], *, grouped: bool) -> FooterKey:
        b = s.binding
        now = available.get(ident(b), s)
        tip = now.binding.tooltip
        key = FooterKey(b.key, self.app.get_key_display(b), "" if grouped else b.description, b.action,
                        disabled=not now.enabled, tooltip=(tip or b.description) if grouped else tip,
                        classes="-grouped" if grouped else "").data_bind(compact=Footer.compact)
        key.display = ident(b) in available
        self._keys[ident(b)] = key
        return key

    def _show_group(self, entry: tuple[Any, list, list[Widget]], available: dict) -> None:
        group, idents, widgets = entry
        if group is not None:
            visible = any(i in available for i in idents)
            for w in widgets:
                w.display = visible

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update_keys)

    def _update_keys(self) -> None:
        """Show, hide, dim the keys composed; compose anew only when that cannot show the bindings."""
        if not self.is_attached:
            return
        shown = _bindings(self.screen, every=False)
        available = {ident(s.binding): s for s in shown.values()}
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and \
            self.app.COMMAND_PALETTE_BINDING in shown
        composed = [(g, tuple(ids)) for g, ids, _w in self._groups]
        if _projected_layout(composed, set(available)) != _layout(_runs(shown)) or \
                palette != (self._palette is not None):
            self.call_later(self.recompose)
            return
        for i, key in self._keys.items():
            s = available.get(i)
            key.display = s is not None
            if s is not None:
                self._set_key(key, s)
        for entry in self._groups:
            self._show_group(entry, available)
        if self._palette is not None:
            s = shown[self.app.COMMAND_PALETTE_BINDING]
            self._set_key(self._palette, s)

    @staticmethod
    def _set_key(key: FooterKey, s: Shown) -> None:
        if key._disabled != (not s.enabled):
            key._disabled = not s.enabled
            key.set_class(not s.enabled, "-disabled")


def _projected_layout(layout: list[tuple[Any, tuple]], available: set) -> list[tuple[Any, tuple]]:
    """What a composed layout shows when only ``available`` keys are displayed."""
    out: list[tuple[Any, tuple]] = []
    for group, idents in layout:
        left = tuple(i for i in idents if i in available)
        if left:
            out.append((group, left))
    return out


def keys_shown(footer: Footer) -> Iterator[tuple[str, str, bool]]:
    """(key shown, description, enabled) of each key the footer shows, in order (for tests)."""
    for key in footer.query(FooterKey):
        if key.display and (key.parent is footer or key.parent.display):
            yield key.key_display, key.description, not key._disabled
