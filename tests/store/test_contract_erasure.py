"""Contract: counting what still holds a memory's text, topic documents, purge mechanics.

``memory_copies`` is what a forget receipt's counts and ``verify --receipt``
rest on: every engine must count the row's text, its keyword and substring
index entries and its vectors, and count nothing once the row is redacted
or gone.
"""

from __future__ import annotations

import struct

from brainkeep.core.memory.models import REDACTED_TEXT
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.ports.erasure import MemoryCopies
from brainkeep.core.ports.store import Store
from brainkeep.core.retrieval import MEMORY, NewEmbedding
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from tests.store.contract import insert_memory, ts

MODEL, DIM = "test-model", 3


def remember(store: Store, text: str, **fields: object) -> Memory:
    draft = MemoryDraft(text=text, agent_id="owner", origin="grpc", **fields)  # type: ignore[arg-type]
    return insert_memory(store, draft, ts(1))


def embed(store: Store, memory: Memory) -> None:
    with store.transaction():
        store.put_embeddings([NewEmbedding(MEMORY, memory.id, "default", None, False, MODEL, DIM,
                                           f"h{memory.id}", struct.pack("<3f", 1, 0, 0))])


def test_copies_of_a_live_memory_and_none_after_redaction(store: Store) -> None:
    kept = remember(store, "the kept fact")
    doomed = remember(store, "the doomed fact")
    embed(store, doomed)
    copies = store.memory_copies([doomed.id])
    assert copies.counts() == {"text": 1, "keyword_index": 1, "grep_index": 1, "vectors": 1,
                               "sparse": 0}
    assert len(copies.vectors) == 1 and not copies.empty
    with store.transaction():
        store.redact_memory(doomed.id, ts(2), REDACTED_TEXT)
        store.purge_text_indexes([doomed.id])
    assert store.memory_copies([doomed.id]) == MemoryCopies()
    assert store.memory_copies([doomed.id]).empty
    # The other row is untouched, and nothing is counted for no rows or unknown ids.
    assert store.memory_copies([kept.id]).counts()["keyword_index"] == 1
    assert store.memory_copies([]).empty and store.memory_copies([10_000]).empty


def test_a_hard_deleted_row_counts_nothing(store: Store) -> None:
    doomed = remember(store, "gone for good")
    embed(store, doomed)
    with store.transaction():
        store.hard_delete_memory(doomed.id)
        store.purge_text_indexes([doomed.id])
    assert store.memory_copies([doomed.id]).empty


def test_an_expired_row_still_holds_its_text(store: Store) -> None:
    # forget without redaction keeps the text for as_of reads: not an erasure.
    memory = remember(store, "expired but kept")
    with store.transaction():
        store.expire_memory(memory.id, ts(2), "forgotten")
    copies = store.memory_copies([memory.id])
    assert copies.text == 1 and copies.grep_index == 1 and copies.keyword_index == 0


def test_topics_containing_names_topic_documents_by_member(store: Store) -> None:
    a, b, other = remember(store, "a"), remember(store, "b"), remember(store, "c")
    topic = remember(store, "Topic: t\n- a\n- b")
    lone = remember(store, "Topic: u\n- c")
    with store.transaction():
        store.mark_topic_document(topic.id, 1)
        store.add_topic_members(topic.id, [a.uuid, b.uuid])
        store.mark_topic_document(lone.id, 1)
        store.add_topic_members(lone.id, [other.uuid])
    assert [t.id for t in store.topics_containing("default", [a.uuid, b.uuid])] == [topic.id]
    assert [t.id for t in store.topics_containing("default", [other.uuid, a.uuid])] == [
        topic.id, lone.id]
    assert store.topics_containing("default", []) == []
    assert store.topics_containing("another-source", [a.uuid]) == []


def test_scrub_files_reports_what_it_did(store: Store) -> None:
    memory = remember(store, "x")
    report = store.scrub_files([memory.id])
    assert report["engine"] == store.engine_name
    if store.engine_name == "sqlite":
        assert report["wal_truncated"] is True  # nobody else reads this brain
        assert report["ann_bases_rebuilt"] == 0  # below the crossover: no base files


def test_a_sparse_vector_counts_until_the_purge(store: Store) -> None:
    doomed = remember(store, "sparse words here")
    sparse = store.search_index("default").sparse("splade-test")
    with store.transaction():
        sparse.put([NewSparse(MEMORY, doomed.id, "default", None, False, "splade-test", "h",
                              SparseTerms.of({5: 1.0, 9: 2.0}))])
    assert store.memory_copies([doomed.id]).sparse == 1
    with store.transaction():
        store.redact_memory(doomed.id, ts(2), REDACTED_TEXT)
        store.purge_text_indexes([doomed.id])
    assert store.memory_copies([doomed.id]).empty
    assert sparse.search(MEMORY, SparseTerms.of({5: 1.0}), None, 5) == []
