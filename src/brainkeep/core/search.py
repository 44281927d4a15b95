"""Page search: keyword (FTS5/BM25) and vector arms fused, evidence stamped.

Ranking (docs/search.md has the why and the numbers):

1. Three ranked lists: chunks by BM25, chunks by cosine (when an embedding
   provider is configured), and pages whose title/aliases match by BM25.
   Each chunk list keeps at most ``CHUNKS_PER_PAGE`` chunks of one page, so a
   long page cannot crowd out the rest.
2. Fusion (``core.fusion.PageRanking``; default: a convex combination of
   min-max-normalised BM25 and cosine, 0.5/0.5, with an idf-saturated title
   term): a page scores its best chunk plus its title-list term. Results
   below 0.4 x the best fused score are dropped (the first 7 always stay).
3. Boosts: a query that IS a page's alias or title puts that page first; a
   query that contains a title as a phrase adds one top-rank term.
   Config ``search.mode`` leaves arms out (``arms_of``); with the
   learned-sparse arm (``sparse.provider``) a fourth list, chunks by
   SPLADE score, joins the fusion (``PageRanking.sparse_weight``).
4. One result per page, showing its best chunk.

Evidence is derived from the signals that actually fired, strongest first:

* ``alias_hit`` — the normalized query equals one of the page's aliases;
* ``exact_title_match`` — the normalized query equals the title, or contains it
  as a whole phrase;
* ``high_vector_match`` — query/chunk cosine >= 0.80 (only when the vector arm ran);
* ``keyword_exact`` — every content term of the query occurs in the title or chunk;
* ``weak_semantic`` — anything else that surfaced.

``create_safety``: alias/title/high-vector -> ``exists``; keyword_exact ->
``probable``; weak -> ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from brainkeep.core.clock import Clock
from brainkeep.core.feedback import expansion_terms
from brainkeep.core.fusion import CHUNKS_PER_PAGE, PageFusion, PageRanking, PageScore
from brainkeep.core.overlap import Overlap, inline
from brainkeep.core.ports.composites import PageSearchStore
from brainkeep.core.ports.search_index import SearchIndex
from brainkeep.core.query import PageScope, QueryTerms, query_terms, words_of
from brainkeep.core.retrieval import CHUNK, PAGE, PageHead, ScoredId
from brainkeep.core.slugs import normalize_alias
from brainkeep.core.time_recall import TimeNote, TimeQuery, TimeRanking, boost_by_time

DEGRADED_KEYWORD_ONLY = "keyword_only_no_embedding_provider"
DEGRADED_PROVIDER_DOWN = "keyword_only_embedding_provider_unavailable"
DEGRADED_NO_VECTORS = "keyword_only_vectors_not_built"
HIGH_VECTOR_COSINE = 0.80
# The keyword arm stops adding (ever more common) terms to its any-term query
# once they would match more rows than this: a term in thousands of chunks
# adds almost nothing to BM25 (low idf) but dominates the cost of ranking.
KEYWORD_ROW_BUDGET = 1000
# config `search.mode`: which arms page search runs ("hybrid": every arm the
# brain has; a pair such as "keyword+sparse" leaves the third out).
SEARCH_MODES = ("hybrid", "keyword", "vector", "sparse", "keyword+vector", "keyword+sparse",
                "vector+sparse")
ARMS = ("keyword", "vector", "sparse")


def arms_of(mode: str) -> frozenset[str]:
    """The arms a ``search.mode`` asks for (an unknown mode: every arm)."""
    if mode == "hybrid" or mode not in SEARCH_MODES:
        return frozenset(ARMS)
    return frozenset(mode.split("+"))

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
    """Results plus `degraded` when the vector arm did not run (and why)."""

    results: list[SearchResult]
    degraded: str | None
    time: TimeNote | None = None  # what time-aware ranking did (core/time_recall.py)


@dataclass(frozen=True)
class VectorHits:
    """What the vector arm found; ``degraded`` names why it could not run."""

    hits: list[ScoredId]  # chunk id, its page id, cosine
    degraded: str | None = None


class VectorArm(Protocol):
    """The semantic half of hybrid search (present when embeddings are configured)."""

    def chunk_hits(self, query: str, *, include_private: bool, limit: int) -> VectorHits:
        """Chunks by query/chunk cosine, best first; never raises for provider trouble."""
        ...


class SparseArm(Protocol):
    """The learned-sparse arm (present when ``sparse.provider`` is configured)."""

    def chunk_hits(self, query: str, *, include_private: bool, limit: int) -> VectorHits:
        """Chunks by learned-sparse score, best first; never raises for encoder trouble."""
        ...


@dataclass(frozen=True)
class QueryProfile:
    """What evidence derivation needs from a query, computed once per search."""

    norm: str
    terms: tuple[str, ...]

    @classmethod
    def of(cls, query: str) -> QueryProfile:
        return cls(normalize_alias(query), query_terms(query).terms)


def title_in_query(query_norm: str, title: str) -> bool:
    """The normalized query equals the title or contains it as a whole phrase."""
    if title.isascii():
        # Fast rejection (this runs for every candidate page): the title's
        # first word must occur in the query at all.
        first = re.match(r"[^0-9A-Za-z]*([0-9A-Za-z]+)", title)
        if first is None or first.group(1).lower() not in query_norm:
            return False
    title_norm = normalize_alias(title)
    return bool(title_norm) and f" {title_norm} " in f" {query_norm} "


def derive_evidence(
    query: QueryProfile, title: str, chunk: str, aliases: set[str], cosine: float | None
) -> str:
    """The strongest signal that fired for one result."""
    if query.norm and query.norm in aliases:
        return "alias_hit"
    if title_in_query(query.norm, title):
        return "exact_title_match"
    if cosine is not None and cosine >= HIGH_VECTOR_COSINE:
        return "high_vector_match"
    if query.terms:
        haystack = set(words_of(f"{title} {chunk}"))
        if all(term in haystack for term in query.terms):
            return "keyword_exact"
    return "weak_semantic"


@dataclass(frozen=True)
class SearchService:
    """Search over one source's pages; hybrid when a vector arm is attached."""

    store: PageSearchStore
    index: SearchIndex
    source_id: str
    vector_arm: VectorArm | None = None
    ranking: PageRanking = PageRanking()
    sparse_arm: SparseArm | None = None
    # "keyword" skips the vector arm even when embeddings are configured;
    # "vector" skips the keyword and title arms (and the exact-name boosts)
    # whenever the vector arm can answer.
    mode: str = "hybrid"
    overlap: Overlap | None = None  # None: the arms one after the other
    row_budget: int = KEYWORD_ROW_BUDGET
    clock: Clock | None = None  # "now" for relative time phrases (None: the wall clock)
    time_ranking: TimeRanking | None = TimeRanking()  # None: no time-aware boosts

    def search(self, query: str, *, include_private: bool, limit: int) -> SearchOutcome:
        """Best pages for ``query`` (one result per page), evidence stamped.

        Never fails because of the embedding provider: without one, or when
        it is down, the keyword arms answer alone and ``degraded`` says why.
        """
        profile = QueryProfile.of(query)
        terms = QueryTerms(profile.terms, row_budget=self.row_budget)
        scope = PageScope(include_private)
        pool = max(limit * 3, 30)
        fusion = PageFusion(self.ranking)
        wanted = pool * CHUNKS_PER_PAGE
        arms = arms_of(self.mode)
        start = self.overlap.start if self.overlap else inline
        vector: Callable[[], VectorHits] | None = None
        if self.vector_arm is not None and "vector" in arms:
            arm = self.vector_arm
            asked = query if self.ranking.vector_query == "raw" else " ".join(profile.terms)
            # Beside the keyword arms (core.overlap).
            vector = start(
                lambda: arm.chunk_hits(asked, include_private=include_private, limit=wanted))
        sparse: Callable[[], VectorHits] | None = None
        if self.sparse_arm is not None and "sparse" in arms:
            learned = self.sparse_arm
            sparse = start(
                lambda: learned.chunk_hits(query, include_private=include_private, limit=wanted))
        # Without the keyword arm, it still runs when no other arm could answer.
        lexical = "keyword" in arms or not (
            (vector is not None and vector().degraded is None)
            or (sparse is not None and sparse().degraded is None))
        keyword: list[ScoredId] = []
        titles: list[ScoredId] = []
        exact: list[int] = []
        if lexical:
            keyword = self.index.keyword(CHUNK, terms, scope, wanted)
            titles = self.index.keyword(PAGE, terms, scope, pool)
            exact = list(self.store.exact_name_pages(
                self.source_id, profile.norm, include_private=include_private
            ))
        degraded = DEGRADED_KEYWORD_ONLY if "vector" in arms else None
        if vector is not None:
            hits = vector()
            degraded = hits.degraded
            # Cosine has no natural zero (an unrelated chunk still scores
            # ~0.1-0.3), so the vector list is always normalised by its worst.
            fusion.add_vector(hits.hits, complete=False)
        if sparse is not None:
            learned_hits = sparse().hits
            fusion.add_sparse(learned_hits, complete=len(learned_hits) < wanted)
        if lexical:
            fusion.add_keyword(keyword, complete=len(keyword) < wanted)
            fusion.add_pages(titles)
            for page_id in exact:
                fusion.boost(page_id, self.ranking.exact_name_boost)
        scored = fusion.pages()
        if lexical and self.ranking.feedback_docs > 0 and scored:
            self._feedback(fusion, scored, profile, scope, pool)
            scored = fusion.pages()
        time_note = self._time_boosts(query, scored, include_private)
        # Only pages that can still make the cut are read: the best by fused
        # score, with room for the title-phrase boost (a title in the query
        # also puts its page high in the title list).
        best = sorted(scored, key=lambda pid: scored[pid].score, reverse=True)[: limit * 2 + 5]
        shortlist = list(dict.fromkeys(best + [s.page_id for s in titles[:5]]))
        # The privacy and liveness re-check: pages the caller cannot see are absent.
        heads = self.store.page_heads(self.source_id, shortlist, include_private=include_private)
        for page_id, head in heads.items():
            if lexical and self.ranking.title_phrase_boost and title_in_query(
                profile.norm, head.title
            ):
                scored[page_id].score += self.ranking.top_term
        ranked = sorted(
            heads.values(),
            key=lambda h: (scored[h.id].score, h.updated_at, h.slug),
            reverse=True,
        )[:limit]
        if self.ranking.cutoff > 0 and ranked:
            # Weak tails (vector neighbours that match nothing in particular)
            # cost an agent tokens and bury nothing: drop them, keeping a few.
            # Judged on the scores before time boosts: those reorder what the
            # words found, they do not keep a longer tail (tokens per query).
            gains = time_note.gains if time_note is not None else {}
            words = {h.id: scored[h.id].score - gains.get(h.id, 0.0) for h in ranked}
            keep = self.ranking.cutoff_keep
            floor = max(words.values()) * self.ranking.cutoff
            ranked = ranked[:keep] + [h for h in ranked[keep:] if words[h.id] >= floor]
        return SearchOutcome(self._results(profile, ranked, scored, include_private), degraded,
                             time_note)

    def _time_boosts(self, query: str, scored: dict[int, PageScore],
                     include_private: bool) -> TimeNote | None:
        """Time-aware boosts (core/time_recall.py) when the query asks about a time."""
        if self.time_ranking is None or not scored:
            return None
        today = (self.clock or Clock()).now().date()
        asked = TimeQuery.of(query, today)
        if not asked:
            return None
        return boost_by_time(
            asked, scored,
            lambda ids: self.store.chunk_views(self.source_id, ids,
                                               include_private=include_private),
            self.time_ranking, today)

    def _feedback(
        self,
        fusion: PageFusion,
        scored: dict[int, PageScore],
        profile: QueryProfile,
        scope: PageScope,
        pool: int,
    ) -> None:
        """Pseudo-relevance feedback: one more BM25 list from the best first-pass chunks."""
        top = sorted(scored.values(), key=lambda e: e.score, reverse=True)
        top = [e for e in top if e.chunk_id is not None][: self.ranking.feedback_docs]
        views = self.store.chunk_views(
            self.source_id, [e.chunk_id for e in top if e.chunk_id is not None],
            include_private=scope.include_private,
        )
        docs = [(views[e.chunk_id].text, e.score) for e in top
                if e.chunk_id is not None and e.chunk_id in views]
        extra = expansion_terms(docs, profile.terms, self.ranking.feedback_terms)
        if extra:
            terms = QueryTerms(extra, row_budget=self.row_budget)
            wanted = pool * CHUNKS_PER_PAGE
            hits = self.index.keyword(CHUNK, terms, scope, wanted)
            fusion.add_chunks(hits, weight=self.ranking.feedback_weight,
                              complete=len(hits) < wanted)

    def _results(
        self,
        profile: QueryProfile,
        ranked: list[PageHead],
        scored: dict[int, PageScore],
        include_private: bool,
    ) -> list[SearchResult]:
        chunk_ids = [scored[h.id].chunk_id for h in ranked if scored[h.id].chunk_id is not None]
        views = self.store.chunk_views(
            self.source_id, [c for c in chunk_ids if c is not None],
            include_private=include_private,
        )
        by_page = {v.page_id: v for v in views.values()}
        missing = [h.id for h in ranked if h.id not in by_page]
        by_page.update(
            self.store.lead_chunks(self.source_id, missing, include_private=include_private)
        )
        aliases = self.store.alias_norms_for(self.source_id, [h.slug for h in ranked])
        results = []
        for head in ranked:
            view = by_page.get(head.id)
            chunk = view.text if view is not None else ""
            entry = scored[head.id]
            evidence = derive_evidence(
                profile, head.title, chunk, aliases.get(head.slug, set()), entry.cosine
            )
            results.append(
                SearchResult(
                    slug=head.slug,
                    title=head.title,
                    chunk=chunk,
                    score=round(entry.score, 6),
                    evidence=evidence,
                    create_safety=SAFETY[evidence],
                    updated_at=head.updated_at,
                    cosine=entry.cosine,
                )
            )
        return results
