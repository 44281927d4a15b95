"""Pages, aliases, links, timeline and chunks (PostgreSQL).

A translation of ``store/sqlite/pages.py``: the same methods, results and
orderings. What SQLite does by hand is done by the schema here: the keyword
index is the generated ``tsv`` columns (``pages.tsv`` goes NULL when a page
is soft-deleted; chunk search joins live pages), ``pages.alias_text`` is kept
by a trigger on ``page_aliases``, and chunk vectors are dropped by triggers
(migration 0005). Dialect notes: ``IN (?, ...)`` is ``= ANY(%s)`` (one array
parameter), ``IS NOT ?`` is ``IS DISTINCT FROM %s::text``, SQLite's ``+col``
planner hints and ``CROSS JOIN`` ordering have no PostgreSQL meaning (the
planner has statistics) and are dropped, ``rowid`` is ``page_aliases.id``.
"""

from __future__ import annotations

import json

from brainkeep.core.models import Link, Page, PageDraft, TimelineEntry
from brainkeep.core.slugs import normalize_alias
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.rows import PAGE_COLUMNS, page_columns, page_from_row

_LINK_COLUMNS = "p.slug AS from_slug, l.to_slug, l.link_type, l.link_source, l.context"


class PagesMixin:
    """Page persistence; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def get_page(self, source_id: str, slug: str, *, include_deleted: bool = False) -> Page | None:
        row = self.db.one(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = %s AND slug = %s",
            (source_id, slug),
        )
        if row is None or (row["deleted_at"] and not include_deleted):
            return None
        return page_from_row(row)

    def get_pages(self, source_id: str, slugs: list[str]) -> dict[str, Page]:
        """Live pages by slug (missing and deleted slugs are absent)."""
        if not slugs:
            return {}
        rows = self.db.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = %s AND slug = ANY(%s) "
            "AND deleted_at IS NULL",
            (source_id, list(slugs)),
        )
        return {row["slug"]: page_from_row(row) for row in rows}

    def save_page(self, draft: PageDraft, now: str, *, existing: Page | None) -> Page:
        """Insert or replace a page and everything derived from it."""
        parsed = draft.parsed
        values = (
            draft.slug.rsplit("/", 1)[-1],
            parsed.title,
            normalize_alias(parsed.title),
            parsed.type,
            json.dumps(parsed.frontmatter, ensure_ascii=False),
            parsed.body,
            draft.content,
            draft.content_hash,
            parsed.visibility,
            parsed.summary,
        )
        if existing is None:
            page_id = int(self.db.scalar(
                "INSERT INTO pages (source_id, slug, slug_tail, title, title_norm, type, "
                "frontmatter, body, content, content_hash, visibility, summary, created_at, "
                "updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "RETURNING id",
                (draft.source_id, draft.slug, *values, now, now),
            ))
        else:
            page_id = existing.id
            self.db.execute(
                "UPDATE pages SET slug_tail = %s, title = %s, title_norm = %s, type = %s, "
                "frontmatter = %s, body = %s, content = %s, content_hash = %s, "
                "visibility = %s, summary = %s, updated_at = %s, deleted_at = NULL "
                "WHERE id = %s",
                (*values, now, page_id),
            )
            self._clear_derived(page_id)
        self._write_derived(page_id, draft)
        # Built from what was just written rather than read back: one query
        # less per page on bulk import.
        return Page(
            id=page_id,
            source_id=draft.source_id,
            slug=draft.slug,
            title=parsed.title,
            type=parsed.type,
            frontmatter=parsed.frontmatter,
            body=parsed.body,
            content=draft.content,
            content_hash=draft.content_hash,
            visibility=parsed.visibility,
            summary=parsed.summary,
            created_at=existing.created_at if existing else now,
            updated_at=now,
            last_retrieved_at=existing.last_retrieved_at if existing else None,
            deleted_at=None,
        )

    def _clear_derived(self, page_id: int) -> None:
        # Deleting chunks also drops their vectors (trigger, migration 0005);
        # deleting aliases resets pages.alias_text (trigger, migration 0001).
        for table, column in (
            ("chunks", "page_id"),
            ("page_aliases", "page_id"),
            ("links", "from_page_id"),
            ("timeline_entries", "page_id"),
        ):
            self.db.execute(f"DELETE FROM {table} WHERE {column} = %s", (page_id,))

    def _write_derived(self, page_id: int, draft: PageDraft) -> None:
        parsed = draft.parsed
        aliases = {normalize_alias(a): a for a in parsed.aliases if normalize_alias(a)}
        # Row by row, in this order: page_aliases.id records it (page_aliases()).
        self.db.executemany(
            "INSERT INTO page_aliases (page_id, alias, alias_norm) VALUES (%s, %s, %s)",
            [(page_id, alias, norm) for norm, alias in aliases.items()],
        )
        self.db.executemany(
            "INSERT INTO links (source_id, from_page_id, to_slug, link_type, link_source, "
            "context) VALUES (%s, %s, %s, %s, %s, %s)",
            [
                (draft.source_id, page_id, ln.to_slug, ln.link_type, ln.link_source, ln.context)
                for ln in parsed.links
            ],
        )
        self.db.executemany(
            "INSERT INTO timeline_entries (page_id, ord, date, summary, detail) "
            "VALUES (%s, %s, %s, %s, %s)",
            [(page_id, i, e.date, e.summary, e.detail) for i, e in enumerate(parsed.timeline)],
        )
        self.db.executemany(
            "INSERT INTO chunks (page_id, ord, kind, text) VALUES (%s, %s, %s, %s)",
            [(page_id, chunk.ord, chunk.kind, chunk.text) for chunk in draft.chunks],
        )

    def mark_page_deleted(self, page_id: int, now: str) -> None:
        """Soft delete: the row stays, search stops finding it.

        ``pages.tsv`` goes NULL with ``deleted_at`` and a trigger drops the
        chunk vectors; chunk keyword search requires a live page.
        """
        self.db.execute(
            "UPDATE pages SET deleted_at = %s, updated_at = %s WHERE id = %s",
            (now, now, page_id),
        )

    def list_pages(
        self,
        source_id: str,
        *,
        type: str | None = None,
        prefix: str | None = None,
        updated_after: str | None = None,
        include_private: bool = True,
        after_slug: str | None = None,
        limit: int = 50,
    ) -> list[Page]:
        """Live pages ordered by slug, keyset-paginated by ``after_slug``."""
        clauses = ["source_id = %s", "deleted_at IS NULL"]
        params: list[object] = [source_id]
        if type:
            clauses.append("type = %s")
            params.append(type)
        if prefix:
            # Byte order (COLLATE "C"), as in SQLite: the same range either way.
            clauses.append("slug >= %s AND slug < %s")
            params.extend([prefix, prefix + "\uffff"])
        if updated_after:
            clauses.append("updated_at > %s")
            params.append(updated_after)
        if not include_private:
            clauses.append("visibility = 'world'")
        if after_slug:
            clauses.append("slug > %s")
            params.append(after_slug)
        rows = self.db.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE {' AND '.join(clauses)} "
            "ORDER BY slug LIMIT %s",
            (*params, limit),
        )
        return [page_from_row(r) for r in rows]

    def pages_changed_since(
        self,
        source_id: str,
        since: str,
        since_slug: str,
        *,
        include_private: bool,
        limit: int,
    ) -> list[Page]:
        """Live pages after the keyset cursor ``(updated_at, slug)``, oldest first."""
        privacy = "" if include_private else "AND visibility = 'world'"
        rows = self.db.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = %s AND deleted_at IS NULL "
            f"AND (updated_at > %s OR (updated_at = %s AND slug > %s)) {privacy} "
            "ORDER BY updated_at, slug LIMIT %s",
            (source_id, since, since, since_slug, limit),
        )
        return [page_from_row(r) for r in rows]

    def page_aliases(self, page_id: int) -> list[str]:
        rows = self.db.all(
            "SELECT alias FROM page_aliases WHERE page_id = %s ORDER BY id", (page_id,)
        )
        return [r["alias"] for r in rows]

    def alias_norms_for(self, source_id: str, slugs: list[str]) -> dict[str, set[str]]:
        """slug -> normalized aliases, for the given live pages."""
        if not slugs:
            return {}
        rows = self.db.all(
            "SELECT p.slug, a.alias_norm FROM page_aliases a JOIN pages p ON p.id = a.page_id "
            "WHERE p.source_id = %s AND p.slug = ANY(%s)",
            (source_id, list(slugs)),
        )
        found: dict[str, set[str]] = {}
        for row in rows:
            found.setdefault(row["slug"], set()).add(row["alias_norm"])
        return found

    def links_from(self, source_id: str, slug: str) -> list[Link]:
        rows = self.db.all(
            f"SELECT {_LINK_COLUMNS} FROM links l JOIN pages p ON p.id = l.from_page_id "
            "WHERE p.source_id = %s AND p.slug = %s AND p.deleted_at IS NULL ORDER BY l.id",
            (source_id, slug),
        )
        return [Link(**dict(r)) for r in rows]

    def links_to(
        self,
        source_id: str,
        slug: str,
        *,
        include_private: bool = True,
        exclude_type: str | None = None,
        limit: int = 1000,
    ) -> list[Link]:
        """Backlinks: live pages linking to ``slug``."""
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            f"SELECT {_LINK_COLUMNS} FROM links l JOIN pages p ON p.id = l.from_page_id "
            f"WHERE l.source_id = %s AND l.to_slug = %s AND p.deleted_at IS NULL {privacy} "
            "AND l.link_type IS DISTINCT FROM %s::text ORDER BY l.link_type, p.slug LIMIT %s",
            (source_id, slug, exclude_type, limit),
        )
        return [Link(**dict(r)) for r in rows]

    def count_backlinks(
        self,
        source_id: str,
        slug: str,
        *,
        include_private: bool = True,
        exclude_type: str | None = None,
    ) -> int:
        privacy = "" if include_private else "AND p.visibility = 'world'"
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM links l JOIN pages p ON p.id = l.from_page_id "
                f"WHERE l.source_id = %s AND l.to_slug = %s AND p.deleted_at IS NULL {privacy} "
                "AND l.link_type IS DISTINCT FROM %s::text",
                (source_id, slug, exclude_type),
            )
        )

    def timeline(self, page_id: int) -> list[TimelineEntry]:
        rows = self.db.all(
            "SELECT p.slug, t.date, t.summary, t.detail FROM timeline_entries t "
            "JOIN pages p ON p.id = t.page_id WHERE t.page_id = %s ORDER BY t.date, t.ord",
            (page_id,),
        )
        return [TimelineEntry(**dict(r)) for r in rows]

    def find_pages_by_alias(self, source_id: str, alias_norm: str) -> list[Page]:
        rows = self.db.all(
            f"SELECT {page_columns('p')} FROM page_aliases a "
            "JOIN pages p ON p.id = a.page_id WHERE a.alias_norm = %s "
            "AND p.source_id = %s AND p.deleted_at IS NULL "
            "ORDER BY p.updated_at DESC, p.slug LIMIT 20",
            (alias_norm, source_id),
        )
        return [page_from_row(r) for r in rows]

    def find_pages_by_title(self, source_id: str, title_norm: str) -> list[Page]:
        return self._find("title_norm = %s", source_id, title_norm)

    def find_pages_by_slug_tail(self, source_id: str, tail: str) -> list[Page]:
        return self._find("slug_tail = %s", source_id, tail)

    def _find(self, clause: str, source_id: str, value: str) -> list[Page]:
        rows = self.db.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = %s AND deleted_at IS NULL "
            f"AND {clause} ORDER BY updated_at DESC, slug LIMIT 20",
            (source_id, value),
        )
        return [page_from_row(r) for r in rows]
