"""Pages: put (upsert by content hash), get, list, soft delete, links, timeline.

Every put is scored for injection (core/injection.py): content at or above
the threshold is stored ``private`` (so no remote reader, search arm, vector
or backlink shows it) and queued for review (core/quarantine/holds.py) with
the visibility it asked for; ``release`` restores that visibility.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from brainkeep.core import injection
from brainkeep.core.audit import page_hash, page_state_hash
from brainkeep.core.chunking import page_chunks
from brainkeep.core.clock import Clock
from brainkeep.core.context import LOCAL, Caller
from brainkeep.core.markdown import (
    append_timeline_line,
    normalize_content,
    parse_page,
    split_frontmatter,
    with_frontmatter,
)
from brainkeep.core.models import DEFAULT_SOURCE, Link, NewEvent, Page, PageDraft, TimelineEntry
from brainkeep.core.ports.composites import PageStore
from brainkeep.core.quarantine.holds import clear_page, hold_page
from brainkeep.core.slugs import validate_slug
from brainkeep.errors import InvalidInput, NotFound

MAX_PAGE_BYTES = 1_048_576  # 1 MiB of UTF-8 markdown per page
LIST_LIMIT_MAX = 500


@dataclass(frozen=True)
class PutResult:
    """Outcome of `put_page`: status is created, updated or unchanged.

    ``quarantined``: the content scored as an injection and is held for
    review (stored private; ``unchanged`` reports the stored page's state).
    """

    page: Page
    status: str
    quarantined: bool = False


class ChunkEmbedder(Protocol):
    """Vectors for page chunks (``core.embedding.Embeddings``); optional.

    ``prepare_chunks`` runs the model before the write transaction (None when
    the provider failed: the page is saved and `brainkeep embed` fills the
    vectors in later); ``write_page`` stores them inside it.
    """

    def prepare_chunks(self, texts: Sequence[str], title: str = "", context: str = ""
                       ) -> Any | None: ...
    def write_page(self, page: Page, prepared: Any) -> None: ...


def _hidden_from(caller: Caller, page: Page | None) -> bool:
    """The one page-privacy rule, for reads and writes alike.

    A private page does not exist for a remote caller: reading, updating,
    deleting, linking or adding to its timeline all answer the ``NotFound``
    a missing slug gets, so no answer confirms the page exists and nothing
    a remote caller sends can replace it.
    """
    return page is not None and page.is_private and caller.remote


@dataclass(frozen=True)
class PageService:
    """Page operations over a Store, for one source."""

    store: PageStore
    clock: Clock
    source_id: str = DEFAULT_SOURCE
    embedder: ChunkEmbedder | None = None

    def draft(self, slug: str, content: str) -> PageDraft:
        """Validate and parse without writing (raises ``InvalidInput``)."""
        validate_slug(slug)
        if not isinstance(content, str):
            raise InvalidInput("Page content must be text.", field="content")
        content = normalize_content(content)
        try:
            size = len(content.encode("utf-8"))
        except UnicodeEncodeError as exc:  # lone surrogates, e.g. undecodable stdin bytes
            raise InvalidInput(
                "Page content is not valid UTF-8 text.",
                suggestion="Save the markdown as UTF-8 and retry.",
                detail=str(exc),
                field="content",
            ) from exc
        if size > MAX_PAGE_BYTES:
            raise InvalidInput(
                f"Page content is {size} bytes; the limit is {MAX_PAGE_BYTES} bytes (1 MiB).",
                suggestion="Split the page into several smaller pages and link them.",
                field="content",
            )
        parsed = parse_page(slug, content)
        return PageDraft(
            source_id=self.source_id,
            slug=slug,
            content=content,
            content_hash=page_hash(content),
            parsed=parsed,
            chunks=page_chunks(parsed.title, parsed.body, parsed.timeline),
        )

    def put_page(
        self, slug: str, content: str, *, actor: str = "local", caller: Caller = LOCAL
    ) -> PutResult:
        """Create or update a page; unchanged content writes nothing.

        Content is stored in canonical form (LF line endings, no BOM; see
        ``normalize_content``).

        Raises:
            InvalidInput: bad slug, oversize content, malformed frontmatter.
            NotFound: the live page at ``slug`` is private and ``caller`` is
                remote (the answer `get_page` gives; nothing is written).
        """
        validate_slug(slug)
        if isinstance(content, str):
            content = normalize_content(content)
            current = self.store.get_page(self.source_id, slug)
            # Checked before the `unchanged` shortcut too: answering it would
            # let a remote caller confirm a private page's exact content.
            if _hidden_from(caller, current):
                raise NotFound(f"No page {slug!r}.", field="slug")
            if current is not None and current.content_hash == page_hash(content):
                # The same bytes were parsed when stored: skip the parse, so
                # re-importing an unchanged folder costs one read per file.
                return self._unchanged(current)
        draft = self.draft(slug, content)
        verdict = injection.scan(draft.content)
        asked = draft.parsed.visibility
        if verdict.quarantined:
            draft = replace(draft, parsed=replace(draft.parsed, visibility="private"))
        # The model runs before the write lock is taken; vectors of unchanged
        # chunks are reused, so an edit embeds only the chunks it changed.
        vectors = (
            self.embedder.prepare_chunks([c.text for c in draft.chunks], draft.parsed.title,
                                         draft.parsed.search_context)
            if self.embedder is not None
            else None
        )
        with self.store.transaction():
            existing = self.store.get_page(self.source_id, slug, include_deleted=True)
            # Again under the write lock: the page may have turned private since.
            if existing and not existing.deleted_at and _hidden_from(caller, existing):
                raise NotFound(f"No page {slug!r}.", field="slug")
            if existing and not existing.deleted_at and existing.content_hash == draft.content_hash:
                return self._unchanged(existing)
            now = self.clock.now_ts()
            page = self.store.save_page(draft, now, existing=existing)
            if self.embedder is not None and vectors is not None:
                self.embedder.write_page(page, vectors)
            status = "created" if existing is None or existing.deleted_at else "updated"
            self._log(page, "page.put", now, actor, status=status,
                      quarantined=verdict.quarantined)
            if verdict.quarantined:
                hold_page(self.store, page, verdict, now, actor=actor, asked_visibility=asked)
            elif existing is not None:
                clear_page(self.store, page, now, actor=actor)
        return PutResult(page, status, verdict.quarantined)

    def _unchanged(self, page: Page) -> PutResult:
        """``unchanged``, and whether the stored page is still held (only a private one can be)."""
        entry = self.store.held_entry_for("page", str(page.id)) if page.is_private else None
        return PutResult(page, "unchanged", entry is not None and entry.status == "pending")

    def _log(self, page: Page, kind: str, now: str, actor: str, **fields: object) -> None:
        """Append a page event recording the row's content and access state as it stands."""
        self.store.append_event(
            NewEvent(
                kind=kind,
                subject_type="page",
                subject_id=str(page.id),
                payload={"slug": page.slug, "content_hash": page.content_hash, **fields,
                         "state_hash": page_state_hash(
                             source_id=page.source_id, slug=page.slug,
                             visibility=page.visibility, deleted_at=page.deleted_at)},
                source_id=self.source_id,
                actor=actor,
            ),
            now,
        )

    def release_held(self, page: Page, *, actor: str, entry_id: int) -> Page:
        """Store a held page again with the visibility its content asks for (``page.release``).

        Run inside the review's transaction; the chunks are re-embedded so
        their vectors carry the page's new visibility.
        """
        draft = self.draft(page.slug, page.content)
        vectors = (self.embedder.prepare_chunks([c.text for c in draft.chunks],
                                                draft.parsed.title, draft.parsed.search_context)
                   if self.embedder is not None else None)
        now = self.clock.now_ts()
        released = self.store.save_page(draft, now, existing=page)
        if self.embedder is not None and vectors is not None:
            self.embedder.write_page(released, vectors)
        self._log(released, "page.release", now, actor, quarantine_id=entry_id)
        return released

    def reject_held(self, page: Page, *, actor: str, entry_id: int) -> None:
        """Soft-delete a held page (``page.reject``); it stays private and out of every read."""
        now = self.clock.now_ts()
        self.store.mark_page_deleted(page.id, now)
        self._log(replace(page, deleted_at=now), "page.reject", now, actor,
                  quarantine_id=entry_id)

    def get_page(self, slug: str, caller: Caller) -> Page:
        """A live page visible to ``caller``.

        Raises:
            NotFound: missing, deleted, or private to a remote caller (all look the same).
        """
        page = self.store.get_page(self.source_id, slug)
        if page is None or _hidden_from(caller, page):
            raise NotFound(f"No page {slug!r}.", field="slug")
        return page

    def list_pages(
        self,
        caller: Caller,
        *,
        type: str | None = None,
        prefix: str | None = None,
        updated_after: str | None = None,
        after_slug: str | None = None,
        limit: int = 50,
    ) -> list[Page]:
        """Live pages by slug, paginated by ``after_slug`` (the last slug of the previous page)."""
        if not 1 <= limit <= LIST_LIMIT_MAX:
            raise InvalidInput(f"limit must be between 1 and {LIST_LIMIT_MAX}.", field="limit")
        return self.store.list_pages(
            self.source_id,
            type=type,
            prefix=prefix,
            updated_after=updated_after,
            include_private=caller.include_private,
            after_slug=after_slug,
            limit=limit,
        )

    def delete_page(self, slug: str, caller: Caller, *, actor: str = "local") -> Page:
        """Soft delete: the row and its history stay; reads and search stop finding it.

        The store drops the page's full-text rows and chunk vectors with it.
        """
        with self.store.transaction():
            page = self.get_page(slug, caller)
            now = self.clock.now_ts()
            self.store.mark_page_deleted(page.id, now)
            self._log(replace(page, deleted_at=now), "page.delete", now, actor)
        return page

    def links(self, slug: str, caller: Caller) -> list[Link]:
        self.get_page(slug, caller)
        return self.store.links_from(self.source_id, slug)

    def backlinks(self, slug: str, caller: Caller) -> list[Link]:
        return self.store.links_to(self.source_id, slug, include_private=caller.include_private)

    def timeline(self, slug: str, caller: Caller) -> list[TimelineEntry]:
        return self.store.timeline(self.get_page(slug, caller).id)

    def add_link(
        self, from_slug: str, to_slug: str, link_type: str, caller: Caller, *, actor: str = "local"
    ) -> PutResult:
        """Add a typed edge by writing it into the page's frontmatter.

        Content stays the single source of truth, so the edge survives
        export/import.
        """
        validate_slug(to_slug, field="to")
        key = link_type.strip()
        if not key or key in ("title", "type", "aliases", "summary", "visibility", "tags"):
            raise InvalidInput(
                f"Invalid link type {link_type!r}.",
                suggestion="Use a relation name such as works_at, founded, invested_in.",
                field="link_type",
            )
        page = self.get_page(from_slug, caller)
        frontmatter: dict[str, Any] = dict(split_frontmatter(page.content)[0])
        current = frontmatter.get(key)
        targets = current if isinstance(current, list) else ([current] if current else [])
        if to_slug not in targets:
            targets.append(to_slug)
        frontmatter[key] = targets[0] if len(targets) == 1 else targets
        return self.put_page(
            from_slug, with_frontmatter(page.content, frontmatter), actor=actor, caller=caller
        )

    def add_timeline_entry(
        self,
        slug: str,
        date: str,
        summary: str,
        caller: Caller,
        *,
        detail: str = "",
        actor: str = "local",
    ) -> PutResult:
        """Append a `- date: summary` line to the page's `## Timeline` section."""
        try:
            dt.date.fromisoformat(date)
        except ValueError as exc:
            raise InvalidInput(
                f"Invalid date {date!r}.", suggestion="Use YYYY-MM-DD.", field="date"
            ) from exc
        if not summary.strip() or "\n" in summary:
            raise InvalidInput(
                "A timeline summary must be one non-empty line.",
                suggestion="Put longer text in `detail`.",
                field="summary",
            )
        page = self.get_page(slug, caller)
        content = append_timeline_line(page.content, date, summary.strip(), detail)
        return self.put_page(slug, content, actor=actor, caller=caller)
