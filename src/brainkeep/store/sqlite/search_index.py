"""SQLite's ``SearchIndex``: FTS5 keyword reads plus vector indexes (ANN + exact delta).

One instance serves a brain's source (built by ``SQLiteStore.search_index``);
it holds the term-count cache and, when the brain has a model space, the two
vector indexes (chunks, memories), so every service of the brain shares them.
A brain file gets ``AnnVectorIndex`` (mmapped HNSW base beside the file, exact
below the crossover); an in-memory brain the exact ``VectorIndex``.

Memory searches under a ``FactFilter`` or ``MemoryFilter`` return rows that
pass the filter (the read scope included, compiled once in
``store/sql/filters.py``): the nearest rows are re-checked and the search
widened until ``k`` pass, and a scope that passes few of them (a small
tenant) is scored exactly over its own rows.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.query import QueryTerms
from brainkeep.core.retrieval import CHUNK, MEMORY, FactFilter, ScoredId
from brainkeep.store.sql.dialect import SQLITE
from brainkeep.store.sql.filters import fact_filter_sql, memory_filter_sql
from brainkeep.store.sql.search_scope import keyword_search, vector_sees_private
from brainkeep.store.sqlite.ann_files import BaseFiles, vectors_dir
from brainkeep.store.sqlite.ann_index import EXACT_ITEMS_MAX, AnnVectorIndex
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.keyword_index import KeywordIndex
from brainkeep.store.sqlite.sparse_index import SQLiteSparseIndex
from brainkeep.store.sqlite.vector_index import SQLiteVectorRows, VectorHit, VectorIndex

# Scoped memory search: widen the nearest rows up to this many, then fall back
# to scoring the scope's own rows exactly if it has at most SCOPED_EXACT_MAX.
SCOPED_FETCH_MAX = 4_096
SCOPED_EXACT_MAX = 20_000


def _scope_sql(source_id: str, scope: FactFilter | MemoryFilter, *, by_ids: bool
               ) -> tuple[str, list[Any] | dict[str, Any]]:
    if isinstance(scope, FactFilter):
        where, params = fact_filter_sql(source_id, scope, "m.", dialect=SQLITE, by_ids=by_ids)
        return where, params
    return memory_filter_sql(scope, SQLITE)


class SQLiteSearchIndex:
    """``store.search_index.SearchIndex`` over one SQLite brain's source."""

    def __init__(
        self, db: SQLiteEngine, source_id: str, *, model: str | None = None, dim: int = 0,
        words: KeywordIndex | None = None,
    ) -> None:
        """``words``: the source's keyword reads, whose term counts are cached;
        the store passes the one it keeps, so a caller that asks for an index
        per call does not count its terms again."""
        self.db = db
        self.source_id = source_id
        self._sparse: dict[str, SQLiteSparseIndex] = {}
        self.words = words or KeywordIndex(db, source_id)
        self.vectors: dict[str, VectorIndex | AnnVectorIndex] = {}
        if model is not None and dim > 0:
            rows = SQLiteVectorRows(db)
            directory = vectors_dir(db.path)
            for kind in (CHUNK, MEMORY):
                if directory is None:
                    self.vectors[kind] = VectorIndex(rows, source_id=source_id, kind=kind,
                                                     model=model, dim=dim)
                else:
                    files = BaseFiles(directory, source_id=source_id, kind=kind, model=model,
                                      dim=dim)
                    self.vectors[kind] = AnnVectorIndex(rows, files)

    def keyword(
        self, kind: str, terms: QueryTerms, scope: SearchScope, k: int
    ) -> list[ScoredId]:
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
        index = self.vectors.get(kind)
        if index is None:
            return []
        private = vector_sees_private(scope)
        only_items = None if only is None else set(only)
        if kind == MEMORY and isinstance(scope, FactFilter | MemoryFilter):
            hits = self._scoped(index, vector, scope, k, private, only_items)
        else:
            hits = index.search(vector, k, include_private=private, only_items=only_items)
        return [ScoredId(h.item_id, h.page_id, h.cosine) for h in hits]

    def _scoped(self, index: VectorIndex | AnnVectorIndex, vector: np.ndarray,
                scope: FactFilter | MemoryFilter, k: int, private: bool,
                only: set[int] | None) -> list[VectorHit]:
        """The ``k`` nearest memories that pass ``scope`` (reference gap: 4·k from the brain)."""
        first = fetch = max(k, 16)
        while True:
            hits = index.search(vector, fetch, include_private=private, only_items=only)
            passing = self._passing(scope, [h.item_id for h in hits])
            keep = [h for h in hits if h.item_id in passing]
            if len(keep) >= k or len(hits) < fetch:
                if fetch > first and isinstance(index, AnnVectorIndex):
                    # Few rows passed: the scope is sparse, so the graph's
                    # neighbourhood may hold only some of its true top k. A
                    # small scope is scored exactly instead (at most
                    # EXACT_ITEMS_MAX rows: cheaper than the widened search).
                    ids = self._scope_ids(scope, EXACT_ITEMS_MAX + 1)
                    if only is not None:
                        ids = [i for i in ids if i in only]
                    if len(ids) <= EXACT_ITEMS_MAX:
                        return index.exact_items(vector, k, include_private=private,
                                                 items=set(ids))
                return keep[:k]
            if fetch >= SCOPED_FETCH_MAX:
                break
            fetch *= 4
        # Few of the nearest rows pass: a small tenant or a narrow filter.
        ids = self._scope_ids(scope, SCOPED_EXACT_MAX + 1)
        if only is not None:
            ids = [i for i in ids if i in only]
        if len(ids) > SCOPED_EXACT_MAX:
            return keep[:k]  # a large scope whose rows rank far down: the best found
        if isinstance(index, AnnVectorIndex):
            return index.exact_items(vector, k, include_private=private, items=set(ids))
        return index.search(vector, k, include_private=private, only_items=set(ids))

    def _passing(self, scope: FactFilter | MemoryFilter, ids: list[int]) -> set[int]:
        if not ids:
            return set()
        where, params = _scope_sql(self.source_id, scope, by_ids=True)
        listed = ",".join(str(int(i)) for i in ids)  # ints from the index, not caller text
        rows = self.db.all(f"SELECT m.id FROM memories m WHERE m.id IN ({listed}) AND {where}",
                           params)
        return {int(r[0]) for r in rows}

    def _scope_ids(self, scope: FactFilter | MemoryFilter, limit: int) -> list[int]:
        where, params = _scope_sql(self.source_id, scope, by_ids=False)
        rows = self.db.all(f"SELECT m.id FROM memories m WHERE {where} LIMIT {int(limit)}",
                           params)
        return [int(r[0]) for r in rows]

    def vector_count(self, kind: str) -> int:
        index = self.vectors.get(kind)
        if index is None:
            return 0
        index.sync()
        return len(index)

    def build_vector_indexes(self) -> dict[str, int]:
        built: dict[str, int] = {}
        for kind, index in self.vectors.items():
            if isinstance(index, AnnVectorIndex) and (meta := index.build_if_needed()):
                built[kind] = meta.count
        return built

    def sparse(self, model: str) -> SQLiteSparseIndex:
        index = self._sparse.get(model)
        if index is None:
            index = self._sparse[model] = SQLiteSparseIndex(self.db, self.source_id, model)
        return index
