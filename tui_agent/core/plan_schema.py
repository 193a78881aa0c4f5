"""The research plan: one JSON schema (the model's reply and a person's edited JSON are both
checked against it), its dataclasses, and the lenient reading of a model's reply (fenced or bare,
JSON5, a missing ``domains`` or ``budget`` tolerated)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tui_agent.model.jsonreply import json_object

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sub_questions": {
            "type": "array", "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "minLength": 1},
                    "acceptance": {"type": "string"},
                    "queries": {"type": "array", "items": {"type": "string", "minLength": 1}},
                },
                "required": ["question"],
            },
        },
        "domains": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "budget": {
            "type": "object",
            "properties": {
                "max_calls": {"type": "integer", "exclusiveMinimum": 0},
                "max_minutes": {"type": "number", "exclusiveMinimum": 0},
                "budget_usd": {"type": "number", "exclusiveMinimum": 0},
            },
        },
    },
    "required": ["sub_questions"],
}


@dataclass
class SubQuestion:
    question: str
    acceptance: str = ""
    queries: list[str] = field(default_factory=list)


@dataclass
class PlanBudget:
    max_calls: int | None = None
    max_minutes: float | None = None
    budget_usd: float | None = None


@dataclass
class Plan:
    sub_questions: list[SubQuestion]
    domains: list[str] = field(default_factory=list)
    budget: PlanBudget = field(default_factory=PlanBudget)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["budget"] = {k: v for k, v in d["budget"].items() if v is not None}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Plan":
        """A plan from a dict that passed :func:`check` (or a stored one)."""
        budget = d.get("budget") or {}
        return cls(
            sub_questions=[SubQuestion(str(q["question"]).strip(), str(q.get("acceptance") or "").strip(),
                                       [str(x).strip() for x in q.get("queries") or [] if str(x).strip()])
                           for q in d.get("sub_questions") or []],
            domains=[_domain(x) for x in d.get("domains") or [] if _domain(x)],
            budget=PlanBudget(budget.get("max_calls"), budget.get("max_minutes"), budget.get("budget_usd")),
        )

    @property
    def queries(self) -> list[str]:
        return [q for sq in self.sub_questions for q in sq.queries]


def _domain(text: Any) -> str:
    """``https://www.Example.org/x`` → ``example.org`` (:func:`tui_agent.web.domains.normalise`)."""
    from tui_agent.web.domains import normalise

    return normalise(text)


def check(obj: Any) -> str | None:
    """What is wrong with ``obj`` as a plan (None: nothing), naming the field."""
    import jsonschema

    if not isinstance(obj, dict):
        return "the plan must be a JSON object with sub_questions"
    errors = sorted(jsonschema.Draft202012Validator(PLAN_SCHEMA).iter_errors(obj), key=lambda e: list(e.path))
    if not errors:
        return _domains_problem(obj.get("domains") or [])
    err = errors[0]
    where = ".".join(str(p) for p in err.absolute_path) or "the plan"
    return f"{where}: {err.message}"


def _domains_problem(domains: list[Any]) -> str | None:
    """The first domain that cannot be a plan domain (an IP address, a public suffix alone), named."""
    from tui_agent.web.domains import problem

    for i, d in enumerate(domains):
        reason = problem(_domain(d))
        if reason:
            return f"domains.{i}: {reason}"
    return None


def normalise(obj: dict[str, Any]) -> dict[str, Any]:
    """Tolerate the usual slips before checking: sub-question keys in another case, a query as a
    string, ``budget``/``domains`` given as null."""
    out = dict(obj)
    if out.get("domains") is None:
        out.pop("domains", None)
    if out.get("budget") is None:
        out.pop("budget", None)
    subs = out.get("sub_questions")
    if isinstance(subs, list):
        fixed = []
        for sq in subs:
            if isinstance(sq, str):
                sq = {"question": sq}
            if isinstance(sq, dict):
                sq = {str(k).strip().lower(): v for k, v in sq.items()}
                if isinstance(sq.get("queries"), str):
                    sq["queries"] = [sq["queries"]]
            fixed.append(sq)
        out["sub_questions"] = fixed
    return out


def read_plan(raw: str) -> tuple[Plan | None, str]:
    """The plan in a model's reply, and "" — or None and what is wrong with the reply."""
    obj = json_object(raw)
    if obj is None:
        return None, "the reply holds no JSON object"
    obj = normalise(obj)
    error = check(obj)
    if error:
        return None, error
    return Plan.from_dict(obj), ""


def parse_edited(text: str) -> tuple[Plan | None, str]:
    """A person's edited JSON (strict JSON or JSON5), checked against the same schema."""
    import json

    try:
        obj = json.loads(text)
    except ValueError:
        try:
            import json5

            obj = json5.loads(text)
        except Exception as exc:  # noqa: BLE001 - json5 raises ValueError or its own errors
            return None, f"not valid JSON: {exc}"
    return checked_plan(obj)


def checked_plan(obj: dict) -> tuple[Plan | None, str]:
    """The plan ``obj`` holds, or None and what is wrong with it (its shape, or a sub-question left
    incomplete): what the model's reply and the plan editor's fields both go through."""
    error = check(obj)
    if error:
        return None, error
    plan = Plan.from_dict(obj)
    missing = incomplete(plan)
    return (None, missing) if missing else (plan, "")


def incomplete(plan: Plan) -> str | None:
    """What a person's plan lacks that every sub-question has (an acceptance: what counts as
    answered, and the queries that search for it), naming the sub-question; None when nothing.
    A model's plan is read leniently (:func:`read_plan`); a person's edit is held to this."""
    for i, sq in enumerate(plan.sub_questions):
        missing = [what for what, given in (("an acceptance (what counts as answered)", sq.acceptance),
                                            ("at least one search query", sq.queries)) if not given]
        if missing:
            return f'sub_questions.{i}: "{sq.question}" needs {" and ".join(missing)}'
    return None
