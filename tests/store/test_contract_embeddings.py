"""Contract: stored embedding rows (float32 blobs tagged with model and dimension)."""

from __future__ import annotations

import struct

from brainkeep.core.models import MemoryDraft, Page
from brainkeep.core.ports.store import Store
from brainkeep.core.retrieval import CHUNK, MEMORY, NewEmbedding
from tests.store.contract import PRIVATE_PAGE, insert_memory, put_page, ts

MODEL, DIM = "test-model", 3


def blob(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def chunk_row(page: Page, chunk_id: int, text_hash: str, *, model: str = MODEL,
              vector: bytes | None = None) -> NewEmbedding:
    return NewEmbedding(CHUNK, chunk_id, page.source_id, page.id, page.is_private, model, DIM,
                        text_hash, vector or blob(1, 0, 0))


def test_page_chunk_texts_in_order(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n\nThe body text.\n\n## Timeline\n- 2024-01-01: x\n")
    chunks = store.page_chunk_texts(page.id)
    assert [text for _, text in chunks] == ["# A\n\nThe body text.", "2024-01-01: x"]
    assert len({cid for cid, _ in chunks}) == 2
    assert store.page_chunk_texts(page.id + 1000) == []


def test_put_embeddings_stores_and_replaces_by_item(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n\nbody\n")
    (chunk_id, _), = store.page_chunk_texts(page.id)
    with store.transaction():
        assert store.put_embeddings([chunk_row(page, chunk_id, "h1")]) == 1
    assert store.stored_vectors_by_hash(MODEL, DIM, ["h1", "nope"]) == {"h1": blob(1, 0, 0)}
    assert store.stored_vectors_by_hash("other-model", DIM, ["h1"]) == {}
    assert store.stored_vectors_by_hash(MODEL, 8, ["h1"]) == {}
    with store.transaction():  # the same item again replaces its vector
        assert store.put_embeddings([chunk_row(page, chunk_id, "h2", vector=blob(0, 1, 0))]) == 1
    assert store.stored_vectors_by_hash(MODEL, DIM, ["h1", "h2"]) == {"h2": blob(0, 1, 0)}
    # An engine that keeps tombstones (SQLite: readers of the old vector catch
    # up through them, tests/retrieval/test_index_sync.py) prunes the one the
    # replacement left; one that needs none (PostgreSQL) prunes nothing. Either
    # way none are left.
    left_by_the_replacement = {"sqlite": 1, "postgres": 0}[store.engine_name]
    with store.transaction():
        assert store.prune_embedding_tombstones(0) == left_by_the_replacement
        assert store.prune_embedding_tombstones(0) == 0
    assert store.vectors_available


def test_put_embeddings_skips_items_that_are_gone(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n\nbody\n")
    (chunk_id, _), = store.page_chunk_texts(page.id)
    memory = insert_memory(store, MemoryDraft(text="expired fact"))
    with store.transaction():
        store.mark_page_deleted(page.id, ts(1))
        store.expire_memory(memory.id, ts(1), "test")
        rows = [chunk_row(page, chunk_id, "hc"),
                NewEmbedding(MEMORY, memory.id, "default", None, False, MODEL, DIM, "hm",
                             blob(0, 0, 1)),
                chunk_row(page, 10_000, "hx")]  # never existed
        assert store.put_embeddings(rows) == 0  # a slow backfill cannot resurrect them
    assert store.stored_vectors_by_hash(MODEL, DIM, ["hc", "hm", "hx"]) == {}


def test_missing_embeddings_and_their_counts(store: Store) -> None:
    public = put_page(store, "notes/a", "# A\n\nbody\n")
    secret = put_page(store, "notes/secret", PRIVATE_PAGE)
    fact = insert_memory(store, MemoryDraft(text="a fact", visibility="private"))
    expired = insert_memory(store, MemoryDraft(text="old fact"))
    with store.transaction():
        store.expire_memory(expired.id, ts(1), "test")
    (public_chunk, _), = store.page_chunk_texts(public.id)
    secret_chunks = store.page_chunk_texts(secret.id)

    tasks = store.missing_embeddings("default", CHUNK, MODEL, DIM, after_item=0, limit=10)
    assert [t.item_id for t in tasks] == sorted([public_chunk, *(c for c, _ in secret_chunks)])
    first = next(t for t in tasks if t.item_id == public_chunk)
    assert (first.kind, first.page_id, first.private, first.title) == (
        CHUNK, public.id, False, "A")
    assert all(t.private for t in tasks if t.page_id == secret.id)
    memory_tasks = store.missing_embeddings("default", MEMORY, MODEL, DIM, after_item=0,
                                            limit=10)
    assert [(t.item_id, t.text, t.private) for t in memory_tasks] == [(fact.id, "a fact", True)]
    assert store.count_missing_embeddings("default", MODEL, DIM) == {
        "chunk": len(tasks), "memory": 1}

    with store.transaction():
        store.put_embeddings([chunk_row(public, public_chunk, "h")])
    after = store.missing_embeddings("default", CHUNK, MODEL, DIM, after_item=0, limit=10)
    assert public_chunk not in [t.item_id for t in after]
    assert store.missing_embeddings("default", CHUNK, MODEL, DIM, after_item=public_chunk,
                                    limit=1) == [t for t in after if t.item_id > public_chunk][:1]
    assert store.count_missing_embeddings("default", MODEL, DIM)["chunk"] == len(tasks) - 1
    # Another model space still lacks everything.
    assert store.count_missing_embeddings("default", "other", DIM)["chunk"] == len(tasks)


def test_delete_other_embeddings_keeps_one_model_space(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n\nbody\n\n## Timeline\n- 2024-01-01: x\n")
    (c1, _), (c2, _) = store.page_chunk_texts(page.id)
    with store.transaction():
        store.put_embeddings([chunk_row(page, c1, "h-old", model="old-model"),
                              chunk_row(page, c2, "h-new")])
        assert store.delete_other_embeddings("default", MODEL, DIM) == 1
        assert store.delete_other_embeddings("default", MODEL, DIM) == 0
    assert store.stored_vectors_by_hash("old-model", DIM, ["h-old"]) == {}
    assert store.stored_vectors_by_hash(MODEL, DIM, ["h-new"]) == {"h-new": blob(1, 0, 0)}


def test_max_memory_id(store: Store) -> None:
    assert store.max_memory_id() == 0
    a = insert_memory(store, MemoryDraft(text="a"))
    b = insert_memory(store, MemoryDraft(text="b"))
    assert store.max_memory_id() == b.id > a.id
