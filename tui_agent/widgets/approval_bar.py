"""The action pane: the tool call waiting for a decision (shown in full, wrapped), its
approval bar, the JSON argument editor (validated against the tool's schema) and the reject
reason input."""

from __future__ import annotations

import json
from typing import Any

from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static, TextArea

REJECT_LABEL = "Reason for rejecting (the model reads it) · Enter sends · Esc cancels"


class JsonArea(TextArea):
    """The argument editor's text area; ctrl+a selects all (home moves to the line start)."""

    BINDINGS = [Binding("ctrl+a", "select_all", "Select all", show=False)]


def check_arguments(text: str, tool: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """(arguments, None) when ``text`` is JSON valid for the schema, else (None, message)."""
    try:
        args = json.loads(text)
    except ValueError as exc:
        return None, f"Not valid JSON: {exc}"
    from tui_agent.tools.base import validate_arguments  # lazily: keeps the tools package off the first frame

    error = validate_arguments(tool, schema, args)
    return (None, error) if error else (args, None)


class ApprovalBar(Horizontal):
    """The buttons of the approval actions (from the screen's action table)."""

    DEFAULT_CSS = """
    ApprovalBar { height: 1; width: 1fr; }
    ApprovalBar > Button { margin-right: 1; min-width: 0; }
    """

    def __init__(self, actions: list[Any], **kw) -> None:
        super().__init__(**kw)
        self.actions = actions

    def compose(self):
        from tui_agent.widgets.actions import button

        for action in self.actions:
            yield button(action)


class ArgumentEditor(Vertical):
    """JSON editor for the pending call's arguments; ``ctrl+s`` approves, ``escape`` cancels."""

    DEFAULT_CSS = """
    ArgumentEditor { height: auto; max-height: 16; }
    ArgumentEditor > TextArea { height: auto; max-height: 12; min-height: 3; }
    ArgumentEditor > #args-error { color: $error; height: auto; max-height: 4; }
    ArgumentEditor > Horizontal { height: 1; }
    ArgumentEditor Button { margin-right: 1; min-width: 0; }
    """

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.tool = ""
        self.schema: dict[str, Any] = {}
        self.error: str | None = None

    def compose(self):
        yield JsonArea("", id="args-text", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        yield Static("", id="args-error", markup=False)  # quotes the model's arguments and a server's schema
        with Horizontal():
            yield Button("Approve edited ctrl+s", id="approve-edit", variant="success", compact=True)
            yield Button("Cancel esc", id="cancel-edit", compact=True)

    def start(self, tool: str, schema: dict[str, Any], arguments: Any) -> None:
        self.tool, self.schema = tool, schema
        area = self.query_one("#args-text")
        area.text = json.dumps(arguments, indent=2, ensure_ascii=False)
        self.validate()
        area.focus()

    @property
    def text(self) -> str:
        return self.query_one("#args-text").text

    def parsed(self) -> tuple[Any, str | None]:
        return check_arguments(self.text, self.tool, self.schema)

    def validate(self) -> None:
        _, self.error = self.parsed()
        self.query_one("#args-error", Static).update(self.error or "")
        self.query_one("#approve-edit", Button).disabled = self.error is not None

    def on_text_area_changed(self, event) -> None:
        event.stop()
        self.validate()


class ActionPane(Vertical):
    """Pending (or selected) call above its approval bar; the JSON editor and the reject reason
    input are mounted the first time they are needed."""

    DEFAULT_CSS = """
    ActionPane { height: auto; max-height: 70%; }
    ActionPane > #call-scroll { height: auto; max-height: 14; }
    ActionPane > #reject-box { height: auto; }
    ActionPane #reject-label { color: $text-muted; }
    ActionPane #reject-reason { border: tall $accent; }
    """

    def __init__(self, actions: list[Any], **kw) -> None:
        super().__init__(**kw)
        self.actions = actions

    def compose(self):
        with VerticalScroll(id="call-scroll"):
            yield Static("", id="call-view")
        yield ApprovalBar(self.actions, id="approval-bar")

    def on_mount(self) -> None:
        self.set_mode("none")

    async def ensure(self, part: str) -> None:
        """Mount the editor ("edit") or the reason input ("reject") if not there yet."""
        if part == "edit" and not self.query("#arg-editor"):
            await self.mount(ArgumentEditor(id="arg-editor"))
        elif part == "reject" and not self.query("#reject-box"):
            from textual.widgets import Input

            # The label stays above the box while typing (a placeholder alone disappears).
            await self.mount(Vertical(Static(REJECT_LABEL, id="reject-label"),
                                      Input(placeholder="e.g. search something narrower", id="reject-reason"),
                                      id="reject-box"))

    def mode(self) -> str:
        # query_one_optional: a lookup by id (Textual caches it); query() walked the pane, and the
        # footer asks for every binding (the main screen's check_action) each time bindings change.
        for part, selector in (("edit", "#arg-editor"), ("reject", "#reject-box")):
            found = self.query_one_optional(selector)
            if found is not None and found.display:
                return part
        return "pending" if self.query_one(ApprovalBar).display else "none"

    def set_mode(self, mode: str) -> None:
        """none | pending | edit | reject"""
        self.query_one(ApprovalBar).display = mode == "pending"
        for part, selector in (("edit", "#arg-editor"), ("reject", "#reject-box")):
            for widget in self.query(selector):
                widget.display = mode == part
        self.set_class(mode != "none", "-pending")

    def show(self, content: Content | str) -> None:
        self.query_one("#call-view", Static).update(content)
