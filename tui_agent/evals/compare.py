"""Comparing two labelled runs of a set, case by case: did the answer change, did the path (the
tool calls in order) change and where did it first diverge, which cases regressed (passed in A,
failed in B) or were fixed, and the deltas of calls, tokens (research and auxiliary apart) and cost, with totals.

A case that errored in B (a model error, cancelled, never ended: ``CaseResult.errored``) is
counted as *errored*, not regressed: an outage is not a prompt regression. One that errored in A
and passes in B is not a fix either."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui_agent.evals.cases import Case
from tui_agent.evals.runs import CaseResult, result_of
from tui_agent.core.fold import fold
from tui_agent.session.store import Store


# The figures summed per label. Tokens come apart: research (the research and forced-answer calls,
# what a prompt change moves) and auxiliary (tools' own calls such as extraction, which a --replay
# run skips); total_tokens is their sum.
TOTALS = ("model_calls", "tool_calls", "total_tokens", "research_tokens", "auxiliary_tokens", "cost_usd")


class CompareError(ValueError):
    """A label names no run."""


@dataclass
class CaseComparison:
    id: str
    a: CaseResult | None
    b: CaseResult | None
    answer_changed: bool = False
    path_changed: bool = False
    diverges_at: int | None = None  # the index (from 0) of the first tool call where the paths differ
    regressed: bool = False
    fixed: bool = False
    errored: bool = False  # B did not run to a result (its error says what failed)

    def delta(self, key: str) -> float | None:
        va = getattr(self.a, key, None) if self.a else None
        vb = getattr(self.b, key, None) if self.b else None
        return None if va is None or vb is None else vb - va

    def divergence(self) -> dict[str, Any] | None:
        if self.diverges_at is None:
            return None
        i = self.diverges_at
        pa, pb = (self.a.path if self.a else []), (self.b.path if self.b else [])
        return {"index": i, "a": pa[i] if i < len(pa) else None, "b": pb[i] if i < len(pb) else None}

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "in_a": self.a is not None, "in_b": self.b is not None,
            "answer_changed": self.answer_changed, "path_changed": self.path_changed,
            "diverges": self.divergence(), "regressed": self.regressed, "fixed": self.fixed,
            "errored": self.errored, "error_b": self.b.error if self.b and self.errored else None,
            "passed_a": self.a.passed if self.a else None, "passed_b": self.b.passed if self.b else None,
            "delta_calls": self.delta("model_calls"), "delta_tool_calls": self.delta("tool_calls"),
            "delta_tokens": self.delta("total_tokens"), "delta_research_tokens": self.delta("research_tokens"),
            "delta_auxiliary_tokens": self.delta("auxiliary_tokens"), "delta_cost_usd": self.delta("cost_usd"),
            "side_by_side": {side: {"answer": r.answer, "sources": list(r.sources), "tokens": r.total_tokens,
                                    "cost_usd": r.cost_usd} for side, r in (("a", self.a), ("b", self.b)) if r},
        }


@dataclass
class Comparison:
    label_a: str
    label_b: str
    cases: list[CaseComparison] = field(default_factory=list)

    @property
    def regressions(self) -> int:
        return sum(c.regressed for c in self.cases)

    @property
    def fixes(self) -> int:
        return sum(c.fixed for c in self.cases)

    @property
    def errors(self) -> int:
        return sum(c.errored for c in self.cases)

    def total(self, label: str, key: str) -> float | None:
        values = [getattr(getattr(c, label), key) for c in self.cases if getattr(c, label) is not None]
        values = [v for v in values if v is not None]
        return sum(values) if values else None

    def as_json(self) -> dict[str, Any]:
        totals = {f"{key}_{side}": self.total(side, key) for key in TOTALS for side in ("a", "b")}
        return {"label_a": self.label_a, "label_b": self.label_b, "cases": [c.as_json() for c in self.cases],
                "regressions": self.regressions, "fixed": self.fixes, "errored": self.errors,
                "answers_changed": sum(c.answer_changed for c in self.cases),
                "paths_changed": sum(c.path_changed for c in self.cases), "totals": totals}


def label_results(store: Store, label: str) -> dict[str, CaseResult]:
    run = store.eval_run(label)
    if run is None:
        known = ", ".join(r["label"] for r in store.eval_runs()) or "none yet"
        raise CompareError(f"no eval run labelled {label!r} (labels: {known})")
    cases = {c["id"]: Case(c["id"], c["question"], list(c.get("expect") or [])) for c in run["cases"]}
    out = {}
    for case_id, row in store.eval_sessions(label).items():
        case = cases.get(case_id) or Case(case_id, row.question)
        out[case_id] = result_of(case, row.id, fold(store.events(row.id)))
    return out


def first_divergence(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _same_answer(a: str | None, b: str | None) -> bool:
    norm = lambda t: " ".join((t or "").split())  # noqa: E731
    return (a is None) == (b is None) and norm(a) == norm(b)


def compare(store: Store, label_a: str, label_b: str) -> Comparison:
    ra, rb = label_results(store, label_a), label_results(store, label_b)
    out = Comparison(label_a, label_b)
    for case_id in list(ra) + [c for c in rb if c not in ra]:
        a, b = ra.get(case_id), rb.get(case_id)
        cmp = CaseComparison(case_id, a, b)
        if a is not None and b is not None:
            cmp.answer_changed = not _same_answer(a.answer, b.answer)
            cmp.diverges_at = first_divergence(a.path, b.path)
            cmp.path_changed = cmp.diverges_at is not None
            cmp.errored = b.errored
            cmp.regressed = a.passed is True and b.passed is False and not b.errored
            cmp.fixed = a.passed is False and b.passed is True and not a.errored
        out.cases.append(cmp)
    return out
