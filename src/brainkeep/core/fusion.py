"""Rank fusion: the one place ranked lists are combined.

``score(x) = sum_i w_i / (k + rank_i(x))`` over the lists ``x`` is in (rank 1
= best). ``Fusion`` fuses named lists of ids; it serves MCP recall's facts
(``core/hybrid.py``) and gRPC recall (``core/memory/ranking.py``).
``PageFusion`` fuses page search's lists, by RRF or by a convex combination
of normalised scores (``PageRanking``), with a per-page cap on chunk lists,
a title/alias list, exact-name boosts, and one entry per page
(``core/search.py``; docs/search.md has the why).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from brainkeep.core.retrieval import ScoredId

DEFAULT_K = 60.0
CHUNKS_PER_PAGE = 3


def rrf(rank: int, k: float, weight: float = 1.0) -> float:
    """One list's contribution for an item at ``rank`` (1 = best)."""
    return weight / (k + rank)


@dataclass
class Fusion:
    """Weighted RRF of named ranked lists of ids; each id keeps its per-list terms."""

    k: float = DEFAULT_K
    parts: dict[int, dict[str, float]] = field(default_factory=dict)

    def add(self, name: str, ranked: Iterable[int], weight: float = 1.0) -> None:
        """A best-first list of distinct ids (a repeated name replaces that list's terms)."""
        for rank, item in enumerate(ranked, start=1):
            self.parts.setdefault(item, {})[name] = rrf(rank, self.k, weight)

    def score(self, item: int) -> float:
        """The fused score (0.0 for an id no list holds)."""
        return sum(self.parts.get(item, {}).values())

    def term(self, item: int, name: str) -> float:
        """What list ``name`` contributed to ``item``."""
        return self.parts.get(item, {}).get(name, 0.0)

    def scores(self) -> dict[int, float]:
        """id -> fused score, in first-seen order."""
        return {item: sum(terms.values()) for item, terms in self.parts.items()}


@dataclass(frozen=True)
class PageRanking:
    """How page search fuses its lists (``core/search.py``; docs/search.md has the numbers).

    Attributes:
        method: ``rrf`` sums ``w / (k + rank)`` per list; ``convex`` sums
            ``w * score / best score of that list`` (BM25 and cosine, each
            normalised to its list's best), so a strong keyword match keeps
            its margin instead of being flattened to a rank.
        k: The RRF constant.
        keyword_weight, vector_weight, title_weight, sparse_weight: Per-list
            weights (``sparse_weight``: the learned-sparse chunk list, when
            the brain has that arm).
        sparse_min_score: Learned-sparse hits below this dot product are
            dropped (every text shares a faint term or two with any query).
        exact_name_boost: Added when the query IS a page's title or alias.
        title_phrase_boost: Whether a title contained in the query adds one
            top-rank term.
        min_cosine: Vector neighbours below this cosine are dropped (weak
            neighbours must not pad the results).
        per_page: Chunks of one page kept per chunk list.
        title_saturation: When > 0, each title-arm term is scaled by
            ``s / (s + title_saturation)`` of its raw BM25 ``s``: a name on
            half the pages has an idf (and so a BM25) near zero and then adds
            nothing, where rank or best-normalised scores would give every
            such page a top-rank term.
        normalise: Convex fusion's per-list normalisation: ``best`` (score /
            best) or ``minmax`` ((score - worst) / (best - worst), where
            worst is the list's last score when the list was cut at its
            limit, so whatever it left out scores at most that, and 0 when
            it holds every match).
        cutoff: Results whose fused score is below ``cutoff`` x the best
            are dropped (0: none), but never below ``cutoff_keep`` results.
        feedback_docs, feedback_terms, feedback_weight: Pseudo-relevance
            feedback (``core/feedback.py``): the ``feedback_terms`` most
            weighty words of the best ``feedback_docs`` first-pass pages form
            one more BM25 list with weight ``feedback_weight`` (0 docs: off).
        vector_query: What the vector arm embeds: ``raw`` (the query as
            asked) or ``terms`` (its content terms, stop words dropped).
    """

    # Defaults measured on LoCoMo-dev and bench/data/retrieval_eval.json
    # (docs/search.md, "LoCoMo"): convex 0.3/0.7 with a saturated title arm
    # beat RRF (k = 60, every list weight 1) on both.
    method: str = "convex"
    k: float = DEFAULT_K
    keyword_weight: float = 0.5
    vector_weight: float = 0.5
    title_weight: float = 0.3
    exact_name_boost: float = 1.0
    title_phrase_boost: bool = True
    min_cosine: float = -1.0
    per_page: int = CHUNKS_PER_PAGE
    title_saturation: float = 1.0
    normalise: str = "minmax"
    cutoff: float = 0.45
    cutoff_keep: int = 7
    feedback_docs: int = 0
    feedback_terms: int = 10
    feedback_weight: float = 0.1
    vector_query: str = "raw"
    sparse_weight: float = 0.3
    sparse_min_score: float = 0.0

    def term(
        self, rank: int, score: float, best: float, weight: float, worst: float = 0.0
    ) -> float:
        """One list's contribution for an item at ``rank`` with arm ``score``."""
        if self.method == "convex":
            if self.normalise == "minmax" and best > worst:
                return weight * (score - worst) / (best - worst)
            return weight * (score / best if best > 0 else 0.0)
        return rrf(rank, self.k, weight)

    @property
    def top_term(self) -> float:
        """What a rank-1 item of a weight-1 list contributes."""
        return 1.0 if self.method == "convex" else rrf(1, self.k)


