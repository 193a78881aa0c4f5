"""The ground floor: events, state, the one fold, budgets, approval types, plan and context data types.

It imports nothing above ``model/`` (tests/unit/test_layout.py)."""
