"""Placeholder substitution, dot paths and the expect checks."""

from __future__ import annotations

from typing import Any

import pytest

from brainkeep.conformance.expect import check_expectation, lookup, substitute


def test_substitute_marker_and_ids_recursively() -> None:
    params = {
        "fact": "conformance {{marker}} fact",
        "nested": [{"id": "{{id:fact1}}"}, "{{id:nope}}", 3, None],
        "budget_tokens": 10,
    }
    out = substitute(params, "run-abc", {"fact1": "42"})
    assert out == {
        "fact": "conformance run-abc fact",
        "nested": [{"id": "42"}, "MISSING-ID-nope", 3, None],
        "budget_tokens": 10,
    }
    assert params["fact"] == "conformance {{marker}} fact"  # input untouched


def test_lookup_dot_paths_and_indexes() -> None:
    doc = {"facts": [{"fact_id": "1"}], "card": {"entity": {"slug": "a"}}, "n": None}
    assert lookup(doc, "facts.0.fact_id") == (True, "1")
    assert lookup(doc, "card.entity.slug") == (True, "a")
    assert lookup(doc, "n") == (True, None)
    assert lookup(doc, "facts.1.fact_id") == (False, None)
    assert lookup(doc, "facts.x") == (False, None)
    assert lookup(doc, "card.entity.slug.deeper") == (False, None)


DOC: dict[str, Any] = {
    "id": "7", "n": 5, "flag": True, "items": [], "card": {"open_threads": [{"text": "ok"}]},
}


@pytest.mark.parametrize(
    ("check", "ok"),
    [
        ({"path": "id", "equals": "7"}, True),
        ({"path": "id", "equals": 7}, False),
        ({"path": "flag", "equals": 1}, False),
        ({"path": "n", "oneOf": [4, 5]}, True),
        ({"path": "n", "oneOf": ["5"]}, False),
        ({"path": "id", "type": "string"}, True),
        ({"path": "n", "type": "number"}, True),
        ({"path": "flag", "type": "number"}, False),
        ({"path": "items", "type": "array"}, True),
        ({"path": "card", "type": "object"}, True),
        ({"path": "n", "gte": 5}, True),
        ({"path": "n", "gte": 6}, False),
        ({"path": "id", "gte": 0}, False),
        ({"path": "n", "lte": 5}, True),
        ({"path": "n", "lte": 4}, False),
        ({"path": "id", "nonEmptyString": True}, True),
        ({"path": "n", "nonEmptyString": True}, False),
        ({"path": "missing", "type": "string"}, False),
        ({"path": "missing", "absentOrNotContains": "SECRET"}, True),
        ({"path": "card.open_threads", "absentOrNotContains": "SECRET"}, True),
        ({"path": "card.open_threads", "absentOrNotContains": "ok"}, False),
    ],
)
def test_checks(check: dict[str, Any], ok: bool) -> None:
    message = check_expectation(DOC, check)
    assert (message is None) is ok, message
    if not ok:
        assert message is not None and message.startswith(check["path"])
