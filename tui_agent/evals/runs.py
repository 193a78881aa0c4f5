"""Running a regression set: every case a stored session tagged with the run's label and the
case id, N at a time (asyncio; in several processes: evals/workers.py), tool calls approved
without asking. The cases of a run share one HTTP client for their tools.

A label that was used before continues: a case whose session ended keeps its result, one that
was interrupted or cancelled is resumed, a new one runs. Failures are not results: a case that
ended in ``model_error`` (an outage, a wrong endpoint) or was cancelled runs again in a new
session, and with ``rerun_failed`` so does one that ended in ``format_error`` or by a limit; the
label's latest session of a case is its result. A case that did not answer carries an ``error``
naming what failed (for a model error, the endpoint and the cause). ``replay`` (another label) answers each
tool call identical to one recorded for the same case in that run with the recorded observation,
as a fork does, so a prompt change can be measured on a whole set with the same evidence and no
network. Everything a result holds is read from the case session through the one fold.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, AsyncContextManager, Callable

from tui_agent.config import Settings
from tui_agent.evals.cases import Case
from tui_agent.kinds import Termination
from tui_agent.core.fold import SessionState, fold
from tui_agent.session.store import SessionStatus, Store, new_session_id

# Cases run at once unless --concurrency says otherwise.
DEFAULT_CONCURRENCY = 4
# Endings that are failures of the run, not results: such a case runs again when the label does.
ERRORED = frozenset({Termination.MODEL_ERROR, Termination.CANCELLED})
# Endings --rerun-failed also runs again: the model's format, and the limits.
FAILED = ERRORED | {Termination.FORMAT_ERROR, Termination.TOKEN_LIMIT, Termination.CALL_LIMIT,
                    Termination.TIME_LIMIT, Termination.BUDGET_LIMIT}


@dataclass
class CaseResult:
    id: str
    session_id: str | None
    question: str
    answer: str | None = None
    termination: str | None = None
    passed: bool | None = None
    path: list[dict[str, Any]] = field(default_factory=list)
    model_calls: int = 0
    tool_calls: int = 0
    total_tokens: int = 0
    research_tokens: int = 0  # research and forced-answer calls: what a prompt change moves
    auxiliary_tokens: int = 0  # tools' own model calls (extraction); a --replay run makes none
    cost_usd: float | None = None
    elapsed_s: float = 0.0
    compactions: int = 0  # context compactions: at the token gate, and each item the facts policy rewrote
    peak_prompt_tokens: int = 0  # the largest prompt sent in a research step
    unsupported_share: float | None = None  # with --verify: the citation check's unsupported share
    needs_review: bool | None = None
    reused: bool = False  # the label had already finished this case
    error: str | None = None  # what failed when the case did not answer (a model error: endpoint and cause)
    worker: int | None = None  # with --workers: which process ran it (1 is the eval's own)
    sources: list[str] = field(default_factory=list)  # the URLs its answer (or report) has as sources

    @property
    def errored(self) -> bool:
        """The case did not run to a result: a model error, cancelled, never ended, or never started."""
        return self.termination is None or self.termination in ERRORED

    def as_json(self, verify: bool = False) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("id", "session_id", "answer", "termination", "error", "passed", "path",
                                             "model_calls", "tool_calls", "total_tokens", "research_tokens",
                                             "auxiliary_tokens", "cost_usd", "compactions", "peak_prompt_tokens",
                                             "sources")}
        if verify:
            out["unsupported_share"] = self.unsupported_share
            out["needs_review"] = self.needs_review
        if self.worker is not None:
            out["worker"] = self.worker
        return out


def failure_of(state: SessionState) -> str | None:
    """What failed, for a case that did not answer: its end's message, or how it ended."""
    if state.answer is not None:
        return None
    ended = state.ended
    if ended is None:
        return "interrupted: the case never ended (it runs again with the label)"
    if ended.termination == Termination.MODEL_ERROR:
        return f"model error: {ended.message or 'no message'}"
    return f"{ended.termination}: {ended.message}" if ended.message else f"ended by {ended.termination} without an answer"


