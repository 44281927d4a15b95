"""The embedding-backed arms of retrieval: chunk vectors for pages, facts by query.

``EmbeddingVectorArm`` plugs into ``SearchService`` (pages). ``FactSearch``
ranks recall's facts for a query: the engine's keyword list (BM25 in SQLite)
fused by RRF (k = 60) with memory-vector cosine when embeddings exist; every
recall filter (entity, since, session, grep, activity, privacy) still applies.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from brainkeep.core.embedding import Embeddings
from brainkeep.core.fusion import Fusion
from brainkeep.core.models import Memory
from brainkeep.core.overlap import Overlap, inline
from brainkeep.core.ports.embeddings import EmbeddingRepository
from brainkeep.core.ports.search_index import SearchIndex
from brainkeep.core.query import query_terms
from brainkeep.core.retrieval import CHUNK, MEMORY, FactFilter, ScoredId
from brainkeep.core.search import (
    DEGRADED_NO_VECTORS,
    DEGRADED_PROVIDER_DOWN,
    KEYWORD_ROW_BUDGET,
    VectorHits,
)
from brainkeep.core.sparse import Sparse
from brainkeep.errors import Unavailable

log = logging.getLogger(__name__)

# Fact-arm cut-offs, chosen on bench/data/retrieval_eval.json (docs/search.md,
# "Facts for a query"): vector neighbours below 0.25 cosine are noise for
# all-MiniLM-L6-v2; keeping only those within 0.15 of the best, and keyword
# hits within 30% of the best BM25, stops weak tails outvoting a precise match.
FACT_MIN_COSINE = 0.25
FACT_COSINE_WINDOW = 0.15
FACT_KEYWORD_RATIO = 0.3
# How many fact ids a narrowed recall (entity, session, ...) restricts the vector arm to.
NARROWED_ID_CAP = 5000


class EmbeddingVectorArm:
    """``search.VectorArm`` over the brain's chunk index."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def chunk_hits(self, query: str, *, include_private: bool, limit: int) -> VectorHits:
        try:
            hits = self.embeddings.chunk_hits(query, limit, include_private=include_private)
        except Unavailable as exc:
            # Degrade, never fail recall: the keyword arms still answer.
            log.warning("vector search skipped: %s (%s)", exc.message, exc.detail)
            return VectorHits([], DEGRADED_PROVIDER_DOWN)
        if not hits and not self.embeddings.index.vector_count(CHUNK) and self._vectors_missing():
            return VectorHits([], DEGRADED_NO_VECTORS)
        return VectorHits(hits)

    def _vectors_missing(self) -> bool:
        e = self.embeddings
        return bool(
            e.store.missing_embeddings(e.source_id, CHUNK, e.model, e.dim, after_item=0, limit=1)
        )


class SparseChunkArm:
    """``search.SparseArm`` over the brain's learned-sparse chunk vectors."""

    def __init__(self, sparse: Sparse) -> None:
        self.sparse = sparse

    def chunk_hits(self, query: str, *, include_private: bool, limit: int) -> VectorHits:
        try:
            return VectorHits(self.sparse.chunk_hits(query, limit,
                                                     include_private=include_private))
        except Unavailable as exc:
            # Degrade, never fail recall: the other arms still answer.
            log.warning("sparse search skipped: %s (%s)", exc.message, exc.detail)
            return VectorHits([], DEGRADED_PROVIDER_DOWN)


