"""The embeddings repository: stored vectors and the row views retrieval reads.

The index itself is the engine's SearchIndex (core/ports/search_index.py). Part of
the Store protocol (core/ports/store.py); no method commits on its own.
"""

from __future__ import annotations

from typing import Protocol

from brainkeep.core.models import (
    Memory,
)
from brainkeep.core.ports.search_index import SearchIndex
from brainkeep.core.retrieval import (
    ChunkView,
    EmbedTask,
    FactFilter,
    NewEmbedding,
    PageHead,
)
from brainkeep.core.scope import ReadScope


class EmbeddingRepository(Protocol):
    """Stored vectors and the row views retrieval reads (docs/search.md)."""

    # -- embeddings and retrieval ----------------------------------------------
    # Searching itself goes through the engine's SearchIndex (search_index.py).
    def search_index(
        self, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> SearchIndex: ...
    @property
    def vectors_available(self) -> bool:
        """Whether the engine can store and search vectors (False: PostgreSQL without
        pgvector; the brain then runs as with no embedding provider)."""
        ...
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
