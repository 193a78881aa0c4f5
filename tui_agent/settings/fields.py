"""Every setting, declared once: its type, choices, bounds, default, its docstring (the field's
description) and, for the few with one, its command-line flag.

The README's settings table (scripts/settings_table.py), the TUI_AGENT_* environment variables and
the flags (cli/common.py) are all read from this declaration; the loading order lives in
``settings.layers``.
"""

from __future__ import annotations

import os
import types
import typing
from dataclasses import dataclass as plain_dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import annotated_types
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, SecretStr
from pydantic.dataclasses import dataclass
from pydantic.fields import FieldInfo

APP_NAME = "tui-agent"

# Flag groups, as the --help of every subcommand shows them. COMMON_GROUPS are on every
# subcommand (cli.common.add_common); the front-end flags are added by the parsers that use them.
MODEL, TOOLS, STORAGE, FRONT_END = "model and limits", "tools", "storage", "front end"
COMMON_GROUPS = (MODEL, TOOLS, STORAGE)


@plain_dataclass(frozen=True)
class Flag:
    """A setting that is also a command-line flag (the argument is built from the field)."""

    group: str
    names: tuple[str, ...] = ()  # option strings; default: --the-setting-name
    metavar: str | None = None
    negatable: bool = True  # a boolean flag comes as --x / --no-x


def _blank_is_unset(value: Any) -> Any:
    """An empty value (``TUI_AGENT_MODEL=``) unsets an optional setting; a path is its text."""
    if isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


_unset = BeforeValidator(_blank_is_unset)
Text = Annotated[str | None, _unset]
Positive = Annotated[int, Field(gt=0)]
Seconds = Annotated[float, Field(gt=0)]  # any positive number, seconds or not
CONTEXT_POLICIES = ("none", "truncate", "summarise", "facts")


def _policy_list(value: str) -> str:
    """A comma list of context policies, normalised ("truncate, summarise" -> "truncate,summarise")."""
    names = [n.strip().lower() for n in value.split(",") if n.strip()]
    bad = [n for n in names if n not in CONTEXT_POLICIES]
    if bad or not names:
        raise ValueError(f"unknown context policy {', '.join(bad) or '(empty)'}: use a comma list of "
                         f"{', '.join(CONTEXT_POLICIES)}")
    return ",".join(names)

CONFIG = ConfigDict(validate_assignment=True, use_attribute_docstrings=True, allow_inf_nan=False, extra="forbid")


