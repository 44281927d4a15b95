"""Why page search ranked what it did: each arm's view of every result.

The console's search playground shows, next to each result of
``SearchService.search``, where the page stood in each ranked list (keyword
BM25 over chunks, vector cosine over chunks, the title/alias list), whether
an exact-name or title-phrase boost applied, and the evidence label. It asks
the same index and vector arm the search used, with the same terms and the
same privacy scope, so the explanation never shows a page the search could
not. It costs one more pass over the arms, which only the playground pays.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainkeep.core.fusion import CHUNKS_PER_PAGE
from brainkeep.core.query import PageScope, QueryTerms
from brainkeep.core.retrieval import CHUNK, PAGE, ScoredId
from brainkeep.core.search import (
    HIGH_VECTOR_COSINE,
    KEYWORD_ROW_BUDGET,
    QueryProfile,
    SearchOutcome,
    SearchResult,
    SearchService,
    title_in_query,
)


@dataclass(frozen=True)
class ArmHit:
    """A page's place in one ranked list: 1-based page rank and its best raw score."""

    rank: int
    score: float


@dataclass(frozen=True)
class ResultExplanation:
    """One search result with each signal that put it where it is."""

    rank: int
    result: SearchResult
    keyword: ArmHit | None
    vector: ArmHit | None
    title: ArmHit | None
    exact_name: bool
    title_phrase: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class SearchExplanation:
    """A search's results, explained, and how the arms were combined."""

    query: str
    terms: tuple[str, ...]
    results: tuple[ResultExplanation, ...]
    degraded: str | None
    mode: str
    method: str
    weights: dict[str, float]
    vector_ran: bool


def _by_page(hits: list[ScoredId]) -> dict[int, ArmHit]:
    """Best-first chunk (or page) hits as each page's first place and score."""
    out: dict[int, ArmHit] = {}
    for hit in hits:
        if hit.page_id not in out:
            out[hit.page_id] = ArmHit(len(out) + 1, round(hit.score, 6))
    return out


def explain_search(service: SearchService, query: str, *, include_private: bool,
                   limit: int) -> SearchExplanation:
    """Run ``service.search`` and explain each result by the arms behind it."""
    outcome: SearchOutcome = service.search(query, include_private=include_private, limit=limit)
    profile = QueryProfile.of(query)
    terms = QueryTerms(profile.terms, row_budget=KEYWORD_ROW_BUDGET)
    scope = PageScope(include_private)
    pool = max(limit * 3, 30)
    ranking = service.ranking
    vector: dict[int, ArmHit] = {}
    vector_ran = False
    if service.vector_arm is not None and service.mode != "keyword":
        asked = query if ranking.vector_query == "raw" else " ".join(profile.terms)
        hits = service.vector_arm.chunk_hits(asked, include_private=include_private,
                                             limit=pool * CHUNKS_PER_PAGE)
        vector_ran = hits.degraded is None
        vector = _by_page([h for h in hits.hits if h.score >= ranking.min_cosine])
    lexical = service.mode != "vector" or not vector_ran
    keyword: dict[int, ArmHit] = {}
    titles: dict[int, ArmHit] = {}
    exact: set[int] = set()
    if lexical:
        keyword = _by_page(service.index.keyword(CHUNK, terms, scope, pool * CHUNKS_PER_PAGE))
        titles = _by_page(service.index.keyword(PAGE, terms, scope, pool))
        exact = set(service.store.exact_name_pages(service.source_id, profile.norm,
                                                   include_private=include_private))
    ids = list({*keyword, *vector, *titles, *exact})
    heads = service.store.page_heads(service.source_id, ids, include_private=include_private)
    slug_id = {head.slug: page_id for page_id, head in heads.items()}
    explained = []
    for rank, result in enumerate(outcome.results, start=1):
        page_id = slug_id.get(result.slug, -1)
        kw, vec, ttl = keyword.get(page_id), vector.get(page_id), titles.get(page_id)
        phrase = lexical and ranking.title_phrase_boost and title_in_query(profile.norm,
                                                                           result.title)
        explained.append(ResultExplanation(
            rank=rank, result=result, keyword=kw, vector=vec, title=ttl,
            exact_name=page_id in exact, title_phrase=phrase,
            reasons=_reasons(result, kw, vec, ttl, page_id in exact, phrase),
        ))
    return SearchExplanation(
        query=query, terms=profile.terms, results=tuple(explained), degraded=outcome.degraded,
        mode=service.mode, method=ranking.method,
        weights={"keyword": ranking.keyword_weight, "vector": ranking.vector_weight,
                 "title": ranking.title_weight, "exact_name_boost": ranking.exact_name_boost},
        vector_ran=vector_ran,
    )


def _reasons(result: SearchResult, keyword: ArmHit | None, vector: ArmHit | None,
             title: ArmHit | None, exact: bool, phrase: bool) -> tuple[str, ...]:
    """Plain-language reasons, strongest first (the evidence label leads)."""
    out = [f"evidence {result.evidence} (create_safety {result.create_safety})"]
    if exact:
        out.append("the query is this page's title or alias: exact-name boost")
    if phrase:
        out.append("the title occurs in the query as a phrase: title boost")
    if keyword is not None:
        out.append(f"keyword list: page #{keyword.rank} by BM25 {keyword.score:g}")
    if vector is not None:
        high = vector.score >= HIGH_VECTOR_COSINE
        strong = f" (high: >= {HIGH_VECTOR_COSINE:.2f})" if high else ""
        out.append(f"vector list: page #{vector.rank}, cosine {vector.score:.3f}{strong}")
    if title is not None:
        out.append(f"title/alias list: page #{title.rank} by BM25 {title.score:g}")
    out.append(f"fused score {result.score:g}")
    return tuple(out)
