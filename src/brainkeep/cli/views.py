"""JSON views of domain values shared by CLI commands."""

from __future__ import annotations

from typing import Any

from brainkeep.core.models import Page


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
