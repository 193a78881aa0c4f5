"""What the engine writes: the system prompt, observation messages, the forced-answer message."""

from __future__ import annotations

import json
from datetime import date as _date
from importlib import resources
from pathlib import Path
from typing import Any

from tui_agent.core.state import canonical_call  # noqa: F401 - the fold's key, re-exported for the engine
from tui_agent.kinds import Termination

STOP_SEQUENCES = ["<tool_response>"]

EVIDENCE_REMINDER = (
    "You answered before gathering any evidence. Use the tools first to check the facts (search, "
    "then visit the most relevant pages), then answer inside <answer></answer> citing the sources."
)
FORCED_INSTRUCTION = (
    "Stop calling tools now. Using only the evidence above, write your final answer now inside "
    "<answer></answer>, citing sources by their numbers like [1]. If the evidence is incomplete, "
    "say what remains uncertain."
)
FORCED_REASONS: dict[Termination, str] = {
    Termination.TOKEN_LIMIT: "The context is nearly full.",
    Termination.CALL_LIMIT: "The model-call limit has been reached.",
    Termination.TIME_LIMIT: "The time limit has been reached.",
    Termination.BUDGET_LIMIT: "The spending budget has been reached.",
    Termination.USER_SUBMIT: "The user asked for the answer now.",
    Termination.FORMAT_ERROR: "Too many replies did not follow the format.",
}


def default_template() -> str:
    return resources.files("tui_agent").joinpath("prompts/system.txt").read_text(encoding="utf-8")


def load_template(path: str | None) -> str:
    if path:
        return Path(path).expanduser().read_text(encoding="utf-8")
    return default_template()


def render_system_prompt(template: str, tools_block: str, today: _date | None = None) -> str:
    if today is None:
        import tui_agent.protocol as package  # its ``_date`` is the patch point that freezes today

        today = package._date.today()
    text = template.replace("{tools}", tools_block).replace("{date}", today.isoformat())
    if "{date}" not in template:
        text = text.rstrip() + f"\n\nCurrent date: {today.isoformat()}"
    return text


def tool_response(text: str) -> str:
    return f"<tool_response>\n{text}\n</tool_response>"


def observation_message(blocks: list[str]) -> str:
    """The user message of one step: only the <tool_response> blocks, in order."""
    return "\n".join(tool_response(b) for b in blocks)


def forced_message(latest_observation: str | None, reason: Termination) -> str:
    parts = []
    if latest_observation:
        parts.append(latest_observation)
    parts.append(f"{FORCED_REASONS.get(reason, '')} {FORCED_INSTRUCTION}".strip())
    return "\n\n".join(parts)


def edited_note(proposed: Any) -> str:
    """The line before the result of a call whose arguments a person edited at approval (the
    transcript's call already shows the arguments that ran)."""
    return (f"(arguments edited by the user: you proposed {json.dumps(proposed, ensure_ascii=False)}; "
            "the call above shows the arguments that ran)")
