"""Wire shapes of facts shared by several verbs."""

from __future__ import annotations

from typing import Any

from brainkeep.core.models import Memory


def fact_object(memory: Memory) -> dict[str, Any]:
    """A recall fact: every legacy field (frozen), then `fact_id` and `provenance`."""
    return {
        "id": memory.id,
        "fact": memory.text,
        "kind": memory.kind,
        "entity_slug": memory.entity_slug,
        "visibility": memory.visibility,
        "notability": "medium",
        "valid_from": memory.valid_from or memory.created_at,
        "valid_until": memory.valid_until,
        "expired_at": memory.expired_at,
        "superseded_by": memory.superseded_by,
        "consolidated_at": None,
        "consolidated_into": None,
        "source": memory.provenance or "",
        "source_session": memory.session_id,
        "confidence": memory.confidence if memory.confidence is not None else 1.0,
        "created_at": memory.created_at,
        "fact_id": memory.fact_id,
        "provenance": memory.provenance or "",
    }


def pack_fact(memory: Memory) -> dict[str, Any]:
    """A context_pack / delta fact item."""
    return {
        "fact": memory.text,
        "kind": memory.kind,
        "entity_slug": memory.entity_slug,
        "valid_from": memory.valid_from or memory.created_at,
        "confidence": memory.confidence if memory.confidence is not None else 1.0,
        "fact_id": memory.fact_id,
        "provenance": memory.provenance,
    }
