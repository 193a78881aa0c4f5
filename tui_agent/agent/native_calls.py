"""The engine's side of the native tool-calling protocol (``protocol.native``).

:class:`NativeToolRunner` runs a reply's calls exactly as :class:`ToolRunner` does (validation,
policy, approval, time limits, replay) and sends the results back as one ``role: "tool"``
message per call, with the call's id: the ``results`` of the step's ``ObservationMessage``.
``runner_for`` picks the runner of a run's protocol.
"""

from __future__ import annotations

from typing import Any

from tui_agent import protocol
from tui_agent.agent.tool_runner import ToolRunner
from tui_agent.protocol.native import NativeCall
from tui_agent.protocol.native_wire import Wire, wire_for
from tui_agent.config import Settings
from tui_agent.core.events import Notice, NoticeLevel, ObservationMessage
from tui_agent.core.state import CallState


__all__ = ["NativeToolRunner", "Wire", "protocol_notices", "runner_for", "wire_for"]


def protocol_notices(wire: Wire, settings: Settings) -> list[Notice]:
    """A resumed or forked session speaks the protocol it started with (its history is in that
    protocol's shape): a different ``--protocol`` is said to be ignored."""
    if wire.name == settings.protocol:
        return []
    return [Notice(text=f"This session speaks the {wire.name} tool-calling protocol, which it keeps: --protocol "
                        f"{settings.protocol} applies to new sessions.", level=NoticeLevel.WARNING)]


def runner_for(wire: Wire) -> type[ToolRunner]:
    """The tool runner of a run that speaks ``wire``."""
    return NativeToolRunner if wire.native else ToolRunner


class NativeToolRunner(ToolRunner):
    """A :class:`ToolRunner` whose observations go back as ``role: "tool"`` messages."""

    _calls: list[Any] = []
    _recorded: list[CallState] = []
    _first_seq: int = 0

    async def run_calls(self, parsed: protocol.ParsedReply, recorded: list[CallState] | None = None) -> None:
        self._calls, self._recorded, self._first_seq = list(parsed.calls), list(recorded or []), self.state.call_seq
        await super().run_calls(parsed, recorded)

    def _duplicate(self, name: str, arguments: Any) -> str | None:
        text = super()._duplicate(name, arguments)  # its result is a tool message here, not a <tool_response>
        return text.replace("in the <tool_response> of that step", "in that step's tool result") if text else text

    def _observation_message(self, blocks: list[str]) -> None:
        results = []
        new = self._first_seq
        for i, call in enumerate(self._calls):
            rec = self._recorded[i] if i < len(self._recorded) else None
            if rec is not None:
                call_id = rec.call_id
            else:
                new += 1
                call_id = f"c{new}" if f"c{new}" in self.state.calls else ""
            tool_call_id = call.tool_call_id if isinstance(call, NativeCall) else ""
            results.append({"tool_call_id": tool_call_id or f"call_{i}", "call_id": call_id,
                            "content": blocks[i] if i < len(blocks) else ""})
        self.emit(ObservationMessage(content="", results=results))  # the results are the message (stored once)