@dataclass(config=CONFIG)
class Settings:
    # --- the model -------------------------------------------------------------------------
    model: Annotated[Text, Flag(MODEL)] = None
    """litellm model string, e.g. 'openai/gpt-4o-mini' or 'ollama_chat/qwen3'."""
    api_base: Annotated[Text, Flag(MODEL)] = None
    """Base URL of an OpenAI-compatible or other provider endpoint (user-configured, never guarded)."""
    api_key: Annotated[SecretStr | None, _unset] = None
    """API key passed to the provider; usually taken from the provider's own environment variable instead."""
    router_config: Text = None
    """A LiteLLM Router configuration file (YAML or JSON with a model_list) to spread calls over several deployments and keys; the model names its model_name."""
    temperature: Annotated[Annotated[float, Field(ge=0)] | None, _unset, Flag(MODEL)] = None
    """Sampling temperature; unset leaves the provider's default."""
    stream: Annotated[bool, Flag(MODEL)] = True
    """Stream model replies token by token."""
    transport: Annotated[Literal["auto", "litellm", "direct"], Flag(MODEL)] = "auto"
    """How model calls are made: 'auto' calls an openai/ or hosted_vllm/ model with an api_base (no router, no native tools) through a direct OpenAI-compatible client (tui_agent/model/direct.py, a fraction of litellm's CPU per streamed chunk), except on api.openai.com, and everything else through litellm; 'litellm' always uses litellm; 'direct' also uses the direct client on api.openai.com."""
    model_timeout_s: Seconds = 120.0
    """Seconds without progress before a model request counts as timed out (then retried)."""
    retry_attempts: Positive = 10
    """Attempts for a model call on 429, 5xx, timeouts and dropped connections."""
    retry_base_s: Annotated[float, Field(ge=0)] = 1.0
    """Base of the exponential backoff: delay = base * 2**attempt + uniform(0, 1)."""
    retry_cap_s: Annotated[float, Field(ge=0)] = 30.0
    """Upper bound of one backoff delay, Retry-After included."""

    # --- gates -----------------------------------------------------------------------------
    max_calls: Annotated[Positive, Flag(MODEL)] = 100
    """Model calls per run before the forced answer (the forced call is not counted)."""
    max_minutes: Annotated[Seconds, Flag(MODEL)] = 150.0
    """Wall-clock minutes per run, excluding time spent waiting for a human decision."""
    context_window: Annotated[Positive | None, _unset, Flag(MODEL)] = None
    """Context window in tokens; unset: litellm's model info, else 131072."""
    answer_reserve: Annotated[Positive, Flag(MODEL)] = 16384
    """Tokens kept free for the forced answer: the token gate fires at context_window - answer_reserve."""
    forced_answer_tokens: Positive = 4096
    """Tokens left free for the forced answer's own text when its prompt is trimmed to fit the window."""
    budget_usd: Annotated[Seconds | None, _unset, Flag(MODEL)] = None
    """Spend limit in USD (litellm price map); unset means no budget gate."""
    max_format_errors: Positive = 3
    """Corrected replies in a row (no action, another protocol's format, cut by the length limit) before the forced answer."""
    require_evidence: bool = True
    """Refuse an <answer> written before any tool ran, once; a second one is marked unsupported."""
    tool_failure_limit: Positive = 3
    """Consecutive failures (network, timeout, server error) after which a tool is disabled for the session."""
    context_policy: Annotated[str, AfterValidator(_policy_list), Flag(MODEL, metavar="POLICIES")] = "truncate"
    """What happens when the prompt reaches the token gate: a comma list of none, truncate, summarise, facts, applied in order; the forced answer stays the last exit."""
    context_keep_rounds: Positive = 4
    """Rounds (a reply and its observations) the truncate and summarise policies keep verbatim."""
    compact_at: Annotated[float, Field(gt=0, le=1)] = 1.0
    """Share of the context window at which the policies compact; 1.0 means at the token gate (context_window - answer_reserve)."""
    max_compactions: Annotated[int, Field(ge=0)] = 8
    """Compactions per run; after them the token gate forces the answer as with the none policy."""
    compact_model: Text = None
    """Cheaper model for compaction calls (state notes, proposed summaries, facts); unset uses the main model."""

    # --- tools -----------------------------------------------------------------------------
    search_backend: Annotated[Literal["ddgs", "searxng"], Flag(TOOLS)] = "ddgs"
    """Search backend: 'ddgs' (no key needed) or 'searxng' (needs searxng_url)."""
    searxng_url: Annotated[Text, Flag(TOOLS)] = None
    """Base URL of a SearXNG instance with the JSON format enabled."""
    search_results: Positive = 10
    """Results per query."""
    search_timeout_s: Seconds = 20.0
    """Seconds for one search query, retries included."""
    search_retries: Positive = 3
    """Attempts per query on rate limits and timeouts."""
    allow_private_urls: Annotated[bool, Flag(TOOLS)] = False
    """Let the model fetch loopback/private/link-local addresses (your own intranet)."""
    visit_connect_timeout_s: Seconds = 10.0
    """Connect timeout for one page fetch."""
    visit_read_timeout_s: Seconds = 30.0
    """Read timeout (between bytes) for one page fetch."""
    visit_total_timeout_s: Seconds = 60.0
    """Upper bound for a whole visit call, all URLs and extraction included."""
    visit_max_bytes: Positive = 5 * 1024 * 1024
    """Download cap per page; the body is read as a stream and stopped here, with a note."""
    visit_max_redirects: Annotated[int, Field(ge=0)] = 5
    """Redirects followed per URL, each re-checked by the network guard."""
    observation_max_tokens: Positive = 8000
    """Token cap of one observation; longer text is cut with a note saying how much."""
    extract: Annotated[bool, Flag(TOOLS)] = True
    """Goal-directed extraction of visited pages with a model call."""
    extract_model: Annotated[Text, Flag(TOOLS)] = None
    """Model for goal-directed extraction; unset uses the main model."""
    extract_max_tokens: Positive = 24000
    """Token cap of page text sent to the extraction call."""
    tool_timeout_s: Seconds = 90.0
    """Upper bound for any one tool call."""

    # --- citation checks (sessions verify) ------------------------------------------------
    verify_model: Text = None
    """Model that checks an answer's citations (sessions verify); unset uses the main model."""
    verify_sample: Positive = 10
    """Claims (sentences citing sources) checked per answer; more are sampled evenly over the answer."""
    verify_review_share: Annotated[float, Field(ge=0, lt=1)] = 0.2
    """A session needs review when more than this share of its checked claims is unsupported."""
    verify_source_tokens: Positive = 8000
    """Token budget of stored source text sent with one claim, shared by the sources it cites."""

    # --- prompts, storage, front ends -----------------------------------------------------
    system_prompt_file: Annotated[Text, Flag(MODEL, names=("--system-prompt",), metavar="FILE")] = None
    """File replacing the built-in system prompt template ({tools}, {date} are filled in)."""
    data_dir: Annotated[Text, Flag(STORAGE)] = None
    """Directory of the session database; unset: the XDG user data directory."""
    export_dir: Text = None
    """Folder the TUI offers for saved answers and exported reports (you can change the path each time); unset: the XDG documents folder's tui-agent/ (~/Documents/tui-agent)."""
    theme: Annotated[str, Flag(FRONT_END)] = "tui-dark"
    """TUI theme name (shipped in themes/ or a user theme file)."""
    auto_approve: Annotated[bool, Flag(FRONT_END, names=("--yes", "-y"), negatable=False)] = False
    """Approve every tool call without asking."""
    breakpoint: Annotated[bool, Flag(FRONT_END)] = False
    """Pause before every model call in the TUI."""

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
        """The settings as stored with a session and shown in exports: every secret left out."""
        return {name: getattr(self, name) for name in setting_names() if not is_secret(name)}


