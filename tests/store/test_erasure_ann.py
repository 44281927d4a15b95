"""SQLite: a purged memory's vector leaves the ANN base files, its sparse postings the index.

A published base is an immutable usearch graph: deleting the embedding row
only tombstones it (never returned again), and usearch's ``remove`` keeps
the vector's bytes in the saved file. ``scrub_files`` rebuilds every memory
base naming a purged memory from the live rows, so no file beside the brain
holds the vector's bytes afterwards; a base that names none is left alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from brainkeep.core.memory.models import REDACTED_TEXT
from brainkeep.core.models import MemoryDraft
from brainkeep.core.query import PageScope
from brainkeep.core.retrieval import MEMORY
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.sqlite import SQLiteStore, sparse_blocks
from brainkeep.store.sqlite.ann_index import AnnVectorIndex
from brainkeep.store.sqlite.search_index import SQLiteSearchIndex
from tests.store.contract import insert_memory, ts
from tests.store.test_ann_index import DIM, MODEL, add_rows, units

ALL = PageScope(include_private=True)


def files_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file())


def brain_with_base(tmp_path: Path, n: int = 300) -> tuple[SQLiteStore, AnnVectorIndex,
                                                           list[int], np.ndarray]:
    store = SQLiteStore(tmp_path / "brain.db")
    ids = [insert_memory(store, MemoryDraft(text=f"memory {i}", agent_id="a", origin="grpc"),
                         ts(i)).id for i in range(n)]
    vectors = units(np.random.default_rng(7), n)
    add_rows(store, MEMORY, np.asarray(ids), vectors)
    index = SQLiteSearchIndex(store.db, "default", model=MODEL, dim=DIM)
    ann = index.vectors[MEMORY]
    assert isinstance(ann, AnnVectorIndex)
    assert ann.build(full=True) is not None  # a base, whatever the row count
    return store, ann, ids, vectors


def test_a_purged_vector_is_gone_from_the_base_files(tmp_path: Path) -> None:
    store, ann, ids, vectors = brain_with_base(tmp_path)
    try:
        directory = tmp_path / "brain.vectors"
        doomed, doomed_vector = ids[42], vectors[42].astype(np.float16).tobytes()
        kept_vector = vectors[43].astype(np.float16).tobytes()
        assert doomed_vector in files_bytes(directory)  # the test can fail
        with store.transaction():
            store.redact_memory(doomed, ts(1000), REDACTED_TEXT)
        # Unreachable at once (the tombstone), before any file changes.
        assert doomed not in {h.item_id for h in ann.search(vectors[42], 5, include_private=True)}
        assert doomed_vector in files_bytes(directory)

        report = store.scrub_files([doomed])

        assert report["ann_bases_rebuilt"] == 1 and report["ann_base_rows"] == 1
        data = files_bytes(directory)
        assert doomed_vector not in data and kept_vector in data
        hits = ann.search(vectors[43], 1, include_private=True)
        assert [h.item_id for h in hits] == [ids[43]]  # the rebuilt base serves
    finally:
        store.close()


def test_a_base_that_names_no_purged_memory_is_not_rebuilt(tmp_path: Path) -> None:
    store, ann, ids, _ = brain_with_base(tmp_path)
    try:
        generation = ann.base_meta.generation if ann.base_meta else 0
        outside = insert_memory(store, MemoryDraft(text="never embedded", agent_id="a"), ts(1))
        report = store.scrub_files([outside.id])
        assert report["ann_bases_rebuilt"] == 0
        ann.sync()
        assert ann.base_meta is not None and ann.base_meta.generation == generation
        assert report["wal_truncated"] is True
    finally:
        store.close()


def test_the_purge_deletes_the_sparse_postings_a_trigger_leaves(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "brain.db")
    try:
        blocked = insert_memory(store, MemoryDraft(text="sparse", agent_id="a"), ts(1)).id
        kept = insert_memory(store, MemoryDraft(text="kept", agent_id="a"), ts(1)).id
        recent = insert_memory(store, MemoryDraft(text="recent", agent_id="a"), ts(1)).id
        sparse = store.search_index("default").sparse("splade-test")

        def put(memory_id: int) -> None:
            with store.transaction():
                sparse.put([NewSparse(MEMORY, memory_id, "default", None, False,
                                      "splade-test", "h", SparseTerms.of({5: 1.0, 9: 2.0}))])

        put(blocked)
        put(kept)
        sparse.prune()  # these two now sit in the compacted blocks
        put(recent)  # this one in the delta

        def entries(memory_id: int) -> int:
            in_blocks = sum(int((items == memory_id).sum()) for _, items, _ in
                            sparse_blocks.read_blocks(store.db, MEMORY))
            return in_blocks + int(store.db.scalar(
                "SELECT COUNT(*) FROM sparse_postings WHERE item_id = ?", (memory_id,)))

        with store.transaction():
            store.redact_memory(blocked, ts(2), REDACTED_TEXT)
            store.redact_memory(recent, ts(2), REDACTED_TEXT)
        assert entries(blocked) == 2 and entries(recent) == 2  # what the trigger leaves
        with store.transaction():
            store.purge_text_indexes([blocked, recent])
        assert entries(blocked) == 0 and entries(recent) == 0
        assert entries(kept) == 2
    finally:
        store.close()
