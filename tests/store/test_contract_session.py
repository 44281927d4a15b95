"""Contract: ``session()`` shares one connection for a request and changes no isolation.

A request (an MCP call, a gRPC call) runs inside ``store.session()``. It must
see what other writers committed meanwhile, nest, survive an exception, and
never hide the request's own writes from its later reads (PostgreSQL keeps
change markers for the session; they must be dropped when a transaction ends).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from brainkeep.core.ports.store import Store
from brainkeep.core.retrieval import CHUNK, NewEmbedding
from tests.store.conftest import Engine
from tests.store.contract import NOW, new_event, put_page

MODEL, DIM = "test-model", 3
POOL_MAX = 4  # tests/store/engines.py opens PostgreSQL stores with pool_max=4


class Boom(Exception):
    pass


def subjects(store: Store) -> list[str]:
    return [e.subject_id for e in store.iter_events()]


def test_a_session_sees_other_writers_commits(engine: Engine, store: Store) -> None:
    other = engine.open()
    with store.session():
        assert subjects(store) == []
        with other.transaction():
            other.append_event(new_event(1), NOW)
        assert subjects(store) == ["1"]  # no snapshot is held across statements
        with store.session():  # re-entrant
            with store.transaction():
                store.append_event(new_event(2), NOW)
        assert subjects(other) == ["1", "2"]  # committed at the block's end, not the session's


def test_an_exception_leaves_the_store_usable(store: Store) -> None:
    with pytest.raises(Boom), store.session():
        with store.transaction():
            store.append_event(new_event(1), NOW)
        raise Boom
    assert not store.in_transaction()
    assert subjects(store) == ["1"]
    with store.session(), store.transaction():
        store.append_event(new_event(2), NOW)
    assert subjects(store) == ["1", "2"]


def test_a_session_sees_its_own_vector_writes(store: Store) -> None:
    index = store.search_index("default", model=MODEL, dim=DIM)
    pages = [put_page(store, f"notes/{n}", f"# {n}\n\nbody {n}\n") for n in "ab"]
    with store.session():
        assert index.vector_count(CHUNK) == 0
        for n, page in enumerate(pages, start=1):
            (chunk_id, _), = store.page_chunk_texts(page.id)
            vector = np.array([1.0, n, 0.0], dtype=np.float32)
            vector /= np.linalg.norm(vector)
            with store.transaction():
                store.put_embeddings([NewEmbedding(CHUNK, chunk_id, "default", page.id, False,
                                                   MODEL, DIM, f"h{n}", vector.tobytes())])
            assert index.vector_count(CHUNK) == n


def test_a_side_session_on_an_idle_store_reads_the_latest_commits(
        engine: Engine, store: Store) -> None:
    other = engine.open()
    with other.transaction():
        other.append_event(new_event(1), NOW)
    results: list[tuple[bool, list[str]]] = []

    def beside() -> None:
        with store.side_session() as spare:
            results.append((spare, subjects(store) if spare else []))

    worker = threading.Thread(target=beside)
    worker.start()
    worker.join()
    assert results == [(True, ["1"])]
    with store.session(), store.side_session() as spare:  # inside a session: it is shared
        assert spare
        assert subjects(store) == ["1"]


def test_a_side_session_never_waits_for_a_held_pool(engine: Engine, store: Store) -> None:
    """Every connection held by threads waiting for the side read: it declines, at once."""
    holding, release = threading.Barrier(POOL_MAX + 1), threading.Event()

    def hold() -> None:
        with store.session():
            subjects(store)  # the session's connection is really checked out
            holding.wait()
            release.wait()

    holders = [threading.Thread(target=hold) for _ in range(POOL_MAX)]
    for t in holders:
        t.start()
    try:
        holding.wait()
        with store.side_session() as spare:
            # SQLite gives every thread its own connection; a pool may not.
            assert spare is (engine.name == "sqlite")
            if spare:
                assert subjects(store) == []
    finally:
        release.set()
        for t in holders:
            t.join()
    with store.side_session() as spare:  # the connections are back
        assert spare
