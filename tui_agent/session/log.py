"""The seam between a run and where its events are kept is declared in ``core.sink`` (the engine's
side imports nothing of ``session/``); ``session.store.Store`` implements it."""

from tui_agent.core.sink import LogError, NotSaved, SessionLog, SettingsSummary  # noqa: F401 - re-exported
