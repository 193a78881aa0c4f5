"""Tool schemas, checked once and applied within bounds.

A tool's JSON schema (an MCP server's, a plugin's) is outside input, and jsonschema on its own
would follow it anywhere: fetch a remote ``$ref`` with urllib (outside the network guard, before
any approval), recurse through a ``$ref`` loop until ``RecursionError``, or run a ``pattern`` such
as ``^(a+)+$`` with Python's backtracking ``re`` for minutes. Here:

- ``$ref`` resolves only inside the schema (``#/$defs/…``) and against the bundled meta-schemas:
  the ``referencing`` registry retrieves nothing, so a remote ``$ref`` is an unresolvable one;
- :func:`schema_problem` says why a schema cannot be used at all (not a valid schema, a regex
  RE2 cannot run, ``unevaluatedProperties`` beside ``patternProperties``): its tool is left out
  with a warning (:class:`tui_agent.tools.mcp_registry.RunTools`);
- ``pattern``, ``patternProperties`` and ``additionalProperties`` match with RE2 (google-re2,
  linear in the input), never with ``re``;
- :func:`validate_arguments` counts the keywords it applies (VALIDATION_STEPS at most), and any
  failure of the schema itself (an unresolvable ``$ref``, a ``$ref`` loop, too much work) is the
  call's named error, never an exception.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Iterator

VALIDATION_STEPS = 50_000
"""Schema keywords one validation applies at most: a schema whose ``anyOf``/``$ref`` nesting
multiplies the work (2**30 branches fit in a small schema) ends with a named error instead."""
CACHED_VALIDATORS = 256
"""Compiled validators kept (one per distinct schema)."""

Schema = dict[str, Any]


class SchemaProblem(Exception):
    """A schema that cannot be applied; the message says why."""


class _OverBudget(Exception):
    pass


_budget = threading.local()


def _counted(fn: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        left = getattr(_budget, "left", VALIDATION_STEPS) - 1
        _budget.left = left
        if left < 0:
            raise _OverBudget()
        result = fn(validator, value, instance, schema)
        if result is not None:
            yield from result
    return keyword


def _search(pattern: str, text: str) -> bool:
    return _re2(pattern).search(text) is not None


_compiled_patterns: dict[str, Any] = {}


def _re2(pattern: str) -> Any:
    found = _compiled_patterns.get(pattern)
    if found is None:
        import re2

        if len(_compiled_patterns) > 4 * CACHED_VALIDATORS:
            _compiled_patterns.clear()
        options = re2.Options()
        options.log_errors = False  # RE2 would write to stderr, over the TUI
        found = _compiled_patterns[pattern] = re2.compile(pattern, options)
    return found


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known, patterns = schema.get("properties", {}), list(schema.get("patternProperties", {}))
    extras = [k for k in instance if k not in known and not any(_search(p, k) for p in patterns)]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        names = ", ".join(repr(e) for e in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({names} "
                              f"{'was' if len(extras) == 1 else 'were'} unexpected)")


_validator_class: Any = None


def _bounded_class() -> Any:
    """Draft 2020-12 with RE2 for its regex keywords and every keyword counted."""
    global _validator_class
    if _validator_class is None:
        from jsonschema import Draft202012Validator, validators

        keywords = dict(Draft202012Validator.VALIDATORS)
        keywords |= {"pattern": _pattern, "patternProperties": _pattern_properties,
                     "additionalProperties": _additional_properties}
        _validator_class = validators.extend(Draft202012Validator, {k: _counted(f) for k, f in keywords.items()})
    return _validator_class


def _nothing_remote(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


def _walk(node: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(keyword, value) of every mapping entry in the schema, at any depth."""
    if depth > 200:
        raise SchemaProblem("is nested more than 200 levels deep")
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _walk(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, depth + 1)


def schema_problem(schema: Schema) -> str | None:
    """None when ``schema`` can be applied, else why not (the words after "its input schema")."""
    try:
        _compile(schema)
    except SchemaProblem as exc:
        return str(exc)
    return None


_validators: dict[str, Any] = {}
_lock = threading.Lock()


def _compile(schema: Schema) -> Any:
    key = json.dumps(schema, sort_keys=True, default=str)
    found = _validators.get(key)
    if found is not None:
        return found
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from referencing import Registry

    if not isinstance(schema, dict):
        raise SchemaProblem("is not a JSON object")
    try:
        Draft202012Validator.check_schema(schema)  # against the bundled meta-schema
    except SchemaError as exc:
        raise SchemaProblem(f"is not a valid JSON schema: {exc.message}") from None
    except RecursionError:
        raise SchemaProblem("is nested too deeply to check") from None
    regexes, unevaluated, pattern_properties = [], False, False
    for keyword, value in _walk(schema):
        if keyword == "pattern" and isinstance(value, str):
            regexes.append(value)
        elif keyword == "patternProperties" and isinstance(value, dict):
            regexes += value
            pattern_properties = True
        elif keyword == "unevaluatedProperties":
            unevaluated = True
    if unevaluated and pattern_properties:
        raise SchemaProblem("uses unevaluatedProperties with patternProperties, which is not supported")
    import re2

    for regex in regexes:
        try:
            _re2(regex)
        except re2.error as exc:
            raise SchemaProblem(f"has a pattern {regex[:80]!r} that cannot be run in linear time "
                                f"(RE2: {exc})") from None
    validator = _bounded_class()(schema, registry=Registry(retrieve=_nothing_remote))
    with _lock:
        if len(_validators) >= CACHED_VALIDATORS:
            _validators.clear()
        _validators[key] = validator
    return validator


def validate_arguments(name: str, schema: Schema, arguments: Any) -> str | None:
    """None when ``arguments`` fit the tool's JSON schema, else a message naming each bad field
    and what it expects, followed by the schema; a schema that cannot be applied (see the module)
    gives a message naming why. Never raises, never reads the network."""
    from referencing.exceptions import Unresolvable

    schema = schema or {"type": "object"}
    try:
        validator = _compile(schema)
        _budget.left = VALIDATION_STEPS
        errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    except SchemaProblem as exc:
        return f"The input schema of {name} cannot be applied: it {exc}. The call was not run."
    except Unresolvable as exc:
        ref = str(getattr(exc, "ref", "") or exc)
        ref = "#" + ref if ref.startswith("/") else ref  # a JSON pointer inside the schema
        return (f"The input schema of {name} cannot be applied: its $ref {ref[:200]!r} cannot be resolved "
                "(only $refs inside the schema are followed, nothing is fetched). The call was not run.")
    except RecursionError:
        return (f"The input schema of {name} cannot be applied: its $refs loop (or nest too deeply). "
                "The call was not run.")
    except _OverBudget:
        return (f"The input schema of {name} cannot be applied: checking the arguments took more than "
                f"{VALIDATION_STEPS} steps. The call was not run.")
    except Exception as exc:  # noqa: BLE001 - a schema's failure is the call's error, never a crash
        return f"The input schema of {name} cannot be applied: {type(exc).__name__}: {exc}. The call was not run."
    if not errors:
        return None
    parts = []
    for err in errors[:5]:
        where = ".".join(str(p) for p in err.absolute_path) or "arguments"
        parts.append(f"{where}: {err.message}")
    shown = json.dumps(schema, ensure_ascii=False)
    return f"Invalid arguments for {name}: " + "; ".join(parts) + f". Expected schema: {shown}"
