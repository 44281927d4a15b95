"""Reciprocal rank fusion: the one place ranked lists are combined.

``score(x) = sum_i w_i / (k + rank_i(x))`` over the lists ``x`` is in (rank 1
= best). ``Fusion`` fuses named lists of ids; it serves MCP recall's facts
(``core/hybrid.py``), gRPC recall (``core/mnemo/ranking.py``) and the chunk
lists of page search. ``PageFusion`` adds what page search needs on top: a
per-page cap on chunk lists, a title/alias list and exact-name boosts, and
one entry per page (``core/search.py``; docs/search.md has the why).
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


@dataclass
class PageScore:
    """A page's fused score, its best chunk and its best cosine."""

    score: float = 0.0
    chunk_id: int | None = None
    chunk_score: float = -1.0
    cosine: float | None = None


@dataclass
class PageFusion:
    """RRF of chunk lists and a page list, one entry per page."""

    k: float = DEFAULT_K
    per_page: int = CHUNKS_PER_PAGE
    chunks: Fusion = field(init=False)
    chunk_page: dict[int, int] = field(default_factory=dict)
    page_terms: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    cosines: dict[int, float] = field(default_factory=dict)
    _lists: int = 0

    def __post_init__(self) -> None:
        self.chunks = Fusion(k=self.k)

    def add_chunks(self, ranked: list[tuple[int, int]]) -> None:
        """A best-first list of (chunk id, page id); extra chunks of one page are skipped."""
        seen: dict[int, int] = defaultdict(int)
        kept: list[int] = []
        for chunk_id, page_id in ranked:
            if seen[page_id] >= self.per_page:
                continue
            seen[page_id] += 1
            kept.append(chunk_id)
            self.chunk_page[chunk_id] = page_id
        self._lists += 1
        self.chunks.add(f"chunks{self._lists}", kept)

    def add_vector(self, hits: list[ScoredId]) -> None:
        """Chunks by cosine (``score``), best first; remembers each page's best cosine."""
        self.add_chunks([(h.id, h.page_id) for h in hits])
        for hit in hits:
            if hit.score > self.cosines.get(hit.page_id, -2.0):
                self.cosines[hit.page_id] = hit.score

    def add_pages(self, ranked: list[int], *, weight: float = 1.0) -> None:
        """A best-first list of page ids (the title/alias arm)."""
        for rank, page_id in enumerate(dict.fromkeys(ranked), start=1):
            self.page_terms[page_id] += rrf(rank, self.k, weight)

    def boost(self, page_id: int, amount: float) -> None:
        self.page_terms[page_id] += amount

    def pages(self) -> dict[int, PageScore]:
        """page id -> fused score, best chunk and best cosine."""
        out: dict[int, PageScore] = defaultdict(PageScore)
        for chunk_id, score in self.chunks.scores().items():
            entry = out[self.chunk_page[chunk_id]]
            if score > entry.chunk_score:
                entry.chunk_score, entry.chunk_id = score, chunk_id
        for page_id, term in self.page_terms.items():
            out[page_id].score += term
        for page_id, entry in out.items():
            entry.score += max(entry.chunk_score, 0.0)
            entry.cosine = self.cosines.get(page_id)
        return dict(out)
