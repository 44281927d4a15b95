"""SQLite's pruned sparse top-k (threshold algorithm) equals an exhaustive scan, and prunes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brainkeep.brain import Brain, open_brain
from brainkeep.config import load_settings
from brainkeep.core.context import LOCAL
from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.sqlite.sparse_index import SQLiteSparseIndex

ROWS = 240
VOCAB = 80
MODEL = "test-sparse"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Brain, list[tuple]]]:
    home: Path = tmp_path_factory.mktemp("sparse") / "brain"
    brain = open_brain(load_settings(home, env={}), embedder=None, sparse_encoder=None)
    for n in range(ROWS):
        brain.pages.put_page(f"rows/r{n}", f"---\ntitle: Row {n}\n---\nrow {n}\n", caller=LOCAL)
    chunks = [(cid, page.id, page.is_private)
              for page in brain.store.list_pages(brain.source_id, limit=ROWS * 2)
              for cid, _ in brain.store.page_chunk_texts(page.id)]
    try:
        yield brain, chunks
    finally:
        brain.close()


def random_vector(rng: np.random.Generator, most: int) -> SparseTerms:
    # Zipf-like term popularity: a few terms sit in most rows (long postings).
    popularity = 1.0 / np.arange(1, VOCAB + 1)
    count = int(rng.integers(1, most + 1))
    terms = rng.choice(VOCAB, size=min(count, VOCAB), replace=False,
                       p=popularity / popularity.sum())
    weights = rng.uniform(0.01, 3.0, size=len(terms)).round(2)
    return SparseTerms.of(dict(zip(terms.tolist(), weights.tolist(), strict=True)))


def fill(brain: Brain, chunks: list[tuple], seed: int) -> SQLiteSparseIndex:
    rng = np.random.default_rng(seed)
    index = brain.search_index.sparse(MODEL)
    assert isinstance(index, SQLiteSparseIndex)
    index.scan_max = 0  # the corpus is small: force the threshold algorithm
    rows = [NewSparse(CHUNK, cid, brain.source_id, page, bool(rng.random() < 0.2), MODEL, "h",
                      random_vector(rng, 24)) for cid, page, _ in chunks]
    with brain.store.transaction():
        index.put(rows)
    return index


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 30), private=st.booleans())
def test_pruned_top_k_equals_the_exhaustive_scan(
    corpus: tuple[Brain, list[tuple]], seed: int, k: int, private: bool
) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(5):
        query = random_vector(rng, 8)
        scope = PageScope(private)
        pruned = index.search(CHUNK, query, scope, k)
        exact = index.scan(CHUNK, query, scope, k)
        assert [h.id for h in pruned] == [h.id for h in exact]
        assert [h.page_id for h in pruned] == [h.page_id for h in exact]
        assert np.allclose([h.score for h in pruned], [h.score for h in exact])


def test_a_common_term_is_not_read_to_its_end(corpus: tuple[Brain, list[tuple]]) -> None:
    brain, chunks = corpus
    index = brain.search_index.sparse(MODEL)
    assert isinstance(index, SQLiteSparseIndex)
    index.scan_max = 0
    rng = np.random.default_rng(7)
    # Term 0 in every row with spread impacts; term 1 rare and strong.
    rows = [NewSparse(CHUNK, cid, brain.source_id, page, False, MODEL, "h",
                      SparseTerms.of({0: float(rng.uniform(0.01, 1.0)),
                                      1: 2.0 if n < 3 else 0.0}))
            for n, (cid, page, _) in enumerate(chunks)]
    with brain.store.transaction():
        index.put(rows)
    query = SparseTerms.of({0: 0.2, 1: 2.0})
    hits = index.search(CHUNK, query, PageScope(True), 3)
    assert hits == index.scan(CHUNK, query, PageScope(True), 3)
    postings = ROWS + 3
    assert index.last_postings_read < postings / 2, index.last_postings_read
    index.scan_max = ROWS  # a small kind is scored whole, with the same answer
    assert index.search(CHUNK, query, PageScope(True), 3) == hits
    assert index.last_postings_read == 0


def test_postings_of_gone_rows_are_skipped_and_pruned(corpus: tuple[Brain, list[tuple]]) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, 11)
    query = SparseTerms.of({0: 1.0, 1: 1.0, 2: 1.0})
    top = index.search(CHUNK, query, PageScope(True), 5)
    assert top
    gone = brain.store.get_page(brain.source_id, f"rows/r{0}")
    victim = next(h for h in top)
    page = next(p for p in brain.store.list_pages(brain.source_id, limit=ROWS * 2)
                if p.id == victim.page_id)
    brain.pages.delete_page(page.slug, LOCAL)
    after = index.search(CHUNK, query, PageScope(True), 5)
    assert victim.id not in [h.id for h in after]
    assert after == index.scan(CHUNK, query, PageScope(True), 5)
    with brain.store.transaction():
        assert index.prune() > 0
    del gone
