"""Remembering one setting in config.toml (the theme, a chosen model, an API key)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from tui_agent.settings.layers import config_path

# Permissions of a config file that holds a secret (the API key): readable by its owner only.
PRIVATE_FILE_MODE = 0o600


def save_setting(key: str, value: Any, path: Path | None = None, *, private: bool = False) -> None:
    """Remember one setting in config.toml, keeping the other lines.

    ``private`` (an API key): the file is made readable and writable by its owner only, before
    the secret is written into it.
    """
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if private:
        path.touch(mode=PRIVATE_FILE_MODE, exist_ok=True)
        os.chmod(path, PRIVATE_FILE_MODE)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    rendered = f"{key} = {_toml_value(value)}"
    for i, line in enumerate(lines):
        if line.split("=", 1)[0].strip() == key:
            lines[i] = rendered
            break
    else:
        lines.append(rendered)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _toml_value(value: Any) -> str:
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))
