"""A small JSON-Schema-subset validator for MEMORY_VERBS response shapes.

Supported keywords: ``type`` (a name or a list of names, including
``integer`` and ``null``), ``required``, ``properties``, ``enum``, ``const``
and ``items``. Anything else in a schema is ignored.

It is deliberately NON-STRICT about extra fields: the protocol is
additive-forever, so a server may always return fields this version does not
know. The conformance runner and our own tests share it, which keeps "what
the registry says" and "what conformance checks" one thing.

Problems are reported as ``$.path: problem`` strings, e.g.
``$.facts[0].fact_id: expected string, got integer``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["json_equal", "json_type_name", "matches_type", "validate"]


def json_type_name(value: Any) -> str:
    """The JSON type name of a decoded JSON value (``integer`` for whole ints)."""
    # bool is a subclass of int in Python; JSON keeps them apart.
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def matches_type(value: Any, type_name: str) -> bool:
    """Whether ``value`` is an instance of the JSON-schema type ``type_name``."""
    actual = json_type_name(value)
    if type_name == "number":
        return actual in ("integer", "number")
    if type_name == "integer":
        # JSON has one number type; 3.0 is an integer in JSON Schema's sense.
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == type_name


def json_equal(left: Any, right: Any) -> bool:
    """Strict JSON equality: ``True`` is not ``1`` and ``1`` is not ``"1"``."""
    left_type, right_type = json_type_name(left), json_type_name(right)
    numeric = ("integer", "number")
    if left_type != right_type and not (left_type in numeric and right_type in numeric):
        return False
    if left_type == "array":
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if left_type == "object":
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return bool(left == right)


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Check ``value`` against ``schema``; return every problem found (empty = valid).

    Args:
        value: A decoded JSON value.
        schema: A schema using the supported subset of keywords.
        path: The JSONPath-like location of ``value``, used in messages.

    Returns:
        Problems as ``"$.path: problem"`` strings, in document order.
    """
    problems: list[str] = []
    _check(value, schema, path, problems)
    return problems


def _check(value: Any, schema: dict[str, Any], path: str, problems: list[str]) -> None:
    declared = schema.get("type")
    if declared is not None:
        names = [declared] if isinstance(declared, str) else list(declared)
        if not any(matches_type(value, name) for name in names):
            problems.append(f"{path}: expected {' | '.join(names)}, got {json_type_name(value)}")
            # A wrong-typed node has no meaningful children to inspect.
            return

    if "const" in schema and not json_equal(value, schema["const"]):
        problems.append(f"{path}: expected constant {schema['const']!r}, got {value!r}")

    # null is governed by the type union (e.g. "string | null"), not by the enum.
    if "enum" in schema and value is not None:
        if not any(json_equal(value, option) for option in schema["enum"]):
            allowed = ", ".join(repr(option) for option in schema["enum"])
            problems.append(f"{path}: {value!r} is not one of {allowed}")

    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                problems.append(f"{path}: missing required field {key!r}")
        for key, child in schema.get("properties", {}).items():
            if key in value:
                _check(value[key], child, f"{path}.{key}", problems)

    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", problems)
