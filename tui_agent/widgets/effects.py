"""What each event changes on screen: the ``EFFECTS`` table and the ``RegionBus`` views subscribe to.

Every event class maps to the regions of the screen it changes. After the app folded an event
into its run's state it publishes the event on the main screen's bus; each subscriber (the trace
panes, the header, the plan pane, the gauge, the footer's keys, the context view) is called when
the event touches one of its regions, once per event. A new event kind adds one row here; a new
view subscribes to its regions. Below the screens and the app, so both read it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Callable, Iterable
from weakref import ref

from tui_agent.core import events as ev
from tui_agent.core.event_base import Event

if TYPE_CHECKING:
    from textual.dom import DOMNode


class Region(StrEnum):
    """A region of the screen that an event may change."""

    HEADER = "header"  # the status line: state, model, auto, what waits
    QUESTION = "question"
    GAUGE = "gauge"  # tokens, calls, cost, time
    KEYS = "keys"  # which actions are available (footer, palette, buttons)
    THOUGHT = "thought"
    ACTION = "action"
    OBSERVATION = "observation"
    ANSWER = "answer"
    CALLS = "calls"  # the list of tool calls
    PLAN = "plan"  # the plan pane
    CONTEXT = "context"  # the context view (what the next model call holds)
    NOTICES = "notices"  # the app's notifications
    TEAM = "team"  # the team pane: one line per sub-agent


R = Region
PANES = frozenset({R.THOUGHT, R.ACTION, R.OBSERVATION, R.ANSWER})
CALL = frozenset({R.CALLS, R.ACTION, R.OBSERVATION, R.CONTEXT})

EFFECTS: dict[type[Event], frozenset[Region]] = {
    ev.RunStarted: frozenset({R.HEADER, R.QUESTION, R.GAUGE, R.KEYS, R.PLAN, R.CONTEXT}),
    ev.ModelCallStarted: PANES | {R.HEADER, R.GAUGE, R.KEYS, R.CONTEXT},
    ev.ModelDelta: frozenset({R.THOUGHT, R.ACTION, R.ANSWER}),  # batched by the bridge as stream text
    ev.ModelCallEnded: frozenset({R.THOUGHT, R.ACTION, R.GAUGE, R.CONTEXT}),
    ev.Retry: frozenset({R.THOUGHT, R.KEYS, R.NOTICES}),
    ev.ActionProposed: CALL,
    ev.ApprovalRequested: frozenset({R.CALLS, R.ACTION, R.HEADER}),
    ev.ApprovalModeChanged: frozenset({R.HEADER}),
    ev.Decision: CALL | {R.HEADER},
    ev.ToolStarted: frozenset({R.CONTEXT}),
    ev.ToolProgress: frozenset({R.GAUGE}),
    ev.Observation: CALL,
    ev.ObservationMessage: frozenset({R.CONTEXT}),
    ev.Correction: frozenset({R.OBSERVATION, R.CONTEXT}),
    ev.SourceAdded: frozenset({R.CONTEXT}),
    ev.PromptEdited: frozenset({R.CONTEXT}),
    ev.ContextEdited: frozenset({R.CONTEXT}),
    ev.SummaryProposed: frozenset({R.CONTEXT}),
    ev.ContextCompacted: frozenset({R.CONTEXT}),
    ev.ForcedAnswer: frozenset({R.HEADER, R.CONTEXT}),
    ev.AnswerEvent: frozenset({R.ANSWER, R.KEYS, R.PLAN, R.CONTEXT}),
    ev.Notice: frozenset({R.NOTICES, R.CONTEXT}),
    ev.RunEnded: PANES | {R.HEADER, R.GAUGE, R.KEYS, R.PLAN, R.CONTEXT, R.NOTICES},
    ev.PlanProposed: frozenset({R.PLAN, R.CONTEXT}),
    ev.PlanDecided: frozenset({R.PLAN, R.CONTEXT}),
    ev.ClarifyAsked: frozenset({R.CONTEXT}),
    ev.ClarifyAnswered: frozenset({R.PLAN, R.CONTEXT}),
    ev.VerificationStarted: frozenset({R.ANSWER}),
    ev.ClaimChecked: frozenset({R.ANSWER}),
    ev.VerificationEnded: frozenset({R.ANSWER, R.KEYS}),
    ev.AgentStarted: frozenset({R.TEAM, R.HEADER}),
    ev.FactsExtracted: frozenset({R.TEAM, R.CONTEXT}),
    ev.AgentEnded: frozenset({R.TEAM, R.HEADER, R.GAUGE}),
    ev.SectionWritten: frozenset({R.TEAM, R.ANSWER}),
}
ALL = frozenset(Region)


def effects(e: Event | None) -> frozenset[Region]:
    """The regions ``e`` changes; every region for None (a whole session shown anew)."""
    return ALL if e is None else EFFECTS[type(e)]


Callback = Callable[[Event | None], None]


class RegionBus:
    """Subscribers to regions, called in the order they subscribed, once per event that changes one
    of their regions. A subscriber tied to a node is dropped once the node is no longer mounted."""

    def __init__(self) -> None:
        self._subs: list[tuple[frozenset[Region], Callback, ref[DOMNode] | None]] = []

    def subscribe(self, regions: Iterable[Region], callback: Callback, node: DOMNode | None = None) -> None:
        self._subs.append((frozenset(regions), callback, ref(node) if node is not None else None))

    def unsubscribe(self, node: DOMNode) -> None:
        self._subs = [s for s in self._subs if s[2] is None or s[2]() is not node]

    def publish(self, e: Event | None) -> None:
        touched = effects(e)
        for regions, callback, node_ref in list(self._subs):
            if node_ref is not None:
                node = node_ref()
                if node is None or not node.is_attached:
                    self._subs = [s for s in self._subs if s[2] is not node_ref]
                    continue
            if regions & touched:
                callback(e)
