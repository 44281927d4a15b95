"""SQLite's keyword index of pages and chunks, kept by hand (``store/sql/pages.py`` hooks).

FTS5 tables are side tables: ``pages_fts`` (title and aliases) and
``chunks_fts`` (chunk text) hold a row per live page and chunk, keyed by
rowid, and nothing fills or empties them but these two hooks (and a migrated
brain's rebuild, ``store/migrate_sides.py``).
"""

from __future__ import annotations

from brainkeep.store.sqlite.engine import SQLiteEngine


class PageFtsMixin:
    """``PageKeywordUpkeep`` for SQLite; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def _fts_page_added(self, page_id: int, title: str, aliases: list[str]) -> None:
        # One statement per page (not per chunk) fills the chunk index.
        self.db.execute(
            "INSERT INTO chunks_fts (rowid, text) SELECT id, text FROM chunks WHERE page_id = ?",
            (page_id,),
        )
        self.db.execute(
            "INSERT INTO pages_fts (rowid, title, aliases) VALUES (?, ?, ?)",
            (page_id, title, " | ".join(aliases)),
        )

    def _fts_page_removed(self, page_id: int) -> None:
        self.db.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE page_id = ?)",
            (page_id,),
        )
        self.db.execute("DELETE FROM pages_fts WHERE rowid = ?", (page_id,))
