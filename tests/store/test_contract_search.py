"""Contract: search reads: the engine's SearchIndex (keyword, nearest) and page/chunk lookups.

Queries are built the way core builds them (``core.query.query_terms``):
engine-neutral terms, never an engine's query syntax.
"""

from __future__ import annotations

import numpy as np

from brainkeep.core.memory.models import MemoryFilter
from brainkeep.core.models import MemoryDraft
from brainkeep.core.ports.store import Store
from brainkeep.core.query import PageScope, query_terms
from brainkeep.core.retrieval import CHUNK, MEMORY, PAGE, FactFilter, NewEmbedding
from brainkeep.core.scope import ReadScope
from tests.store.contract import PRIVATE_PAGE, insert_memory, put_page, ts

MODEL, DIM = "test-model", 3
PUBLIC = PageScope(include_private=False)
ALL_PAGES = PageScope(include_private=True)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_keyword_chunks_and_titles(store: Store) -> None:
    tea = put_page(store, "notes/tea", "# Green tea\n\nSencha is a green tea from Japan.\n")
    coffee = put_page(store, "notes/coffee", "# Coffee\n\nEspresso, not tea at all... tea!\n")
    secret = put_page(store, "notes/secret", PRIVATE_PAGE + "\nSecret green tea stash.\n")
    gone = put_page(store, "notes/gone", "# Gone\n\ngreen tea\n")
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(1))
    index = store.search_index("default")

    hits = index.keyword(CHUNK, query_terms("green tea"), ALL_PAGES, 10)
    assert {h.page_id for h in hits} == {tea.id, coffee.id, secret.id}
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.page_id for h in index.keyword(CHUNK, query_terms("green tea"), PUBLIC, 10)} == {
        tea.id, coffee.id}
    strict = index.keyword(CHUNK, query_terms("green sencha").every(), ALL_PAGES, 10)
    assert {h.page_id for h in strict} == {tea.id}
    assert len(index.keyword(CHUNK, query_terms("tea"), ALL_PAGES, 1)) == 1
    assert index.keyword(CHUNK, query_terms("zzzunknown"), ALL_PAGES, 10) == []

    titles = index.keyword(PAGE, query_terms("green tea"), ALL_PAGES, 10)
    assert [h.id for h in titles] == [tea.id] and titles[0].page_id == tea.id
    assert store.search_index("elsewhere").keyword(CHUNK, query_terms("tea"), ALL_PAGES,
                                                   10) == []


def test_keyword_memories_take_fact_and_memory_filters(store: Store) -> None:
    world = insert_memory(store, MemoryDraft(text="Alice drinks green tea"), ts(1))
    private = insert_memory(store, MemoryDraft(text="Alice hides her tea", visibility="private",
                                               scope="private"), ts(2))
    grpc = insert_memory(store, MemoryDraft(text="agent tea memory", agent_id="a1",
                                            scope="private", visibility="private"), ts(3))
    index = store.search_index("default")
    terms = query_terms("tea")

    def ids(scope: FactFilter | MemoryFilter) -> set[int]:
        return {h.id for h in index.keyword(MEMORY, terms, scope, 10)}

    assert ids(FactFilter(now=ts(10), scope=ReadScope(trusted=True))) == {
        world.id, private.id, grpc.id}
    assert ids(FactFilter(now=ts(10), scope=ReadScope())) == {world.id}
    assert ids(FactFilter(now=ts(10), scope=ReadScope(trusted=True), text_contains="alice")) == {
        world.id, private.id}
    assert ids(MemoryFilter(source_id="default", reader="a1", now=ts(10))) == {
        world.id, grpc.id}
    assert ids(MemoryFilter(source_id="default", reader="a2", now=ts(10))) == {world.id}
    with store.transaction():
        store.expire_memory(world.id, ts(11), "test")
    assert ids(FactFilter(now=ts(12), scope=ReadScope())) == set()


