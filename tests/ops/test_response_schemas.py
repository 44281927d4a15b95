"""The response-shape registry and the `protocol --json` document."""

from __future__ import annotations

import json
from typing import Any

import pytest

from brainkeep.ops.catalog import Catalog, Operation, Param
from brainkeep.ops.registry import VERB_NAMES as CATALOG_VERB_NAMES
from brainkeep.ops.registry import build_catalog
from brainkeep.ops.response_schemas import (
    ERROR_CODES,
    ERROR_SCHEMA,
    RESPONSE_SCHEMAS,
    VERB_NAMES,
    protocol_document,
)
from brainkeep.ops.schema_check import validate


def _handler(ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
    return {}


def _op(name: str, *, verb: bool = True, annotations: dict[str, Any] | None = None) -> Operation:
    return Operation(
        name=name,
        description=f"{name}. Second sentence.",
        params=(Param("q", "string", "a query", required=True), Param("n", "number", "a cap")),
        scope="read",
        handler=_handler,
        verb=verb,
        annotations=annotations or {},
    )


def test_registry_covers_exactly_the_seven_verbs() -> None:
    assert tuple(RESPONSE_SCHEMAS) == VERB_NAMES
    assert VERB_NAMES == CATALOG_VERB_NAMES


def test_every_response_schema_pins_protocol_version() -> None:
    for verb, schema in RESPONSE_SCHEMAS.items():
        assert "protocol_version" in schema["required"], verb
        assert schema["properties"]["protocol_version"] == {"type": "integer", "const": 1}


def test_error_schema_lists_the_seven_codes() -> None:
    assert ERROR_SCHEMA["properties"]["error"]["enum"] == list(ERROR_CODES)
    assert set(ERROR_CODES) == {
        "invalid_params", "provenance_required", "not_found", "scope_denied",
        "unavailable", "budget_unsatisfiable", "internal",
    }
    assert ERROR_SCHEMA["required"] == ["error", "message"]


def test_document_from_a_small_catalog() -> None:
    catalog = Catalog((
        _op("recall", annotations={"readOnlyHint": True}),
        _op("forget"),
        _op("put_page", verb=False),
    ))
    doc = protocol_document(catalog)
    assert doc["protocol"] == "MEMORY_VERBS"
    assert doc["protocol_version"] == 1
    assert "additive" in doc["versioning_policy"].lower()
    assert list(doc["verbs"]) == ["recall", "forget"]  # page ops are not verbs
    recall = doc["verbs"]["recall"]
    assert recall["input_schema"] == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "a query"},
            "n": {"type": "number", "description": "a cap"},
        },
        "required": ["q"],
    }
    assert recall["annotations"] == {"readOnlyHint": True}
    assert "annotations" not in doc["verbs"]["forget"]
    assert recall["response_schema"] is RESPONSE_SCHEMAS["recall"]
    assert doc["error_schema"] is ERROR_SCHEMA
    json.dumps(doc)  # serializable as-is


def test_a_verb_without_a_registered_schema_is_a_loud_error() -> None:
    with pytest.raises(ValueError, match="no response schema"):
        protocol_document(Catalog((_op("teleport"),)))


def test_live_catalog_document_matches_the_advertised_tools() -> None:
    catalog = build_catalog()
    doc = protocol_document(catalog)
    assert list(doc["verbs"]) == list(VERB_NAMES)
    for op in catalog.verbs:
        tool = op.tool_definition()
        entry = doc["verbs"][op.name]
        assert entry["description"] == tool["description"]
        assert entry["input_schema"] == tool["inputSchema"]
        assert entry.get("annotations") == tool.get("annotations")


# ── the registry accepts contract-shaped payloads and rejects lies ──────────

