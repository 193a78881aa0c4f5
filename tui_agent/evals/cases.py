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


def load_cases(path: Path) -> list[Case]:
    """The cases of a set file, or CaseError listing every bad line."""
    from tui_agent.tools.base import validate_arguments

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
        problem = validate_arguments("case", CASE_SCHEMA, obj)
        if problem:
            errors.append(f"line {number}: {problem.split('. Expected schema:')[0].replace('Invalid arguments for case: ', '')}")
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
                        + "\n  ".join(shown) + more)
    return cases
