"""Finding or choosing the model: detection at start, the setup screen when none is found,
and changing the model (and API key) between runs or while a call is retried. Held by the app
(``app.models``); what it needs from the app is ``host.AppHost``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from tui_agent.app.phases import Phase

if TYPE_CHECKING:
    from tui_agent.app.flows import Flows
    from tui_agent.app.host import AppHost
    from tui_agent.screens.setup import ModelChoice


class ModelSetup:
    def __init__(self, app: AppHost, flows: Flows) -> None:
        self.app = app
        self.flows = flows

    def detect(self) -> None:
        """Look for a model (in a worker thread); the answer comes back on the app's loop."""
        from tui_agent.model import setup as model_setup

        model, base = (self.app.detect or model_setup.detect)()
        self.app.call_from_thread(self._detected, model, base)

    def _detected(self, model: str | None, base: str | None) -> None:
        app = self.app
        app.starting_note = None
        if model:
            app.settings.model = model
            if base and not app.settings.api_base:
                app.settings.api_base = base
            app.notify(f"Using {model}" + (f" at {base}" if base else ""), title="Model found")
            app.main.update_header()
            app.next_setup_step()
            return
        from tui_agent.config import config_path
        from tui_agent.screens.setup import SetupScreen

        app.phase = Phase.NONE
        app.main.update_header()
        app.push_screen(SetupScreen(str(config_path()), app.settings.searxng_url, app.settings.allow_private_urls),
                        self._setup_done)

    def _setup_done(self, choice: ModelChoice | None) -> None:
        if choice is None:
            self.app.notify("No model: the app stays idle. Press m to pick one.", severity="warning")
            return
        self.apply(choice)
        self.app.next_setup_step()

    def apply(self, choice: ModelChoice) -> None:
        """Use the chosen model (and API key) for this app's runs; save it only on request."""
        app = self.app
        app.settings = dataclasses.replace(app.settings, model=choice.model, api_base=choice.api_base,
                                           api_key=choice.api_key or app.settings.api_key)
        search = getattr(choice, "search", None)
        if search is not None:
            app.settings = dataclasses.replace(app.settings, search_backend=search.backend,
                                               searxng_url=search.searxng_url or app.settings.searxng_url,
                                               allow_private_urls=search.allow_private_urls)
        app.main.update_header()
        if choice.remember:
            from tui_agent.config import ConfigError, config_path, save_setting

            try:
                save_setting("model", choice.model)
                if choice.api_base:
                    save_setting("api_base", choice.api_base)
                if choice.api_key:
                    save_setting("api_key", choice.api_key, private=True)
                if search is not None:
                    save_setting("search_backend", search.backend)
                    if search.searxng_url:
                        save_setting("searxng_url", search.searxng_url)
                    save_setting("allow_private_urls", search.allow_private_urls)
                app.notify(f"Saved in {config_path()}" + (" (readable by you only)" if choice.api_key else ""))
            except (OSError, ConfigError) as exc:
                app.notify(f"Could not save the model: {exc}", severity="warning")

    def change(self) -> None:
        """Pick another model (and key): between runs, or while a call is being retried."""
        app = self.app
        if app.run_active() and not app.retrying():
            return
        from tui_agent.screens.setup import ModelScreen

        ended = app.session.ended
        if app.run_active():
            note = "The model call is being retried. Changing the model stops this run; the question runs again " \
                   "as a new session."
        elif app.question:
            note = (f"The last run ended with {ended.termination}. " if ended else "") + \
                "The question runs again as a new session."
        else:  # nothing to run again: the question is asked next
            note = "The new model is used from your first question on; you type it next."
        app.push_screen(ModelScreen(app.settings.model or "", app.settings.api_base, note), self._changed)

    async def _changed(self, choice: ModelChoice | None) -> None:
        if choice is None:
            return
        app = self.app
        if app.run_active():
            await self.flows.stop_run()
        self.apply(choice)
        if app.question:
            app.start_run(app.question, app.settings)
        else:
            self.flows.ask_question()
