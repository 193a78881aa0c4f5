"""Every setting, declared once: its type, choices, bounds, default, its docstring (the field's
description) and, for the few with one, its command-line flag.

The settings table of docs/settings.md (scripts/settings_table.py), the TUI_AGENT_* environment variables and
the flags (cli/common.py) are all read from this declaration; the loading order lives in
``settings.layers``.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import types
import typing
from dataclasses import dataclass as plain_dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import annotated_types
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, SecretStr, with_config
from pydantic.dataclasses import dataclass
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict  # pydantic validates only typing_extensions' TypedDict on 3.11


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
    const: Any = None  # a flag without a value that sets this one (--plan sets plan = "ask")


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


@with_config(ConfigDict(extra="forbid"))
class McpServer(TypedDict, total=False):
    """One ``[mcp_servers.NAME]`` table: ``command`` (with ``args``, ``env``, ``cwd``) runs a server
    over stdio; ``url`` connects to one over streamable HTTP."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str
    url: str


def _mcp_servers(value: dict[str, McpServer]) -> dict[str, McpServer]:
    """Each server has a name usable in a tool name and exactly one of command or url."""
    for name, server in value.items():
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name) or "__" in name:
            raise ValueError(f"MCP server name {name!r}: use letters, digits, '-' and single '_' "
                             f"(it becomes part of tool names mcp__{name}__TOOL)")
        if ("command" in server) == ("url" in server):
            raise ValueError(f"MCP server {name!r}: give either command (stdio) or url (streamable HTTP)")
    return value


ToolPolicyName = Literal["ask", "allow", "deny"]
# Settings of this machine, not of a session: a resume or fork takes them from the config in force
# now (a server's env holds secrets and is never stored; a deny added since must hold).
MACHINE_SETTINGS = ("mcp_servers", "tool_policies")

# Each field's docstring is its description, read by ``_attribute_docstrings`` below (pydantic's own
# use_attribute_docstrings finds the class's source through frames and tokenize: a third of this
# module's import, on the way to the TUI's first frame).
CONFIG = ConfigDict(validate_assignment=True, allow_inf_nan=False, extra="forbid")