def test_nearest_and_vector_count(store: Store) -> None:
    page = put_page(store, "notes/a", "# A\n\nfirst\n\n## Timeline\n- 2024-01-01: second\n")
    secret = put_page(store, "notes/secret", PRIVATE_PAGE)
    (c1, _), (c2, _) = store.page_chunk_texts(page.id)
    (c3, _), *_ = store.page_chunk_texts(secret.id)
    memory = insert_memory(store, MemoryDraft(text="a fact"))
    rows = [
        NewEmbedding(CHUNK, c1, "default", page.id, False, MODEL, DIM, "h1",
                     unit(1, 0, 0).tobytes()),
        NewEmbedding(CHUNK, c2, "default", page.id, False, MODEL, DIM, "h2",
                     unit(0, 1, 0).tobytes()),
        NewEmbedding(CHUNK, c3, "default", secret.id, True, MODEL, DIM, "h3",
                     unit(1, 0.1, 0).tobytes()),
        NewEmbedding(MEMORY, memory.id, "default", None, False, MODEL, DIM, "hm",
                     unit(0, 0, 1).tobytes()),
    ]
    with store.transaction():
        assert store.put_embeddings(rows) == 4
    index = store.search_index("default", model=MODEL, dim=DIM)
    assert (index.vector_count(CHUNK), index.vector_count(MEMORY)) == (3, 1)
    assert index.build_vector_indexes() == {}  # a handful of rows: searched exactly

    hits = index.nearest(CHUNK, unit(1, 0.09, 0), ALL_PAGES, 3)
    assert [h.id for h in hits] == [c3, c1, c2]  # best cosine first
    assert 1.0001 >= hits[0].score > hits[1].score > hits[2].score
    assert {h.page_id for h in hits} == {page.id, secret.id}
    public = index.nearest(CHUNK, unit(1, 0.09, 0), PUBLIC, 3)
    assert [h.id for h in public] == [c1, c2]  # private rows left out for public scopes
    assert [h.id for h in index.nearest(CHUNK, unit(1, 0, 0), ALL_PAGES, 3, only=[c2])] == [c2]
    assert [h.id for h in index.nearest(MEMORY, unit(0, 0, 1), None, 5)] == [memory.id]
    # An index without a model space finds nothing.
    bare = store.search_index("default")
    assert bare.nearest(CHUNK, unit(1, 0, 0), ALL_PAGES, 3) == []
    assert bare.vector_count(CHUNK) == 0
    # Writes after the index was built are caught up with.
    (c4, _), = store.page_chunk_texts(put_page(store, "notes/b", "# B\n").id)
    with store.transaction():
        store.put_embeddings([NewEmbedding(CHUNK, c4, "default", None, False, MODEL, DIM, "h4",
                                           unit(0, 1, 1).tobytes())])
    assert index.vector_count(CHUNK) == 4


def test_page_lookups_apply_privacy_and_deletion(store: Store) -> None:
    alice = put_page(store, "people/alice", "---\naliases: [Ally]\n---\n# Alice\n\nbody\n")
    secret = put_page(store, "notes/secret", PRIVATE_PAGE)
    gone = put_page(store, "notes/gone", "# Alice\n")
    with store.transaction():
        store.mark_page_deleted(gone.id, ts(1))

    assert store.exact_name_pages("default", "alice", include_private=True) == {
        alice.id: "title"}
    assert store.exact_name_pages("default", "ally", include_private=True) == {
        alice.id: "alias"}
    assert store.exact_name_pages("default", "secret plans", include_private=True) == {
        secret.id: "title"}
    assert store.exact_name_pages("default", "secret plans", include_private=False) == {}
    assert store.exact_name_pages("default", "", include_private=True) == {}

    ids = [alice.id, secret.id, gone.id]
    heads = store.page_heads("default", ids, include_private=True)
    assert sorted(heads) == sorted([alice.id, secret.id])
    assert (heads[alice.id].slug, heads[alice.id].title) == ("people/alice", "Alice")
    assert sorted(store.page_heads("default", ids, include_private=False)) == [alice.id]
    assert store.page_heads("default", [], include_private=True) == {}

    (chunk_id, chunk_text), = store.page_chunk_texts(alice.id)
    secret_chunk = store.page_chunk_texts(secret.id)[0][0]
    views = store.chunk_views("default", [chunk_id, secret_chunk], include_private=True)
    assert sorted(views) == sorted([chunk_id, secret_chunk])
    view = views[chunk_id]
    assert (view.page_id, view.slug, view.title, view.text, view.kind) == (
        alice.id, "people/alice", "Alice", chunk_text, "truth")
    assert sorted(store.chunk_views("default", [chunk_id, secret_chunk],
                                    include_private=False)) == [chunk_id]
    leads = store.lead_chunks("default", [alice.id, secret.id, gone.id], include_private=True)
    assert sorted(leads) == sorted([alice.id, secret.id])
    assert leads[alice.id].chunk_id == chunk_id
    assert sorted(store.lead_chunks("default", [alice.id, secret.id],
                                    include_private=False)) == [alice.id]
