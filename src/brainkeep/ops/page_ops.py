"""Catalog declarations of the page operations (the `full` surface)."""

from __future__ import annotations

from typing import Any

from brainkeep.core import limits, validate
from brainkeep.core.clock import format_ts
from brainkeep.core.models import Page
from brainkeep.errors import InvalidInput
from brainkeep.ops.catalog import Operation, Param
from brainkeep.ops.context import OpContext


def page_view(page: Page, *, with_content: bool = True) -> dict[str, Any]:
    """A page's record as data (shared by the page operations and the CLI)."""
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


def page_object(ctx: OpContext, page: Page) -> dict[str, Any]:
    """`get_page`'s answer: the record plus compiled truth, timeline, links, aliases."""
    pages = ctx.brain.pages
    return {
        **page_view(page),
        "compiled_truth": page.body,
        "timeline": [vars(e) for e in pages.timeline(page.slug, ctx.caller)],
        "links": [vars(ln) for ln in pages.links(page.slug, ctx.caller)],
        "aliases": ctx.brain.store.page_aliases(page.id),
    }


def _put_page(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    result = ctx.brain.pages.put_page(
        p["slug"], p["content"], actor=ctx.caller.client_id, caller=ctx.caller
    )
    return {
        "slug": result.page.slug,
        "status": result.status,
        "content_hash": result.page.content_hash,
        "quarantined": result.quarantined,
    }


def _get_page(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    return page_object(ctx, ctx.brain.pages.get_page(p["slug"], ctx.caller))


def _list_pages(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    updated_after = p.get("updated_after")
    if updated_after:
        updated_after = format_ts(validate.date_or_time(updated_after, "updated_after"))
    limit = validate.limit(p.get("limit"), default=limits.LIST_LIMIT_DEFAULT,
                           maximum=limits.LIST_LIMIT_MAX)
    pages = ctx.brain.pages.list_pages(
        ctx.caller, type=p.get("type"), prefix=p.get("prefix"), updated_after=updated_after,
        after_slug=p.get("after"), limit=limit,
    )
    return {
        "pages": [
            {"slug": pg.slug, "title": pg.title, "type": pg.type, "updated_at": pg.updated_at}
            for pg in pages
        ],
        "next_after": pages[-1].slug if len(pages) == limit else None,
    }


def _delete_page(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    page = ctx.brain.pages.delete_page(p["slug"], ctx.caller, actor=ctx.caller.client_id)
    return {"status": "soft_deleted", "slug": page.slug}


def _search(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    query = validate.text(str(p["query"]), "query", max_chars=limits.MAX_QUERY_CHARS).strip()
    if not query:
        raise InvalidInput("`query` is empty.", suggestion="Pass words to search for.",
                           field="query")
    limit = validate.limit(p.get("limit"), default=limits.SEARCH_LIMIT_DEFAULT,
                           maximum=limits.SEARCH_LIMIT_MAX)
    outcome = ctx.brain.search.search(
        query, include_private=ctx.caller.include_private, limit=limit
    )
    response: dict[str, Any] = {
        "results": [
            {
                "slug": r.slug,
                "title": r.title,
                "chunk_text": r.chunk,
                "score": r.score,
                "evidence": r.evidence,
                "create_safety": r.create_safety,
            }
            for r in outcome.results
        ]
    }
    if outcome.degraded:
        response["search_degraded"] = outcome.degraded
    return response


def _add_link(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    result = ctx.brain.pages.add_link(
        p["from"], p["to"], p.get("link_type") or "related_to", ctx.caller,
        actor=ctx.caller.client_id,
    )
    return {"status": "ok", "slug": result.page.slug, "page_status": result.status}


def _add_timeline_entry(ctx: OpContext, p: dict[str, Any]) -> dict[str, Any]:
    result = ctx.brain.pages.add_timeline_entry(
        p["slug"], p["date"], p["summary"], ctx.caller, detail=p.get("detail") or "",
        actor=ctx.caller.client_id,
    )
    return {"status": "ok", "slug": result.page.slug, "page_status": result.status}


PAGE_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "put_page",
        "Create or update a page from markdown with optional YAML frontmatter (title, type, "
        "aliases, summary, visibility: world|private, and slug-valued keys that become typed "
        "links). Unchanged content is a no-op.",
        (
            Param("slug", "string", "Lowercase, /-namespaced slug, e.g. people/alice-example.",
                  required=True),
            Param("content", "string", "The full markdown of the page.", required=True),
        ),
        "write",
        _put_page,
    ),
    Operation(
        "get_page",
        "Read one page: markdown, frontmatter, compiled truth, timeline and links.",
        (Param("slug", "string", "The page slug.", required=True),),
        "read",
        _get_page,
    ),
    Operation(
        "list_pages",
        "List pages by slug, optionally filtered by type, slug prefix or update time.",
        (
            Param("type", "string", "Only pages of this type (e.g. person)."),
            Param("prefix", "string", "Only slugs starting with this (e.g. people/)."),
            Param("updated_after", "string", "Only pages updated after this ISO 8601 time."),
            Param("after", "string", "Continue after this slug (from next_after)."),
            Param("limit", "number", "Pages per call (default 50; at least 1; above 500 "
                  "means 500)."),
        ),
        "read",
        _list_pages,
    ),
    Operation(
        "delete_page",
        "Soft-delete a page: it disappears from reads and search; its history is kept.",
        (Param("slug", "string", "The page slug.", required=True),),
        "write",
        _delete_page,
    ),
    Operation(
        "search",
        "Search pages by keywords (hybrid when embeddings are configured). For an agent's "
        "memory reads prefer `recall`.",
        (
            Param("query", "string", "What to look for.", required=True),
            Param("limit", "number", "At most this many pages (default 20; at least 1; above "
                  "100 means 100)."),
        ),
        "read",
        _search,
    ),
    Operation(
        "add_link",
        "Add a typed edge from one page to another (stored in the page's frontmatter).",
        (
            Param("from", "string", "Slug of the page the edge starts from.", required=True),
            Param("to", "string", "Slug the edge points to.", required=True),
            Param("link_type", "string", "Relation, e.g. works_at (default related_to)."),
        ),
        "write",
        _add_link,
    ),
    Operation(
        "add_timeline_entry",
        "Append a dated entry to a page's `## Timeline` section.",
        (
            Param("slug", "string", "The page slug.", required=True),
            Param("date", "string", "YYYY-MM-DD.", required=True),
            Param("summary", "string", "One line.", required=True),
            Param("detail", "string", "Optional longer text."),
        ),
        "write",
        _add_timeline_entry,
    ),
)
