"""Contract: the learned-sparse index (``SearchIndex.sparse``): rows, backfill work, exact top k."""

from __future__ import annotations

from brainkeep.core.models import DEFAULT_SOURCE, MemoryDraft, Page
from brainkeep.core.ports.store import Store
from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import CHUNK, MEMORY
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from tests.store.contract import PRIVATE_PAGE, insert_memory, put_page, ts

MODEL = "test-sparse"


def row(page: Page, chunk_id: int, terms: dict[int, float], *, model: str = MODEL) -> NewSparse:
    return NewSparse(CHUNK, chunk_id, page.source_id, page.id, page.is_private, model, "h",
                     SparseTerms.of(terms))


def test_put_count_and_search_by_dot_product(store: Store) -> None:
    index = store.search_index(DEFAULT_SOURCE).sparse(MODEL)
    pages = [put_page(store, f"notes/{n}", f"# N{n}\n\nbody {n}\n") for n in range(3)]
    chunks = [store.page_chunk_texts(p.id)[0][0] for p in pages]
    assert index.count_missing() == {CHUNK: 3, MEMORY: 0}
    assert [t.item_id for t in index.missing(CHUNK, after_item=0, limit=10)] == chunks
    with store.transaction():
        assert index.put([row(pages[0], chunks[0], {5: 1.0, 9: 0.5}),
                          row(pages[1], chunks[1], {5: 0.2, 30000: 2.0}),
                          row(pages[2], chunks[2], {7: 1.0})]) == 3
    assert index.count() == {CHUNK: 3, MEMORY: 0}
    assert index.count_missing() == {CHUNK: 0, MEMORY: 0}
    hits = index.search(CHUNK, SparseTerms.of({5: 1.0, 30000: 1.0}), PageScope(True), 5)
    # Scores are dot products (SQLite stores impacts to 1/100).
    assert [(h.id, h.page_id) for h in hits] == [(chunks[1], pages[1].id),
                                                 (chunks[0], pages[0].id)]
    assert abs(hits[0].score - 2.2) < 0.02 and abs(hits[1].score - 1.0) < 0.02
    assert index.search(CHUNK, SparseTerms.of({5: 1.0}), PageScope(True), 1)[0].id == chunks[0]
    assert index.search(CHUNK, SparseTerms.of({123: 1.0}), PageScope(True), 5) == []
    # Another model's space holds nothing.
    assert store.search_index(DEFAULT_SOURCE).sparse("other").count() == {CHUNK: 0, MEMORY: 0}


def test_the_approximate_path_agrees_on_a_small_corpus(store: Store) -> None:
    """PostgreSQL searches a large kind through HNSW: forced here, it finds the same rows."""
    index = store.search_index(DEFAULT_SOURCE).sparse(MODEL)
    for knob in ("exact_max", "scan_max"):  # PostgreSQL's exact scan, SQLite's whole scan
        if hasattr(index, knob):
            setattr(index, knob, 0)
    pages = [put_page(store, f"notes/{n}", f"# N{n}\n\nbody {n}\n") for n in range(6)]
    chunks = [store.page_chunk_texts(p.id)[0][0] for p in pages]
    with store.transaction():
        index.put([row(p, c, {n: 1.0, 100 + n % 2: 0.5 + n / 10})
                   for n, (p, c) in enumerate(zip(pages, chunks, strict=True))])
    hits = index.search(CHUNK, SparseTerms.of({101: 1.0, 3: 2.0}), PageScope(True), 3)
    assert [h.id for h in hits] == [chunks[3], chunks[5], chunks[1]]


def test_replacing_a_row_and_privacy(store: Store) -> None:
    index = store.search_index(DEFAULT_SOURCE).sparse(MODEL)
    public = put_page(store, "notes/a", "# A\n\nbody\n")
    private = put_page(store, "notes/p", PRIVATE_PAGE)
    a, p = (store.page_chunk_texts(x.id)[0][0] for x in (public, private))
    with store.transaction():
        index.put([row(public, a, {1: 1.0}), row(private, p, {1: 2.0})])
        index.put([row(public, a, {2: 1.0})])  # replaces a's vector
    assert [h.id for h in index.search(CHUNK, SparseTerms.of({1: 1.0}), PageScope(True), 5)] \
        == [p]
    assert index.search(CHUNK, SparseTerms.of({1: 1.0}), PageScope(False), 5) == []
    assert [h.id for h in index.search(CHUNK, SparseTerms.of({2: 1.0}), PageScope(False), 5)] \
        == [a]


def test_rows_of_gone_text_are_dropped_and_never_resurrected(store: Store) -> None:
    index = store.search_index(DEFAULT_SOURCE).sparse(MODEL)
    page = put_page(store, "notes/a", "# A\n\nbody\n")
    chunk = store.page_chunk_texts(page.id)[0][0]
    memory = insert_memory(store, MemoryDraft(text="a fact"))
    with store.transaction():
        index.put([row(page, chunk, {1: 1.0}),
                   NewSparse(MEMORY, memory.id, DEFAULT_SOURCE, None, False, MODEL, "m",
                             SparseTerms.of({1: 1.0}))])
    assert index.count() == {CHUNK: 1, MEMORY: 1}
    with store.transaction():
        store.mark_page_deleted(page.id, ts(1))
        store.expire_memory(memory.id, ts(1), "test")
    assert index.count() == {CHUNK: 0, MEMORY: 0}
    assert index.search(CHUNK, SparseTerms.of({1: 1.0}), None, 5) == []
    with store.transaction():  # a slow backfill's late rows are skipped
        assert index.put([row(page, chunk, {1: 1.0})]) == 0
        index.prune()
    assert index.count() == {CHUNK: 0, MEMORY: 0}