def result_of(case: Case, session_id: str, state: SessionState, reused: bool = False) -> CaseResult:
    answer = state.answer.text if state.answer else None
    v = state.verification
    return CaseResult(
        id=case.id, session_id=session_id, question=case.question, answer=answer,
        termination=str(state.ended.termination) if state.ended else None, passed=case.passed(answer),
        path=state.path(), model_calls=state.model_calls, tool_calls=state.tool_calls,
        total_tokens=state.total_tokens, research_tokens=state.research_tokens,
        auxiliary_tokens=state.auxiliary_tokens, cost_usd=state.cost_usd, elapsed_s=state.elapsed_s, reused=reused,
        compactions=state.context.compacted(), peak_prompt_tokens=state.peak_prompt_tokens,
        unsupported_share=v.unsupported_share if v and v.ended else None,
        needs_review=v.needs_review if v and v.ended else None, error=failure_of(state),
        sources=[src.url for src in state.source_list()],
    )


@dataclass
class EvalRun:
    """One labelled run of a set."""

    settings: Settings
    store: Store
    label: str
    set_path: str
    concurrency: int = DEFAULT_CONCURRENCY
    replay_label: str | None = None
    verify: bool = False
    rerun_failed: bool = False  # also run again cases that ended in format_error or by a limit
    on_done: Callable[[CaseResult, int, int], None] | None = None  # (result, finished so far, total)
    run_kwargs: dict[str, Any] = field(default_factory=dict)  # tests and embedders: tools, http
    workers: int = 1  # processes running the cases (evals/workers.py); recorded in the options
    shard: str | None = None  # "i/n" when this run is one shard of the set (evals/shards.py)
    set_cases: list[Case] | None = None  # the whole set, when ``run`` is given one shard of it
    _finished: int = 0

    def options(self) -> dict[str, Any]:
        s = self.settings
        out = {"model": s.model, "system_prompt_file": s.system_prompt_file, "replay": self.replay_label,
               "verify": self.verify, "concurrency": self.concurrency, "protocol": s.protocol, "team": s.team}
        return out | ({"workers": self.workers} if self.workers > 1 else {}) | ({"shard": self.shard} if self.shard else {})

    def record(self, cases: list[Case]) -> None:
        """Save the labelled run (the whole set's cases, also when this run is one shard of it)."""
        self.store.batch_steps = True  # nobody watches a case live: one commit per step (Store docs)
        whole = self.set_cases if self.set_cases is not None else cases
        self.store.save_eval_run(self.label, self.set_path, [{"id": c.id, "question": c.question,
                                                              "expect": c.expect} for c in whole], self.options())

    async def run(self, cases: list[Case]) -> list[CaseResult]:
        self.record(cases)
        self._finished = 0
        results: list[CaseResult | None] = [None] * len(cases)
        pending = iter(enumerate(cases))

        def done(index: int, result: CaseResult) -> None:
            results[index] = result
            self._finished += 1
            if self.on_done is not None:
                self.on_done(result, self._finished, len(cases))

        await self.serve(lambda: next(pending, None), done)
        return [r for r in results if r is not None]

    async def serve(self, take: Callable[[], tuple[int, Case] | None], done: Callable[[int, CaseResult], None],
                    slots: int | None = None) -> None:
        """Run cases ``slots`` (default ``concurrency``) at a time, each slot taking the next (index,
        case) from ``take`` until it gives None, all sharing one HTTP client (unless the caller
        brought tools or a client)."""

        async def slot() -> None:
            while (item := take()) is not None:
                done(item[0], await self._case(item[1]))

        if "llm" not in self.run_kwargs:
            await asyncio.to_thread(warm_up, self.settings)  # not in the first case, with every other case waiting on it
        slots = max(1, slots or self.concurrency)
        async with self._shared_client(slots):
            await asyncio.gather(*(slot() for _ in range(slots)))

    def _shared_client(self, slots: int) -> AsyncContextManager[Any]:
        if "tools" in self.run_kwargs or "http" in self.run_kwargs:
            return contextlib.nullcontext()
        from tui_agent.web.net import make_client

        client = make_client(self.settings, runs=slots)  # each case the connections a run has alone
        self.run_kwargs["http"] = client

        @contextlib.asynccontextmanager
        async def held():
            try:
                async with client:
                    yield client
            finally:
                self.run_kwargs.pop("http", None)

        return held()

    async def _case(self, case: Case) -> CaseResult:
        from tui_agent.agent.runner import Run
        from tui_agent.session.resume import ResumeError, prepare_resume

        earlier = self.store.eval_sessions(self.label).get(case.id)
        if earlier is not None and earlier.status == SessionStatus.ENDED:
            state = fold(self.store.events(earlier.id))
            ending = state.ended.termination if state.ended else None
            if ending not in (FAILED if self.rerun_failed else ERRORED):
                return await self._verified(case, earlier.id, state, reused=True)
            earlier = None  # a failure, not a result: the case runs again, in a new session
        settings = dataclasses.replace(self.settings, auto_approve=True)
        kwargs: dict[str, Any] = dict(self.run_kwargs)
        session_id: str | None = None
        try:
            if earlier is not None and earlier.resumable:
                resumed = prepare_resume(self.store, earlier.id, {"auto_approve": True}, here=self.settings)
                kwargs.update(resumed.run_kwargs())
                settings, session_id = resumed.settings, earlier.id
            else:
                session_id = new_session_id() + "-" + _slug(case.id)
                kwargs.update(session_id=session_id, eval_label=self.label, case_id=case.id)
            if kwargs.get("replay") is None:
                kwargs["replay"] = self._replayer(case)
            if settings.team:  # eval --team: each case researched by a team (its plan approved unasked)
                kwargs["research"] = self._team(settings)
            run = Run(settings, case.question, store=self.store, approver=None, **kwargs)
            started = time.monotonic()
            await run.start()
        except (ResumeError, OSError) as exc:
            return CaseResult(case.id, None, case.question, error=str(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one broken case must not stop the set
            return CaseResult(case.id, session_id, case.question, error=f"{type(exc).__name__}: {exc}")
        result = await self._verified(case, run.session_id, run.engine.state if run.engine else fold([]))
        result.elapsed_s = result.elapsed_s or time.monotonic() - started
        return result

    def _team(self, settings: Settings) -> Any:
        from tui_agent.team import TeamResearch

        if settings.plan == "off":
            settings.plan = "ask"
        tools = self.run_kwargs.get("tools")
        return TeamResearch(settings, store=self.store, llm=self.run_kwargs.get("llm"), http=self.run_kwargs.get("http"),
                            tools=(lambda: tools) if tools is not None else None)

    async def _verified(self, case: Case, session_id: str, state: SessionState, reused: bool = False) -> CaseResult:
        """The case's result; with --verify, after the citation check of its answer (once)."""
        checked = state.verification is not None and state.verification.ended
        if self.verify and state.answer is not None and not checked:
            from tui_agent.verify.check import verify_session

            try:
                await verify_session(self.store, session_id, self.settings)
            except Exception as exc:  # noqa: BLE001 - the case ran; only its check failed
                result = result_of(case, session_id, state, reused)
                result.error = f"citation check failed: {type(exc).__name__}: {exc}"
                return result
            state = fold(self.store.events(session_id))
        return result_of(case, session_id, state, reused)

    def _replayer(self, case: Case) -> Any:
        if not self.replay_label:
            return None
        from tui_agent.session.resume import Replayer

        recorded = self.store.eval_sessions(self.replay_label).get(case.id)
        return Replayer(fold(self.store.events(recorded.id))) if recorded is not None else None


def warm_up(settings: Settings | None = None) -> None:
    """What every case needs and the first one would otherwise load on the event loop: litellm
    (seconds of imports; not when ``settings`` need none of it), the tokenizer, the tools and the
    fetch client's modules."""
    import tui_agent.tools
    import tui_agent.web.net  # noqa: F401 - loaded here, not by the first case
    from tui_agent.model import llm

    llm.warm_up(settings)


def _slug(case_id: str, limit: int = 24) -> str:
    """A case id as a readable part of a session id (letters, digits, dashes)."""
    out = "".join(c if c.isalnum() else "-" for c in case_id.lower()).strip("-")
    return out[:limit] or "case"
