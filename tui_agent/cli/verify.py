"""`tui-agent sessions verify ID`: check the answer's citations against the stored sources.

The check runs with the session's own model and endpoint (as ``run --resume`` does), unless
``--model``/``--api-base`` say otherwise; ``--verify-model`` (or ``verify_model`` in the config)
picks another model for it. The verify settings (sample, review share, source budget) and the API
key come from the config, the environment and the flags given now.

Exit 0 when the answer is fine, 1 when it needs review (more than ``verify_review_share`` of the
checked claims unsupported, or an answer that cites no sources) or the verify model cannot be
used, 2 for bad usage (an unknown or ambiguous id, a session without an answer).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tui_agent.cli.common import UsageError, add_common, given_flags, open_store, resolve_id, settings_from
from tui_agent.exit_codes import EXIT_NO_ANSWER, EXIT_OK
from tui_agent.config import Settings

# Settings of the check itself, taken from the config, the environment and the flags given now
# (the session's stored settings are from before the check existed, or from another check).
CHECK_SETTINGS = ("verify_model", "verify_sample", "verify_review_share", "verify_source_tokens", "api_key")


def add_parser(sub: Any) -> None:
    ver = sub.add_parser("verify", help="check the answer's citations against the stored source text")
    ver.add_argument("id")
    ver.add_argument("--sample", type=int, metavar="N", help="claims to check at most (default 10, spread over the answer)")
    ver.add_argument("--verify-model", metavar="MODEL", help="model that checks (default: the main model)")
    ver.add_argument("--json", action="store_true", help="print one JSON object with the verdicts")
    add_common(ver)


def check_settings(ns: argparse.Namespace, store: Any, session_id: str, current: Settings) -> Settings:
    """The session's settings overridden by the flags given now, with the check's own settings."""
    from tui_agent.session.resume import ResumeError, session_settings

    try:
        settings = session_settings(store.session_settings(session_id), given_flags(ns))
    except ResumeError as exc:
        raise UsageError(str(exc)) from None
    for key in CHECK_SETTINGS:
        setattr(settings, key, getattr(current, key))
    if ns.verify_model:
        settings.verify_model = ns.verify_model
    return settings


def cmd_verify(ns: argparse.Namespace) -> int:
    from tui_agent.session.store import StoreError
    from tui_agent.verify.check import VerifyError, VerifyModelError, run_check

    if ns.sample is not None and ns.sample < 1:
        raise UsageError(f"--sample must be at least 1 (got {ns.sample})")
    current = settings_from(ns)
    store = open_store(current)
    sid = resolve_id(store, ns.id)
    settings = check_settings(ns, store, sid, current)
    printer = None if ns.json else _Printer(sid)
    try:
        result = asyncio.run(run_check(store, sid, settings, sample=ns.sample, on_event=printer))
    except VerifyModelError as exc:
        sys.stderr.write(f"tui-agent: {exc}\n")
        return EXIT_NO_ANSWER
    except (VerifyError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    finally:
        store.close()
    if ns.json:
        from tui_agent.session.exports import dumps

        print(dumps(result.to_json(), indent=2))
    else:
        print(summary_line(result))
    return EXIT_NO_ANSWER if result.needs_review else EXIT_OK


def summary_line(result: Any) -> str:
    """One line: the counts, the unsupported share against the threshold, the cost."""
    from tui_agent.core.events import Verdict
    from tui_agent.verify.check import NO_CITATIONS

    if result.checked == 0:
        return f"needs review: {NO_CITATIONS}"
    limit = f"{result.review_share:.0%}"
    share = result.unsupported_share or 0.0
    counts = (f"{result.checked} checked: {result.count(Verdict.SUPPORTED)} supported, "
              f"{result.count(Verdict.UNSUPPORTED)} unsupported, {result.count(Verdict.UNCLEAR)} unclear")
    cost = f" · cost ${result.cost_usd:.4f}" if result.cost_usd is not None else ""
    if result.needs_review:
        return f"{counts} · needs review: {share:.0%} unsupported, more than {limit}{cost}"
    return f"{counts} · fine: {share:.0%} unsupported, at most {limit}{cost}"


class _Printer:
    """Prints the check as it goes: a header, then each claim with its verdict and evidence."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.n = 0
        self.total = 0

    def __call__(self, event: Any) -> None:
        from tui_agent.safety.hygiene import for_terminal
        from tui_agent.core.events import ClaimChecked, VerificationStarted

        if isinstance(event, VerificationStarted):
            self.total = min(event.sample, event.claims)
            which = "" if event.claims <= event.sample else " (spread over the answer)"
            print(f"Citation check of session {self.session_id} with {for_terminal(event.model)}: "
                  f"{event.claims} claims cite sources, {self.total} checked{which}", flush=True)
        elif isinstance(event, ClaimChecked):
            self.n += 1
            claim = " ".join(for_terminal(event.claim).split())
            print(f"\n[{self.n}/{self.total}] {str(event.verdict).upper()}  {claim}")
            if event.evidence:
                print(f"    evidence: \u201c{' '.join(for_terminal(event.evidence).split())}\u201d")
            if event.note:
                print(f"    note: {' '.join(for_terminal(event.note).split())}")
            sys.stdout.flush()
        elif self.n:
            print()
