"""gRPC recall's ranking: fusion weights, and BM25 without a full-text index.

Hybrid recall fuses up to four ranked lists with weighted reciprocal rank
fusion (``core.fusion``): ``score(m) = sum_i w_i / (k + rank_i(m))`` over the
lists ``m`` is in (rank 1 = best). Weights are given in ``ScoreBreakdown``
field order: ``[vector, bm25, graph, recency]``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from brainkeep.core.fusion import Fusion
from brainkeep.core.memory.models import Scored
from brainkeep.core.models import Memory
from brainkeep.core.query import words_of
from brainkeep.errors import InvalidInput

LISTS = ("vector", "bm25", "graph", "recency")
DEFAULT_WEIGHTS = (1.0, 1.0, 0.5, 0.25)
DEFAULT_RRF_K = 60.0


@dataclass(frozen=True)
class RecallWeights:
    """Validated fusion parameters of hybrid recall."""

    weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS
    k: float = DEFAULT_RRF_K

    @classmethod
    def parse(cls, weights: tuple[float, ...], k: float | None) -> RecallWeights:
        """Check ``hybrid_weights`` (none or four, finite, >= 0, not all 0) and ``rrf_k``."""
        if weights and len(weights) != len(LISTS):
            raise InvalidInput(
                f"`hybrid_weights` needs {len(LISTS)} numbers ({', '.join(LISTS)}); "
                f"got {len(weights)}.",
                field="hybrid_weights",
            )
        if weights and (
            any(not math.isfinite(w) or w < 0 for w in weights) or not any(weights)
        ):
            raise InvalidInput(
                "`hybrid_weights` must be finite, >= 0 and not all zero.", field="hybrid_weights"
            )
        if k is not None and (not math.isfinite(k) or k <= 0):
            raise InvalidInput("`rrf_k` must be a positive number.", field="rrf_k")
        chosen = tuple(float(w) for w in weights) if weights else DEFAULT_WEIGHTS
        return cls(weights=chosen, k=DEFAULT_RRF_K if k is None else float(k))  # type: ignore[arg-type]

    def fuse(self, lists: dict[str, list[Memory]], limit: int) -> list[Scored]:
        """Weighted RRF of the named lists; each result keeps its per-list contribution."""
        by_id: dict[int, Memory] = {}
        fusion = Fusion(k=self.k)
        for name, weight in zip(LISTS, self.weights, strict=True):
            ranked = lists.get(name, [])
            for memory in ranked:
                by_id.setdefault(memory.id, memory)
            fusion.add(name, [m.id for m in ranked], weight)
        scores = fusion.scores()
        ordered = sorted(scores, key=lambda mid: (-scores[mid], -by_id[mid].id))[:limit]
        return [
            Scored(
                memory=by_id[mid],
                score=scores[mid],
                vector=fusion.term(mid, "vector"),
                bm25=fusion.term(mid, "bm25"),
                graph=fusion.term(mid, "graph"),
                recency=fusion.term(mid, "recency"),
                rank=position,
            )
            for position, mid in enumerate(ordered, start=1)
        ]


def bm25_rank(memories: list[Memory], terms: list[str]) -> list[tuple[Memory, float]]:
    """Okapi BM25 over an in-memory candidate set (the ``as_of`` path has no FTS rows)."""
    docs = [Counter(words_of(m.text)) for m in memories]
    if not docs:
        return []
    avg = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scored = []
    for memory, doc in zip(memories, docs, strict=True):
        length = sum(doc.values())
        score = 0.0
        for term in terms:
            tf = doc.get(term, 0)
            if tf:
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))
        if score > 0:
            scored.append((memory, score))
    scored.sort(key=lambda pair: (-pair[1], -pair[0].id))
    return scored
