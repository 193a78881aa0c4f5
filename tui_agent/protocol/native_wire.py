"""The protocol a run speaks (the ``protocol`` setting), as one object the engine asks.

:class:`TagsWire` is the four-tag protocol (tools in the system prompt, calls and the answer in
the reply's text); :class:`NativeWire` the provider's own tool calling (:mod:`.native`). Both
answer the same questions: the default system prompt, the extra request parameters of a call
(stop sequences; or ``tools`` and, for the forced answer, ``tool_choice``), how a reply reads, and
the words of the corrections and the forced answer. Everything else (approval, events, the fold,
gates) is the same code for both.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Protocol

from tui_agent.kinds import Purpose, Termination
from tui_agent.protocol import native
from tui_agent.protocol.corrections import correction as tags_correction
from tui_agent.protocol.corrections import cut_correction as tags_cut_correction
from tui_agent.protocol.prompt import EVIDENCE_REMINDER, STOP_SEQUENCES, load_template
from tui_agent.protocol.prompt import forced_message as tags_forced_message
from tui_agent.protocol.reply import ParsedReply, parse_reply
from tui_agent.protocol.tags import cut_reply, open_block, split_thought
from tui_agent.protocol.toolset import ToolSet


class Wire(Protocol):
    name: str
    native: bool
    evidence_reminder: str
    specs: list[dict[str, Any]]  # the tools=[…] of a request (tags: none)

    def template(self, path: str | None) -> str: ...
    def request(self, purpose: Purpose) -> dict[str, Any]: ...
    def cut(self, text: str) -> tuple[str, bool]: ...
    def read(self, text: str, reasoning: str = "", tool_calls: list[dict[str, Any]] | None = None) -> ParsedReply: ...
    def read_message(self, message: dict[str, Any]) -> ParsedReply: ...
    def correction(self, parsed: ParsedReply) -> str: ...
    def refused_correction(self, generation: str, message: str) -> str: ...
    def cut_correction(self, text: str, completion_tokens: int | None, tool_calls: list[dict[str, Any]]) -> str: ...
    def forced_message(self, latest: str | None, reason: Termination) -> str: ...
    def forced_answer(self, text: str, parsed: ParsedReply) -> tuple[str, bool]: ...
    def fit_results(self, msgs: list[dict[str, Any]], counter: Any, room: int, instruction: str) -> list[dict[str, Any]]: ...


class TagsWire:
    """The Tongyi tags: <think>, <tool_call>, <tool_response>, <answer>."""

    name, native, evidence_reminder = native.TAGS, False, EVIDENCE_REMINDER

    def __init__(self, tools: Any) -> None:
        self.tools = tools
        self.specs: list[dict[str, Any]] = []

    def template(self, path: str | None) -> str:
        return load_template(path)

    def request(self, purpose: Purpose) -> dict[str, Any]:
        return {"stop": STOP_SEQUENCES}

    def cut(self, text: str) -> tuple[str, bool]:
        return cut_reply(text)

    def read(self, text: str, reasoning: str = "", tool_calls: list[dict[str, Any]] | None = None) -> ParsedReply:
        return parse_reply(text, reasoning, tools=self.tools)

    def read_message(self, message: dict[str, Any]) -> ParsedReply:
        return parse_reply(message.get("content") or "", tools=self.tools)

    def correction(self, parsed: ParsedReply) -> str:
        return tags_correction(parsed, self.tools)

    def refused_correction(self, generation: str, message: str) -> str:
        return native.refused_correction(generation, message, self.tools)

    def cut_correction(self, text: str, completion_tokens: int | None, tool_calls: list[dict[str, Any]]) -> str:
        return tags_cut_correction(completion_tokens, inside=open_block(text))

    def forced_message(self, latest: str | None, reason: Termination) -> str:
        return tags_forced_message(latest, reason)

    def forced_answer(self, text: str, parsed: ParsedReply) -> tuple[str, bool]:
        if parsed.answer is not None:
            return parsed.answer, True
        _, rest, _ = split_thought(text)  # no <answer>: keep the whole reply (minus thinking)
        return rest.strip() or text.strip(), False

    def fit_results(self, msgs: list[dict[str, Any]], counter: Any, room: int, instruction: str) -> list[dict[str, Any]]:
        return msgs  # the latest observation moves into the last user message (engine.forced_request)


class NativeWire:
    """The provider's tool calling: ``tools=[…]``, ``tool_calls``, ``role: "tool"`` results."""

    name, native, evidence_reminder = native.NATIVE, True, native.EVIDENCE_REMINDER

    def __init__(self, tools: Any) -> None:
        self.tools = tools
        self.toolset = ToolSet(tools)
        self.specs = native.tool_specs(tools)

    def template(self, path: str | None) -> str:
        """A --system-prompt file as given (its {tools} filled as for tags), else the native prompt."""
        if path:
            return load_template(path)
        return resources.files("tui_agent").joinpath("prompts/system_native.txt").read_text(encoding="utf-8")

    def request(self, purpose: Purpose) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": self.specs}
        if purpose == Purpose.FORCED:
            out["tool_choice"] = native.TOOL_CHOICE_NONE
        return out

    def cut(self, text: str) -> tuple[str, bool]:
        return text, False

    def read(self, text: str, reasoning: str = "", tool_calls: list[dict[str, Any]] | None = None) -> ParsedReply:
        return native.read_reply(text, reasoning, tool_calls, tools=self.toolset)

    def read_message(self, message: dict[str, Any]) -> ParsedReply:
        return self.read(message.get("content") or "", "", message.get("tool_calls"))

    def correction(self, parsed: ParsedReply) -> str:
        return native.correction(parsed, self.toolset)

    def refused_correction(self, generation: str, message: str) -> str:
        return native.refused_correction(generation, message, self.toolset)

    def cut_correction(self, text: str, completion_tokens: int | None, tool_calls: list[dict[str, Any]]) -> str:
        return native.cut_correction(completion_tokens, bool(tool_calls))

    def forced_message(self, latest: str | None, reason: Termination) -> str:
        return native.forced_message(latest, reason)

    def forced_answer(self, text: str, parsed: ParsedReply) -> tuple[str, bool]:
        if parsed.answer is not None and not parsed.calls:
            return parsed.answer, True
        _, rest, _ = split_thought(text)  # calls despite tool_choice "none", or nothing: keep what it wrote
        return rest.strip() or text.strip(), False

    def fit_results(self, msgs: list[dict[str, Any]], counter: Any, room: int, instruction: str) -> list[dict[str, Any]]:
        return native.fit_tool_results(msgs, counter, room, instruction)


def wire_for(protocol: str | None, tools: Any) -> TagsWire | NativeWire:
    return NativeWire(tools) if protocol == native.NATIVE else TagsWire(tools)
