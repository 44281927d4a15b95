"""Query terms, weighted RRF fusion and the FTS-free BM25 used for `as_of`."""

from __future__ import annotations

import pytest

from brainkeep.brain import Brain
from brainkeep.core.memory.ranking import DEFAULT_WEIGHTS, RecallWeights, bm25_rank
from brainkeep.core.memory.remember import RememberInput
from brainkeep.core.models import Memory
from brainkeep.core.query import query_terms
from brainkeep.errors import InvalidInput


def test_query_terms_fold_dedupe_and_quote() -> None:
    def terms(q: str) -> list[str]:
        return list(query_terms(q, keep_stopwords=True).terms)

    assert terms("Café CAFE, \"drop\" table; café") == ["cafe", "drop", "table"]
    assert terms("not the one") == ["not", "the", "one"]  # stopwords kept
    assert terms("!!!") == []


@pytest.mark.parametrize(
    ("weights", "k"),
    [((1.0, 1.0), None), ((1.0, -1.0, 0.0, 0.0), None), ((0.0,) * 4, None),
     ((float("inf"), 0.0, 0.0, 0.0), None), ((), 0.0), ((), float("nan"))],
)
def test_fusion_parse_rejects(weights, k) -> None:
    with pytest.raises(InvalidInput):
        RecallWeights.parse(weights, k)


def test_fusion_defaults() -> None:
    fusion = RecallWeights.parse((), None)
    assert fusion.weights == DEFAULT_WEIGHTS and fusion.k == 60


def _memories(brain: Brain, *texts: str) -> list[Memory]:
    return [brain.mnemo.remember(RememberInput(content=t, agent_id="a")) for t in texts]


def test_fuse_sums_weighted_reciprocal_ranks(brain: Brain) -> None:
    a, b, c = _memories(brain, "a", "b", "c")
    fusion = RecallWeights.parse((1.0, 2.0, 0.0, 0.5), 10.0)
    fused = fusion.fuse({"vector": [a, b], "bm25": [b, c], "recency": [c, b, a]}, limit=3)
    assert [s.memory.id for s in fused] == [b.id, c.id, a.id]
    top = fused[0]
    assert top.vector == pytest.approx(1 / 12) and top.bm25 == pytest.approx(2 / 11)
    assert top.recency == pytest.approx(0.5 / 12) and top.graph == 0.0
    assert top.score == pytest.approx(1 / 12 + 2 / 11 + 0.5 / 12)
    assert [s.rank for s in fused] == [1, 2, 3]
    assert len(fusion.fuse({"bm25": [a, b, c]}, limit=2)) == 2


def test_bm25_rank_prefers_frequent_rare_terms(brain: Brain) -> None:
    strong, weak, none = _memories(brain, "otter otter pond", "otter in a long long text here",
                                   "nothing")
    ranked = bm25_rank([weak, none, strong], ["otter"])
    assert [m.id for m, _ in ranked] == [strong.id, weak.id]
    assert ranked[0][1] > ranked[1][1] > 0
    assert bm25_rank([], ["x"]) == []
