"""A regression set: one case a line of JSONL, ``{"id": str, "question": str, "expect": [regex, …]}``.

``expect`` is optional; a case passes when every pattern is found in its answer (``re.search``,
case-insensitive, ``.`` matching newlines), and has no verdict without patterns. Every line is
checked (JSON, the schema, unique ids, patterns that compile) before anything runs; the errors
name their line numbers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# The schema of one line (jsonschema checks it; the messages name the field).
CASE_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "question": {"type": "string", "minLength": 1},
        "expect": {"type": "array", "items": {"type": "string", "minLength": 1}},
    },
    "required": ["id", "question"],
    "additionalProperties": False,
}
PATTERN_FLAGS = re.IGNORECASE | re.DOTALL
# Shown under the errors: what a good line looks like.
EXAMPLE_LINE = '{"id": "capital-fr", "question": "What is the capital of France?", "expect": ["Paris"]}'
FIELD_HELP = {
    "id": "a short name for the case, unique in the set",
    "question": "the question to research",
    "expect": "a list of regular expressions the answer must match",
}
# At most this many problems are listed (a set with a broken format would list every line).
MAX_REPORTED_ERRORS = 20


class CaseError(ValueError):
    """The set cannot be run; the message lists each bad line by number."""


@dataclass
class Case:
    id: str
    question: str
    expect: list[str] = field(default_factory=list)
    line: int = 0

    def passed(self, answer: str | None) -> bool | None:
        """True when every pattern is in the answer; None when the case expects nothing."""
        if not self.expect:
            return None
        return answer is not None and all(re.search(p, answer, PATTERN_FLAGS) for p in self.expect)


def _schema_problems(obj: object) -> list[str]:
    """What is wrong with one parsed line, in words: the missing field, the unknown key, the
    wrong type, each with what the field is for."""
    import jsonschema

    if not isinstance(obj, dict):
        return [f"a case is a JSON object, not {type(obj).__name__ if obj is not None else 'null'}"]
    problems = []
    for err in jsonschema.Draft202012Validator(CASE_SCHEMA).iter_errors(obj):
        path = list(err.absolute_path)
        key = str(path[0]) if path else ""
        match err.validator:
            case "required":
                missing = [k for k in CASE_SCHEMA["required"] if k not in obj]
                problems += [f'"{k}" is missing ({FIELD_HELP[k]})' for k in missing]
            case "additionalProperties":
                extra = sorted(k for k in obj if k not in CASE_SCHEMA["properties"])
                problems += [f'unknown key "{k}" (a case has: {", ".join(CASE_SCHEMA["properties"])})' for k in extra]
            case "minLength" if len(path) == 1:
                problems.append(f'"{key}" is empty ({FIELD_HELP[key]})')
            case "minLength":
                problems.append(f'"{key}" item {int(path[1]) + 1} is an empty pattern')
            case "type" if len(path) == 1:
                problems.append(f'"{key}" must be {"a list of strings" if key == "expect" else "a string"}, not '
                                f"{json.dumps(err.instance, ensure_ascii=False)[:60]}")
            case "type":
                problems.append(f'"{key}" item {int(path[1]) + 1} must be a string, not '
                                f"{json.dumps(err.instance, ensure_ascii=False)[:60]}")
            case _:
                problems.append(f"{'.'.join(map(str, path)) or 'the line'}: {err.message}")
    return list(dict.fromkeys(problems))


def load_cases(path: Path) -> list[Case]:
    """The cases of a set file, or CaseError listing every bad line by file and number, with an
    example of a good line."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError(f"{path}: cannot be read: {exc}") from None
    cases: list[Case] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            errors.append(f"line {number}: not valid JSON ({exc})")
            continue
        problems = _schema_problems(obj)
        if problems:
            errors.append(f"line {number}: " + "; ".join(problems))
            continue
        if obj["id"] in seen:
            errors.append(f"line {number}: the id {obj['id']!r} is already used on line {seen[obj['id']]}")
            continue
        seen[obj["id"]] = number
        for pattern in obj.get("expect", []):
            try:
                re.compile(pattern, PATTERN_FLAGS)
            except re.error as exc:
                errors.append(f"line {number}: expect pattern {pattern!r} is not a valid regular expression ({exc})")
        cases.append(Case(obj["id"], obj["question"], list(obj.get("expect", [])), number))
    if not cases and not errors:
        errors.append("the set has no cases")
    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        more = f"\n  … and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        raise CaseError(f"{path}: {len(errors)} bad line{'s' if len(errors) != 1 else ''}, nothing was run:\n  "
                        + "\n  ".join(f"{path} {e}" for e in shown) + more
                        + f"\n(one case a line, e.g. {EXAMPLE_LINE})")
    return cases
