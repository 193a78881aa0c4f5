"""tui-agent: an interactive terminal research assistant."""

__version__ = "0.1.0"
