"""Theme files: Textual theme colours plus the app's own variables, as TOML.

Shipped themes live in ``tui_agent/shipped_themes/``, package data found by setuptools like every
other folder of the package, so an editable install, a regular ``pip install .`` and pipx all find
them; user themes are read from
``config_dir()/themes/*.toml`` and override shipped ones of the same name. A file that cannot
be used is reported (one message per file) and skipped; it never stops the app.

A theme file::

    name = "tui-dark"          # optional: defaults to the file name without .toml
    dark = true
    primary = "#3b82f6"        # required; the other Textual colours are optional
    background = "#11151c"
    [variables]                # the app's own accents; any missing one takes its default
    thought-accent = "#a78bfa"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from textual.color import Color, ColorParseError
from textual.theme import Theme

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "tui-dark"
# Used when no theme file can be read at all (a broken install): a Textual built-in.
FALLBACK_THEME = "textual-dark"

COLOR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
              "surface", "panel", "boost")
OTHER_KEYS = ("name", "dark", "luminosity_spread", "text_alpha", "variables")

# The app's own theme variables and their defaults (used by app.tcss and the token gauge).
APP_VARIABLES: dict[str, str] = {
    "thought-accent": "#a78bfa",
    "action-accent": "#f59e0b",
    "observation-accent": "#22d3ee",
    "answer-accent": "#4ade80",
    "gauge-ok": "#22c55e",
    "gauge-warn": "#eab308",
    "gauge-high": "#ef4444",
    "gauge-reserve": "#6b7280",
    "gauge-empty": "#374151",
}


class ThemeError(ValueError):
    """A theme file cannot be used; the message names the file and the problem."""


@dataclass
class LoadedThemes:
    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    origin: dict[str, Path] = field(default_factory=dict)


SHIPPED_FOLDER = "shipped_themes"  # beside app/, in the package


def shipped_dir() -> Path:
    """The folder of the shipped theme files, wherever the package was installed."""
    return Path(__file__).resolve().parents[1] / SHIPPED_FOLDER


def user_dir() -> Path:
    from tui_agent.config import config_dir

    return config_dir() / "themes"


def _color(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{path}: '{key}' must be a colour string like \"#112233\" (got {value!r})")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{path}: '{key}' is not a colour: {value!r}") from None
    return value


def parse_theme(data: dict, path: Path) -> Theme:
    unknown = sorted(set(data) - set(COLOR_KEYS) - set(OTHER_KEYS))
    if unknown:
        raise ThemeError(f"{path}: unknown key(s) {', '.join(unknown)}")
    if "primary" not in data:
        raise ThemeError(f"{path}: 'primary' colour is required")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise ThemeError(f"{path}: 'name' must be a non-empty string")
    colours = {k: _color(path, k, data[k]) for k in COLOR_KEYS if k in data}
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{path}: 'dark' must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeError(f"{path}: [variables] must be a table")
    extra: dict[str, str] = {}
    for key, value in variables.items():
        if key not in APP_VARIABLES:
            raise ThemeError(f"{path}: unknown variable '{key}' (known: {', '.join(APP_VARIABLES)})")
        extra[key] = _color(path, f"variables.{key}", value)
    kwargs: dict = {}
    for key in ("luminosity_spread", "text_alpha"):
        if key in data:
            if not isinstance(data[key], (int, float)) or isinstance(data[key], bool):
                raise ThemeError(f"{path}: '{key}' must be a number")
            kwargs[key] = float(data[key])
    return Theme(name=name.strip(), dark=dark, variables={**APP_VARIABLES, **extra}, **colours, **kwargs)


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path}: cannot be read: {exc}") from None
    return parse_theme(data, path)


def load_themes(dirs: list[Path] | None = None) -> LoadedThemes:
    """Every theme in ``dirs`` (later folders override earlier ones); bad files become errors."""
    dirs = dirs if dirs is not None else [shipped_dir(), user_dir()]
    out = LoadedThemes()
    for folder in dirs:
        try:
            files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
        except OSError as exc:
            out.errors.append(f"{folder}: cannot be listed: {exc}")
            continue
        for path in files:
            try:
                theme = load_theme_file(path)
            except ThemeError as exc:
                out.errors.append(str(exc))
                continue
            out.themes[theme.name] = theme
            out.origin[theme.name] = path
    return out


def install(app: App[object], wanted: str | None, dirs: list[Path] | None = None) -> list[str]:
    """Register every theme with ``app`` and switch to ``wanted`` (or the default); returns the
    problems to show (one per bad file, and a missing or unusable choice)."""
    loaded = load_themes(dirs)
    errors = list(loaded.errors)
    for theme in loaded.themes.values():
        app.register_theme(theme)
    wanted = wanted or DEFAULT_THEME
    default = DEFAULT_THEME if DEFAULT_THEME in app.available_themes else FALLBACK_THEME
    if wanted not in app.available_themes:
        errors.append(f"theme {wanted!r} is not available (shipped: {', '.join(sorted(loaded.themes)) or 'none'}); "
                      f"using {default}")
        wanted = default
    try:
        app.theme = wanted
    except Exception as exc:  # noqa: BLE001 - a theme must never stop the app
        errors.append(f"theme {wanted!r} cannot be used: {exc}; using {default}")
        app.theme = default
    return errors


def remember(current: str, theme: Theme, notify: Callable[..., None]) -> str:
    """The user picked ``theme`` (command palette): save it for the next start; the theme's name."""
    name = getattr(theme, "name", None)
    if not name or name == current:
        return current
    from tui_agent.config import ConfigError, save_setting

    try:
        save_setting("theme", name)
    except (OSError, ConfigError) as exc:
        notify(f"Could not remember the theme: {exc}", severity="warning")
    return name
