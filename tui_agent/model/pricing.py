"""What a model call cost, and whether a budget can be kept at all.

A reply is priced from the provider-reported usage by the model that answered: behind a Router
the deployment's model (litellm names it on the response), not the group's alias. The price is
``price_per_million_input``/``_output`` when configured (they replace litellm's for every model),
else litellm's price map (``cost_per_token``). A budget in USD on a model without a price would
never stop a run, so :func:`unpriced_models` lets ``run`` and ``eval`` refuse to start instead.
"""

from __future__ import annotations

from typing import Any, Iterable

from tui_agent.config import Settings
from tui_agent.model.litellm_lazy import litellm

MILLION = 1_000_000

HOW_TO_PRICE = (
    "--budget-usd {budget} is set, but {what} no price (litellm's price map has none): the budget could "
    "never stop the run. Set a price for it: price_per_million_input = … and price_per_million_output = … in "
    "the config file (or TUI_AGENT_PRICE_PER_MILLION_INPUT / _OUTPUT), or cap the run with --budget-tokens N instead."
)


def configured(settings: Settings) -> bool:
    return settings.price_per_million_input is not None or settings.price_per_million_output is not None


def configured_cost(settings: Settings, prompt_tokens: int, completion_tokens: int) -> float:
    return ((settings.price_per_million_input or 0.0) * prompt_tokens
            + (settings.price_per_million_output or 0.0) * completion_tokens) / MILLION


# Models litellm's price map does not know: its search is not repeated at every call (measured:
# a miss costs more than the rest of the pricing; the map does not change within a process).
_UNPRICED: set[str] = set()


def litellm_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD from litellm's price map; None when the model is not in it."""
    if model in _UNPRICED:
        return None
    from tui_agent.model import known_models

    if known_models.unknown(model):  # not in the map: no import of litellm to be told so
        _UNPRICED.add(model)
        return None
    try:
        p, c = litellm().cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    except Exception:  # noqa: BLE001 - litellm raises for a model it does not know
        _UNPRICED.add(model)
        return None
    return float(p) + float(c)


def cost(settings: Settings, models: Iterable[str | None], prompt_tokens: int | None,
         completion_tokens: int | None) -> float | None:
    """USD for this usage: the configured price, else litellm's for the first of ``models`` it
    prices (the model that answered first, then the one asked for); None without usage or price."""
    if prompt_tokens is None:
        return None
    if configured(settings):
        return configured_cost(settings, prompt_tokens, completion_tokens or 0)
    for model in dict.fromkeys(m for m in models if m):
        found = litellm_cost(model, prompt_tokens, completion_tokens or 0)
        if found is not None:
            return found
    return None


def models_in_use(settings: Settings) -> list[str]:
    """The litellm models a run may call: the main, extraction and compaction models; behind a
    Router, each deployment of their groups."""
    names = [settings.model, settings.extract_model if settings.extract else None, settings.compact_model]
    names = list(dict.fromkeys(n for n in names if n))
    if not settings.router_config:
        return names
    from tui_agent.model.routing import deployments, load_router_config

    listed = deployments(load_router_config(settings.router_config))
    out: list[str] = []
    for name in names:
        group = [d.model for d in listed if d.group == name]
        out += group or [name]
    return list(dict.fromkeys(out))


def unpriced_models(settings: Settings) -> list[str]:
    if configured(settings):
        return []
    return [m for m in models_in_use(settings) if litellm_cost(m, 1000, 1000) is None]


def budget_problem(settings: Settings) -> str | None:
    """Why a run with this budget must not start (a model without a price), or None."""
    if settings.budget_usd is None:
        return None
    missing = unpriced_models(settings)
    if not missing:
        return None
    what = (f"the model {missing[0]} has" if len(missing) == 1
            else "the models " + ", ".join(missing) + " have")
    return HOW_TO_PRICE.format(budget=settings.budget_usd, what=what)


def reply_cost(settings: Settings, response: Any, model: str, prompt_tokens: int | None,
               completion_tokens: int | None) -> float | None:
    """The cost of a reply priced by the model that answered (a Router's deployment), then by the
    model asked for, then by the model the server says it is (a proxy's deployment)."""
    from tui_agent.model.routing import answered_model

    said = getattr(response, "model", None)
    return cost(settings, [answered_model(response), model, said if isinstance(said, str) else None],
                prompt_tokens, completion_tokens)
