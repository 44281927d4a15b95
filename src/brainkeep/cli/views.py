"""JSON views of domain values shared by CLI commands."""

from __future__ import annotations

from typing import Any

from brainkeep.core.models import Memory, Page


def page_view(page: Page, *, with_content: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "slug": page.slug,
        "title": page.title,
        "type": page.type,
        "visibility": page.visibility,
        "summary": page.summary,
        "frontmatter": page.frontmatter,
        "content_hash": page.content_hash,
        "created_at": page.created_at,
        "updated_at": page.updated_at,
    }
    if with_content:
        data["content"] = page.content
    return data


def fact_view(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "fact_id": memory.fact_id,
        "uuid": memory.uuid,
        "fact": memory.text,
        "kind": memory.kind,
        "entity_slug": memory.entity_slug,
        "visibility": memory.visibility,
        "provenance": memory.provenance,
        "session_id": memory.session_id,
        "valid_from": memory.valid_from,
        "valid_until": memory.valid_until,
        "expired_at": memory.expired_at,
        "superseded_by": memory.superseded_by,
        "created_at": memory.created_at,
    }
