"""SQLite's ``SearchIndex``: FTS5 keyword reads plus exact numpy vector indexes.

One instance serves a brain's source (built by ``SQLiteStore.search_index``);
it holds the term-count cache and, when the brain has a model space, the two
in-memory vector matrices (chunks, memories), so every service of the brain
shares them.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from brainkeep.core.mnemo.models import MemoryFilter
from brainkeep.core.query import PageScope, QueryTerms
from brainkeep.core.retrieval import CHUNK, MEMORY, PAGE, FactFilter, ScoredId
from brainkeep.store.search_index import SearchScope
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.keyword_index import KeywordIndex
from brainkeep.store.sqlite.vector_index import SQLiteVectorRows, VectorIndex


def _page_scope(kind: str, scope: SearchScope | None) -> PageScope:
    if not isinstance(scope, PageScope):
        raise TypeError(f"a {kind} search takes a PageScope, not {type(scope).__name__}")
    return scope


def _vector_sees_private(scope: SearchScope | None) -> bool:
    """Whether rows embedded as private stay in the vector pre-filter.

    The index knows one bit per row (visibility != world), so it can only
    drop private rows for readers who can see none: an anonymous remote
    reader. A bound reader may see some private rows (its own, shared ones),
    so they stay, and the store's filter decides when the hits are re-read.
    """
    if isinstance(scope, FactFilter):
        return scope.scope.trusted or bool(scope.scope.reader)
    if isinstance(scope, PageScope):
        return scope.include_private
    return True  # MemoryFilter or no scope: candidates only, re-checked by the caller


class SQLiteSearchIndex:
    """``store.search_index.SearchIndex`` over one SQLite brain's source."""

    def __init__(
        self, db: SQLiteEngine, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> None:
        self.source_id = source_id
        self.words = KeywordIndex(db, source_id)
        self.vectors: dict[str, VectorIndex] = {}
        if model is not None and dim > 0:
            rows = SQLiteVectorRows(db)
            self.vectors = {
                kind: VectorIndex(rows, source_id=source_id, kind=kind, model=model, dim=dim)
                for kind in (CHUNK, MEMORY)
            }

    def keyword(
        self, kind: str, terms: QueryTerms, scope: SearchScope, k: int
    ) -> list[ScoredId]:
        plan = self.words.plan(kind, terms)
        if kind == CHUNK:
            pages = _page_scope(kind, scope)
            return self.words.chunks(plan, include_private=pages.include_private, limit=k)
        if kind == PAGE:
            pages = _page_scope(kind, scope)
            return self.words.titles(plan, include_private=pages.include_private, limit=k)
        if kind == MEMORY:
            if isinstance(scope, FactFilter):
                return self.words.facts(plan, scope, limit=k)
            if isinstance(scope, MemoryFilter):
                return self.words.memories(plan, scope, limit=k)
            raise TypeError(f"a memory search takes a FactFilter or MemoryFilter, not {scope!r}")
        raise ValueError(f"unknown search kind {kind!r}")

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
        hits = index.search(
            vector, k, include_private=_vector_sees_private(scope),
            only_items=None if only is None else set(only),
        )
        return [ScoredId(h.item_id, h.page_id, h.cosine) for h in hits]

    def vector_count(self, kind: str) -> int:
        index = self.vectors.get(kind)
        if index is None:
            return 0
        index.sync()
        return len(index)
