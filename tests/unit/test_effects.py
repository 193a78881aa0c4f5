"""The EFFECTS table: every event class says which regions of the screen it changes, and the
region bus calls each view once per event that changes one of its regions."""

from __future__ import annotations

import inspect

from tui_agent.core import event_base, events, events_plan, events_verify
from tui_agent.core.events import EVENT_TYPES, Notice, RunStarted, ToolProgress
from tui_agent.widgets.effects import ALL, EFFECTS, Region, RegionBus, effects


def _event_classes() -> set[type]:
    found = set()
    for module in (events, events_plan, events_verify):
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, event_base.Event) and value is not event_base.Event:
                found.add(value)
    return found


def test_every_event_class_has_its_regions():
    missing = sorted(c.__name__ for c in _event_classes() if c not in EFFECTS)
    assert missing == []
    assert set(EVENT_TYPES.values()) <= set(EFFECTS)
    assert all(EFFECTS[c] for c in EFFECTS), "an event that changes nothing on screen still names a region"


def test_a_subscriber_is_called_once_per_event_that_changes_one_of_its_regions():
    bus, seen = RegionBus(), []
    bus.subscribe({Region.GAUGE, Region.KEYS}, lambda e: seen.append(("gauge+keys", type(e).__name__)))
    bus.subscribe({Region.PLAN}, lambda e: seen.append(("plan", type(e).__name__)))
    started = RunStarted(session_id="s", question="q", model="m")
    bus.publish(started)
    bus.publish(ToolProgress(session_id="s", call_id="c1", text="…"))
    bus.publish(Notice(session_id="s", text="hello"))
    assert seen == [("gauge+keys", "RunStarted"), ("plan", "RunStarted"), ("gauge+keys", "ToolProgress")]


def test_a_session_shown_anew_touches_every_region():
    assert effects(None) == ALL == frozenset(Region)
