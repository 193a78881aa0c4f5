"""Where a model call goes, and how its failure names it: the endpoint (``--api-base``, the failed
request's URL, else the provider's default, looked up once per model), a Router's deployment, and
the advice an error gives (never "check --api-base" when none was given; for a 400/401 from a
proxy, its key). Held by the adapter (``LLM.endpoints``)."""

from __future__ import annotations

from urllib.parse import urlsplit

from tui_agent.config import Settings
from tui_agent.model.errors import UNRESOLVED, _request_url
from tui_agent.model.routing import Deployment, routed
from tui_agent.model.litellm_lazy import litellm


class Endpoints:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._defaults: dict[str, str] = {}  # a model's default endpoint (no api_base), looked up once

    def endpoint(self, model: str, exc: BaseException | None = None) -> str:
        """The URL a call goes to: api_base, else the failed request's URL, else litellm's default."""
        if self.settings.api_base:
            return self.settings.api_base
        found = _request_url(exc) if exc is not None else None
        if found:
            return found
        if model in self._defaults:
            return self._defaults[model]
        base = None
        for lookup in (lambda: litellm().get_api_base(model, {}), lambda: litellm().get_llm_provider(model)[3]):
            try:
                base = base or lookup()
            except Exception:  # noqa: BLE001 - unknown provider: no default to name
                pass
        base = self._defaults[model] = base or "the provider's default endpoint"
        return base

    def unreachable(self, cause: str, model: str, exc: BaseException,
                    deployment: Deployment | None = None) -> tuple[str, str]:
        """(the URL, a message naming it, the model or deployment, the cause and what to check)."""
        fix = "the network" if cause == UNRESOLVED else "that the server is running"
        if deployment is not None:
            url = deployment.endpoint
            server = f"{deployment.describe()} (router {self.settings.router_config})"
            advice = f"check its api_base in {self.settings.router_config} and {fix}"
        else:
            url = self.endpoint(model, exc)
            server = f"the model server at {url} for model {model}"
            advice = (f"check --api-base and {fix}" if self.settings.api_base
                      else "check the network (no --api-base was given: this is the provider's endpoint)")
        if cause == UNRESOLVED:
            host = urlsplit(url).hostname if "://" in url else None
            what = f"the host name {host!r} does not resolve" if host else "the host name does not resolve"
        else:
            what = "connection refused: nothing is listening there"
        return url, f"cannot reach {server} ({what}); {advice}"

    def where(self, model: str, exc: BaseException | None = None, deployment: Deployment | None = None) -> str:
        """What a failed call went to, for its error: the deployment, else the endpoint and model."""
        if self.settings.router_config:
            return routed(self.settings).where(model, deployment)
        return f"{self.endpoint(model, exc)} (model {model})"

    def via(self) -> str | None:
        """Where the endpoint is configured, for "check …" advice (never --api-base when none was given)."""
        if self.settings.router_config:
            return f"the router file {self.settings.router_config}"
        return "--api-base" if self.settings.api_base else None

    def key_hint(self) -> str | None:
        """For a 400/401 from a configured endpoint (a proxy): the key is the likely cause."""
        if not self.settings.api_base or self.settings.router_config:
            return None
        if self.settings.api_key:
            return "if this is a proxy, the likely cause is the API key given (--api-key or api_key in the config)"
        return ("if this is a proxy (a LiteLLM proxy, say), the likely cause is its key: none was given; pass it "
                "with --api-key or api_key in the config")
