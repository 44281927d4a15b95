"""SQLite's sparse top-k over postings blocks and a delta equals an exhaustive scan.

Blocks are built from the stored vectors; rows re-encoded or deleted after a
build leave stale block entries, which may only raise a bound, never change
the answer. A build drops them, and a due build runs on its own thread.
"""

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
from brainkeep.store.sqlite import sparse_blocks
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
    index.scan_max = 0  # the corpus is small: force the postings path
    index.background = False  # builds happen where a test asks for them
    rows = [NewSparse(CHUNK, cid, brain.source_id, page, bool(rng.random() < 0.2), MODEL, "h",
                      random_vector(rng, 24)) for cid, page, _ in chunks]
    with brain.store.transaction():
        index.put(rows)
    return index


def reencode(brain: Brain, index: SQLiteSparseIndex, chunks: list[tuple], seed: int) -> None:
    """Give a random third of the rows new vectors (their old block entries go stale)."""
    rng = np.random.default_rng(seed)
    picked = [c for c in chunks if rng.random() < 0.33]
    with brain.store.transaction():
        index.put([NewSparse(CHUNK, cid, brain.source_id, page, False, MODEL, "h",
                             random_vector(rng, 24)) for cid, page, _ in picked])


def same(index: SQLiteSparseIndex, query: SparseTerms, scope: PageScope, k: int) -> None:
    pruned = index.search(CHUNK, query, scope, k)
    exact = index.scan(CHUNK, query, scope, k)
    assert [h.id for h in pruned] == [h.id for h in exact]
    assert [h.page_id for h in pruned] == [h.page_id for h in exact]
    assert np.allclose([h.score for h in pruned], [h.score for h in exact])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 30), private=st.booleans(),
       built=st.booleans(), churn=st.booleans())
def test_top_k_equals_the_exhaustive_scan(
    corpus: tuple[Brain, list[tuple]], seed: int, k: int, private: bool, built: bool,
    churn: bool
) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, seed)
    if built:
        index.prune()
    if churn:
        reencode(brain, index, chunks, seed + 2)
    rng = np.random.default_rng(seed + 1)
    for _ in range(5):
        same(index, random_vector(rng, 8), PageScope(private), k)


def test_a_build_moves_the_delta_into_blocks(corpus: tuple[Brain, list[tuple]]) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, 3)
    index.prune()
    held = int(brain.store.db.scalar("SELECT COUNT(*) FROM sparse_vectors WHERE kind = 'chunk'"))
    assert held == len(chunks)
    state = sparse_blocks.block_state(brain.store.db, CHUNK)
    assert state.delta == 0
    assert brain.store.db.scalar("SELECT COUNT(*) FROM sparse_postings") == 0
    stored = [sparse_blocks.flatten([r[0]])[0] for r in brain.store.db.all(
        "SELECT terms FROM sparse_vectors WHERE kind = 'chunk'")]
    assert state.blocked == sum(len(terms) for terms in stored)
    query = SparseTerms.of({0: 1.0, 3: 0.5})
    same(index, query, PageScope(True), 10)
    # Every posting of the query's terms is read, all from the blocks.
    assert index.last_postings_read == sum(int(np.isin(t, [0, 3]).sum()) for t in stored)
    reencode(brain, index, chunks, 4)  # new postings go to the delta, not the blocks
    assert sparse_blocks.block_state(brain.store.db, CHUNK).delta > 0
    same(index, query, PageScope(True), 10)


def test_a_due_build_runs_in_the_background(corpus: tuple[Brain, list[tuple]],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, 5)
    index.background = True
    monkeypatch.setattr(sparse_blocks, "DELTA_MIN", 1)
    query = SparseTerms.of({0: 1.0, 1: 1.0})
    first = index.search(CHUNK, query, PageScope(True), 5)
    index.wait_for_build(30)
    assert sparse_blocks.block_state(brain.store.db, CHUNK).delta == 0
    assert brain.store.db.scalar("SELECT COUNT(*) FROM sparse_postings WHERE kind = 'chunk'") == 0
    assert index.search(CHUNK, query, PageScope(True), 5) == first
    same(index, query, PageScope(True), 5)


def test_a_small_kind_is_scored_whole(corpus: tuple[Brain, list[tuple]]) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, 9)
    query = SparseTerms.of({0: 0.2, 1: 2.0})
    hits = index.search(CHUNK, query, PageScope(True), 3)
    assert index.last_postings_read > 0
    index.scan_max = ROWS
    assert index.search(CHUNK, query, PageScope(True), 3) == hits
    assert index.last_postings_read == 0


def test_entries_of_gone_rows_are_skipped_and_pruned(corpus: tuple[Brain, list[tuple]]) -> None:
    brain, chunks = corpus
    index = fill(brain, chunks, 11)
    index.prune()
    query = SparseTerms.of({0: 1.0, 1: 1.0, 2: 1.0})
    top = index.search(CHUNK, query, PageScope(True), 5)
    assert top
    victim = top[0]
    page = next(p for p in brain.store.list_pages(brain.source_id, limit=ROWS * 2)
                if p.id == victim.page_id)
    brain.pages.delete_page(page.slug, LOCAL)
    after = index.search(CHUNK, query, PageScope(True), 5)
    assert victim.id not in [h.id for h in after]
    assert after == index.scan(CHUNK, query, PageScope(True), 5)
    assert index.prune() > 0
    blocks = list(sparse_blocks.read_blocks(brain.store.db, CHUNK))
    assert blocks and not any(victim.id in items for _, items, _ in blocks)
