"""The events of a citation check of an answer (``sessions verify``, the TUI, ``eval --verify``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tui_agent.kinds import Verdict
from tui_agent.core.event_base import Event


@dataclass(kw_only=True)
class VerificationStarted(Event):
    """A citation check of the answer begins (``sessions verify``, the TUI, ``eval --verify``);
    it replaces the results of an earlier check."""

    type: ClassVar[str] = "verification_started"
    model: str
    sample: int  # the most claims to check
    claims: int = 0  # claims with citations found in the answer


@dataclass(kw_only=True)
class ClaimChecked(Event):
    """One claim of the answer checked against the stored text of the sources it cites."""

    type: ClassVar[str] = "claim_checked"
    claim: str
    sources: list[int] = field(default_factory=list)
    verdict: Verdict = Verdict.UNCLEAR
    evidence: str = ""  # a short quote from the source, as the verifier gave it
    note: str = ""  # why a verdict is "unclear" when the verifier did not say (no reply, no source text, …)


@dataclass(kw_only=True)
class VerificationEnded(Event):
    type: ClassVar[str] = "verification_ended"
    checked: int
    supported: int
    unsupported: int
    unclear: int
    needs_review: bool  # more than the review share of the checked claims is unsupported