GOOD: dict[str, dict[str, Any]] = {
    "recall": {
        "facts": [{
            "id": 3, "fact_id": "3", "fact": "x", "kind": "fact", "entity_slug": None,
            "visibility": "world", "valid_until": None, "provenance": "chat", "source": "chat",
        }],
        "total": 1,
        "results": [{"slug": "a", "title": None, "chunk": None, "evidence": "keyword_exact",
                     "create_safety": "probable", "provenance": "a"}],
        "search_degraded": "keyword_only_no_embedding_provider",
        "budget_tokens": 10, "budget_used": 2, "dropped_count": 0,
        "protocol_version": 1,
    },
    "remember": {"id": "3", "status": "inserted", "status_text": "remembered as fact #3",
                 "entity_slug": None, "valid_until": None, "degraded_dedup": True,
                 "protocol_version": 1},
    "entity": {
        "protocol_version": 1, "found": True, "latency_ms": 2,
        "card": {
            "entity": {"slug": "people/a", "title": "A", "type": None},
            "aka": ["ay"], "summary": "",
            "last_touched": {"updated_at": "2026-01-01T00:00:00.000Z", "last_retrieved_at": None,
                             "last_timeline_date": None},
            "open_threads": [{"kind": "commitment", "text": "t", "date": None}],
            "edges": [{"type": "works_at", "direction": "out", "slug": "companies/b",
                       "context": None}],
            "backlink_count": 0, "active_fact_count": 1,
        },
        "suggestions": [{"slug": "people/ab", "title": "Ab", "create_safety": "exists"}],
    },
    "synthesize": {"answer": "a", "sources": ["p"], "gaps": [],
                   "cost": {"model": "m", "input_tokens": None, "output_tokens": None,
                            "usd_estimate": None},
                   "protocol_version": 1},
    "forget": {"id": "3", "expired": True, "reason": None, "protocol_version": 1},
    "context_pack": {"protocol_version": 1, "entities": ["a"], "cards": [], "open_threads": [],
                     "facts": [{"fact": "x", "kind": "event", "entity_slug": None,
                                "valid_from": "2026-01-01T00:00:00.000Z", "confidence": 1,
                                "fact_id": "1", "provenance": None}],
                     "text": ""},
    "delta": {"protocol_version": 1, "since": "1970-01-01T00:00:00.000Z",
              "pages": [{"slug": "a", "source_id": "default", "title": "A",
                         "updated_at": "2026-01-01T00:00:00.000000Z"}],
              "facts": [], "threads": [], "text": "", "has_more": False,
              "next_cursor": {"since": "2026-01-01T00:00:00.000000Z", "slug": "a"}},
}


@pytest.mark.parametrize("verb", VERB_NAMES)
def test_contract_shaped_payloads_are_valid(verb: str) -> None:
    assert validate(GOOD[verb], RESPONSE_SCHEMAS[verb]) == []


@pytest.mark.parametrize(
    ("verb", "mutate", "problem"),
    [
        ("remember", lambda d: d.pop("status"), "$: missing required field 'status'"),
        ("remember", lambda d: d.update(status="absorbed"), "$.status: 'absorbed' is not one of"),
        ("remember", lambda d: d.update(id=3), "$.id: expected string, got integer"),
        ("recall", lambda d: d["facts"][0].update(fact_id=3),
         "$.facts[0].fact_id: expected string, got integer"),
        ("recall", lambda d: d["results"][0].update(evidence="vibes"),
         "$.results[0].evidence: 'vibes' is not one of"),
        ("entity", lambda d: d["card"]["edges"][0].update(direction="sideways"),
         "$.card.edges[0].direction: 'sideways' is not one of"),
        ("forget", lambda d: d.update(protocol_version=2),
         "$.protocol_version: expected constant 1"),
        ("delta", lambda d: d["next_cursor"].pop("slug"),
         "$.next_cursor: missing required field 'slug'"),
    ],
)
def test_lies_are_caught(verb: str, mutate: Any, problem: str) -> None:
    payload = json.loads(json.dumps(GOOD[verb]))
    mutate(payload)
    problems = validate(payload, RESPONSE_SCHEMAS[verb])
    assert any(p.startswith(problem) for p in problems), problems


def test_error_envelope_shape() -> None:
    envelope = {"error": "not_found", "message": "m", "suggestion": "s", "protocol_version": 1}
    assert validate(envelope, ERROR_SCHEMA) == []
    assert validate({**envelope, "error": "oops"}, ERROR_SCHEMA) != []
    assert validate({"error": "internal"}, ERROR_SCHEMA) == ["$: missing required field 'message'"]
