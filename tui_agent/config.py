"""Settings: defaults <- config.toml <- TUI_AGENT_* environment <- command-line flags.

Every limit the product has is a field here, documented where it is declared. A bad value
raises :class:`ConfigError` naming its key and where it came from.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

APP_NAME = "tui-agent"
ENV_PREFIX = "TUI_AGENT_"


class ConfigError(ValueError):
    """A setting has a bad value; the message names the key and its source."""


def _doc(text: str, **kw: Any) -> Any:
    return field(metadata={"doc": text}, **kw)


@dataclass
class Settings:
    # --- the model -------------------------------------------------------------------------
    model: str | None = _doc("litellm model string, e.g. 'openai/gpt-4o-mini' or 'ollama_chat/qwen3'.", default=None)
    api_base: str | None = _doc("Base URL of an OpenAI-compatible or other provider endpoint (user-configured, never guarded).", default=None)
    api_key: str | None = _doc("API key passed to the provider; usually taken from the provider's own environment variable instead.", default=None)
    router_config: str | None = _doc("A LiteLLM Router configuration file (YAML or JSON with a model_list) to spread calls over several deployments and keys; the model names its model_name.", default=None)
    temperature: float | None = _doc("Sampling temperature; unset leaves the provider's default.", default=None)
    stream: bool = _doc("Stream model replies token by token.", default=True)
    model_timeout_s: float = _doc("Seconds without progress before a model request counts as timed out (then retried).", default=120.0)
    retry_attempts: int = _doc("Attempts for a model call on 429, 5xx, timeouts and dropped connections.", default=10)
    retry_base_s: float = _doc("Base of the exponential backoff: delay = base * 2**attempt + uniform(0, 1).", default=1.0)
    retry_cap_s: float = _doc("Upper bound of one backoff delay, Retry-After included.", default=30.0)

    # --- gates -----------------------------------------------------------------------------
    max_calls: int = _doc("Model calls per run before the forced answer (the forced call is not counted).", default=100)
    max_minutes: float = _doc("Wall-clock minutes per run, excluding time spent waiting for a human decision.", default=150.0)
    context_window: int | None = _doc("Context window in tokens; unset: litellm's model info, else 131072.", default=None)
    answer_reserve: int = _doc("Tokens kept free for the forced answer: the token gate fires at context_window - answer_reserve.", default=16384)
    forced_answer_tokens: int = _doc("Tokens left free for the forced answer's own text when its prompt is trimmed to fit the window.", default=4096)
    budget_usd: float | None = _doc("Spend limit in USD (litellm price map); unset means no budget gate.", default=None)
    max_format_errors: int = _doc("Corrected replies in a row (no action, another protocol's format, cut by the length limit) before the forced answer.", default=3)
    require_evidence: bool = _doc("Refuse an <answer> written before any tool ran, once; a second one is marked unsupported.", default=True)
    tool_failure_limit: int = _doc("Consecutive failures (network, timeout, server error) after which a tool is disabled for the session.", default=3)

    # --- tools -----------------------------------------------------------------------------
    search_backend: str = _doc("Search backend: 'ddgs' (no key needed) or 'searxng' (needs searxng_url).", default="ddgs")
    searxng_url: str | None = _doc("Base URL of a SearXNG instance with the JSON format enabled.", default=None)
    search_results: int = _doc("Results per query.", default=10)
    search_timeout_s: float = _doc("Seconds for one search query, retries included.", default=20.0)
    search_retries: int = _doc("Attempts per query on rate limits and timeouts.", default=3)
    allow_private_urls: bool = _doc("Let the model fetch loopback/private/link-local addresses (your own intranet).", default=False)
    visit_connect_timeout_s: float = _doc("Connect timeout for one page fetch.", default=10.0)
    visit_read_timeout_s: float = _doc("Read timeout (between bytes) for one page fetch.", default=30.0)
    visit_total_timeout_s: float = _doc("Upper bound for a whole visit call, all URLs and extraction included.", default=60.0)
    visit_max_bytes: int = _doc("Download cap per page; the body is read as a stream and stopped here, with a note.", default=5 * 1024 * 1024)
    visit_max_redirects: int = _doc("Redirects followed per URL, each re-checked by the network guard.", default=5)
    observation_max_tokens: int = _doc("Token cap of one observation; longer text is cut with a note saying how much.", default=8000)
    extract: bool = _doc("Goal-directed extraction of visited pages with a model call.", default=True)
    extract_model: str | None = _doc("Model for goal-directed extraction; unset uses the main model.", default=None)
    extract_max_tokens: int = _doc("Token cap of page text sent to the extraction call.", default=24000)
    tool_timeout_s: float = _doc("Upper bound for any one tool call.", default=90.0)

    # --- citation checks (sessions verify) ------------------------------------------------
    verify_model: str | None = _doc("Model that checks an answer's citations (sessions verify); unset uses the main model.", default=None)
    verify_sample: int = _doc("Claims (sentences citing sources) checked per answer; more are sampled evenly over the answer.", default=10)
    verify_review_share: float = _doc("A session needs review when more than this share of its checked claims is unsupported.", default=0.2)
    verify_source_tokens: int = _doc("Token budget of stored source text sent with one claim, shared by the sources it cites.", default=8000)

    # --- prompts, storage, front ends -----------------------------------------------------
    system_prompt_file: str | None = _doc("File replacing the built-in system prompt template ({tools}, {date} are filled in).", default=None)
    data_dir: str | None = _doc("Directory of the session database; unset: the XDG user data directory.", default=None)
    export_dir: str | None = _doc("Folder the TUI offers for saved answers and exported reports (you can change the path each time); unset: the XDG documents folder's tui-agent/ (~/Documents/tui-agent).", default=None)
    theme: str = _doc("TUI theme name (shipped in themes/ or a user theme file).", default="tui-dark")
    auto_approve: bool = _doc("Approve every tool call without asking (--yes).", default=False)
    breakpoint: bool = _doc("Pause before every model call in the TUI.", default=False)

    # ----------------------------------------------------------------------------------------
    def resolved_data_dir(self) -> Path:
        if self.data_dir:
            return Path(self.data_dir).expanduser()
        import platformdirs

        return Path(platformdirs.user_data_dir(APP_NAME))

    def resolved_export_dir(self) -> Path:
        if self.export_dir:
            return Path(self.export_dir).expanduser()
        import platformdirs

        return Path(platformdirs.user_documents_dir()) / APP_NAME

    def summary(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("api_key", None)
        return d


def config_dir() -> Path:
    import platformdirs

    return Path(os.environ.get("TUI_AGENT_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME))


def config_path() -> Path:
    return config_dir() / "config.toml"


def _field_types() -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(Settings)}


def _coerce(key: str, raw: Any, source: str) -> Any:
    kind = _field_types()[key]
    optional = "None" in kind
    try:
        if raw is None or (isinstance(raw, str) and raw.strip() == "" and optional):
            if optional:
                return None
            raise ValueError("a value is required")
        if kind.startswith("bool"):
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError("expected true or false")
        if kind.startswith("int"):
            if isinstance(raw, bool):
                raise ValueError("expected a whole number")
            value = int(raw) if not isinstance(raw, float) or raw.is_integer() else None
            if value is None:
                raise ValueError("expected a whole number")
            return value
        if kind.startswith("float"):
            if isinstance(raw, bool):
                raise ValueError("expected a number")
            return float(raw)
        if not isinstance(raw, str):
            raise ValueError("expected text")
        return raw
    except (TypeError, ValueError) as exc:
        detail = str(exc) if "expected" in str(exc) or "required" in str(exc) else f"expected {kind.replace(' | None', '')}"
        raise ConfigError(f"{source}: bad value {raw!r} for '{key}': {detail}") from None


_POSITIVE = {
    "max_calls", "max_minutes", "forced_answer_tokens", "answer_reserve", "max_format_errors", "tool_failure_limit",
    "search_results", "search_timeout_s", "search_retries", "visit_connect_timeout_s",
    "visit_read_timeout_s", "visit_total_timeout_s", "visit_max_bytes", "observation_max_tokens",
    "extract_max_tokens", "tool_timeout_s", "model_timeout_s", "retry_attempts", "context_window",
    "verify_sample", "verify_source_tokens",
}


def validate(s: Settings, source: str = "settings") -> Settings:
    for key in _POSITIVE:
        value = getattr(s, key)
        if value is not None and value <= 0:
            raise ConfigError(f"{source}: '{key}' must be greater than 0 (got {value})")
    if s.visit_max_redirects < 0:
        raise ConfigError(f"{source}: 'visit_max_redirects' must be 0 or more")
    if s.retry_base_s < 0 or s.retry_cap_s < 0:
        raise ConfigError(f"{source}: retry delays must not be negative")
    if not 0 <= s.verify_review_share < 1:
        raise ConfigError(f"{source}: 'verify_review_share' must be at least 0 and below 1 (got {s.verify_review_share})")
    if s.budget_usd is not None and s.budget_usd <= 0:
        raise ConfigError(f"{source}: 'budget_usd' must be greater than 0 (got {s.budget_usd})")
    if s.search_backend not in ("ddgs", "searxng"):
        raise ConfigError(f"{source}: 'search_backend' must be 'ddgs' or 'searxng' (got {s.search_backend!r})")
    if s.search_backend == "searxng" and not s.searxng_url:
        raise ConfigError(f"{source}: 'search_backend' is 'searxng' but 'searxng_url' is not set")
    if s.context_window is not None and s.answer_reserve >= s.context_window:
        raise ConfigError(
            f"{source}: 'answer_reserve' ({s.answer_reserve}) must be smaller than 'context_window' ({s.context_window})"
        )
    if s.router_config and not Path(s.router_config).expanduser().is_file():
        raise ConfigError(f"{source}: 'router_config' {s.router_config!r} is not a readable file")
    if s.system_prompt_file and not Path(s.system_prompt_file).expanduser().is_file():
        raise ConfigError(f"{source}: 'system_prompt_file' {s.system_prompt_file!r} is not a readable file")
    return s


def apply(s: Settings, values: Mapping[str, Any], source: str) -> Settings:
    known = _field_types()
    for key, raw in values.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown setting '{key}'")
        setattr(s, key, _coerce(key, raw, source))
    return s


def load_file(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    return data


def env_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    known = _field_types()
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name.startswith(ENV_PREFIX):
            key = name[len(ENV_PREFIX):].lower()
            if key in known:
                out[key] = value
    return out


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build validated settings from every layer; raises ConfigError naming the bad key."""
    s = Settings()
    path = path or config_path()
    apply(s, load_file(path), str(path))
    apply(s, env_values(environ), "environment (TUI_AGENT_*)")
    apply(s, {k: v for k, v in (flags or {}).items() if v is not None}, "command line")
    return validate(s, "settings")


# Permissions of a config file that holds a secret (the API key): readable by its owner only.
PRIVATE_FILE_MODE = 0o600


def save_setting(key: str, value: Any, path: Path | None = None, *, private: bool = False) -> None:
    """Remember one setting in config.toml (the theme, a chosen model), keeping the other lines.

    ``private`` (an API key): the file is made readable and writable by its owner only, before
    the secret is written into it.
    """
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if private:
        path.touch(mode=PRIVATE_FILE_MODE, exist_ok=True)
        os.chmod(path, PRIVATE_FILE_MODE)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    rendered = f"{key} = {_toml_value(value)}"
    for i, line in enumerate(lines):
        if line.split("=", 1)[0].strip() == key:
            lines[i] = rendered
            break
    else:
        lines.append(rendered)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    import json

    return json.dumps(str(value))
