"""Choosing a model: the setup screen when none is configured, and the model change dialog
after a model error (or any time), both asking for a litellm model string and an api base."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Input, Markdown, Static

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

Type a model below to continue now.
"""


@dataclass
class ModelChoice:
    model: str
    api_base: str | None
    remember: bool = False
    api_key: str | None = None  # kept for this app's runs; written to the config only when remembered


class _ModelForm(Vertical):
    def __init__(self, model: str, api_base: str, remember: bool, **kw) -> None:
        super().__init__(**kw)
        self._model, self._api_base, self._remember = model, api_base, remember

    def compose(self) -> ComposeResult:
        yield Static("Model (litellm string)", classes="field-label")
        yield Input(self._model, placeholder="openai/gpt-4.1-mini · ollama_chat/qwen3 · openai/MODEL", id="model-input")
        yield Static("API base (optional)", classes="field-label")
        yield Input(self._api_base, placeholder="http://127.0.0.1:11434 · http://host:port/v1", id="api-base-input")
        yield Static("API key (optional: else the provider's own variable, e.g. OPENAI_API_KEY)",
                     classes="field-label")
        yield Input("", placeholder="kept for this session only, unless remembered", password=True,
                    id="api-key-input")
        if self._remember is not None:
            yield Checkbox("Remember in the config file (a key is saved readable by you only)", self._remember,
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
    return ModelChoice(model, base, remember, key)


class SetupScreen(Screen[ModelChoice | None]):
    """Shown when no model is configured and none was found."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, config_path: str = "config.toml") -> None:
        super().__init__(id="setup")
        self._config = config_path

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="setup-body"):
            yield Markdown(SETUP_TEXT.replace("{config}", self._config))
        yield _ModelForm("", "", False, id="setup-form")

    def on_mount(self) -> None:
        self.query_one("#model-input", Input).focus()

    def _submit(self) -> None:
        choice = _choice(self)
        if choice is not None:
            self.dismiss(choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            self._submit()
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
        choice = _choice(self)
        if choice is not None:
            self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "continue":
            choice = _choice(self)
            if choice is not None:
                self.dismiss(choice)
        else:
            self.dismiss(None)
