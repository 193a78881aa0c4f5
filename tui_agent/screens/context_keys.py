"""The context view's action table (its keys, palette entries, buttons and help lines) and the one
action that opens it from the main screen and the prompt inspector. A table only, no screen code:
the main screen's table, the inspector and the help screen import it without importing the view."""

from __future__ import annotations

from tui_agent.widgets.actions import UiAction, table

OPEN_CONTEXT = UiAction(
    "context_view", "x", "Context", "Context view",
    "what the next model call holds: tokens per item and per category, the gate and the window; "
    "drop, pin, summarise or restore an item", footer=False)  # the main footer has no room; palette and help list it

CONTEXT_ACTIONS = table(
    UiAction("drop", "d", "Drop", "Drop context item",
             "replace the selected item by a one-line stub saying what was there and how many tokens it held",
             variant="error"),
    UiAction("pin", "p", "Pin/unpin", "Pin or unpin context item",
             "pin the selected item (no policy at the token gate may cut or summarise it), or unpin it"),
    UiAction("summarise", "s", "Summarise", "Summarise context item",
             "one model call proposes a summary of the selected item; edit it, then ctrl+s replaces the item's "
             "text with it (Esc cancels and changes nothing)", variant="primary"),
    UiAction("apply_summary", "ctrl+s", "Apply summary", "Apply the edited summary",
             "replace the item's text by the summary as edited", variant="success"),
    UiAction("restore", "r", "Restore", "Restore context item", "undo a drop or a summary of the selected item"),
    UiAction("cancel", "escape", "Close", "Close the context view",
             "cancel the summary being written or edited; else back to where you were", palette=False),
    UiAction("close", "x", "Close", "Close the context view", "back to where you were", footer=False),
)

EDIT_ACTIONS = ("drop", "pin", "summarise", "restore")
