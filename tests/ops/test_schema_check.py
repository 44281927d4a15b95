"""The JSON-Schema-subset validator shared by conformance and our tests."""

from __future__ import annotations

import pytest

from brainkeep.ops.schema_check import json_equal, matches_type, validate

FACT = {
    "type": "object",
    "required": ["id", "kind"],
    "properties": {
        "id": {"type": "string"},
        "kind": {"type": "string", "enum": ["fact", "event"]},
        "until": {"type": ["string", "null"]},
        "v": {"type": "integer", "const": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_valid_document_has_no_problems() -> None:
    doc = {"id": "1", "kind": "fact", "until": None, "v": 1, "tags": ["a"]}
    assert validate(doc, FACT) == []


def test_extra_fields_are_legal() -> None:
    assert validate({"id": "1", "kind": "fact", "later_addition": {"x": 1}}, FACT) == []


def test_missing_required_field_is_reported_with_path() -> None:
    assert validate({"id": "1"}, FACT) == ["$: missing required field 'kind'"]


def test_wrong_type_reports_json_type_names() -> None:
    assert validate({"id": 7, "kind": "fact"}, FACT) == ["$.id: expected string, got integer"]


def test_type_union_accepts_each_member() -> None:
    assert validate({"id": "1", "kind": "fact", "until": "2026-01-01"}, FACT) == []
    assert validate({"id": "1", "kind": "fact", "until": 3}, FACT) == [
        "$.until: expected string | null, got integer"
    ]


def test_enum_rejects_unknown_value_but_not_null() -> None:
    problems = validate({"id": "1", "kind": "absorbed"}, FACT)
    assert problems == ["$.kind: 'absorbed' is not one of 'fact', 'event'"]
    nullable = {"type": ["string", "null"], "enum": ["a"]}
    assert validate(None, nullable) == []


def test_const_is_strict_about_booleans() -> None:
    # True == 1 in Python; a JSON validator must not accept it for const 1.
    assert validate({"id": "1", "kind": "fact", "v": True}, FACT) == [
        "$.v: expected integer, got boolean"
    ]
    assert validate(2, {"const": 1}) == ["$: expected constant 1, got 2"]


def test_items_are_validated_individually_with_index_paths() -> None:
    problems = validate({"id": "1", "kind": "fact", "tags": ["a", 2, "c", None]}, FACT)
    assert problems == ["$.tags[1]: expected string, got integer",
                        "$.tags[3]: expected string, got null"]


def test_type_mismatch_stops_deeper_checks() -> None:
    assert validate("not an object", FACT) == ["$: expected object, got string"]


def test_nested_paths() -> None:
    schema = {"type": "object", "properties": {"card": {"type": "object", "required": ["slug"]}}}
    assert validate({"card": {}}, schema) == ["$.card: missing required field 'slug'"]


@pytest.mark.parametrize(
    ("value", "type_name", "expected"),
    [
        (1, "integer", True),
        (1.0, "integer", True),
        (1.5, "integer", False),
        (True, "integer", False),
        (True, "number", False),
        (2.5, "number", True),
        (None, "null", True),
        ([], "array", True),
        ({}, "object", True),
        ("x", "string", True),
        (False, "boolean", True),
    ],
)
def test_matches_type(value: object, type_name: str, expected: bool) -> None:
    assert matches_type(value, type_name) is expected


def test_json_equal_is_strict() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert not json_equal("1", 1)
    assert json_equal({"a": [1, None]}, {"a": [1, None]})
    assert not json_equal({"a": [1]}, {"a": [1, 2]})
