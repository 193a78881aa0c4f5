"""What the app does around a run that the session's fold does not hold, and the imports a run
needs (done in a thread after the first frame). No Textual here: the app and its flows import it."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """The app's own phases, laid over the fold's ``Status`` (they are never stored in a session)."""

    NONE = ""
    STARTING = "starting"  # a model is looked for, or the engine loads, until the run has started
    PAUSED = "paused"  # at a breakpoint: the prompt inspector waits
    FAILED = "ended: error"  # the run could not start


def warm_up() -> None:
    """Imports the engine needs, done in a thread after the first frame (litellm takes seconds)."""
    from tui_agent import llm, runner, tokens  # noqa: F401

    llm.litellm()
    tokens.encoder()
    import tui_agent.tools  # noqa: F401
    import tui_agent.web.net  # noqa: F401
