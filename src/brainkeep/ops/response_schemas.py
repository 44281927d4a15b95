"""The MEMORY_VERBS v1 response-shape registry and the `protocol --json` document.

Input schemas are generated from the live operation catalog; response shapes
cannot be (handlers return plain dicts), so they are written down here once.
`brainkeep protocol --json` publishes them, the conformance runner validates
live responses against them, and our own tests validate our handlers with
them — one registry, three consumers, no drift.

The schemas use the subset `schema_check` understands (type incl. unions and
``integer``, required, properties, enum, const, items). They are non-strict:
unknown extra fields are always legal, because v1 is additive-forever.
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.entity_resolution import VIAS
from brainkeep.core.verbs.common import PROTOCOL_VERSION
from brainkeep.ops.catalog import Catalog

Schema = dict[str, Any]

PROTOCOL_NAME = "MEMORY_VERBS"

# The frozen verb set, in the order the contract lists them.
VERB_NAMES: tuple[str, ...] = (
    "recall",
    "remember",
    "entity",
    "synthesize",
    "forget",
    "context_pack",
    "delta",
)
# Verbs added at v1 after the original five; a target may not advertise them yet.
ADDITIVE_VERBS: frozenset[str] = frozenset({"context_pack", "delta"})

ERROR_CODES: tuple[str, ...] = (
    "invalid_params",
    "provenance_required",
    "not_found",
    "scope_denied",
    "unavailable",
    "budget_unsatisfiable",  # reserved: listed so clients can branch on it, never returned in v1
    "internal",
)
FACT_KINDS: tuple[str, ...] = ("event", "preference", "commitment", "belief", "fact")
EVIDENCE_VALUES: tuple[str, ...] = (
    "alias_hit",
    "exact_title_match",
    "high_vector_match",
    "keyword_exact",
    "weak_semantic",
)
CREATE_SAFETY_VALUES: tuple[str, ...] = ("exists", "probable", "unknown")
REMEMBER_STATUSES: tuple[str, ...] = ("inserted", "duplicate", "superseded")
# brainkeep extension (docs/protocol.md): how `entity` was resolved on remember/recall.
ENTITY_VIAS: tuple[str, ...] = VIAS
THREAD_KINDS: tuple[str, ...] = ("commitment", "recent_event")

VERSIONING_POLICY = (
    "Additive-forever: v1 field names, types and meanings never change; new optional "
    "params, response fields and verbs may appear at any time and clients must ignore "
    "unknown fields; protocol_version increments only on a breaking change, which "
    "would need a MEMORY_VERBS_v2 document."
)


# ── small builders (keep the registry readable) ────────────────────────────


def _t(*types: str) -> Schema:
    return {"type": types[0] if len(types) == 1 else list(types)}


def _enum(values: tuple[str, ...], *, nullable: bool = False) -> Schema:
    return {**(_t("string", "null") if nullable else _t("string")), "enum": list(values)}


def _obj(required: tuple[str, ...], props: dict[str, Schema]) -> Schema:
    return {"type": "object", "required": list(required), "properties": props}


def _arr(items: Schema) -> Schema:
    return {"type": "array", "items": items}


_VERSION: Schema = {"type": "integer", "const": PROTOCOL_VERSION}
_BUDGET: dict[str, Schema] = {
    "budget_tokens": _t("integer"),
    "budget_used": _t("integer"),
    "dropped_count": _t("integer"),
}
_THREAD = _obj(
    ("kind", "text", "date"),
    {"kind": _enum(THREAD_KINDS), "text": _t("string"), "date": _t("string", "null")},
)
_EDGE = _obj(
    ("type", "direction", "slug"),
    {
        "type": _t("string"),
        "direction": _enum(("out", "in")),
        "slug": _t("string"),
        "context": _t("string", "null"),
    },
)
_SUGGESTION = _obj(
    ("slug", "title", "create_safety"),
    {"slug": _t("string"), "title": _t("string"), "create_safety": _enum(CREATE_SAFETY_VALUES)},
)
# An extension of v1 (additive, optional): remember and recall carry it when
# `entity` was given.
_ENTITY_RESOLUTION = _obj(
    ("input", "slug", "via", "candidates"),
    {
        "input": _t("string"),
        "slug": _t("string", "null"),
        "via": _enum(ENTITY_VIAS),
        "candidates": _arr(
            _obj(("slug", "title"), {"slug": _t("string"), "title": _t("string")})
        ),
        "matched": _t("string"),
        "reason": _enum(("leading_part", "typo")),
        "note": _t("string"),
    },
)
_PACKED_FACT = _obj(
    ("fact", "kind"),
    {
        "fact": _t("string"),
        "kind": _enum(FACT_KINDS),
        "entity_slug": _t("string", "null"),
        "valid_from": _t("string"),
        "confidence": _t("number"),
        "fact_id": _t("string"),
        "provenance": _t("string", "null"),
    },
)

RECALL_SCHEMA = _obj(
    ("facts", "total", "protocol_version"),
    {
        "facts": _arr(
            _obj(
                ("id", "fact", "kind", "fact_id", "provenance"),
                {
                    "id": _t("integer"),
                    "fact_id": _t("string"),
                    "fact": _t("string"),
                    "kind": _enum(FACT_KINDS),
                    "entity_slug": _t("string", "null"),
                    "provenance": _t("string"),
                    "valid_until": _t("string", "null"),
                    "visibility": _enum(("private", "world")),
                },
            )
        ),
        "total": _t("integer"),
        "results": _arr(
            _obj(
                ("slug", "title", "evidence", "create_safety", "provenance"),
                {
                    "slug": _t("string"),
                    "title": _t("string", "null"),
                    "chunk": _t("string", "null"),
                    "evidence": _enum(EVIDENCE_VALUES),
                    "create_safety": _enum(CREATE_SAFETY_VALUES),
                    "provenance": _t("string"),
                },
            )
        ),
        "search_degraded": _t("string"),
        "entity_resolution": _ENTITY_RESOLUTION,
        **_BUDGET,
        "protocol_version": _VERSION,
    },
)

REMEMBER_SCHEMA = _obj(
    ("id", "status", "status_text", "entity_slug", "valid_until", "protocol_version"),
    {
        "id": _t("string"),
        "status": _enum(REMEMBER_STATUSES),
        "status_text": _t("string"),
        "entity_slug": _t("string", "null"),
        "valid_until": _t("string", "null"),
        "degraded_dedup": _t("boolean"),
        "entity_resolution": _ENTITY_RESOLUTION,
        # brainkeep extension (docs/security.md): present, true, when held for review.
        "quarantined": _t("boolean"),
        "protocol_version": _VERSION,
    },
)

ENTITY_SCHEMA = _obj(
    ("protocol_version", "found", "latency_ms"),
    {
        "protocol_version": _VERSION,
        "found": _t("boolean"),
        "latency_ms": _t("integer"),
        "card": _obj(
            (
                "entity",
                "aka",
                "summary",
                "last_touched",
                "open_threads",
                "edges",
                "backlink_count",
                "active_fact_count",
            ),
            {
                "entity": _obj(
                    ("slug", "title", "type"),
                    {"slug": _t("string"), "title": _t("string"), "type": _t("string", "null")},
                ),
                "aka": _arr(_t("string")),
                "summary": _t("string"),
                "last_touched": _obj(
                    ("updated_at", "last_retrieved_at", "last_timeline_date"),
                    {
                        "updated_at": _t("string", "null"),
                        "last_retrieved_at": _t("string", "null"),
                        "last_timeline_date": _t("string", "null"),
                    },
                ),
                "open_threads": _arr(_THREAD),
                "edges": _arr(_EDGE),
                "backlink_count": _t("integer"),
                "active_fact_count": _t("integer"),
            },
        ),
        "suggestions": _arr(_SUGGESTION),
    },
)

SYNTHESIZE_SCHEMA = _obj(
    ("answer", "sources", "cost", "protocol_version"),
    {
        "answer": _t("string"),
        "sources": _arr(_t("string")),
        "gaps": _arr(_t("string")),
        "cost": _obj(
            ("model", "input_tokens", "output_tokens", "usd_estimate"),
            {
                "model": _t("string"),
                "input_tokens": _t("integer", "null"),
                "output_tokens": _t("integer", "null"),
                "usd_estimate": _t("number", "null"),
            },
        ),
        "protocol_version": _VERSION,
    },
)

FORGET_SCHEMA = _obj(
    ("id", "expired", "reason", "protocol_version"),
    {
        "id": _t("string"),
        "expired": _t("boolean"),
        "reason": _t("string", "null"),
        "protocol_version": _VERSION,
        # brainkeep extension: forget with `redact` (docs/audit.md, "Forgetting").
        "redacted": _t("boolean"),
        "receipt": {"type": ["object", "null"]},
    },
)

CONTEXT_PACK_SCHEMA = _obj(
    ("protocol_version", "entities", "cards", "open_threads", "facts"),
    {
        "protocol_version": _VERSION,
        "entities": _arr(_t("string")),
        "cards": _arr(
            _obj(
                ("slug", "title", "summary", "open_threads"),
                {
                    "slug": _t("string"),
                    "title": _t("string"),
                    "type": _t("string", "null"),
                    "summary": _t("string"),
                    "open_threads": _arr(_THREAD),
                    "edges": _arr(_EDGE),
                    "backlink_count": _t("integer"),
                },
            )
        ),
        "open_threads": _arr(_THREAD),
        "facts": _arr(_PACKED_FACT),
        "text": _t("string"),
        "degraded_reason": _t("string"),
        **_BUDGET,
        # brainkeep extension: `orientation_namespace` (docs/protocol.md).
        "orientation": _obj(
            ("namespace", "entities", "constants", "schemas", "token_estimate", "budget",
             "hit_count"),
            {
                "namespace": _t("string"),
                **{kind: _arr(_obj(("key", "value", "freq", "token_estimate"), {
                    "key": _t("string"), "value": _t("string"), "freq": _t("integer"),
                    "token_estimate": _t("integer")}))
                   for kind in ("entities", "constants", "schemas")},
                "token_estimate": _t("integer"),
                "budget": _t("integer"),
                "hit_count": _t("integer"),
            },
        ),
    },
)

DELTA_SCHEMA = _obj(
    ("protocol_version", "since", "pages", "facts", "threads"),
    {
        "protocol_version": _VERSION,
        "since": _t("string"),
        "pages": _arr(
            _obj(
                ("slug", "title", "updated_at"),
                {
                    "slug": _t("string"),
                    "source_id": _t("string"),
                    "title": _t("string"),
                    "updated_at": _t("string"),
                },
            )
        ),
        "facts": _arr(_PACKED_FACT),
        "threads": _arr(_THREAD),
        "text": _t("string"),
        "has_more": _t("boolean"),
        "next_cursor": _obj(("since", "slug"), {"since": _t("string"), "slug": _t("string")}),
        "degraded_reason": _t("string"),
        **_BUDGET,
    },
)

ERROR_SCHEMA = _obj(
    ("error", "message"),
    {
        "error": _enum(ERROR_CODES),
        "message": _t("string"),
        "suggestion": _t("string"),
        "detail": _t("string"),
        "protocol_version": _VERSION,
    },
)

RESPONSE_SCHEMAS: dict[str, Schema] = {
    "recall": RECALL_SCHEMA,
    "remember": REMEMBER_SCHEMA,
    "entity": ENTITY_SCHEMA,
    "synthesize": SYNTHESIZE_SCHEMA,
    "forget": FORGET_SCHEMA,
    "context_pack": CONTEXT_PACK_SCHEMA,
    "delta": DELTA_SCHEMA,
}
# brainkeep extension (docs/security.md): every read marks its text as data.
CONTENT_ORIGIN_SCHEMA = _obj(
    ("kind", "source", "instructions", "notice"),
    {"kind": _t("string"), "source": _t("string"), "instructions": {"const": False},
     "notice": _t("string")},
)
for _verb in ("recall", "entity", "synthesize", "context_pack", "delta"):
    RESPONSE_SCHEMAS[_verb]["properties"]["content_origin"] = CONTENT_ORIGIN_SCHEMA


def protocol_document(catalog: Catalog) -> dict[str, Any]:
    """The machine-readable protocol description (`brainkeep protocol --json`).

    Description, input schema and annotations are read from the catalog's
    tool definitions — exactly what `tools/list` advertises — so the document
    cannot drift from the server. Response shapes come from the registry.

    Raises:
        ValueError: a catalog verb has no registered response schema (a
            programming error that the drift tests catch).
    """
    verbs: dict[str, Any] = {}
    for op in catalog.verbs:
        if op.name not in RESPONSE_SCHEMAS:
            raise ValueError(f"verb {op.name!r} has no response schema in the registry")
        tool = op.tool_definition()
        entry: dict[str, Any] = {
            "description": tool["description"],
            "input_schema": tool["inputSchema"],
        }
        if "annotations" in tool:
            entry["annotations"] = tool["annotations"]
        entry["response_schema"] = RESPONSE_SCHEMAS[op.name]
        verbs[op.name] = entry
    return {
        "protocol": PROTOCOL_NAME,
        "protocol_version": PROTOCOL_VERSION,
        "versioning_policy": VERSIONING_POLICY,
        "verbs": verbs,
        "error_schema": ERROR_SCHEMA,
    }
