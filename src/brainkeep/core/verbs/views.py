"""Wire shapes of facts shared by several verbs."""

from __future__ import annotations

from typing import Any

from brainkeep.core.entity_resolution import EntityResolution
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


def entity_resolution_object(res: EntityResolution, *, writing: bool) -> dict[str, Any]:
    """`entity_resolution` of remember (``writing``) and recall: what `entity` meant.

    ``note`` (only when the name was not an exact alias, title or slug) is the
    sentence a front end shows a person: a guess taken, or no page found.
    """
    out: dict[str, Any] = {
        "input": res.input,
        "slug": res.slug,
        "via": res.via,
        "candidates": [{"slug": c.slug, "title": c.title} for c in res.candidates],
    }
    if res.via == "candidate":
        out["matched"] = res.matched
        out["reason"] = res.reason
    note = _resolution_note(res, writing=writing)
    if note:
        out["note"] = note
    return out


def _resolution_note(res: EntityResolution, *, writing: bool) -> str | None:
    name = res.input if len(res.input) <= 80 else res.input[:77] + "..."
    pages = " or ".join(f"{c.slug} ({c.title})" for c in res.candidates)
    if res.via == "candidate":
        how = ("the only page name starting with it" if res.reason == "leading_part"
               else "one letter off")
        return f"'{name}' taken as {res.slug} ({res.matched}: {how})"
    if res.via not in ("new", "ambiguous"):
        return None
    if res.slug is None:
        where = "the fact has no entity" if writing else "no entity filter applied"
    elif writing:
        where = f"filed under {'new entity ' if res.via == 'new' else ''}'{res.slug}'"
    else:
        where = f"showing only facts filed under '{res.slug}'"
    if res.via == "ambiguous":
        return f"'{name}' could mean {pages} — {where}; pass the slug you mean"
    hint = f"; did you mean {pages}?" if pages else ""
    return f"no entity named '{name}' — {where}{hint}"
