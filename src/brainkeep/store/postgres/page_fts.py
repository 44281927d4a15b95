"""PostgreSQL's keyword index of pages and chunks needs no upkeep (``store/sql/pages.py`` hooks).

The index is the generated ``tsv`` columns of ``pages`` and ``chunks``:
written with their rows, ``pages.tsv`` NULL once a page is soft-deleted,
chunk search joining live pages, and ``pages.alias_text`` kept by a trigger
on ``page_aliases`` (migration 0001).
"""

from __future__ import annotations


class PageFtsMixin:
    """``PageKeywordUpkeep`` for PostgreSQL: the schema does it, so both hooks do nothing."""

    def _fts_page_added(self, page_id: int, title: str, aliases: list[str]) -> None:
        return None

    def _fts_page_removed(self, page_id: int) -> None:
        return None
