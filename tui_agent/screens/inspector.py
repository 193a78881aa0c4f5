"""The prompt inspector: the exact messages of a model call, tokens per message, the total and
the observation that costs most. At a breakpoint the system prompt and the last user message
can be edited; ``c`` continues, ``n`` runs one step and pauses again. Read-only otherwise."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Static, TextArea

from tui_agent.widgets.actions import bindings, button
from tui_agent.screens.context_keys import OPEN_CONTEXT

if TYPE_CHECKING:
    from tui_agent.agent.handle import RunHandle
    from tui_agent.widgets.effects import RegionBus

# An edited message is counted again once typing stops this long (seconds): not at every key.
RECOUNT_DEBOUNCE_S = 0.2


@dataclass
class InspectorResult:
    mode: str  # continue | step
    messages: list[dict[str, str]] | None  # edited messages, or None when nothing changed


def editable_indexes(messages: list[dict[str, str]]) -> set[int]:
    """The system prompt and the last user message."""
    out = {i for i, m in enumerate(messages[:1]) if m.get("role") == "system"}
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            out.add(i)
            break
    return out


def costliest_observation(messages: list[dict[str, str]], tokens: list[int]) -> int | None:
    best = None
    for i, m in enumerate(messages):
        if m.get("role") == "tool" or (m.get("role") == "user" and "<tool_response>" in (m.get("content") or "")):
            if best is None or tokens[i] > tokens[best]:
                best = i
    return best


def shown_text(m: dict) -> str:
    """A message as the inspector shows it: its content and, with the native protocol, the calls
    it carries or the call it answers (exactly as sent)."""
    text = m.get("content") or ""
    if m.get("tool_calls"):
        calls = json.dumps(m["tool_calls"], ensure_ascii=False, indent=2)
        text = f"{text}\n\ntool_calls:\n{calls}" if text else f"tool_calls:\n{calls}"
    if m.get("role") == "tool" and m.get("tool_call_id"):
        text = f"tool_call_id: {m['tool_call_id']}\n\n{text}"
    return text


def tools_text(tools: list[dict], tool_choice: str | None) -> str:
    """The request's tools=[…] (native protocol) and its tool_choice, as sent."""
    head = f"tool_choice: {tool_choice}\n\n" if tool_choice else ""
    return head + "tools:\n" + json.dumps(tools, ensure_ascii=False, indent=2)