def declared() -> dict[str, Any]:
    """Each setting's pydantic ``FieldInfo`` (annotation, default, description, bounds, flag)."""
    return Settings.__pydantic_fields__  # type: ignore[attr-defined]


def setting_names() -> tuple[str, ...]:
    return tuple(declared())


def is_secret(name: str) -> bool:
    return shape(name).kind is SecretStr


def flag_of(name: str) -> Flag | None:
    return next((m for m in declared()[name].metadata if isinstance(m, Flag)), None)


def flag_names(name: str) -> tuple[str, ...]:
    """The option strings of a setting's flag (() when it has none)."""
    flag = flag_of(name)
    if flag is None:
        return ()
    return flag.names or ("--" + name.replace("_", "-"),)


def option_strings(name: str) -> tuple[str, ...]:
    """Every option string that sets ``name``: a negatable boolean also has its --no- form."""
    names, flag = flag_names(name), flag_of(name)
    if flag is not None and flag.negatable and declared()[name].annotation is bool:
        names += tuple("--no-" + n[2:] for n in names if n.startswith("--"))
    return names


@plain_dataclass(frozen=True)
class Shape:
    """A declared type taken apart: the base type, a Literal's choices, whether it may be unset,
    and its bounds (annotated_types Gt/Ge/Lt/Le), for the flags and the README table."""

    kind: Any
    choices: tuple[Any, ...] = ()
    optional: bool = False
    bounds: tuple[Any, ...] = ()


def shape(name: str) -> Shape:
    info = declared()[name]
    return _shape(info.annotation, tuple(info.metadata))


def _shape(annotation: Any, metadata: tuple[Any, ...] = ()) -> Shape:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    bounds = tuple(b for m in metadata for b in (m.metadata if isinstance(m, FieldInfo) else [m])
                   if isinstance(b, (annotated_types.Gt, annotated_types.Ge, annotated_types.Lt, annotated_types.Le)))
    if origin is typing.Literal:
        return Shape(type(args[0]), args, False, bounds)
    if origin is typing.Annotated:
        inner = _shape(args[0], tuple(annotation.__metadata__))
        return Shape(inner.kind, inner.choices, inner.optional, inner.bounds + bounds)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        inner = _shape(present[0])
        return Shape(inner.kind, inner.choices, len(present) < len(args), inner.bounds + bounds)
    return Shape(annotation, (), False, bounds)
