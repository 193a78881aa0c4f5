"""The fold's share for a call whose arguments a person edited at approval: the transcript shows
the call that ran, not the one the model wrote.

The assistant message that made the call is rewritten in place (tags: the call's ``<tool_call>``
block; native: its ``tool_calls[i].function.arguments``), so the next request, resume and fork all
send the call that ran. The model is told a person changed it by the note the tool runner puts
before the call's result (``protocol.prompt.edited_note``, from ``CallState.proposed``). Called by
``core.fold.apply`` only.
"""

from __future__ import annotations

import json
from typing import Any

from tui_agent.core.state import CallState, SessionState


def edited_call(s: SessionState, call: CallState, arguments: Any) -> None:
    """``call`` runs with ``arguments``: keep what the model proposed, rewrite its message."""
    if call.proposed is None:
        call.proposed = call.arguments
    call.arguments = arguments
    if s.protocol == "native":
        _native(s, call)
    else:
        _tags(s, call)


def call_block(name: str, arguments: Any) -> str:
    """A ``<tool_call>`` block as the protocol's prompt shows one."""
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "\n</tool_call>"


def _tags(s: SessionState, call: CallState) -> None:
    """The call's block (its context item: the block's exact text and its message) is replaced."""
    item = s.context.items.get(f"call:{call.call_id}")
    if item is None or item.index >= len(s.messages):
        return  # a call written in another format has no block of its own: the note alone says it
    msg = s.messages[item.index]
    content = msg.get("content") or ""
    if item.text not in content:
        return
    block = call_block(call.tool, call.arguments)
    s.messages[item.index] = {**msg, "content": content.replace(item.text, block, 1)}
    item.text, item.label = block, f"call {call.tool} {call.short_arguments(50)}"


def _native(s: SessionState, call: CallState) -> None:
    """The call's entry in its assistant message's ``tool_calls`` (same position as in its step) gets the
    arguments that ran; new dicts, so the stored reply (``ModelCallEnded.tool_calls``) keeps the model's."""
    index = next((i for i in range(len(s.messages) - 1, -1, -1)
                  if s.messages[i].get("role") == "assistant" and s.messages[i].get("tool_calls")), None)
    ids = [c.call_id for c in s.step_state(call.step).calls]
    position = ids.index(call.call_id) if call.call_id in ids else len(ids)
    if index is None or position >= len(s.messages[index]["tool_calls"]):
        return
    msg = s.messages[index]
    calls = [dict(c) for c in msg["tool_calls"]]
    fn = dict(calls[position].get("function") or {})
    fn["arguments"] = json.dumps(call.arguments, ensure_ascii=False)
    calls[position]["function"] = fn
    s.messages[index] = {**msg, "tool_calls": calls}
