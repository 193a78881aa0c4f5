"""Settings: defaults <- config.toml <- TUI_AGENT_* environment <- command-line flags.

Every limit the product has is a field of :class:`Settings` (``tui_agent.settings.fields``),
declared once with its type, choices, bounds and docstring. A bad value raises
:class:`ConfigError` naming its key and where it came from. This module is the public entry.
"""

from __future__ import annotations

from tui_agent.settings.fields import (
    APP_NAME, Flag, Settings, declared, flag_names, flag_of, is_secret, option_strings, setting_names, Shape,
    shape,
)
from tui_agent.settings.layers import (
    ENV_PREFIX, ConfigError, apply, config_dir, config_path, env_values, env_var, load_file, load_settings, validate,
)
from tui_agent.settings.saving import PRIVATE_FILE_MODE, save_setting

__all__ = [
    "APP_NAME", "ENV_PREFIX", "PRIVATE_FILE_MODE", "ConfigError", "Flag", "Settings", "apply", "config_dir",
    "config_path", "declared", "env_values", "env_var", "flag_names", "flag_of", "is_secret", "load_file", "option_strings",
    "load_settings", "save_setting", "setting_names", "Shape", "shape", "validate",
]
