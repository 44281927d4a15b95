"""Vectors and full-text rows stay in step with every write, delete and process."""

from __future__ import annotations

import sqlite3

import numpy as np

from brainkeep.brain import Brain
from brainkeep.core.context import LOCAL, STDIO
from brainkeep.core.retrieval import CHUNK, MEMORY

from .conftest import OpenBrain, SwitchableEmbedder

ALICE = """---
title: Alice Example
aliases: [Ali]
---
Alice Example runs the billing platform and prefers written status updates.

## Timeline

- 2025-03-02: kicked off the billing migration
"""
SECRET = """---
title: Secret Project
visibility: private
---
The secret project is a submarine built from recycled bicycles.
"""


def rows(brain: Brain, sql: str, *args: object) -> list[tuple]:
    return [tuple(r) for r in brain.store.db.all(sql, args)]  # type: ignore[attr-defined]


def vector_items(brain: Brain, kind: str) -> set[int]:
    return {r[0] for r in rows(brain, "SELECT item_id FROM embeddings WHERE kind = ?", kind)}


def chunk_ids(brain: Brain, slug: str) -> set[int]:
    return {
        r[0]
        for r in rows(
            brain,
            "SELECT c.id FROM chunks c JOIN pages p ON p.id = c.page_id WHERE p.slug = ?",
            slug,
        )
    }


def fts_count(brain: Brain, table: str, ids: set[int]) -> int:
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    return len(rows(brain, f"SELECT rowid FROM {table} WHERE rowid IN ({marks})", *ids))


def test_put_update_delete_keep_vectors_and_fts_in_step(brain: Brain) -> None:
    brain.pages.put_page("people/alice", ALICE)
    first = chunk_ids(brain, "people/alice")
    assert first and vector_items(brain, CHUNK) == first
    assert fts_count(brain, "chunks_fts", first) == len(first)

    # An edit rewrites the chunks: vectors follow (unchanged chunks reuse theirs).
    calls = brain.embedder.texts
    brain.pages.put_page("people/alice", ALICE.replace("billing platform", "payments team"))
    second = chunk_ids(brain, "people/alice")
    assert vector_items(brain, CHUNK) == second
    assert brain.embedder.texts == calls + 1  # only the changed chunk ran through the model
    assert fts_count(brain, "chunks_fts", second) == len(second)

    brain.pages.delete_page("people/alice", LOCAL)
    assert vector_items(brain, CHUNK) == set()
    assert fts_count(brain, "chunks_fts", second) == 0
    page_id = rows(brain, "SELECT id FROM pages WHERE slug = 'people/alice'")[0][0]
    assert fts_count(brain, "pages_fts", {page_id}) == 0
    assert brain.search.search("payments team", include_private=True, limit=5).results == []

    # Re-creating a soft-deleted page brings everything back.
    brain.pages.put_page("people/alice", ALICE)
    assert vector_items(brain, CHUNK) == chunk_ids(brain, "people/alice")
    assert fts_count(brain, "pages_fts", {page_id}) == 1


def test_private_pages_are_indexed_but_flagged(brain: Brain) -> None:
    brain.pages.put_page("projects/secret", SECRET)
    ids = chunk_ids(brain, "projects/secret")
    assert fts_count(brain, "chunks_fts", ids) == len(ids)
    assert rows(brain, "SELECT DISTINCT private FROM embeddings") == [(1,)]
    # Turning it world-visible rewrites the chunks, and their flag with them.
    brain.pages.put_page("projects/secret", SECRET.replace("visibility: private\n", ""))
    assert rows(brain, "SELECT DISTINCT private FROM embeddings") == [(0,)]


def test_fact_vectors_follow_expiry_and_forget(brain: Brain) -> None:
    kept = brain.facts.remember("Bob drinks oolong tea", "chat", LOCAL, entity="people/bob")
    gone = brain.facts.remember("Bob lives in Lisbon", "chat", LOCAL, entity="people/bob")
    assert vector_items(brain, MEMORY) == {kept.memory.id, gone.memory.id}
    assert fts_count(brain, "memories_fts", {kept.memory.id, gone.memory.id}) == 2
    brain.facts.forget(gone.memory.fact_id, LOCAL)
    assert vector_items(brain, MEMORY) == {kept.memory.id}
    assert fts_count(brain, "memories_fts", {gone.memory.id}) == 0


