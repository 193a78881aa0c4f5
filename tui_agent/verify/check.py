"""The citation check of an answer (``sessions verify``, ``eval --verify``, the TUI's key).

Up to ``verify_sample`` claims of the answer (its sentences that cite sources, see
:mod:`tui_agent.verify.claims`) are each checked by one model call against the text the session
recorded for the sources they cite. The verifier answers one JSON object
``{"verdict": "supported" | "unsupported" | "unclear", "evidence": "a short quote"}``; a reply
that is not such an object is asked for once more, then counts as unclear. A claim whose sources
have no stored text is unclear without a model call.

Claims are checked concurrently (``CONCURRENCY`` at a time) and recorded in claim order as
events of the session: ``VerificationStarted`` (when the first claim is done, so a check that
cannot reach its model leaves an earlier check in place), ``ClaimChecked`` per claim,
``VerificationEnded`` with the counts. More than ``verify_review_share`` of the checked claims
unsupported (or an answer that cites nothing) marks the session "needs review".
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tui_agent.config import Settings
from tui_agent.safety.hygiene import redact, strip_controls
from tui_agent.model.jsonreply import json_object
from tui_agent.verify.claims import Claim, all_claims, claims_of, source_texts, spread
from tui_agent.core.events import (
    ClaimChecked, Event, Purpose, Verdict, VerificationEnded, VerificationStarted,
)
from tui_agent.core.fold import fold
from tui_agent.core.state import SessionState, Verification

__all__ = ["CONCURRENCY", "Claim", "CheckResult", "NoAnswerError", "VerifyError", "VerifyModelError", "all_claims",
           "claims_of", "parse_verdict", "run_check", "verify_session"]

CONCURRENCY = 4
"""Claims checked at the same time (model calls in flight)."""
ATTEMPTS = 2
"""Model calls per claim at most: a reply that is not the JSON object asked for gets one retry."""
EVIDENCE_MAX_CHARS = 500
"""The verifier's quote is kept up to this many characters."""
FATAL_MODEL_ERRORS = frozenset({"auth", "not_found", "unreachable"})
"""Model errors that stop the whole check (every other claim would fail the same way)."""
NO_CITATIONS = "the answer cites no sources"

PROMPT_FILE = Path(__file__).resolve().parent.parent / "prompts" / "verify.txt"
SOURCES_END = "=== SOURCES END ==="
RETRY_MESSAGE = ('That was not the JSON object asked for. Reply with exactly one JSON object and nothing else: '
                 '{"verdict": "supported" | "unsupported" | "unclear", "evidence": "a short quote from the sources"}')


class VerifyError(Exception):
    """The check cannot be made."""


class NoAnswerError(VerifyError):
    """The session has no answer to check."""


class VerifyModelError(VerifyError):
    """The verify model cannot be used (a wrong key, model or endpoint): the check stops."""


@dataclass
class CheckResult:
    """A finished check: the session's verification as folded, and what it took."""

    verification: Verification
    session_id: str
    model: str
    found: int  # claims with citations in the answer (the sample is at most verify_sample of them)
    review_share: float
    cost_usd: float | None = None
    requests: int = 0  # model calls made

    @property
    def checked(self) -> int:
        return len(self.verification.claims)

    def count(self, verdict: Verdict) -> int:
        return self.verification.count(verdict)

    @property
    def unsupported_share(self) -> float | None:
        return self.verification.unsupported_share

    @property
    def needs_review(self) -> bool:
        return self.verification.needs_review

    def to_json(self) -> dict[str, Any]:
        v = self.verification
        return {
            "session_id": self.session_id,
            "model": self.model,
            "claims": [{"claim": c.claim, "sources": list(c.sources), "verdict": str(c.verdict),
                        "evidence": c.evidence, "note": c.note} for c in v.claims],
            "found": self.found,
            "checked": self.checked,
            "supported": self.count(Verdict.SUPPORTED),
            "unsupported": self.count(Verdict.UNSUPPORTED),
            "unclear": self.count(Verdict.UNCLEAR),
            "unsupported_share": self.unsupported_share,
            "needs_review": self.needs_review,
            "cost_usd": self.cost_usd,
        }


def needs_review(checked: int, unsupported: int, review_share: float) -> bool:
    """Nothing to check (an answer that cites nothing), or more than the share unsupported."""
    return checked == 0 or unsupported / checked > review_share


def verify_model(settings: Settings, state: SessionState, model: str | None = None) -> str:
    """The model that checks: ``model``, else ``verify_model``, else the main model (the
    settings', else the session's own)."""
    return model or settings.verify_model or settings.model or state.model


async def verify_session(store: Any, session_id: str, settings: Settings, *, sample: int | None = None,
                         model: str | None = None, llm: Any = None,
                         on_event: Callable[[Event], None] | None = None) -> Verification:
    """Check the citations of a stored session's answer; its events are appended to ``store``
    as they happen (and passed to ``on_event``). Returns the session's verification as folded.
    Raises :class:`VerifyError` when the session has no answer or the model cannot be used."""
    result = await run_check(store, session_id, settings, sample=sample, model=model, llm=llm, on_event=on_event)
    return result.verification


