"""PostgreSQL's ``SearchIndex``: tsvector keyword reads plus pgvector nearest neighbours.

One instance serves a brain's source (built by ``PostgresStore.search_index``).
Unlike SQLite's it holds no vectors: the HNSW index lives in the database,
always current, shared by every process. Without pgvector
(``db.vector_available`` False) ``nearest`` finds nothing and
``vector_count`` is 0; keyword search is unaffected.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import CHUNK, MEMORY, ScoredId
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.keyword import TsKeyword
from brainkeep.store.postgres.nearest import EXACT_MAX, VectorSearch
from brainkeep.store.postgres.sparse_index import PostgresSparseIndex
from brainkeep.store.sql.search_scope import keyword_search, vector_sees_private


class PostgresSearchIndex:
    """``store.search_index.SearchIndex`` over one PostgreSQL brain's source."""

    def __init__(self, db: PostgresEngine, source_id: str, *, model: str | None = None,
                 dim: int = 0, exact_max: int = EXACT_MAX,
                 words: TsKeyword | None = None) -> None:
        """``exact_max``: filtered sets up to this size are searched exactly (nearest.py).

        ``words``: the source's keyword reads, whose term counts are cached;
        the store passes the one it keeps, so a caller that asks for an
        index per call does not count its terms again.
        """
        self.db = db
        self.source_id = source_id
        self._sparse: dict[str, PostgresSparseIndex] = {}
        self.words = words or TsKeyword(db, source_id)
        self.vectors: dict[str, VectorSearch] = {}
        if model is not None and dim > 0 and db.vector_available:
            self.vectors = {
                kind: VectorSearch(db, source_id=source_id, kind=kind, model=model, dim=dim,
                                   exact_max=exact_max)
                for kind in (CHUNK, MEMORY)
            }

    def keyword(
        self, kind: str, terms: QueryTerms, scope: SearchScope, k: int
    ) -> list[ScoredId]:
        with self.db.session():  # counts, floor and match: one pool checkout
            return keyword_search(self.words, kind, terms, scope, k)

    def nearest(
        self,
        kind: str,
        vector: np.ndarray,
        scope: SearchScope | None,
        k: int,
        *,
        only: Collection[int] | None = None,
    ) -> list[ScoredId]:
        search = self.vectors.get(kind)
        if search is None:
            return []
        hits = search.search(vector, k, include_private=vector_sees_private(scope),
                             only_items=only)
        return [ScoredId(h.item_id, h.page_id, h.cosine) for h in hits]

    def vector_count(self, kind: str) -> int:
        search = self.vectors.get(kind)
        return 0 if search is None else search.count()

    def build_vector_indexes(self) -> dict[str, int]:
        return {}  # HNSW indexes are maintained by every write

    def sparse(self, model: str) -> PostgresSparseIndex:
        index = self._sparse.get(model)
        if index is None:
            index = self._sparse[model] = PostgresSparseIndex(self.db, self.source_id, model)
        return index