@dataclass
class PageScore:
    """A page's fused score, its best chunk and its best cosine."""

    score: float = 0.0
    chunk_id: int | None = None
    chunk_score: float = -1.0
    cosine: float | None = None


@dataclass
class PageFusion:
    """Fusion of chunk lists and a page list, one entry per page (``PageRanking`` decides how)."""

    ranking: PageRanking = field(default_factory=PageRanking)
    chunk_terms: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    chunk_page: dict[int, int] = field(default_factory=dict)
    page_terms: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    cosines: dict[int, float] = field(default_factory=dict)

    def add_chunks(
        self, hits: list[ScoredId], *, weight: float = 1.0, complete: bool = True
    ) -> None:
        """A best-first list of chunk hits; extra chunks of one page are skipped.

        ``complete``: the list holds every match (else it was cut at a limit).
        """
        seen: dict[int, int] = defaultdict(int)
        kept: list[ScoredId] = []
        for hit in hits:
            if seen[hit.page_id] >= self.ranking.per_page:
                continue
            seen[hit.page_id] += 1
            kept.append(hit)
            self.chunk_page[hit.id] = hit.page_id
        best = max((h.score for h in kept), default=0.0)
        worst = 0.0 if complete else min((h.score for h in kept), default=0.0)
        for rank, hit in enumerate(kept, start=1):
            self.chunk_terms[hit.id] += self.ranking.term(rank, hit.score, best, weight, worst)

    def add_keyword(self, hits: list[ScoredId], *, complete: bool = True) -> None:
        """Chunks by BM25 (positive scores), best first."""
        self.add_chunks(hits, weight=self.ranking.keyword_weight, complete=complete)

    def add_vector(self, hits: list[ScoredId], *, complete: bool = True) -> None:
        """Chunks by cosine (``score``), best first; remembers each page's best cosine."""
        hits = [h for h in hits if h.score >= self.ranking.min_cosine]
        self.add_chunks(hits, weight=self.ranking.vector_weight, complete=complete)
        for hit in hits:
            if hit.score > self.cosines.get(hit.page_id, -2.0):
                self.cosines[hit.page_id] = hit.score

    def add_sparse(self, hits: list[ScoredId], *, complete: bool = True) -> None:
        """Chunks by learned-sparse score (dot products, positive), best first."""
        kept = [h for h in hits if h.score >= self.ranking.sparse_min_score]
        self.add_chunks(kept, weight=self.ranking.sparse_weight,
                        complete=complete or len(kept) < len(hits))

    def add_pages(self, hits: list[ScoredId]) -> None:
        """A best-first list of pages by title/alias BM25 (the title arm)."""
        weight = self.ranking.title_weight
        best = max((h.score for h in hits), default=0.0)
        seen: set[int] = set()
        for hit in hits:
            if hit.page_id in seen:
                continue
            seen.add(hit.page_id)
            term = self.ranking.term(len(seen), hit.score, best, weight)
            if (c := self.ranking.title_saturation) > 0:
                term *= max(hit.score, 0.0) / (max(hit.score, 0.0) + c)
            self.page_terms[hit.page_id] += term

    def boost(self, page_id: int, amount: float) -> None:
        self.page_terms[page_id] += amount

    def pages(self) -> dict[int, PageScore]:
        """page id -> fused score, best chunk and best cosine."""
        out: dict[int, PageScore] = defaultdict(PageScore)
        for chunk_id, score in self.chunk_terms.items():
            entry = out[self.chunk_page[chunk_id]]
            if score > entry.chunk_score:
                entry.chunk_score, entry.chunk_id = score, chunk_id
        for page_id, term in self.page_terms.items():
            out[page_id].score += term
        for page_id, entry in out.items():
            entry.score += max(entry.chunk_score, 0.0)
            entry.cosine = self.cosines.get(page_id)
        return dict(out)