async def run_check(store: Any, session_id: str, settings: Settings, *, sample: int | None = None,
                    model: str | None = None, llm: Any = None,
                    on_event: Callable[[Event], None] | None = None) -> CheckResult:
    """:func:`verify_session`, with the cost and the count of claims found."""
    state = fold(store.events(session_id))
    if state.answer is None or not state.answer.text.strip():
        raise NoAnswerError(f"session {session_id} has no answer to check")
    model = verify_model(settings, state, model)
    if not model:
        raise VerifyError("no model to check with: give --verify-model or --model")
    if llm is None:
        from tui_agent.model.llm import LLM

        llm = LLM(settings)
    found = all_claims(state)
    size = settings.verify_sample if sample is None else sample
    if size < 1:
        raise VerifyError(f"the sample must be at least 1 claim (got {size})")
    chosen = spread(found, size)
    checker = _Checker(llm, model, settings, state)

    def emit(event: Event) -> None:
        event.session_id = session_id
        event.ts = time.time()  # when it is recorded: a claim checked early waits for those before it
        store.append(event)
        if on_event is not None:
            on_event(event)

    started = VerificationStarted(model=model, sample=size, claims=len(found))
    tasks = [asyncio.create_task(checker.check(claim)) for claim in chosen]
    try:
        if not tasks:
            emit(started)
        for task in tasks:  # recorded in claim order, as each one is done
            checked = await task
            if task is tasks[0]:
                emit(started)
            emit(checked)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    verdicts = [t.result().verdict for t in tasks]
    unsupported = verdicts.count(Verdict.UNSUPPORTED)
    emit(VerificationEnded(checked=len(verdicts), supported=verdicts.count(Verdict.SUPPORTED), unsupported=unsupported,
                           unclear=verdicts.count(Verdict.UNCLEAR),
                           needs_review=needs_review(len(verdicts), unsupported, settings.verify_review_share)))
    verification = fold(store.events(session_id)).verification
    assert verification is not None
    return CheckResult(verification, session_id, model, len(found), settings.verify_review_share, checker.cost,
                       checker.requests)


# -- one claim -----------------------------------------------------------------------------------


@dataclass
class _Checker:
    llm: Any
    model: str
    settings: Settings
    state: SessionState
    cost: float | None = None
    requests: int = 0
    texts: dict[int, str] = field(default_factory=dict)
    known: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.texts = source_texts(self.state)
        self.known = {s.number for s in self.state.sources.values()}
        self._slots = asyncio.Semaphore(CONCURRENCY)

    async def check(self, claim: Claim) -> ClaimChecked:
        have = [n for n in claim.sources if n in self.texts]
        missing = [n for n in claim.sources if n not in self.texts]
        notes = [self._missing_note(n) for n in missing]
        if not have:
            return ClaimChecked(claim=claim.text, sources=list(claim.sources), verdict=Verdict.UNCLEAR,
                                note="; ".join(notes))
        if missing:
            notes.insert(0, "checked against " + " ".join(f"[{n}]" for n in have) + " only")
        messages = verify_messages(claim.text, [self.texts[n] for n in have], self.settings.verify_source_tokens)
        verdict, evidence, problem = await self._ask(messages)
        if problem:
            notes.append(problem)
        return ClaimChecked(claim=claim.text, sources=list(claim.sources), verdict=verdict, evidence=evidence,
                            note="; ".join(notes))

    def _missing_note(self, n: int) -> str:
        if n in self.known:
            return f"no text was stored for source [{n}]"
        return f"source [{n}] was never read in this session"

    async def _ask(self, messages: list[dict[str, str]]) -> tuple[Verdict, str, str]:
        """(verdict, evidence, why unclear) from at most ATTEMPTS model calls."""
        from tui_agent.model.llm import ModelError

        async with self._slots:
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    self.requests += 1
                    reply = await self.llm.complete(messages, purpose=Purpose.VERIFY, model=self.model, stream=False)
                except ModelError as exc:
                    if exc.kind in FATAL_MODEL_ERRORS:
                        raise VerifyModelError(f"the verify model {self.model} cannot be used: {exc}") from None
                    return Verdict.UNCLEAR, "", f"model error: {exc}"
                if reply.cost_usd is not None:
                    self.cost = (self.cost or 0.0) + reply.cost_usd
                parsed = parse_verdict(reply.text)
                if parsed is not None:
                    return parsed[0], parsed[1], ""
                messages = messages + [{"role": "assistant", "content": reply.text or ""},
                                       {"role": "user", "content": RETRY_MESSAGE}]
        return Verdict.UNCLEAR, "", f"the verifier did not reply with the JSON object asked for ({ATTEMPTS} attempts)"


# -- the request and the reply ---------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def prompt_template() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8")


def verify_messages(claim: str, sources: list[str], budget: int) -> list[dict[str, str]]:
    """The verifier's request: one user message from prompts/verify.txt, each source's stored text
    redacted and cut to its share of ``budget`` tokens."""
    from tui_agent.core import budgets

    share = budgets.share(budget, len(sources))
    parts = []
    for text in sources:
        kept, cut = budgets.cut(redact(text), share)
        kept = kept.replace(SOURCES_END, "=== SOURCES END (quoted in the page) ===")
        parts.append(budgets.with_note(kept, budgets.note(cut, share + cut, budgets.SOURCE_SHARE)) if cut else kept.rstrip())
    head, _, tail = prompt_template().partition("{sources}")
    return [{"role": "user", "content": head.replace("{claim}", claim) + "\n\n".join(parts) + tail}]


def parse_verdict(raw: str | None) -> tuple[Verdict, str] | None:
    """(verdict, evidence) from a verifier's reply, or None when it is not such an object."""
    obj = json_object(raw)
    if obj is None:
        return None
    verdict = obj.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().lower() not in set(Verdict):
        return None
    evidence = obj.get("evidence")
    if isinstance(evidence, list):
        evidence = " … ".join(str(e) for e in evidence)
    elif evidence is not None and not isinstance(evidence, str):
        evidence = json.dumps(evidence, ensure_ascii=False)
    evidence = " ".join(strip_controls(evidence or "").split())
    if len(evidence) > EVIDENCE_MAX_CHARS:
        evidence = evidence[: EVIDENCE_MAX_CHARS - 1].rstrip() + "…"
    return Verdict(verdict.strip().lower()), evidence