@dataclass(config=CONFIG)
class Settings:
    # --- the model -------------------------------------------------------------------------
    model: Annotated[Text, Flag(MODEL)] = None
    """litellm model string, e.g. 'openai/gpt-4o-mini' or 'ollama_chat/qwen3'."""
    api_base: Annotated[Text, Flag(MODEL)] = None
    """Base URL of an OpenAI-compatible or other provider endpoint (user-configured, never guarded)."""
    api_key: Annotated[SecretStr | None, _unset, Flag(MODEL, metavar="KEY")] = None
    """API key sent to the endpoint (--api-base, e.g. a LiteLLM proxy's key); unset: the provider's own environment variable."""
    router_config: Text = None
    """A LiteLLM Router configuration file (YAML or JSON with a model_list) to spread calls over several deployments and keys; the model names its model_name."""
    router_retries: Annotated[int, Field(ge=0)] = 3
    """Retries the LiteLLM Router makes itself, on a healthy deployment, before our backoff takes over; router_settings.num_retries in the router file wins."""
    router_cooldown_s: Annotated[Annotated[float, Field(ge=0)] | None, _unset] = None
    """Seconds the LiteLLM Router rests a failing deployment; router_settings.cooldown_time in the router file wins; unset: LiteLLM's default."""
    temperature: Annotated[Annotated[float, Field(ge=0)] | None, _unset, Flag(MODEL)] = None
    """Sampling temperature; unset leaves the provider's default."""
    stream: Annotated[bool, Flag(MODEL)] = True
    """Stream model replies token by token."""
    protocol: Annotated[Literal["tags", "native"], Flag(MODEL)] = "tags"
    """How the model calls tools: 'tags' (<tool_call> text in the reply, tools described in the system prompt; any model) or 'native' (the provider's own tool calling: tools=[…], tool_calls, role "tool" results)."""
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
    """Tokens kept free for the forced answer: the token gate fires at context_window - answer_reserve, so it must be below the window (a run with answer_reserve >= the window, given or the model's, refuses to start)."""
    forced_answer_tokens: Positive = 4096
    """Tokens left free for the forced answer's own text when its prompt is trimmed to fit the window."""
    budget_usd: Annotated[Seconds | None, _unset, Flag(MODEL)] = None
    """Spend limit in USD per run (litellm price map, or price_per_million_input/output); a run whose model has no price refuses to start; unset means no budget gate."""
    budget_tokens: Annotated[Positive | None, _unset, Flag(MODEL, metavar="N")] = None
    """Token limit per run (prompt and completion tokens of every model call, estimated where the provider reports none); unset means no token budget."""
    price_per_million_input: Annotated[Annotated[float, Field(ge=0)] | None, _unset] = None
    """USD per million prompt tokens for a model litellm has no price for (a local model, a proxy alias); set, it replaces litellm's price for every model."""
    price_per_million_output: Annotated[Annotated[float, Field(ge=0)] | None, _unset] = None
    """USD per million completion tokens, with price_per_million_input."""
    max_format_errors: Positive = 3
    """Corrected replies in a row (no action, another protocol's format, cut by the length limit) before the forced answer."""
    require_evidence: bool = True
    """Refuse an <answer> written before any tool ran, once; a second one is marked unsupported."""
    tool_failure_limit: Positive = 3
    """Consecutive failures (network, timeout, server error) after which a tool is disabled for the session."""
    context_policy: Annotated[str, AfterValidator(_policy_list), Flag(MODEL, metavar="POLICIES")] = "truncate"
    """What happens when the prompt reaches the token gate: a comma list of none, truncate, summarise, facts, applied in order; the forced answer stays the last exit."""
    context_keep_rounds: Annotated[Positive, Flag(MODEL, metavar="N")] = 4
    """Rounds (a reply and its observations) the truncate and summarise policies keep verbatim; at the token gate they keep fewer (down to the last round) when keeping this many would leave the prompt over it, and say so."""
    compact_at: Annotated[float, Field(gt=0, le=1), Flag(MODEL, metavar="SHARE")] = 1.0
    """Share of the context window at which the policies compact; 1.0 means at the token gate (context_window - answer_reserve)."""
    max_compactions: Annotated[int, Field(ge=0), Flag(MODEL, metavar="N")] = 8
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
    mcp_servers: Annotated[dict[str, McpServer], AfterValidator(_mcp_servers)] = Field(default={})
    """MCP servers whose tools the model may call (as mcp__NAME__TOOL), one [mcp_servers.NAME] table each: command, args, env (stdio) or url (streamable HTTP)."""
    mcp_start_timeout_s: Seconds = 30.0
    """Seconds for an MCP server to start and list its tools; a server slower than this is left out of the run."""
    mcp_call_timeout_s: Seconds = 60.0
    """Upper bound for one MCP tool call."""
    mcp_max_tools: Positive = 100
    """Tools one MCP server may add to a run; the ones it lists after these are not offered (a warning names the server and how many)."""
    mcp_max_description_chars: Positive = 4000
    """Characters of an MCP tool's description; a tool with a longer one is not offered (a warning names it)."""
    mcp_max_schema_chars: Positive = 20000
    """Characters of an MCP tool's input schema (as JSON); a tool with a larger one is not offered (a warning names it)."""
    mcp_stderr_tail_bytes: Positive = 65536
    """Bytes read from the end of a failed MCP server's stderr (the rest is never read) to quote its last words in the message."""
    tool_policies: dict[str, ToolPolicyName] = Field(default={})
    """Approval per tool name or glob ("mcp__notes__*"), in a [tool_policies] table: ask (the default), allow (run without asking) or deny (never run, even with --yes; deny wins over every other match)."""

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
    """TUI theme name (shipped in tui_agent/shipped_themes/ or a user theme file)."""
    auto_approve: Annotated[bool, Flag(FRONT_END, names=("--yes", "-y"), negatable=False)] = False
    """Approve every tool call without asking."""
    breakpoint: Annotated[bool, Flag(FRONT_END)] = False
    """Pause before every model call in the TUI."""
    notify: Annotated[Literal["all", "bell", "off"], Flag(FRONT_END)] = "all"
    """When a decision (tool call, plan, breakpoint, clarifying question) has waited notify_after_s: 'all' rings the terminal bell and sends a desktop notification through the terminal (OSC 9, or OSC 777 where the terminal takes it), 'bell' only rings, 'off' does neither."""
    notify_after_s: Annotated[float, Field(ge=0)] = 10.0
    """Seconds a decision waits before the bell and the desktop notification (0: at once)."""
    max_tabs: Annotated[int, Field(ge=1, le=64)] = 8
    """Researches the TUI holds open at once, one per tab (ctrl+t opens one): each live tab's run goes on while hidden, with its own model connection and memory, so this bounds what a forgotten tab can cost."""
    max_fps: Annotated[int, Field(ge=1, le=240)] = 120
    """Frames per second the TUI draws at most (Textual's TEXTUAL_FPS, which wins when set): a change waits for the next frame, so 120 shows a key up to 8 ms sooner than Textual's 60; frames are drawn only when something changed."""
    lean_compositor: bool = True
    """Partial screen updates (a streamed batch, the header after a key) draw only the widgets and lines they show, instead of every widget whose area they touch (Textual's own compositor, which 'false' restores): a frame of a streamed answer takes about a quarter less time (benchmarks/bench_frames.py), and a key pressed meanwhile waits less."""
    signal_exit_grace_s: Annotated[float, Field(gt=0)] = 10.0
    """Seconds the TUI may take to close after SIGTERM or SIGHUP (the session is marked interrupted first); a close that hangs longer (a terminal gone mid-write) ends the process then, so no hung process holds the session."""
    serve_max_apps: Positive = 4
    """Apps `tui-agent serve` runs at once (one per open browser tab, each its own process: about 58 MB resident before its first run and 170 MB once a run loaded the model library, benchmarks/bench_serve.py); a visit past it gets a page saying so until a tab is closed."""
    plan: Annotated[Literal["off", "ask", "clarify"], Flag(FRONT_END, const="ask")] = "off"
    """Plan mode: 'ask' writes a research plan before the first tool call for you to approve, edit, replan or skip; 'clarify' first lets the model ask up to three questions; the approved plan approves its own searches and visits."""
    plan_section_min_words: Positive = 30
    """Words an answer's section for a sub-question needs (with a citation) before the sub-question counts as answered rather than needing review."""
    team: Annotated[bool, Flag(FRONT_END)] = False
    """Team research: after the plan is approved (plan mode turns on as 'ask' when it is off), one sub-agent per sub-question researches it in its own context (collector prompt, search and visit plus the allowed MCP and plugin tools), each page it reads is pressed into facts with their URL, one section per sub-question is written from its facts, and the report is assembled with each section's sources. Calls, time, tokens and cost are one budget for the whole team."""
    team_concurrency: Annotated[Positive, Flag(FRONT_END, metavar="N")] = 3
    """Sub-agents of a team research that run at once; the others wait in a queue until one ends."""
    otel: Annotated[bool, Flag(FRONT_END)] = False
    """Export the run's spans (OpenTelemetry GenAI conventions) over OTLP/HTTP to the collector named by the standard OTEL_EXPORTER_OTLP_* variables (default http://localhost:4318); a TRACEPARENT in the environment makes the run a child of that trace. Needs the 'otel' extra (pip install 'tui-agent[otel]')."""
    otel_content: Annotated[bool, Flag(FRONT_END)] = False
    """With otel: also export the messages, replies, tool arguments and results (after redaction) as the conventions' content attributes; off, only sizes and names leave the machine."""

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
        """The settings as stored with a session and shown in exports: every secret left out, and
        an MCP server's secrets (every ``env`` value, tokens in its ``args`` and ``url``) replaced by
        ``HIDDEN`` (safety.server_secrets)."""
        out = {name: getattr(self, name) for name in setting_names() if not is_secret(name)}
        from tui_agent.safety import server_secrets  # the redaction rules: not on the way to the TUI's first frame

        out["mcp_servers"] = {name: server_secrets.hidden(server) for name, server in self.mcp_servers.items()}
        return out


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """The string after each annotated field of ``cls`` in this file, as pydantic's
    use_attribute_docstrings reads it (cleaned); none when the source is not there."""
    try:
        tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__), [])
    return {field.target.id: inspect.cleandoc(doc.value.value) for field, doc in zip(body, body[1:])
            if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
            and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)}


for _name, _doc in _attribute_docstrings(Settings).items():
    Settings.__pydantic_fields__[_name].description = _doc  # type: ignore[attr-defined]


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
    and its bounds (annotated_types Gt/Ge/Lt/Le), for the flags and the table of docs/settings.md."""

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
