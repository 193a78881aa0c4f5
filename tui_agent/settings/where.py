"""The commands printed for the user to copy (resume, show, fork): they name the same data
directory and config file as the command that printed them, so they find the session."""

from __future__ import annotations

import shlex
from pathlib import Path

from tui_agent.settings.fields import Settings


def default_data_dir() -> Path:
    """Where sessions go when neither a flag, the environment nor a config file says otherwise."""
    return Settings().resolved_data_dir()


def where_flags(data_dir: Path | str | None, config_file: str | None = None) -> str:
    """`` --data-dir DIR`` (unless it is the default one) and `` --config FILE`` (when one was
    given), shell-quoted with absolute paths; "" when neither is needed."""
    parts: list[str] = []
    if data_dir is not None:
        path = Path(data_dir).expanduser().resolve()
        if path != default_data_dir().expanduser().resolve():
            parts += ["--data-dir", str(path)]
    if config_file:
        parts += ["--config", str(Path(config_file).expanduser().resolve())]
    return "".join(" " + shlex.quote(p) for p in parts)
