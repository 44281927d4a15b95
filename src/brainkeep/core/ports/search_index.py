"""The SearchIndex protocol: the retrieval half of the engine seam.

Core analyses the query (``core.query.QueryTerms``) and fuses ranked lists
(``core.fusion``); an engine answers the two primitive questions, each as
scored ids best first, with its own mechanics (SQLite: FTS5 and a mmapped
HNSW index with an exact delta, ``store/sqlite/search_index.py``; Postgres:
tsvector and pgvector). Nothing here names a query syntax, a row-id column or a watermark.

Kinds: ``chunk`` (page chunks; ``ScoredId.page_id`` is the chunk's page),
``page`` (titles and aliases; keyword only; ``id`` = ``page_id``) and
``memory`` (``page_id`` 0). Scopes: a ``PageScope`` for chunks and pages; for
memories the filter value the memory reads already take (``FactFilter`` for
MCP facts, ``MemoryFilter`` for gRPC recall), passed through as is.

Keyword scores are positive, larger is better (BM25 for SQLite); nearest
scores are cosines. ``keyword`` applies the whole scope. ``nearest`` returns
candidates: an engine may pre-filter by the scope as far as its index allows
(SQLite: the row's private flag for chunks, the whole scope for memories;
PostgreSQL: inside the HNSW scan), and callers re-check every hit with the
store before showing it.

``sparse(model)`` is the learned-sparse arm's ``SparseIndex``: its rows are
derived data like the vector indexes (made by the encoder, dropped by the
engine's triggers when the text goes, rebuilt by ``brainkeep embed``);
SQLite keeps an impact-ordered postings table read with early termination
(the exact top k), PostgreSQL pgvector ``sparsevec`` (exact for a small
kind, through HNSW above 2,000 rows: top-10 recall by score 0.996 at 20K).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Protocol

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.query import PageScope, QueryTerms
from brainkeep.core.retrieval import EmbedTask, FactFilter, ScoredId

if TYPE_CHECKING:  # annotations only: a serve answering tools/list must not load numpy
    import numpy as np

    from brainkeep.core.sparse_terms import NewSparse, SparseTerms

SearchScope = PageScope | FactFilter | MemoryFilter


class SearchIndex(Protocol):
    """Keyword and nearest-neighbour search over one source's chunks, pages and memories."""

    def keyword(
        self, kind: str, terms: QueryTerms, scope: SearchScope, k: int
    ) -> list[ScoredId]:
        """At most ``k`` rows of ``kind`` matching ``terms`` within ``scope``, best first."""
        ...

    def nearest(
        self,
        kind: str,
        vector: np.ndarray,
        scope: SearchScope | None,
        k: int,
        *,
        only: Collection[int] | None = None,
    ) -> list[ScoredId]:
        """At most ``k`` rows of ``kind`` (``chunk`` or ``memory``) most similar to ``vector``.

        ``vector`` is a unit float32 vector of the index's model space;
        ``only`` restricts the search to these item ids. ``scope`` None:
        candidates of every visibility (the caller applies its own). An index
        built without a model space finds nothing.
        """
        ...

    def vector_count(self, kind: str) -> int:
        """Vectors of ``kind`` the index holds in its model space, caught up with writes."""
        ...

    def build_vector_indexes(self) -> dict[str, int]:
        """Bring approximate vector indexes up to date now, in this thread (after a backfill).

        Returns kind -> vectors the rebuilt index holds, for each kind rebuilt.
        Empty when nothing needed it: an engine that maintains its index on
        every write, or a space still small enough to be searched exactly.
        Searches never wait for this; without it a serving process rebuilds
        in the background.
        """
        ...

    def sparse(self, model: str) -> SparseIndex:
        """The learned-sparse vectors of this source in ``model``'s term space."""
        ...


class SparseIndex(Protocol):
    """The learned-sparse vectors of one source in one model's term space."""

    model: str

    def put(self, rows: Sequence[NewSparse]) -> int:
        """Store vectors (inside the caller's transaction); returns rows written.

        A row whose chunk or memory is gone by now is skipped.
        """
        ...

    def missing(self, kind: str, *, after_item: int, limit: int) -> list[EmbedTask]:
        """Live chunks (or active memories) with ``id > after_item`` lacking a vector."""
        ...

    def count_missing(self) -> dict[str, int]:
        """kind -> live rows without a vector in this model."""
        ...

    def count(self) -> dict[str, int]:
        """kind -> rows holding a vector in this model."""
        ...

    def search(
        self, kind: str, query: SparseTerms, scope: SearchScope | None, k: int
    ) -> list[ScoredId]:
        """The ``k`` rows of ``kind`` with the largest dot product, best first (ties: lower id).

        Like ``SearchIndex.nearest`` these are candidates: pre-filtered by the
        row's private flag (``scope`` None: every visibility) and re-checked
        by the caller.
        """
        ...

    def prune(self) -> int:
        """Compact side indexes, dropping entries of rows that are gone; returns entries dropped.

        Opens its own write transaction (not to be called inside one that must stay short).
        """
        ...
