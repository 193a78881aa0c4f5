"""Tool policies: ``ask``, ``allow`` or ``deny`` per tool name or glob, from the ``tool_policies``
setting (a ``[tool_policies]`` table in config.toml, e.g. ``"mcp__notes__*" = "allow"``).

Patterns are matched with :func:`fnmatch.fnmatchcase`. When several match, **deny wins over
everything** (over allow, over ``--yes`` and auto mode, over always-approve); otherwise the exact
name's entry wins over globs, and among globs the longest pattern. A tool nothing matches is ``ask``.

The approval path calls :func:`policy_decision` first: a decision (deny or allow) settles the call,
``None`` leaves it to the run's approval (auto mode, always-approved tools, a person). A resumed
call approved before the process stopped is decided again when :func:`denies` says the
configuration now denies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase

from tui_agent.core.approval import JSON, Approve, DecisionT, Reject
from tui_agent.kinds import ToolPolicy


def matching(name: str, policies: Mapping[str, str]) -> list[tuple[str, ToolPolicy]]:
    """The patterns of ``policies`` that match tool ``name``, with their policy."""
    return [(pattern, ToolPolicy(policy)) for pattern, policy in policies.items() if fnmatchcase(name, pattern)]


def policy_for(name: str, policies: Mapping[str, str]) -> tuple[ToolPolicy, str | None]:
    """The policy of tool ``name`` and the pattern that set it (None: no pattern matched, ask)."""
    found = matching(name, policies)
    denied = [pattern for pattern, policy in found if policy is ToolPolicy.DENY]
    if denied:
        return ToolPolicy.DENY, denied[0]
    if name in policies:
        return ToolPolicy(policies[name]), name
    if found:
        pattern, policy = max(found, key=lambda pp: len(pp[0]))
        return policy, pattern
    return ToolPolicy.ASK, None


def denies(name: str, policies: Mapping[str, str]) -> bool:
    """Whether a deny pattern matches ``name`` (a resumed call approved before is decided again then)."""
    return policy_for(name, policies)[0] is ToolPolicy.DENY


def policy_decision(name: str, arguments: JSON, policies: Mapping[str, str]) -> DecisionT | None:
    """The decision the tool policies make for a call of ``name``: a policy Reject (deny), an
    automatic Approve (allow), or None (ask: the run's approval decides)."""
    policy, pattern = policy_for(name, policies)
    if policy is ToolPolicy.DENY:
        return Reject(f'the tool policy "{pattern}" = "deny" in the configuration forbids {name}; it will not run',
                      policy=True)
    if policy is ToolPolicy.ALLOW:
        return Approve(arguments, auto=True, policy=True)
    return None


def describe(policies: Mapping[str, str]) -> list[str]:
    """One line per configured policy, for the help and ``tui-agent tools list``."""
    return [f'"{pattern}" = "{ToolPolicy(policy)}"' for pattern, policy in policies.items()]
