"""The Store protocol: the one seam between domain services and an engine.

Domain code talks only to this interface; every engine (SQLite now,
PostgreSQL later) implements it and passes the same test suite. Methods never
commit on their own: callers group writes in ``transaction()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol

from brainkeep.core.integrity_rows import (
    AclState,
    DelegationState,
    MemoryState,
    PageState,
    Vanished,
)
from brainkeep.core.mnemo.models import ChainRow
from brainkeep.core.models import (
    Event,
    Link,
    Memory,
    MemoryDraft,
    NewEvent,
    Page,
    PageDraft,
    SessionCursor,
    TimelineEntry,
)
from brainkeep.core.retrieval import (
    ChunkView,
    EmbedTask,
    FactFilter,
    NewEmbedding,
    PageHead,
)
from brainkeep.core.scope import ReadScope
from brainkeep.core.token_models import ApiToken
from brainkeep.store.search_index import SearchIndex


class Store(Protocol):
    """What domain services need from persistence.

    Contract: the engine assigns event seq and prev_hash (``append_event``)
    and memory prev_hash (``insert_memory``, the newest ``content_hash`` of
    the same (agent, thread) chain) inside transaction(); writes are
    serialized, so no two writers can read the same chain tail. Domain code
    never computes a chain link.
    """

    engine_name: str

    # -- lifecycle & meta --------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...
    def optimize(self) -> None: ...
    def schema_version(self) -> int: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def counts(self) -> dict[str, int]: ...
    def size_bytes(self) -> int: ...

    # -- pages -------------------------------------------------------------
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

    # -- memories ----------------------------------------------------------
    def insert_memory(
        self,
        draft: MemoryDraft,
        *,
        uuid: str,
        now: str,
        normalized_text: str,
        content_hash: str,
    ) -> Memory: ...
    def get_memory(self, memory_id: int) -> Memory | None: ...
    def get_memory_by_uuid(self, uuid: str) -> Memory | None: ...
    def find_active_duplicate(
        self, source_id: str, entity_slug: str | None, normalized_text: str, now: str,
        scope: ReadScope,
    ) -> Memory | None: ...
    def list_memories(
        self,
        source_id: str,
        *,
        now: str,
        entity_slug: str | None = None,
        since: str | None = None,
        session_id: str | None = None,
        scope: ReadScope,
        include_expired: bool = False,
        kinds: tuple[str, ...] | None = None,
        text_contains: str | None = None,
        limit: int = 50,
    ) -> list[Memory]: ...
    def count_active_memories(
        self, source_id: str, entity_slug: str, now: str, *, scope: ReadScope
    ) -> int: ...
    def expire_memory(
        self, memory_id: int, now: str, reason: str | None, *, superseded_by: int | None = None
    ) -> None: ...
    def facts_created_after(
        self,
        source_id: str,
        after_ts: str,
        after_id: int,
        *,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[Memory]: ...

    # -- events ------------------------------------------------------------
    def append_event(self, event: NewEvent, now: str) -> Event: ...
    def iter_events(self, *, after_seq: int = 0, batch: int = 2000) -> Iterator[Event]: ...
    def events_for(self, subject_type: str, subject_id: str) -> list[Event]: ...
    def recorded_hashes(self, subject_type: str) -> dict[str, str]: ...
    def iter_page_contents(self) -> Iterator[tuple[str, str, str, str]]: ...
    # Verification scans (core/verify.py): memory chains, logged hard deletes
    # and logged inserts, so a row removed behind the server's back is found.
    # ``scope`` (grants live at ``now``): only rows its reader may see, for
    # what Verify reports; the walk itself reads every row.
    def mnemo_chain_rows(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[ChainRow]: ...
    def mnemo_tombstones(self) -> list[tuple[str, str, str | None]]: ...
    def mnemo_inserted(
        self, agent_id: str | None, thread_id: str | None
    ) -> list[tuple[str, str]]: ...
    # Tamper scans (core/verify.py, store/sqlite/integrity.py): each row beside
    # the newest hashes its events recorded, streamed; the chain head.
    def event_at(self, seq: int) -> Event | None: ...
    def chain_tip(self) -> tuple[int, str] | None: ...
    def state_marker_seq(self) -> int | None: ...
    def iter_memory_states(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None
    ) -> Iterator[MemoryState]: ...
    def iter_vanished_memories(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[str]: ...
    def iter_page_states(self) -> Iterator[PageState]: ...
    def iter_vanished_pages(self) -> Iterator[Vanished]: ...
    def iter_acl_states(self) -> Iterator[AclState]: ...
    def iter_delegation_states(self) -> Iterator[DelegationState]: ...
    def iter_vanished_grants(self) -> Iterator[Vanished]: ...

    # -- delta session cursors ----------------------------------------------
    def get_session_cursor(
        self, source_id: str, client_id: str, session_id: str
    ) -> SessionCursor | None: ...
    def put_session_cursor(self, cursor: SessionCursor) -> None: ...
    def gc_session_cursors(self, idle_before: str, *, keep_per_client: int = 1000) -> int: ...

    # -- delta change streams, keyed on event seq (commit order) -------------
    def event_head(self) -> int: ...
    def seq_before_ts(self, ts: str) -> int: ...
    def pages_changed_after_seq(
        self, source_id: str, after_seq: int, *, upto_seq: int, include_private: bool, limit: int
    ) -> list[tuple[int, Page]]: ...
    def facts_created_after_seq(
        self,
        source_id: str,
        after_seq: int,
        *,
        upto_seq: int,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[tuple[int, Memory]]: ...

    # -- HTTP bearer tokens (hashed; see core/tokens.py) ---------------------
    def insert_token(self, token: ApiToken) -> None: ...
    def get_token(self, token_id: str) -> ApiToken | None: ...
    def get_live_token_by_name(self, name: str) -> ApiToken | None: ...
    def list_tokens(self, *, include_revoked: bool = False) -> list[ApiToken]: ...
    def revoke_token(self, token_id: str, now: str) -> None: ...
    def count_usable_tokens(self, now: str) -> int: ...

    # -- embeddings and retrieval (docs/search.md; store/sqlite/vectors.py) ----
    # Searching itself goes through the engine's SearchIndex (search_index.py).
    def search_index(
        self, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> SearchIndex: ...
    def in_transaction(self) -> bool: ...
    def prune_embedding_tombstones(self, keep: int) -> int: ...
    def stored_vectors_by_hash(
        self, model: str, dim: int, hashes: list[str]
    ) -> dict[str, bytes]: ...
    def put_embeddings(self, rows: list[NewEmbedding]) -> int: ...
    def delete_other_embeddings(self, source_id: str, model: str, dim: int) -> int: ...
    def page_chunk_texts(self, page_id: int) -> list[tuple[int, str]]: ...
    def missing_embeddings(
        self, source_id: str, kind: str, model: str, dim: int, *, after_item: int, limit: int
    ) -> list[EmbedTask]: ...
    def count_missing_embeddings(self, source_id: str, model: str, dim: int) -> dict[str, int]: ...
    def max_memory_id(self) -> int: ...
    def exact_name_pages(
        self, source_id: str, norm: str, *, include_private: bool
    ) -> dict[int, str]: ...
    def page_heads(
        self, source_id: str, page_ids: list[int], *, include_private: bool
    ) -> dict[int, PageHead]: ...
    def chunk_views(
        self, source_id: str, chunk_ids: list[int], *, include_private: bool
    ) -> dict[int, ChunkView]: ...
    def lead_chunks(
        self, source_id: str, page_ids: list[int], *, include_private: bool
    ) -> dict[int, ChunkView]: ...
    def fact_candidates(
        self,
        source_id: str,
        entity_slug: str,
        now: str,
        *,
        scope: ReadScope,
        visibilities: tuple[str, ...],
        model: str,
        dim: int,
        limit: int,
    ) -> list[tuple[Memory, bytes | None]]: ...
    def fact_ids_passing(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> set[int]: ...
    def memories_matching(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> dict[int, Memory]: ...
    def fact_ids_matching(
        self, source_id: str, filt: FactFilter, *, limit: int
    ) -> list[int]: ...
