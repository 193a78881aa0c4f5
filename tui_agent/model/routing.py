"""A LiteLLM Router behind one model name (``router_config``): its configuration, the Router with
its own retries, fallbacks and cooldowns, and which deployment answered or failed.

The Router is the first line of recovery. A failed call is retried by the Router itself on
another deployment of the group (``num_retries``; ``router_retries`` when the file sets none), a
failing deployment rests (``cooldown_time``; ``router_cooldown_s``; ``allowed_fails``), and
``fallbacks`` move a call to another model group: every key of the file's ``router_settings`` is
passed to the Router as it is. The adapter's own backoff (``LLM.complete``) wraps only what the
Router gives up on. Its fail-fast rule for an endpoint that is not there counts each deployment
apart (:class:`Routed`): a call fails fast only when every deployment of the group refused and
none ever answered, never because one dead deployment sat beside healthy ones.

The Router is imported through ``model.litellm_lazy.litellm``, the one module that imports
litellm. Each deployment gets a stable id (``model_info.id``, kept when the file gives one), so
an answer or an error names the deployment it came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from tui_agent.config import ConfigError, Settings
from tui_agent.model.litellm_lazy import litellm

DEPLOYMENT_ID = "deployment-{}"
"""The id given to the n-th deployment of a file that gives it none (model_info.id)."""


@dataclass(frozen=True)
class Deployment:
    """One entry of a Router's model_list."""

    id: str
    group: str  # model_name: what --model names
    model: str  # litellm_params.model: what is called, and priced
    api_base: str | None = None

    @property
    def endpoint(self) -> str:
        return self.api_base or f"the default endpoint of {self.model}"

    def describe(self) -> str:
        return f"deployment {self.model} of {self.group} at {self.endpoint}"


def load_router_config(path: str) -> dict[str, Any]:
    """A Router configuration: ``{"model_list": [...], "router_settings": {...}}`` as LiteLLM's own
    config files write it (YAML or JSON), or a bare model list. Each entry gets a model_info.id
    when it has none. Raises ConfigError naming the file."""
    import yaml

    try:
        data = yaml.safe_load(open(os.path.expanduser(path), encoding="utf-8").read())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"router config {path}: cannot be read: {exc}") from None
    except yaml.YAMLError as exc:  # where and what, never the snippet of the file (it may hold a key)
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"router config {path}: not valid YAML or JSON{at}: "
                          f"{getattr(exc, 'problem', None) or type(exc).__name__}") from None
    if isinstance(data, list):
        data = {"model_list": data}
    models = data.get("model_list") if isinstance(data, dict) else None
    if not isinstance(models, list) or not models or not all(
            isinstance(m, dict) and m.get("model_name") and isinstance(m.get("litellm_params"), dict)
            and m["litellm_params"].get("model") for m in models):
        raise ConfigError(f"router config {path}: needs a model_list of entries with model_name and "
                          "litellm_params.model")
    settings = data.get("router_settings") or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"router config {path}: router_settings must be a mapping")
    entries = []
    for n, m in enumerate(models):
        info = m.get("model_info") if isinstance(m.get("model_info"), dict) else {}
        entries.append({**m, "model_info": {**info, "id": str(info.get("id") or DEPLOYMENT_ID.format(n))}})
    return {"model_list": entries, "router_settings": settings}


def deployments(config: dict[str, Any]) -> list[Deployment]:
    return [Deployment(m["model_info"]["id"], str(m["model_name"]), str(m["litellm_params"]["model"]),
                       m["litellm_params"].get("api_base")) for m in config["model_list"]]


def router_options(config: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """The Router's keyword arguments: the file's router_settings, with num_retries and cooldown_time
    from the settings where the file sets none."""
    options = dict(config["router_settings"])
    options.setdefault("num_retries", settings.router_retries)
    if settings.router_cooldown_s is not None:
        options.setdefault("cooldown_time", settings.router_cooldown_s)
    return options


@dataclass
class Routed:
    """A Router and what this process has seen of its deployments: which answered, which refused."""

    path: str
    router: Any
    by_id: dict[str, Deployment]
    reached: set[str] = field(default_factory=set)
    refused: set[str] = field(default_factory=set)

    def group(self, model: str) -> list[Deployment]:
        return [d for d in self.by_id.values() if d.group == model]

    def failed(self, exc: BaseException) -> Deployment | None:
        """The deployment a Router error came from (litellm sets failed_deployment_id)."""
        from tui_agent.model.errors import _chain

        for e in _chain(exc):
            found = self.by_id.get(str(getattr(e, "failed_deployment_id", None) or ""))
            if found is not None:
                return found
        return None

    def answered(self, response: Any) -> Deployment | None:
        """The deployment that gave ``response`` (a reply or a stream), noted as reached."""
        found = self.by_id.get(str(hidden(response).get("model_id") or ""))
        if found is not None:
            self.reached.add(found.id)
            self.refused.discard(found.id)
        return found

    def note_refused(self, deployment: Deployment) -> None:
        if deployment.id not in self.reached:
            self.refused.add(deployment.id)

    def all_refused(self, model: str) -> bool:
        """Every deployment of the group refused and none ever answered: nothing there to wait for."""
        group = self.group(model)
        return bool(group) and all(d.id in self.refused for d in group)

    def where(self, model: str, deployment: Deployment | None) -> str:
        if deployment is not None:
            return deployment.describe()
        return f"model group {model} of the router {self.path}"


_routed: dict[tuple[Any, ...], Routed] = {}


def routed(settings: Settings) -> Routed:
    """One Router per configuration file, its settings and process."""
    path = str(settings.router_config)
    key = (path, settings.router_retries, settings.router_cooldown_s)
    found = _routed.get(key)
    if found is None:
        config = load_router_config(path)
        router = litellm().Router(model_list=config["model_list"], **router_options(config, settings))
        found = _routed[key] = Routed(path, router, {d.id: d for d in deployments(config)})
    return found


def hidden(response: Any) -> dict[str, Any]:
    """litellm's notes on a reply or a stream (the deployment's id and model, its api_base)."""
    params = getattr(response, "_hidden_params", None)
    return params if isinstance(params, dict) else {}


def answered_model(response: Any) -> str | None:
    """The litellm model string that answered: behind a Router, the deployment's model."""
    name = hidden(response).get("litellm_model_name")
    return str(name) if name else None
