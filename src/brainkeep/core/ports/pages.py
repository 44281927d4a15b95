"""The pages repository: pages, their aliases, links and timelines.

Part of the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.models import (
    Link,
    Page,
    PageDraft,
    TimelineEntry,
)


class PageRepository(Protocol):
    """Pages, their aliases, links and timelines."""

    # -- pages -----------------------------------------------------------------
    def get_page(
        self, source_id: str, slug: str, *, include_deleted: bool = False
    ) -> Page | None: ...
    def get_pages(self, source_id: str, slugs: list[str]) -> dict[str, Page]: ...
    def save_page(self, draft: PageDraft, now: str, *, existing: Page | None) -> Page: ...
    def mark_page_deleted(self, page_id: int, now: str) -> None: ...
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
    ) -> list[Page]: ...
    def pages_changed_since(
        self, source_id: str, since: str, since_slug: str, *, include_private: bool, limit: int
    ) -> list[Page]: ...
    def page_aliases(self, page_id: int) -> list[str]: ...
    def alias_norms_for(self, source_id: str, slugs: list[str]) -> dict[str, set[str]]: ...
    def links_from(self, source_id: str, slug: str) -> list[Link]: ...
    def links_to(
        self,
        source_id: str,
        slug: str,
        *,
        include_private: bool = True,
        exclude_type: str | None = None,
        limit: int = 1000,
    ) -> list[Link]: ...
    def count_backlinks(
        self,
        source_id: str,
        slug: str,
        *,
        include_private: bool = True,
        exclude_type: str | None = None,
    ) -> int: ...
    def timeline(self, page_id: int) -> list[TimelineEntry]: ...
    def find_pages_by_alias(self, source_id: str, alias_norm: str) -> list[Page]: ...
    def find_pages_by_title(self, source_id: str, title_norm: str) -> list[Page]: ...
    def find_pages_by_slug_tail(self, source_id: str, tail: str) -> list[Page]: ...
    def entity_names(
        self, source_id: str, *, exclude_types: tuple[str, ...]
    ) -> list[tuple[str, str, str]]: ...