def _preview(text: str, limit: int = 60) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class InspectorScreen(Screen[InspectorResult | None]):
    BINDINGS = [
        Binding("c", "resume('continue')", "Continue"),
        Binding("n", "resume('step')", "One step"),
        Binding("s", "submit_now", "Submit now"),
        Binding("b", "toggle_breakpoint", "Breakpoint"),
        Binding("escape", "close", "Close / leave editor"),
        Binding("i", "close", "Close", show=False),
        *bindings([OPEN_CONTEXT]),
    ]
    AUTO_FOCUS = "#messages"

    @classmethod
    def of_call(cls, call: Any, *, paused: bool, messages: list[dict[str, str]] | None = None,
                step: int | None = None, handle: RunHandle | None = None,
                regions: RegionBus | None = None) -> "InspectorScreen":
        """The inspector of one model call: a ``ModelCallStarted`` (at a breakpoint) or the fold's
        ``PromptView`` of the last call; ``messages`` when they differ from the call's own. ``handle``
        is the call's run (Submit now, its context), followed on ``regions``."""
        return cls(call.messages if messages is None else messages, call.message_tokens, total=call.prompt_tokens,
                   threshold=call.threshold, window=call.context_window, step=step or call.step, paused=paused,
                   purpose=getattr(call, "purpose", "research"), tools=call.tools, tool_choice=call.tool_choice,
                   handle=handle, regions=regions)

    def __init__(self, messages: list[dict[str, str]], tokens: list[int], *, total: int, threshold: int,
                 window: int, step: int, paused: bool, purpose: str = "research", tools: list[dict] | None = None,
                 tool_choice: str | None = None, handle: RunHandle | None = None,
                 regions: RegionBus | None = None) -> None:
        super().__init__(id="inspector")
        self.handle, self.regions = handle, regions
        self.messages = [dict(m) for m in messages]
        self.sent = [dict(m) for m in messages]  # what the paused call was given: edits apply to these
        self.tokens = list(tokens) + [0] * (len(messages) - len(tokens))
        self.total, self.threshold, self.window, self.step = total, threshold, window, step
        self.paused = paused
        self.purpose = purpose
        self.tools, self.tool_choice = list(tools or []), tool_choice  # native protocol: shown as a last row
        from tui_agent.model.tokens import request_tokens

        self.tools_tokens = request_tokens({"tools": self.tools})  # part of every total, as the engine counts
        self.editable = editable_indexes(self.messages) if paused else set()
        self.edits: dict[int, str] = {}
        self.current = 0
        self._recount: Any = None  # the timer that counts an edited message again
        self.loaded = False  # set once the table and the first message are shown

    def compose(self) -> ComposeResult:
        if self.paused:
            title = f"Prompt inspector · paused before the model call of step {self.step}"
        else:
            title = f"Prompt inspector · read-only · the last prompt sent (step {self.step}, {self.purpose})"
        yield Static(Content.styled(title, "bold"), id="inspector-title")
        yield Static(self._summary(), id="inspector-summary")
        with Horizontal(id="inspector-body"):
            yield DataTable(id="messages", cursor_type="row")
            with Vertical(id="message-side"):
                yield Static("", id="message-title")
                yield TextArea("", id="message-text", read_only=True, soft_wrap=True, tab_behavior="focus")
        if self.paused:
            yield Static("Editable: the system prompt and the last user message (✎). Esc leaves the editor; "
                         "c continues, n runs one step and pauses again, s submits now.", id="inspector-hint")
        with Horizontal(id="inspector-buttons"):
            if self.paused:
                yield Button("Continue c", id="continue", variant="primary", compact=True)
                yield Button("One step n", id="step", compact=True)
                yield Button("Submit now s", id="submit-now", variant="warning", compact=True)
            yield button(OPEN_CONTEXT)
        yield Footer()

    def _summary(self) -> Content:
        parts: list = [f"{len(self.messages)} messages · ", (f"{self.total:,}", "bold"), " tokens"]
        if self.threshold:
            parts.append(f" (gate {self.threshold:,} of a {self.window:,} window)")
        worst = costliest_observation(self.messages, self.tokens)
        if worst is not None:
            parts += [" · costliest observation: ", (f"#{worst}", "bold $warning"), f" ({self.tokens[worst]:,} tokens)"]
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        table = self.query_one("#messages", DataTable)
        table.add_column("#", key="i", width=3)
        table.add_column("role", key="role", width=9)
        table.add_column("tokens", key="tokens", width=7)
        table.add_column("content", key="content")
        self._fill(table)
        self._show(0)
        self.loaded = True

    def _fill(self, table: DataTable) -> None:
        worst = costliest_observation(self.messages, self.tokens)
        for i, m in enumerate(self.messages):
            mark = " ✎" if i in self.editable else ""
            role = Content.styled(m.get("role", "") + mark, "bold $warning" if i == worst else "")
            table.add_row(str(i), role, f"{self.tokens[i]:,}", _preview(shown_text(m)), key=str(i))
        if self.tools:
            names = ", ".join(t.get("function", {}).get("name", "?") for t in self.tools)
            choice = f" · tool_choice {self.tool_choice}" if self.tool_choice else ""
            table.add_row("", "tools", f"{self.tools_tokens:,}",
                          _preview(f"{len(self.tools)}: {names}{choice}"), key="tools")

    def _show(self, index: int) -> None:
        if index >= len(self.messages):  # the tools row
            self.current = index
            area = self.query_one("#message-text", TextArea)
            area.load_text(tools_text(self.tools, self.tool_choice))
            area.read_only = True
            self.query_one("#message-title", Static).update(
                Content.assemble(("tools", "bold"), f" · {len(self.tools)} sent with the request · read-only"))
            return
        self.current = index
        area = self.query_one("#message-text", TextArea)
        m = self.messages[index]
        area.load_text(self.edits.get(index, m.get("content", "") if index in self.editable else shown_text(m)))
        area.read_only = index not in self.editable
        self._title(index)

    def _title(self, index: int) -> None:
        m = self.messages[index]
        state = "editable" if index in self.editable else "read-only"
        edited = " · edited" if index in self.edits else ""
        self.query_one("#message-title", Static).update(
            Content.assemble((f"#{index} {m.get('role', '')}", "bold"), f" · {self.tokens[index]:,} tokens · {state}{edited}"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self._show(len(self.messages) if event.row_key.value == "tools" else int(event.row_key.value))

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if self.current not in self.editable:
            return
        original = self.messages[self.current].get("content", "")
        if event.text_area.text == original:
            self.edits.pop(self.current, None)
        else:
            self.edits[self.current] = event.text_area.text
        if self._recount is not None:
            self._recount.stop()
        self._recount = self.set_timer(RECOUNT_DEBOUNCE_S, partial(self._count_again, self.current))

    def _count_again(self, index: int) -> None:
        """The edited message's tokens, and the total, counted again (as the engine estimates them)."""
        from tui_agent.model.tokens import TokenCounter

        self._recount = None
        m = dict(self.messages[index], content=self.edits.get(index, self.messages[index].get("content", "")))
        tokens = TokenCounter().message(m)
        self.total += tokens - self.tokens[index]
        self.tokens[index] = tokens
        self.query_one("#inspector-summary", Static).update(self._summary())
        self.query_one("#messages", DataTable).update_cell(str(index), "tokens", f"{tokens:,}")
        if self.current == index:
            self._title(index)

    def edited_messages(self) -> list[dict[str, str]] | None:
        if not self.edits:
            return None
        out = [dict(m) for m in self.sent]
        for i, text in self.edits.items():
            out[i]["content"] = text
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resume", "submit_now"):
            return self.paused
        return True

    def action_resume(self, mode: str) -> None:
        if self.paused:
            self.dismiss(InspectorResult(mode, self.edited_messages()))

    def action_close(self) -> None:
        if isinstance(self.focused, TextArea):
            self.query_one("#messages", DataTable).focus()
            return
        if self.paused:
            self.notify("Paused before a model call: c continues, n runs one step, s submits now.")
            return
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            self.action_resume("continue")
        elif event.button.id == "step":
            self.action_resume("step")
        elif event.button.id == "submit-now":
            self.action_submit_now()
        elif event.button.id == OPEN_CONTEXT.name:
            self.action_context_view()

    # -- the context view (x): at a breakpoint its edits change the call that waits ---------------------
    def action_context_view(self) -> None:
        from tui_agent.screens.context_view import ContextViewScreen

        self.app.push_screen(ContextViewScreen(handle=self.handle, regions=self.regions),
                             lambda _: self._context_closed())

    def _context_closed(self) -> None:
        if not self.paused or self.handle is None:
            return
        from tui_agent.model.tokens import TokenCounter
        from tui_agent.core import fold

        messages = fold.prompt(self.handle.state)
        if [m.get("content") for m in messages] == [m.get("content") for m in self.messages]:
            return
        total, tokens = TokenCounter().messages(messages)
        total += self.tools_tokens
        lost = [i for i in self.edits if i < len(messages) and messages[i].get("content") != self.messages[i].get("content")]
        for i in lost:
            self.edits.pop(i)
        self.messages, self.tokens, self.total = [dict(m) for m in messages], list(tokens), total
        self.query_one("#inspector-summary", Static).update(self._summary())
        table = self.query_one("#messages", DataTable)
        table.clear()
        self._fill(table)
        self._show(min(self.current, len(self.messages) - 1))
        note = f" Your edit of message {', '.join(f'#{i}' for i in lost)} was undone: the context changed it." if lost else ""
        self.notify("The call that waits sends the context as edited." + note,
                    severity="warning" if lost else "information")

    def action_toggle_breakpoint(self) -> None:
        self.app.breakpoint = not self.app.breakpoint  # type: ignore[attr-defined]
        self.notify("Breakpoint " + ("on: every model call pauses" if self.app.breakpoint  # type: ignore[attr-defined]
                                     else "off: only n pauses again"))

    def action_submit_now(self) -> None:
        handle = self.handle
        if handle is not None and handle.state.active and handle.submit_now():
            self.notify("Submit now: the model answers from the evidence so far.", title="Submit now")