def test_index_catches_up_with_another_process(
    open_home: OpenBrain, embedder: SwitchableEmbedder
) -> None:
    reader = open_home(embedder)
    writer = open_home(embedder)  # a second connection set: another process's view
    writer.pages.put_page("notes/tea", "Oolong and sencha are my favourite teas.")
    hits = reader.search.search("which hot drinks do I like", include_private=True, limit=3)
    assert [r.slug for r in hits.results] == ["notes/tea"]
    assert reader.search_index.vector_count(CHUNK) == 1

    writer.pages.put_page("notes/coffee", "I drink espresso every morning at nine.")
    writer.pages.delete_page("notes/tea", LOCAL)
    hits = reader.search.search("which hot drinks do I like", include_private=True, limit=3)
    assert [r.slug for r in hits.results] == ["notes/coffee"]
    assert reader.search_index.vector_count(CHUNK) == 1


def test_pruned_tombstones_force_a_full_reload(
    open_home: OpenBrain, embedder: SwitchableEmbedder
) -> None:
    reader = open_home(embedder)
    writer = open_home(embedder)
    writer.pages.put_page("notes/a", "Apples are red.")
    writer.pages.put_page("notes/b", "Bananas are yellow.")
    assert len(reader.search.search("fruit", include_private=True, limit=5).results) == 2
    writer.pages.delete_page("notes/a", LOCAL)
    with writer.store.transaction():
        writer.store.prune_embedding_tombstones(0)
    assert rows(writer, "SELECT COUNT(*) FROM embedding_tombstones") == [(0,)]
    found = reader.search.search("fruit", include_private=True, limit=5).results
    assert [r.slug for r in found] == ["notes/b"]


def test_rolled_back_writes_never_enter_the_index(brain: Brain) -> None:
    brain.pages.put_page("notes/a", "Apples are red.")
    assert brain.embeddings is not None
    brain.search_index.vector_count(CHUNK)  # loads the committed rows
    try:
        with brain.store.transaction():
            brain.pages.put_page("notes/b", "Bananas are yellow.")
            # Searching inside the write must not load the uncommitted row.
            brain.search.search("fruit", include_private=True, limit=5)
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    brain.pages.put_page("notes/c", "Cherries are dark red.")
    slugs = {r.slug for r in brain.search.search("fruit", include_private=True, limit=5).results}
    assert slugs == {"notes/a", "notes/c"}


def test_stored_vectors_are_float32_unit_rows_tagged_with_the_model(brain: Brain) -> None:
    brain.facts.remember("Carol is allergic to peanuts", "chat", STDIO, entity="people/carol")
    model, dim, blob = rows(brain, "SELECT model, dim, vector FROM embeddings")[0]
    vector = np.frombuffer(blob, dtype=np.float32)
    assert (model, dim, vector.shape) == ("all-MiniLM-L6-v2-onnx-int8", 384, (384,))
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
    assert brain.store.get_meta("embeddings.model") == model


def test_hard_deleted_rows_drop_their_vectors(brain: Brain) -> None:
    brain.pages.put_page("notes/a", "Apples are red.")
    db = brain.store.db  # type: ignore[attr-defined]
    with brain.store.transaction():
        db.execute("DELETE FROM pages WHERE slug = 'notes/a'")
    assert vector_items(brain, CHUNK) == set()
    assert rows(brain, "SELECT COUNT(*) FROM embedding_tombstones")[0][0] >= 1


def test_migration_adds_embeddings_to_an_existing_brain(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from brainkeep.store import SQLiteStore

    store = SQLiteStore(tmp_path / "brain.db")
    store.close()
    conn = sqlite3.connect(tmp_path / "brain.db")
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert {"embeddings", "embedding_tombstones", "chunks_drop_embedding"} <= names