@dataclass(frozen=True)
class FactSearch:
    """Facts ranked for a query: RRF (k = 60) of up to three lists.

    1. BM25 over fact text, keeping hits scoring at least ``keyword_ratio``
       of the best (an OR query also matches facts sharing one common word:
       that long tail would otherwise outvote a precise match in RRF).
    2. The strict list: facts containing every content term (FTS5 AND).
    3. Cosine to the query (with embeddings), keeping hits within
       ``cosine_window`` of the best and above ``min_cosine``.
    """

    store: EmbeddingRepository
    index: SearchIndex
    source_id: str
    embeddings: Embeddings | None = None
    rrf_k: int = 60
    min_cosine: float = FACT_MIN_COSINE
    cosine_window: float = FACT_COSINE_WINDOW
    keyword_ratio: float = FACT_KEYWORD_RATIO
    # "convex" (the default since LoCoMo phase 2: beat RRF on both halves of
    # bench/retrieval_eval.py, docs/search.md) sums w * score / best per list;
    # "rrf" sums 1 / (rrf_k + rank).
    method: str = "convex"
    convex_weights: tuple[float, float, float] = (0.4, 0.2, 0.4)  # keyword, strict, vector
    overlap: Overlap | None = None  # None: the lists one after the other
    sparse: Sparse | None = None  # the learned-sparse list, weighted ``sparse_weight``
    # 0.2: the best of 0 / 0.2 / 0.4 on the dev split of bench/retrieval_eval.py
    # (docs/search.md, "Learned-sparse arm").
    sparse_weight: float = 0.2

    def search(self, query: str, filt: FactFilter, *, limit: int) -> list[Memory]:
        """Facts passing ``filt`` that match ``query``, best first (at most ``limit``)."""
        pool = max(limit * 3, 30)
        terms = query_terms(query)
        # The vector search runs beside the keyword ones (core.overlap).
        start = self.overlap.start if self.overlap else inline
        vector = start(lambda: self._vector(query, filt, pool))
        learned = start(lambda: self._sparse(query, filt, pool))
        keyword = self.index.keyword(
            MEMORY, terms.any(row_budget=KEYWORD_ROW_BUDGET), filt, pool
        )
        if keyword:
            floor = keyword[0].score * self.keyword_ratio
            keyword = [s for s in keyword if s.score >= floor]
        strict = (self.index.keyword(MEMORY, terms.every(), filt, pool)
                  if len(terms.terms) > 1 else keyword)
        lists = (keyword, strict, vector(), learned())
        if self.method == "convex":
            scores: dict[int, float] = {}
            weights = (*self.convex_weights, self.sparse_weight)
            for weight, hits in zip(weights, lists, strict=True):
                top = max((h.score for h in hits), default=0.0)
                for hit in hits:
                    if top > 0:
                        scores[hit.id] = scores.get(hit.id, 0.0) + weight * hit.score / top
        else:
            fusion = Fusion(k=self.rrf_k)
            for name, hits in zip(("keyword", "strict", "vector", "sparse"), lists,
                                  strict=True):
                fusion.add(name, [h.id for h in hits])
            scores = fusion.scores()
        best = sorted(scores, key=lambda mid: (scores[mid], mid), reverse=True)[:limit]
        # Only the final facts are read in full (and re-checked against the filters).
        facts = self.store.memories_matching(self.source_id, best, filt)
        return [facts[mid] for mid in best if mid in facts]

    def _vector(self, query: str, filt: FactFilter, pool: int) -> list[ScoredId]:
        if self.embeddings is None:
            return []
        only: set[int] | None = None
        if filt.narrowed:
            only = set(self.store.fact_ids_matching(self.source_id, filt, limit=NARROWED_ID_CAP))
            if not only:
                return []
        try:
            # The index pre-filters by what it can tell from ``filt`` (the
            # row's private flag); the filter itself decides below.
            hits = self.embeddings.memory_hits(query, pool, scope=filt, only=only)
        except Unavailable as exc:
            log.warning("fact vector search skipped: %s (%s)", exc.message, exc.detail)
            return []
        if hits:
            floor = max(self.min_cosine, hits[0].score - self.cosine_window)
            hits = [h for h in hits if h.score >= floor]
        # The filter and privacy re-check: vectors are only candidates.
        passing = self.store.fact_ids_passing(self.source_id, [h.id for h in hits], filt)
        return [h for h in hits if h.id in passing]

    def _sparse(self, query: str, filt: FactFilter, pool: int) -> list[ScoredId]:
        if self.sparse is None:
            return []
        # No id restriction in the sparse index: a narrowed recall reads deeper.
        wanted = pool * 4 if filt.narrowed else pool
        try:
            hits = self.sparse.memory_hits(query, wanted, scope=filt)
        except Unavailable as exc:
            log.warning("fact sparse search skipped: %s (%s)", exc.message, exc.detail)
            return []
        passing = self.store.fact_ids_passing(self.source_id, [h.id for h in hits], filt)
        return [h for h in hits if h.id in passing][:pool]
