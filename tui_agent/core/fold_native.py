"""The fold's share for the native tool-calling protocol (``protocol.native``): the assistant
message keeps its structured ``tool_calls`` and each result is a ``role: "tool"`` message with the
call's id, so resume, fork and replay send exactly what the live run sent. Called by
``core.fold.apply`` only."""

from __future__ import annotations

from typing import Any

from tui_agent.core.events import ModelCallEnded, ObservationMessage
from tui_agent.core.fold_context import observation_items
from tui_agent.core.state import SessionState


def assistant_message(e: ModelCallEnded) -> dict[str, Any]:
    """A research reply as the next request repeats it. A reply cut by the length limit keeps no
    calls: it is answered by a correction, and a call without its result would be refused."""
    msg: dict[str, Any] = {"role": "assistant", "content": e.text}
    if e.tool_calls and e.finish_reason != "length":
        msg["tool_calls"] = [dict(c) for c in e.tool_calls]
    return msg


def tool_results(s: SessionState, e: ObservationMessage) -> None:
    """One ``role: "tool"`` message per call, in order; each observation a context item of its own
    message (so a drop or a summary replaces it there)."""
    for r in e.results:
        s.messages.append({"role": "tool", "tool_call_id": r.get("tool_call_id", ""), "content": r.get("content", "")})
        s.context.pending_obs = [r["call_id"]] if r.get("call_id") else []
        observation_items(s, r.get("content", ""))
    s.context.pending_obs = []
    # The results stay where they are in a forced answer's request (a call needs its result), so
    # no single observation message moves into its last user message.
    s.last_observation_index = None
