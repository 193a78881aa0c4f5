"""Remembering one setting in config.toml (the theme, a chosen model, an API key).

The file is edited with tomlkit, which keeps what the person wrote (comments, order, blank lines,
quoting): a setting is a top-level key, so it is set at the top level, before the first table,
never inside whichever ``[table]`` happens to come last; a key already there is changed in place.
tomlkit is imported only here, when something is saved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from tui_agent.settings.layers import ConfigError, apply, config_path
from tui_agent.settings.fields import Settings

# Permissions of a config file that holds a secret (the API key): readable by its owner only.
PRIVATE_FILE_MODE = 0o600


def save_setting(key: str, value: Any, path: Path | None = None, *, private: bool = False) -> None:
    """Remember one setting in config.toml, keeping everything else in the file as it was
    (``None`` removes the key: the setting is unset again).

    The value is checked by the setting's declaration first, and a file that is not valid TOML is
    left alone: both are a ConfigError. ``private`` (an API key): the file is made readable and
    writable by its owner only, before the secret is written into it.
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = path or config_path()
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value is not None:
        apply(Settings(), {key: value}, "the value to remember")  # ConfigError: unknown key, bad value
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix it before a setting can be remembered") from None
    if value is None:
        doc.pop(key, None)
    else:
        doc[key] = value  # top level: tomlkit puts a new key before the first table
    path.parent.mkdir(parents=True, exist_ok=True)
    if private:
        path.touch(mode=PRIVATE_FILE_MODE, exist_ok=True)
        os.chmod(path, PRIVATE_FILE_MODE)
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
