"""Page search: the keyword arm (FTS5/BM25), evidence and create_safety.

Evidence is derived from the signals that actually fired, strongest first
(documented in docs/search.md):

* ``alias_hit`` — the normalized query equals one of the page's aliases;
* ``exact_title_match`` — the normalized query equals the title, or contains it
  as a whole phrase;
* ``high_vector_match`` — query/chunk cosine >= 0.80 (only when the vector arm ran);
* ``keyword_exact`` — every query term occurs in the title or the chunk;
* ``weak_semantic`` — anything else that surfaced.

``create_safety``: alias/title/high-vector -> ``exists``; keyword_exact ->
``probable``; weak -> ``unknown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Protocol

from brainkeep.core.models import PageHit
from brainkeep.core.slugs import normalize_alias, strip_accents
from brainkeep.store.base import Store

DEGRADED_KEYWORD_ONLY = "keyword_only_no_embedding_provider"
HIGH_VECTOR_COSINE = 0.80
MAX_QUERY_TERMS = 16

SAFETY = {
    "alias_hit": "exists",
    "exact_title_match": "exists",
    "high_vector_match": "exists",
    "keyword_exact": "probable",
    "weak_semantic": "unknown",
}


@dataclass(frozen=True)
class SearchResult:
    """One page found by search, with why it matched."""

    slug: str
    title: str
    chunk: str
    score: float
    evidence: str
    create_safety: str
    updated_at: str
    cosine: float | None = None


@dataclass(frozen=True)
class SearchOutcome:
    """Results plus `degraded` when the vector arm did not run."""

    results: list[SearchResult]
    degraded: str | None


class VectorArm(Protocol):
    """The semantic half of hybrid search (provided when embeddings are configured)."""

    def page_hits(
        self, query: str, *, include_private: bool, limit: int
    ) -> list[tuple[PageHit, float]] | None:
        """Pages by query/chunk cosine, best first; None when the arm cannot run."""
        ...


def query_terms(query: str) -> list[str]:
    """Lowercase, accent-folded word terms of a query (deduplicated, capped)."""
    words = re.findall(r"\w+", strip_accents(query).lower())
    seen: dict[str, None] = {}
    for word in words:
        seen.setdefault(word, None)
    return list(seen)[:MAX_QUERY_TERMS]


def fts_query(query: str) -> str:
    """An FTS5 MATCH expression: any term, each quoted so punctuation cannot inject syntax."""
    return " OR ".join(f'"{term}"' for term in query_terms(query))


def derive_evidence(
    query: str, title: str, chunk: str, aliases: set[str], cosine: float | None
) -> str:
    """The strongest signal that fired for one result."""
    norm = normalize_alias(query)
    title_norm = normalize_alias(title)
    if norm and norm in aliases:
        return "alias_hit"
    if title_norm and (norm == title_norm or f" {title_norm} " in f" {norm} "):
        return "exact_title_match"
    if cosine is not None and cosine >= HIGH_VECTOR_COSINE:
        return "high_vector_match"
    terms = query_terms(query)
    haystack = set(query_terms(f"{title} {chunk}"))
    if terms and all(term in haystack for term in terms):
        return "keyword_exact"
    return "weak_semantic"


@dataclass(frozen=True)
class SearchService:
    """Search over one source's pages; hybrid when a vector arm is attached."""

    store: Store
    source_id: str
    vector_arm: VectorArm | None = None
    rrf_k: int = 60

    def keyword(self, query: str, *, include_private: bool, limit: int) -> list[PageHit]:
        return self.store.search_pages_keyword(
            self.source_id, fts_query(query), include_private=include_private, limit=limit
        )

    def search(self, query: str, *, include_private: bool, limit: int) -> SearchOutcome:
        """Best pages for ``query`` (one result per page), evidence stamped."""
        hits = self.keyword(query, include_private=include_private, limit=limit)
        cosines: dict[str, float] = {}
        degraded: str | None = DEGRADED_KEYWORD_ONLY
        if self.vector_arm is not None:
            vector = self.vector_arm.page_hits(
                query, include_private=include_private, limit=limit
            )
            if vector is not None:
                degraded = None
                hits = self._fuse(hits, vector)
                cosines = {hit.slug: cos for hit, cos in vector}
        hits = hits[:limit]
        aliases = self.store.alias_norms_for(self.source_id, [h.slug for h in hits])
        results = []
        for hit in hits:
            evidence = derive_evidence(
                query, hit.title, hit.chunk, aliases.get(hit.slug, set()), cosines.get(hit.slug)
            )
            results.append(
                SearchResult(
                    slug=hit.slug,
                    title=hit.title,
                    chunk=hit.chunk,
                    score=hit.score,
                    evidence=evidence,
                    create_safety=SAFETY[evidence],
                    updated_at=hit.updated_at,
                    cosine=cosines.get(hit.slug),
                )
            )
        return SearchOutcome(results, degraded)

    def _fuse(
        self, keyword: list[PageHit], vector: list[tuple[PageHit, float]]
    ) -> list[PageHit]:
        """Reciprocal rank fusion (k=60) with title/alias matches boosted to the top."""
        scores: dict[str, float] = {}
        best: dict[str, PageHit] = {}
        for rank, hit in enumerate(keyword):
            scores[hit.slug] = scores.get(hit.slug, 0.0) + 1.0 / (self.rrf_k + rank + 1)
            best.setdefault(hit.slug, hit)
        for rank, (hit, _cos) in enumerate(vector):
            scores[hit.slug] = scores.get(hit.slug, 0.0) + 1.0 / (self.rrf_k + rank + 1)
            best.setdefault(hit.slug, hit)
        ordered = sorted(
            best.values(),
            key=lambda h: (h.matched_alias or h.matched_title, scores[h.slug]),
            reverse=True,
        )
        return [replace(h, score=scores[h.slug]) for h in ordered]
