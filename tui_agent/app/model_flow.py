"""The app's flows around runs: finding or choosing a model, asking the question, new runs,
the session browser's resume and fork, and quitting. Mixed into ``ResearchApp``."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any


class ModelFlow:
    """Flows of ``ResearchApp`` (see application.py for the state they use)."""

    # -- a model --------------------------------------------------------------------------------
    def _detect_model(self) -> None:
        from tui_agent import model_setup

        model, base = (self.detect or model_setup.detect)()
        self.call_from_thread(self._model_detected, model, base)

    def _model_detected(self, model: str | None, base: str | None) -> None:
        self.starting_note = None
        if model:
            self.settings.model = model
            if base and not self.settings.api_base:
                self.settings.api_base = base
            self.notify(f"Using {model}" + (f" at {base}" if base else ""), title="Model found")
            self.main.update_header()
            self._next_setup_step()
            return
        from tui_agent.config import config_path
        from tui_agent.screens.setup import SetupScreen
        from tui_agent.app.phases import Phase

        self.phase = Phase.NONE
        self.main.update_header()
        self.push_screen(SetupScreen(str(config_path()), self.settings.searxng_url, self.settings.allow_private_urls),
                         self._setup_done)

    def _setup_done(self, choice: Any) -> None:
        if choice is None:
            self.notify("No model: the app stays idle. Press m to pick one.", severity="warning")
            return
        self._apply_model_choice(choice)
        self._next_setup_step()

    def _apply_model_choice(self, choice: Any) -> None:
        """Use the chosen model (and API key) for this app's runs; save it only on request."""
        self.settings = dataclasses.replace(self.settings, model=choice.model, api_base=choice.api_base,
                                            api_key=choice.api_key or self.settings.api_key)
        search = getattr(choice, "search", None)
        if search is not None:
            self.settings = dataclasses.replace(self.settings, search_backend=search.backend,
                                                searxng_url=search.searxng_url or self.settings.searxng_url,
                                                allow_private_urls=search.allow_private_urls)
        self.main.update_header()
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
                self.notify(f"Saved in {config_path()}" + (" (readable by you only)" if choice.api_key else ""))
            except (OSError, ConfigError) as exc:
                self.notify(f"Could not save the model: {exc}", severity="warning")

    def change_model(self) -> None:
        """Pick another model (and key): between runs, or while a call is being retried."""
        if self.run_active() and not self.retrying():
            return
        from tui_agent.screens.setup import ModelScreen

        ended = self.session.ended
        if self.run_active():
            note = "The model call is being retried. Changing the model stops this run; the question runs again " \
                   "as a new session."
        else:
            note = (f"The last run ended with {ended.termination}. " if ended else "") + \
                "The question runs again as a new session."
        self.push_screen(ModelScreen(self.settings.model or "", self.settings.api_base, note), self._model_changed)

    async def _model_changed(self, choice: Any) -> None:
        if choice is None:
            return
        if self.run_active():
            await self._stop_run()
        self._apply_model_choice(choice)
        if self.question:
            self.start_run(self.question, self.settings)
        else:
            self._ask_question()

    # -- questions and runs ------------------------------------------------------------------------
    def _ask_question(self) -> None:
        from tui_agent.screens.question import QuestionScreen

        self.push_screen(QuestionScreen(), self._question_given)

    def _question_given(self, question: str | None) -> None:
        if not question:
            self.main.set_question(self.question)
            return
        self.question = question
        self.start_run(question, self.settings)

    def new_question(self) -> None:
        if self.run_active():
            return
        if not self.settings.model:
            self.change_model()
            return
        self._ask_question()

    # -- the session browser ------------------------------------------------------------------------
    def open_sessions(self) -> None:
        from tui_agent.screens.sessions import SessionsScreen

        store = self._open_store(self.settings)
        if store is None:
            self.notify("The session database cannot be opened.", severity="error")
            return
        self.push_screen(SessionsScreen(store))

    def resume_session(self, session_id: str) -> None:
        """Continue a stored, unfinished session here (the browser's resume)."""
        if self.run_active():
            self.notify("A run is active: finish it, or quit it, before resuming another session.",
                        severity="warning")
            return
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()
        self.start_run("", self.settings, resume_id=session_id)

    def fork_session(self, session_id: str, step: int, system_prompt: str | None) -> None:
        """Fork a stored session at ``step`` (optionally with a new system prompt) and run the fork."""
        if self.run_active():
            self.notify("A run is active: finish it, or quit it, before forking a session.", severity="warning")
            return
        from tui_agent.session.resume import fork

        try:
            new_id = fork(self._open_store(self.settings), session_id, step, system_prompt)
        except Exception as exc:  # noqa: BLE001 - shown; the app stays open
            self.notify(f"Could not fork: {exc}", severity="error")
            return
        self.notify(f"Forked {session_id} at step {step} as {new_id}.", title="Fork")
        self.resume_session(new_id)

    # -- the citation check ----------------------------------------------------------------------
    def verify_answer(self) -> None:
        """Check the answer's citations (``sessions verify``) in a worker; the results are events of
        the session, folded into the screen's state when the check is done."""
        store = self._open_store(self.settings)
        if store is None or self.session.answer is None or self.verifying:
            return
        self.verifying = True
        self.notify("Checking the answer's citations against their sources…", title="Verify")
        self.run_worker(self._verify(store, self.session.session_id), name="verify", group="verify",
                        exit_on_error=False)

    async def _verify(self, store: Any, session_id: str) -> None:
        from tui_agent.app.phases import warm_up
        from tui_agent.session import fold
        from tui_agent.session.events import Verdict
        from tui_agent.session.verify import verify_session

        try:
            await asyncio.to_thread(warm_up)
            # Each stored result is folded into the screen's state as it comes (same loop, in order).
            await verify_session(store, session_id, self.settings, on_event=lambda e: fold.apply(self.session, e))
        except Exception as exc:  # noqa: BLE001 - shown; the session stays as it was
            self.notify(f"The citation check failed: {exc}", severity="error", timeout=10)
            return
        finally:
            self.verifying = False
            self.main.refresh_view()
            self.refresh_bindings()
        v = self.session.verification
        if v is not None:
            summary = (f"{v.count(Verdict.SUPPORTED)} supported · {v.count(Verdict.UNSUPPORTED)} unsupported · "
                       f"{v.count(Verdict.UNCLEAR)} unclear of {len(v.claims)} claims")
            self.notify(summary + (" — needs review" if v.needs_review else ""), title="Citations checked",
                        severity="warning" if v.needs_review else "information", timeout=10)

    # -- stopping and quitting ----------------------------------------------------------------------
    async def _stop_run(self) -> None:
        """Cancel the engine and wait (a little) for its worker to record the cancellation."""
        self.pending = None
        self.cancel_engine()
        for worker in list(self.workers):
            if worker.group == "run":
                try:
                    await asyncio.wait_for(worker.wait(), 5.0)
                except Exception:  # noqa: BLE001 - cancelled or timed out: we go on anyway
                    pass

    async def quit_asking(self) -> None:
        if not self.run_active():
            self.exit(self.exit_code(), return_code=self.exit_code())
            return
        from tui_agent.screens.confirm import ConfirmScreen

        sid = self.session.session_id
        self.push_screen(ConfirmScreen(
            "Quit while the run is active?",
            f"The run stops now. Session {sid} stays in the store; continue it later with\n"
            f"  tui-agent --resume {sid}", "Quit", "Stay"), self._quit_confirmed)

    async def action_quit_app(self) -> None:
        await self.quit_asking()

    async def _quit_confirmed(self, yes: bool | None) -> None:
        if not yes:
            return
        await self._stop_run()
        self.exit(self.exit_code(), return_code=self.exit_code())
