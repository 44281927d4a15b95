"""Pages, aliases, links, timeline and chunks, for both engines.

The keyword index of pages and chunks is the engine's, through two hooks
the store class provides (``PageKeywordUpkeep``): SQLite keeps its FTS5 side
tables ``pages_fts`` and ``chunks_fts`` by hand (``store/sqlite/page_fts.py``);
PostgreSQL's are the generated ``tsv`` columns (``pages.tsv`` goes NULL when
a page is soft-deleted, chunk search joins live pages, ``pages.alias_text`` is
kept by a trigger on ``page_aliases``), so its hooks do nothing
(``store/postgres/page_fts.py``). On both, deleting chunks or soft-deleting a
page drops their vectors by trigger (migration 0005).

What else differs goes through the dialect: SQLite's ``+col`` planner hints
and ``CROSS JOIN`` ordering (PostgreSQL's planner has statistics and no such
spelling), and a page's aliases in the order written (SQLite's ``rowid``,
PostgreSQL's ``page_aliases.id``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from brainkeep.core.models import Link, Page, PageDraft, TimelineEntry
from brainkeep.core.slugs import normalize_alias
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.rows import PAGE_COLUMNS, page_columns, page_from_row

_LINK_COLUMNS = "p.slug AS from_slug, l.to_slug, l.link_type, l.link_source, l.context"


class PageKeywordUpkeep:
    """The two hooks through which ``PagesMixin`` keeps the engine's keyword index.

    Annotations only: the engine's mixin defines them (a definition here
    would shadow it, this class coming first in the store's bases).
    """

    # A page's title and aliases and its chunk rows are written (chunks
    # already inserted): index them.
    _fts_page_added: Callable[[int, str, list[str]], None]
    # A page is soft-deleted or about to be rewritten (its chunk rows still
    # there): drop its title, aliases and chunks from the index.
    _fts_page_removed: Callable[[int], None]


class PagesMixin(PageKeywordUpkeep):
    """Page persistence over ``self.sql``."""

    sql: SQL

    def get_page(self, source_id: str, slug: str, *, include_deleted: bool = False) -> Page | None:
        row = self.sql.one(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = ? AND slug = ?",
            (source_id, slug),
        )
        if row is None or (row["deleted_at"] and not include_deleted):
            return None
        return page_from_row(row)

    def get_pages(self, source_id: str, slugs: list[str]) -> dict[str, Page]:
        """Live pages by slug (missing and deleted slugs are absent)."""
        if not slugs:
            return {}
        params: list[object] = [source_id]
        among = self.sql.dialect.in_list("slug", slugs, params)
        rows = self.sql.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = ? AND {among} "
            "AND deleted_at IS NULL",
            params,
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
            page_id = int(self.sql.scalar(
                "INSERT INTO pages (source_id, slug, slug_tail, title, title_norm, type, "
                "frontmatter, body, content, content_hash, visibility, summary, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (draft.source_id, draft.slug, *values, now, now),
            ))
        else:
            page_id = existing.id
            self.sql.execute(
                "UPDATE pages SET slug_tail = ?, title = ?, title_norm = ?, type = ?, "
                "frontmatter = ?, body = ?, content = ?, content_hash = ?, visibility = ?, "
                "summary = ?, updated_at = ?, deleted_at = NULL WHERE id = ?",
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
        # Before the chunks go: SQLite finds a page's FTS rows through them.
        self._fts_page_removed(page_id)
        for table, column in (
            ("chunks", "page_id"),
            ("page_aliases", "page_id"),
            ("links", "from_page_id"),
            ("timeline_entries", "page_id"),
        ):
            self.sql.execute(f"DELETE FROM {table} WHERE {column} = ?", (page_id,))

    def _write_derived(self, page_id: int, draft: PageDraft) -> None:
        parsed = draft.parsed
        aliases = {normalize_alias(a): a for a in parsed.aliases if normalize_alias(a)}
        # Row by row, in this order: the alias order page_aliases() lists.
        self.sql.executemany(
            "INSERT INTO page_aliases (page_id, alias, alias_norm) VALUES (?, ?, ?)",
            [(page_id, alias, norm) for norm, alias in aliases.items()],
        )
        self.sql.executemany(
            "INSERT INTO links (source_id, from_page_id, to_slug, link_type, link_source, "
            "context) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (draft.source_id, page_id, ln.to_slug, ln.link_type, ln.link_source, ln.context)
                for ln in parsed.links
            ],
        )
        self.sql.executemany(
            "INSERT INTO timeline_entries (page_id, ord, date, summary, detail) "
            "VALUES (?, ?, ?, ?, ?)",
            [(page_id, i, e.date, e.summary, e.detail) for i, e in enumerate(parsed.timeline)],
        )
        self.sql.executemany(
            "INSERT INTO chunks (page_id, ord, kind, text) VALUES (?, ?, ?, ?)",
            [(page_id, chunk.ord, chunk.kind, chunk.text) for chunk in draft.chunks],
        )
        self._fts_page_added(page_id, parsed.title, list(aliases.values()))

    def mark_page_deleted(self, page_id: int, now: str) -> None:
        """Soft delete: the row stays, search stops finding it."""
        self.sql.execute(
            "UPDATE pages SET deleted_at = ?, updated_at = ? WHERE id = ?", (now, now, page_id)
        )
        self._fts_page_removed(page_id)

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
        clauses = ["source_id = ?", "deleted_at IS NULL"]
        params: list[object] = [source_id]
        if type:
            clauses.append("type = ?")
            params.append(type)
        if prefix:
            # Byte order on both engines (PostgreSQL's slugs are COLLATE "C").
            clauses.append("slug >= ? AND slug < ?")
            params.extend([prefix, prefix + "\uffff"])
        if updated_after:
            clauses.append("updated_at > ?")
            params.append(updated_after)
        if not include_private:
            clauses.append("visibility = 'world'")
        if after_slug:
            clauses.append("slug > ?")
            params.append(after_slug)
        rows = self.sql.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE {' AND '.join(clauses)} "
            "ORDER BY slug LIMIT ?",
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
        rows = self.sql.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = ? AND deleted_at IS NULL "
            f"AND (updated_at > ? OR (updated_at = ? AND slug > ?)) {privacy} "
            "ORDER BY updated_at, slug LIMIT ?",
            (source_id, since, since, since_slug, limit),
        )
        return [page_from_row(r) for r in rows]

    def page_aliases(self, page_id: int) -> list[str]:
        written = self.sql.dialect.pick(sqlite="rowid", postgres="id")
        rows = self.sql.all(
            f"SELECT alias FROM page_aliases WHERE page_id = ? ORDER BY {written}", (page_id,)
        )
        return [r["alias"] for r in rows]

    def alias_norms_for(self, source_id: str, slugs: list[str]) -> dict[str, set[str]]:
        """slug -> normalized aliases, for the given live pages."""
        if not slugs:
            return {}
        params: list[object] = [source_id]
        among = self.sql.dialect.in_list("p.slug", slugs, params)
        rows = self.sql.all(
            "SELECT p.slug, a.alias_norm FROM page_aliases a JOIN pages p ON p.id = a.page_id "
            f"WHERE p.source_id = ? AND {among}",
            params,
        )
        found: dict[str, set[str]] = {}
        for row in rows:
            found.setdefault(row["slug"], set()).add(row["alias_norm"])
        return found

    def links_from(self, source_id: str, slug: str) -> list[Link]:
        rows = self.sql.all(
            f"SELECT {_LINK_COLUMNS} FROM links l JOIN pages p ON p.id = l.from_page_id "
            "WHERE p.source_id = ? AND p.slug = ? AND p.deleted_at IS NULL ORDER BY l.id",
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
        rows = self.sql.all(
            f"SELECT {_LINK_COLUMNS} FROM links l JOIN pages p ON p.id = l.from_page_id "
            f"WHERE {self._backlinks(include_private)} ORDER BY l.link_type, p.slug LIMIT ?",
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
        return int(
            self.sql.scalar(
                "SELECT COUNT(*) FROM links l JOIN pages p ON p.id = l.from_page_id "
                f"WHERE {self._backlinks(include_private)}",
                (source_id, slug, exclude_type),
            )
        )

    def _backlinks(self, include_private: bool) -> str:
        """WHERE of links ``l`` from live pages ``p`` to (source, slug), but of a type."""
        privacy = "" if include_private else "AND p.visibility = 'world'"
        # The cast types a NULL parameter for PostgreSQL; SQLite ignores it.
        return (
            f"l.source_id = ? AND l.to_slug = ? AND p.deleted_at IS NULL {privacy} "
            f"AND l.link_type {self.sql.dialect.null_safe_ne} CAST(? AS TEXT)"
        )

    def timeline(self, page_id: int) -> list[TimelineEntry]:
        rows = self.sql.all(
            "SELECT p.slug, t.date, t.summary, t.detail FROM timeline_entries t "
            "JOIN pages p ON p.id = t.page_id WHERE t.page_id = ? ORDER BY t.date, t.ord",
            (page_id,),
        )
        return [TimelineEntry(**dict(r)) for r in rows]

    def find_pages_by_alias(self, source_id: str, alias_norm: str) -> list[Page]:
        # SQLite: CROSS JOIN fixes the join order, to start from the alias
        # index rather than a scan of every page of the source.
        pick = self.sql.dialect.pick
        rows = self.sql.all(
            f"SELECT {page_columns('p')} FROM page_aliases a "
            f"{pick(sqlite='CROSS JOIN', postgres='JOIN')} pages p ON p.id = a.page_id "
            "WHERE a.alias_norm = ? AND p.source_id = ? AND p.deleted_at IS NULL "
            f"ORDER BY {pick(sqlite='+', postgres='')}p.updated_at DESC, p.slug LIMIT 20",
            (alias_norm, source_id),
        )
        return [page_from_row(r) for r in rows]

    def entity_names(
        self, source_id: str, *, exclude_types: tuple[str, ...]
    ) -> list[tuple[str, str, str]]:
        """(slug, title, normalized name) of every title and alias of the live world
        pages whose type is not in ``exclude_types`` (the names a transcript can mention).

        Private pages are left out: a link from a world page would name them.
        """
        params: list[object] = []
        clauses = []
        for alias in ("p", "q"):
            params.append(source_id)
            among = self.sql.dialect.in_list(f"{alias}.type", list(exclude_types), params)
            clauses.append(f"{alias}.source_id = ? AND {alias}.deleted_at IS NULL "
                           f"AND {alias}.visibility = 'world' AND NOT ({among})")
        rows = self.sql.all(
            f"SELECT p.slug, p.title, p.title_norm AS name FROM pages p WHERE {clauses[0]} "
            "UNION ALL SELECT q.slug, q.title, a.alias_norm AS name FROM page_aliases a "
            f"JOIN pages q ON q.id = a.page_id WHERE {clauses[1]}",
            params,
        )
        return [(r["slug"], r["title"], r["name"]) for r in rows]

    def find_pages_by_title(self, source_id: str, title_norm: str) -> list[Page]:
        return self._find("title_norm = ?", source_id, title_norm)

    def find_pages_by_slug_tail(self, source_id: str, tail: str) -> list[Page]:
        return self._find("slug_tail = ?", source_id, tail)

    def _find(self, clause: str, source_id: str, value: str) -> list[Page]:
        # SQLite's `+updated_at`: ordering by the bare column lets its planner
        # (without statistics) walk the updated_at index over every page
        # instead of using the equality index on `clause` — 20 ms instead of
        # 0.02 ms.
        hint = self.sql.dialect.pick(sqlite="+", postgres="")
        rows = self.sql.all(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE source_id = ? AND deleted_at IS NULL "
            f"AND {clause} ORDER BY {hint}updated_at DESC, slug LIMIT 20",
            (source_id, value),
        )
        return [page_from_row(r) for r in rows]
