"""Choosing a model: the setup screen when none is configured, and the model change dialog
after a model error (or any time), both asking for a litellm model string and an api base.
The setup screen also offers the search backend and private addresses (``setup_search``)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Input, Markdown, Static

from tui_agent.screens.setup_search import FormCheckbox, SearchChoice, SearchForm

SETUP_TEXT = """\
# No model is configured

tui-agent talks to any model [litellm](https://docs.litellm.ai/docs/providers) knows. Any one
of these works:

* **A provider key in the environment** — `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`,
  `DEEPSEEK_API_KEY`, `MISTRAL_API_KEY`, `OPENROUTER_API_KEY` or `GROQ_API_KEY`: quit, export it,
  start again (a default model for it is picked).
* **`--model`** — a litellm model string, e.g. `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`.
* **A local Ollama** — `ollama serve` and `ollama pull qwen3`; it is found by itself, or type
  `ollama_chat/qwen3` below with the api base `http://127.0.0.1:11434`.
* **Any OpenAI-compatible server** (vLLM, llama.cpp, LM Studio…) — `openai/MODEL` with the api
  base `http://host:port/v1`.
* Or put `model = "..."` in `{config}`, or set `TUI_AGENT_MODEL`.

## Search and private addresses

The `search` tool uses **ddgs** by default (public search engines, no key: it needs the
internet). Offline or behind a firewall, run a [SearXNG](https://docs.searxng.org/) instance with
the JSON format enabled (`search.formats: [html, json]` in its `settings.yml`) and give its URL
below: **Check** sends it a real search. The model may not read loopback, private or
link-local addresses (`localhost`, `10.…`, `192.168.…`) unless you allow private URLs (an intranet
wiki, a local server). Ticking *remember* saves both in the config file; by hand they are
`search_backend = "searxng"`, `searxng_url = "http://…"` and `allow_private_urls = true` there, or
`--search-backend searxng --searxng-url URL --allow-private-urls` on the command line.

Type a model below to continue now (Enter continues; space ticks a box).
"""


@dataclass
class ModelChoice:
    model: str
    api_base: str | None
    remember: bool = False
    api_key: str | None = None  # kept for this app's runs; written to the config only when remembered
    search: SearchChoice | None = None  # the setup screen's search settings (None: unchanged)


class _ModelForm(Vertical):
    def __init__(self, model: str, api_base: str, remember: bool, search: SearchForm | None = None, **kw) -> None:
        super().__init__(**kw)
        self._model, self._api_base, self._remember, self._search = model, api_base, remember, search

    def compose(self) -> ComposeResult:
        yield Static("Model (litellm string)", classes="field-label")
        yield Input(self._model, placeholder="openai/gpt-4.1-mini · ollama_chat/qwen3 · openai/MODEL", id="model-input")
        yield Static("API base (optional)", classes="field-label")
        yield Input(self._api_base, placeholder="http://127.0.0.1:11434 · http://host:port/v1", id="api-base-input")
        yield Static("API key (optional: else the provider's own variable, e.g. OPENAI_API_KEY)",
                     classes="field-label")
        yield Input("", placeholder="kept for this session only, unless remembered", password=True,
                    id="api-key-input")
        if self._search is not None:
            yield self._search
        if self._remember is not None:
            yield FormCheckbox("Remember in the config file (a key is saved readable by you only)", self._remember,
                           id="remember", compact=True)
        with Horizontal(classes="dialog-buttons"):
            yield Button("Continue", id="continue", variant="primary", compact=True)
            yield Button("Cancel esc", id="cancel", compact=True)


def _choice(screen: Screen) -> ModelChoice | None:
    model = screen.query_one("#model-input", Input).value.strip()
    if not model:
        screen.notify("Type a model string, e.g. openai/gpt-4.1-mini.", severity="warning")
        screen.query_one("#model-input", Input).focus()
        return None
    base = screen.query_one("#api-base-input", Input).value.strip() or None
    key = screen.query_one("#api-key-input", Input).value.strip() or None
    boxes = screen.query("#remember")
    remember = bool(boxes and boxes.first(Checkbox).value)
    forms = screen.query(SearchForm)
    return ModelChoice(model, base, remember, key, forms.first().choice() if forms else None)


class SetupScreen(Screen[ModelChoice | None]):
    """Shown when no model is configured and none was found."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, config_path: str = "config.toml", searxng_url: str | None = None,
                 allow_private: bool = False) -> None:
        super().__init__(id="setup")
        self._config = config_path
        self._search = (searxng_url, allow_private)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="setup-body"):
            yield Markdown(SETUP_TEXT.replace("{config}", self._config))
        yield _ModelForm("", "", False, SearchForm(*self._search, id="search-form"), id="setup-form")

    def on_mount(self) -> None:
        self.query_one("#model-input", Input).focus()

    async def _submit(self) -> None:
        choice = _choice(self)
        if choice is None:
            return
        form = self.query_one(SearchForm)
        if form.needs_check() and not await form.check():
            self.notify("The SearXNG URL did not answer a search: fix it, or leave it empty to use ddgs.",
                        severity="error")
            self.query_one("#searxng-input", Input).focus()
            return
        self.dismiss(choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.run_worker(self._submit(), group="setup-submit", exclusive=True, exit_on_error=False)

    def on_form_checkbox_submitted(self, event: FormCheckbox.Submitted) -> None:
        event.stop()
        self.run_worker(self._submit(), group="setup-submit", exclusive=True, exit_on_error=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            self.run_worker(self._submit(), group="setup-submit", exclusive=True, exit_on_error=False)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ModelScreen(ModalScreen[ModelChoice | None]):
    """Change the model (after a model error, or any time between runs)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, model: str, api_base: str | None, note: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self._model, self._base, self._note = model, api_base or "", note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Change the model", classes="dialog-title")
            yield Static(self._note or "The question runs again as a new session.", classes="dialog-text")
            yield _ModelForm(self._model, self._base, False)

    def on_mount(self) -> None:
        self.query_one("#model-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._continue()

    def on_form_checkbox_submitted(self, event: FormCheckbox.Submitted) -> None:
        event.stop()
        self._continue()

    def _continue(self) -> None:
        choice = _choice(self)
        if choice is not None:
            self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            self._continue()
        else:
            self.dismiss(None)
