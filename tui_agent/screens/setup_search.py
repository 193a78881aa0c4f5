"""The setup screen's search part: the backend (ddgs, or a SearXNG URL checked by a real
request) and whether the model may read private addresses; and the form's checkboxes, where
Enter continues (space ticks)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Static

# The SearXNG check gives up after this many seconds (a firewall that drops packets would
# otherwise keep the setup screen waiting for the search timeout).
SEARXNG_CHECK_TIMEOUT_S = 5.0
# What the check searches for: any query proves the JSON API answers.
SEARXNG_CHECK_QUERY = "tui-agent setup check"


class FormCheckbox(Checkbox):
    """A checkbox of a form: space ticks it, Enter submits the form (``Submitted``)."""

    BINDINGS = [Binding("enter", "submit_form", "Continue", show=False)]

    class Submitted(Message):
        pass

    def action_submit_form(self) -> None:
        self.post_message(self.Submitted())


@dataclass
class SearchChoice:
    backend: str  # "ddgs" or "searxng"
    searxng_url: str | None
    allow_private_urls: bool


@dataclass
class CheckResult:
    ok: bool
    message: str


async def check_searxng(url: str, timeout_s: float = SEARXNG_CHECK_TIMEOUT_S) -> CheckResult:
    """One real search request to the SearXNG instance at ``url``; what happened, in words."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return CheckResult(False, f"✗ {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8888")
    import dataclasses

    import httpx

    from tui_agent.config import Settings
    from tui_agent.tools.search import SearchError, searxng_search

    settings = dataclasses.replace(Settings(), search_timeout_s=timeout_s, search_results=3)
    try:
        async with httpx.AsyncClient() as client:
            hits = await searxng_search(client, url, SEARXNG_CHECK_QUERY, settings)
    except SearchError as exc:
        return CheckResult(False, f"✗ {exc.message}")
    except Exception as exc:  # noqa: BLE001 - anything else the request raised, named for the user
        return CheckResult(False, f"✗ the request to {url} failed: {type(exc).__name__}: {exc}")
    found = f"{len(hits)} result{'' if len(hits) == 1 else 's'}"
    return CheckResult(True, f"✓ SearXNG at {url} answered a test search ({found}).")


class SearchForm(Vertical):
    """Search backend and private addresses, from the current settings."""

    DEFAULT_CSS = """
    SearchForm { height: auto; }
    SearchForm > Horizontal { height: auto; }
    SearchForm #searxng-input { width: 1fr; max-width: 66; }
    SearchForm #check-searxng { margin-left: 1; min-width: 0; }
    SearchForm #searxng-result { height: auto; color: $text-muted; }
    SearchForm #searxng-result.-ok { color: $success; }
    SearchForm #searxng-result.-bad { color: $error; }
    """

    def __init__(self, searxng_url: str | None, allow_private: bool, **kw) -> None:
        super().__init__(**kw)
        self._url, self._private = searxng_url or "", allow_private
        self.checked: tuple[str, bool] | None = None  # (url, ok) of the last check

    def compose(self):
        yield Static("Search: empty = ddgs (no key; needs the internet) · or a SearXNG URL (offline, behind a "
                     "firewall)", classes="field-label")
        with Horizontal():
            yield Input(self._url, placeholder="http://127.0.0.1:8888", id="searxng-input")
            yield Button("Check", id="check-searxng", compact=True)
        yield Static("", id="searxng-result")
        yield FormCheckbox("Allow private URLs (localhost, your intranet): the model may read them", self._private,
                           id="allow-private", compact=True)

    @property
    def url(self) -> str:
        return self.query_one("#searxng-input", Input).value.strip()

    def choice(self) -> SearchChoice:
        url = self.url or None
        private = self.query_one("#allow-private", Checkbox).value
        return SearchChoice("searxng" if url else "ddgs", url, private)

    def needs_check(self) -> bool:
        return bool(self.url) and self.checked != (self.url, True)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "searxng-input":
            self.checked = None
            self.show(CheckResult(True, ""), pending=True)

    def show(self, result: CheckResult, *, pending: bool = False) -> None:
        box = self.query_one("#searxng-result", Static)
        box.update(result.message)
        box.set_class(not pending and result.ok, "-ok")
        box.set_class(not pending and not result.ok, "-bad")

    async def check(self) -> bool:
        """Check the URL typed (a real request); the result is shown under it."""
        url = self.url
        if not url:
            self.show(CheckResult(True, "No SearXNG URL: the search uses ddgs."))
            return True
        self.show(CheckResult(True, f"Checking {url}…"), pending=True)
        result = await check_searxng(url)
        if self.url == url:  # not edited meanwhile
            self.checked = (url, result.ok)
            self.show(result)
        return result.ok

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "check-searxng":
            event.stop()
            self.run_worker(self.check(), group="searxng-check", exclusive=True, exit_on_error=False)
