"""Where settings come from, in order: the declared defaults <- config.toml <- TUI_AGENT_*
environment variables <- command-line flags.

The environment is read by pydantic-settings from the declaration; every value is validated by
the declaration (types, choices, bounds). A bad value raises :class:`ConfigError` naming its key
and where it came from: the file, the environment variable or the flag.
"""

from __future__ import annotations

import functools
import os
import stat
import tomllib
from pathlib import Path
from typing import Any, Callable, Mapping

from pydantic import ValidationError

from tui_agent.settings.fields import APP_NAME, Settings, flag_names, setting_names
from tui_agent.settings.shown import shown, text

ENV_PREFIX = "TUI_AGENT_"
MAX_CONFIG_BYTES = 1024 * 1024  # a config file is a few lines; this bounds a device or pipe given as one


class ConfigError(ValueError):
    """A setting has a bad value; the message names the key and its source."""


@functools.cache
def _environment_source() -> type:
    """pydantic-settings' reader of TUI_AGENT_* variables for the declaration (imported only when
    a variable names a setting: the import costs a command's start-up ~150 ms of CPU)."""
    from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict
    from pydantic_settings.sources.utils import parse_env_vars

    class FromEnvironment(BaseSettings, Settings):  # type: ignore[misc, valid-type]
        model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, case_sensitive=False, extra="ignore")

    class Environment(EnvSettingsSource):
        def __init__(self, environ: Mapping[str, str]) -> None:
            self._environ = environ
            super().__init__(FromEnvironment)

        def _load_env_vars(self) -> Mapping[str, str | None]:
            return parse_env_vars(self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    return Environment


def env_values(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings given as TUI_AGENT_<SETTING> variables (raw text, validated later)."""
    environ = os.environ if environ is None else environ
    names = {env_var(key) for key in setting_names()}
    if not any(name.upper() in names for name in environ):
        return {}
    from pydantic_settings import SettingsError

    try:
        return _environment_source()(environ)()
    except SettingsError as exc:  # a table (mcp_servers, tool_policies) given as JSON that does not parse
        import json
        import re

        named = re.search(r'field "(\w+)"', str(exc))
        where = env_var(named.group(1)) if named else ENV_PREFIX + "*"
        why = f": {exc.__cause__}" if isinstance(exc.__cause__, json.JSONDecodeError) else ""  # a position, no text
        raise ConfigError(f"{where}: not valid JSON{why} (a table setting is given as a JSON object)") from None


def env_var(key: str) -> str:
    return ENV_PREFIX + key.upper()


def config_dir() -> Path:
    import platformdirs

    return Path(os.environ.get("TUI_AGENT_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME))


def config_path() -> Path:
    return config_dir() / "config.toml"


def load_file(path: Path, *, required: bool = False) -> dict[str, Any]:
    """The settings in a TOML file. A missing file is an empty config unless ``required`` (a
    --config given by hand); a directory, an unreadable file or bad TOML is a ConfigError saying so.
    An empty file (or /dev/null) is an empty config."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if required:
            raise ConfigError(f"config file {path} does not exist") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"config file {path} is a directory, not a file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file {path} is larger than {MAX_CONFIG_BYTES} bytes; is it a config file?")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid TOML: the file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _reason(error: Mapping[str, Any]) -> str:
    msg = str(error.get("msg", "bad value"))
    for head in ("Input should be ", "Value should be "):
        if msg.startswith(head):
            return "must be " + msg[len(head):]
    return msg[0].lower() + msg[1:] if msg else msg


def _config_error(exc: ValidationError, values: Mapping[str, Any], where: Callable[[str], str]) -> ConfigError:
    """One line per problem: where the value came from, the value (secrets hidden, see
    ``settings.shown``), the key (dotted into its tables: 'tool_policies.api_key') and the rule."""
    lines = []
    for error in exc.errors():
        loc = tuple(error.get("loc") or ("settings",))
        key = str(loc[0])
        value = values[key] if len(loc) == 1 and key in values else error.get("input")
        dotted = text(".".join(str(part) for part in loc))
        hint = ""
        if len(loc) == 2 and loc[1] in setting_names():  # a setting written below a [table]
            hint = f" ('{loc[1]}' is a setting of its own, not a key of '{key}': in a file, put it above the first [table])"
        lines.append(f"{where(key)}: bad value {shown(loc, value)} for '{dotted}': {_reason(error)}{hint}")
    return ConfigError("\n".join(lines))


def apply(s: Settings, values: Mapping[str, Any], source: str | Callable[[str], str],
          origin: dict[str, str] | None = None) -> Settings:
    """Set ``values`` on ``s``, each validated by its declaration; ``source`` names where they
    came from: text, or a function of the key (COMMAND_LINE names each value by its flag).
    ``origin``, when given, records that source for each key set."""
    where = flag_source if source == COMMAND_LINE else source if callable(source) else (lambda _key: source)
    known = set(setting_names())
    for key, raw in values.items():
        if key not in known:
            raise ConfigError(f"{where(key)}: unknown setting '{text(key)}'")
        try:
            setattr(s, key, raw)
        except ValidationError as exc:
            raise _config_error(exc, {key: raw}, where) from None
        if origin is not None:
            origin[key] = where(key)
    return s


def validate(s: Settings, source: str = "settings", origin: Mapping[str, str] | None = None) -> Settings:
    """The rules between settings (each value alone is checked by its declaration). ``origin``
    names where each key's value came from, for the message."""
    origin = origin or {}

    def named(key: str, show: bool = False) -> str:
        said = [shown((key,), getattr(s, key))] if show else []
        said += [f"from {origin[key]}"] if key in origin else []
        return f"'{key}'" + (f" ({', '.join(said)})" if said else "")

    if s.search_backend == "searxng" and not s.searxng_url:
        raise ConfigError(f"{source}: {named('search_backend')} is 'searxng' but 'searxng_url' is not set")
    if s.context_window is not None and s.answer_reserve >= s.context_window:
        raise ConfigError(f"{source}: {named('answer_reserve', True)} must be smaller than "
                          f"{named('context_window', True)}")
    for key in ("router_config", "system_prompt_file"):
        value = getattr(s, key)
        if value and not Path(value).expanduser().is_file():
            raise ConfigError(f"{source}: {named(key)} {shown((key,), value)} is not a readable file")
    return s


COMMAND_LINE = "command line"


def flag_source(key: str) -> str:
    """How a command-line value is named in an error: its flag, else 'command line'."""
    names = flag_names(key)
    return names[0] if names else COMMAND_LINE


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
    path_required: bool = False,
) -> Settings:
    """Build validated settings from every layer; raises ConfigError naming the bad key and its
    source (``path_required``: the file was named by hand, so a missing one is an error)."""
    s, origin = Settings(), {}
    path = path or config_path()
    apply(s, load_file(path, required=path_required), str(path), origin)
    apply(s, env_values(environ), env_var, origin)
    apply(s, {k: v for k, v in (flags or {}).items() if v is not None}, flag_source, origin)
    return validate(s, "settings", origin)
