"""Tool schemas are applied within bounds (tools.schema_check): what each hostile schema gives."""

from __future__ import annotations

import subprocess
import sys

from tui_agent.tools.schema_check import schema_problem, validate_arguments

HOSTILE_KEYS = """
from tui_agent.tools.schema_check import validate_arguments
evil = "^(a+)+$"
key = "a" * 40 + "!"
print(validate_arguments("t", {"type": "object", "patternProperties": {evil: {}}, "additionalProperties": False},
                         {key: 1}))
print(validate_arguments("t", {"type": "object", "propertyNames": {"pattern": evil}}, {key: 1}))
"""


def test_a_catastrophic_pattern_on_property_names_is_checked_at_once():
    # patternProperties, additionalProperties and propertyNames all match keys with RE2; run apart,
    # so a regression ends in the timeout instead of holding the test run for hours.
    try:
        proc = subprocess.run([sys.executable, "-c", HOSTILE_KEYS], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("matching property names took over 60 s") from None
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert "Additional properties are not allowed" in first and "does not match '^(a+)+$'" in second


def test_a_schema_whose_branches_multiply_ends_with_a_named_error():
    defs = {f"n{i}": {"anyOf": [{"$ref": f"#/$defs/n{i + 1}"}, {"$ref": f"#/$defs/n{i + 1}"}]} for i in range(40)}
    defs["n40"] = {"type": "string"}
    said = validate_arguments("t", {"$defs": defs, "$ref": "#/$defs/n0"}, 5)
    assert said is not None and "cannot be applied" in said and "steps" in said


def test_schemas_that_cannot_be_applied_say_why_and_good_ones_still_validate():
    assert "not a valid JSON schema" in schema_problem({"type": "strung"})
    assert "cannot be run in linear time" in schema_problem({"properties": {"s": {"pattern": "(?<=a)b"}}})
    assert schema_problem({"type": "object", "$defs": {"i": {"type": "integer"}},
                           "properties": {"n": {"$ref": "#/$defs/i"}}}) is None
    said = validate_arguments("t", {"type": "object", "$defs": {"i": {"type": "integer"}},
                                    "properties": {"n": {"$ref": "#/$defs/i"}}}, {"n": "x"})
    assert said.startswith("Invalid arguments for t: n: 'x' is not of type 'integer'")
    assert validate_arguments("t", {"type": "object", "properties": {"s": {"pattern": "^a+$"}}}, {"s": "aaa"}) is None
