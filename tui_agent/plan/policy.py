"""The approved plan as an approval policy and as the run's gates.

- :func:`approves`: the decision the plan makes for a call without asking (``Approve``), or None
  (ask the person). A ``search`` whose queries are all the plan's, and a ``visit`` whose URLs were
  all returned by the plan's searches as results (not URLs inside their snippets, titles or
  queries) or lie on one of its domains (:mod:`tui_agent.web.domains`), run unasked, unless the
  person rejected that call, one of its queries or one of its URLs before: a rejection wins. A URL
  whose host is an internationalised look-alike is always asked; a domain never covers an IP address.
- :func:`outside`: whether a call that is asked falls outside an approved plan (the question says so).
- :func:`gated`: the settings with the plan's budget as the run's limits, never above the user's.

Reads the folded ``SessionState``; changes nothing.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tui_agent.kinds import DecisionKind
from tui_agent.web import domains as plan_domains
from tui_agent.core.plan_schema import Plan

if TYPE_CHECKING:
    from tui_agent.core.approval import Approve
    from tui_agent.config import Settings
    from tui_agent.core.state import SessionState

SEARCH, VISIT = "search", "visit"


def _norm_query(q: Any) -> str:
    return " ".join(str(q).split()).casefold()


def _norm_url(u: Any) -> str:
    return str(u).strip().rstrip(".,;").rstrip("/")


def _items(tool: str, arguments: Any) -> list[str]:
    """The queries of a search, the URLs of a visit (normalised)."""
    if not isinstance(arguments, dict):
        return []
    key, norm = (("query", _norm_query) if tool == SEARCH else ("url", _norm_url))
    value = arguments.get(key)
    values = value if isinstance(value, list) else [value] if value else []
    return [norm(v) for v in values]


def _plan_search(plan: Plan, arguments: Any) -> bool:
    wanted = {_norm_query(q) for q in plan.queries}
    items = _items(SEARCH, arguments)
    return bool(items) and all(q in wanted for q in items)


def returned_urls(state: SessionState, plan: Plan) -> set[str]:
    """The URLs the plan's searches returned as results (searches that ran with the plan's queries
    only); a URL written in a result's snippet or title, or in a query, is not one."""
    from tui_agent.tools.search import result_urls  # httpx and the redaction rules: not on the first frame's path

    urls: set[str] = set()
    for call in state.calls.values():
        if call.tool == SEARCH and call.executed and call.observation and _plan_search(plan, call.arguments):
            urls.update(_norm_url(u) for u in result_urls(call.observation))
    return urls


def on_domain(url: str, domains: list[str]) -> bool:
    """Whether one of the plan's domains covers ``url`` (:func:`tui_agent.web.domains.covers`)."""
    return plan_domains.covers(url, domains)


def _plain_host(url: str) -> bool:
    """Not an internationalised look-alike: a host a plan may approve unasked (the network guard
    still judges its address)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return bool(host) and not plan_domains.is_lookalike(plan_domains.to_ascii(host))


def _rejected(state: SessionState, tool: str) -> set[str]:
    """Every query or URL of a call of ``tool`` the person rejected in this session."""
    out: set[str] = set()
    for call in state.calls.values():
        if call.tool == tool and call.decision == DecisionKind.REJECTED:
            out.update(_items(tool, call.arguments))
    return out


def covers(state: SessionState, tool: str, arguments: Any) -> bool:
    """Whether the approved plan covers this call (rejections aside)."""
    plan = state.plan.approved
    if plan is None:
        return False
    if tool == SEARCH:
        return _plan_search(plan, arguments)
    if tool == VISIT:
        urls = _items(VISIT, arguments)
        if not urls:
            return False
        returned = returned_urls(state, plan)
        return all(_plain_host(u) and (u in returned or on_domain(u, plan.domains)) for u in urls)
    return False


def approves(state: SessionState, tool: str, arguments: Any) -> Approve | None:
    """The plan's decision on a call: approved unasked when the plan covers it and the person
    rejected none of it before; None: ask."""
    if not covers(state, tool, arguments):
        return None
    if set(_items(tool, arguments)) & _rejected(state, tool):
        return None  # a rejection wins over the plan
    from tui_agent.core.approval import Approve

    return Approve(arguments, auto=True)


def outside(state: SessionState, tool: str, arguments: Any) -> bool:
    """A plan is in force and does not cover this call (it is asked, marked outside the plan)."""
    return state.plan.approved is not None and not covers(state, tool, arguments)


def gated(settings: Settings, state: SessionState) -> Settings:
    """The settings with the approved plan's budget as the run's gates: each limit the lower of
    the user's and the plan's (a plan never raises a limit)."""
    plan = state.plan.approved
    if plan is None:
        return settings
    b = plan.budget
    changes: dict[str, Any] = {}
    if b.max_calls is not None and b.max_calls < settings.max_calls:
        changes["max_calls"] = int(b.max_calls)
    if b.max_minutes is not None and b.max_minutes < settings.max_minutes:
        changes["max_minutes"] = float(b.max_minutes)
    if b.budget_usd is not None and (settings.budget_usd is None or b.budget_usd < settings.budget_usd):
        changes["budget_usd"] = float(b.budget_usd)
    return dataclasses.replace(settings, **changes) if changes else settings
