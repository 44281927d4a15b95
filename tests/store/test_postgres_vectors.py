"""PostgreSQL vector search: filtered HNSW search against brute force, and life without pgvector.

Real servers only (tests/pg_server.py). Vectors are written straight into
``embeddings`` with COPY: nearest() reads only that table, and ten
thousand pages would make the test slow without testing anything more.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from brainkeep.brain import Brain
from brainkeep.config import load_settings
from brainkeep.core.models import MemoryDraft
from brainkeep.core.query import PageScope, query_terms
from brainkeep.core.retrieval import CHUNK, MEMORY, FactFilter, NewEmbedding
from brainkeep.core.scope import ReadScope
from brainkeep.core.search import DEGRADED_KEYWORD_ONLY
from brainkeep.store.postgres import PostgresStore
from brainkeep.store.postgres.search_index import PostgresSearchIndex
from tests.pg_server import fresh_database
from tests.store.contract import insert_memory, put_page, ts

MODEL, DIM, K = "m", 16, 10
ALL_PAGES = PageScope(include_private=True)
PUBLIC = PageScope(include_private=False)
_roles = itertools.count(1)


def units(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def corpus() -> Iterator[tuple[PostgresStore, dict[str, tuple[np.ndarray, np.ndarray]]]]:
    """10,000 chunk vectors: source `big` 99%, `small` 1%; `mixed`: 1% of its rows public.

    Yields the store and, per source, (item ids, vectors, private flags).
    """
    rng = np.random.default_rng(7)
    url = fresh_database()
    store = PostgresStore(url, pool_min=1, pool_max=2)
    layout = {"big": (9_900, 0.0), "small": (100, 0.0), "mixed": (2_500, 0.99)}
    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    item = itertools.count(1)
    with psycopg.connect(url, autocommit=True) as conn:
        with conn.cursor().copy("COPY embeddings (kind, item_id, source_id, page_id, private, "
                                "model, dim, text_hash, vector) FROM STDIN") as copy:
            for source, (n, private_share) in layout.items():
                vectors = units(rng, n)
                ids = np.array([next(item) for _ in range(n)])
                private = rng.random(n) < private_share
                data[source] = (ids, vectors, private)  # type: ignore[assignment]
                for i, v, p in zip(ids, vectors, private, strict=True):
                    text = "[" + ",".join(f"{x:.9g}" for x in v) + "]"
                    copy.write_row(("chunk", int(i), source, int(i), int(p), MODEL, DIM,
                                    f"h{i}", text))
        # The graph built once over the loaded rows (as `migrate` does), not
        # row by row: with migration 0018's m 32 the latter took a minute.
        conn.execute("SELECT brainkeep_ensure_hnsw(%s)", (DIM,))
        conn.execute("ANALYZE embeddings")
    try:
        yield store, data  # type: ignore[misc]
    finally:
        store.close()


def brute_force(ids: np.ndarray, vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = vectors @ query
    return [int(ids[i]) for i in np.argsort(-scores, kind="stable")[:k]]


def queries(n: int = 10) -> np.ndarray:
    return units(np.random.default_rng(11), n)


def test_a_small_tenant_gets_its_exact_top_k(corpus) -> None:  # type: ignore[no-untyped-def]
    store, data = corpus
    ids, vectors, _ = data["small"]
    index = store.search_index("small", model=MODEL, dim=DIM)
    for q in queries():
        hits = index.nearest(CHUNK, q, ALL_PAGES, K)
        assert [h.id for h in hits] == brute_force(ids, vectors, q, K)
        expected = np.sort(vectors @ q)[::-1][:K]
        assert np.allclose([h.score for h in hits], expected, atol=1e-5)


def test_the_hnsw_path_with_iterative_scan_finds_a_small_tenants_top_k(corpus) -> None:  # type: ignore[no-untyped-def]
    store, data = corpus
    ids, vectors, _ = data["small"]
    # exact_max=0: never the exact pre-filter, always the HNSW index.
    index = PostgresSearchIndex(store.db, "small", model=MODEL, dim=DIM, exact_max=0)
    search = index.vectors[CHUNK]
    recalls = []
    for q in queries():
        truth = set(brute_force(ids, vectors, q, K))
        found = search.indexed(q, K, include_private=True)
        assert len(found) == K
        recalls.append(len(truth & {h.item_id for h in found}) / K)
        # Through the SearchIndex (the exact fallback covers any shortfall).
        assert len(index.nearest(CHUNK, q, ALL_PAGES, K)) == K
    assert np.mean(recalls) >= 0.9


def test_iterative_scan_keeps_a_rare_filter_correct_on_the_index(corpus) -> None:  # type: ignore[no-untyped-def]
    # The public rows of `mixed` are 1% of it: the planner, estimating the
    # two filters as independent, walks the HNSW index; a plain scan hands
    # back ef_search rows of which the filter keeps next to none.
    store, data = corpus
    ids, vectors, private = data["mixed"]
    public_ids, public_vectors = ids[~private], vectors[~private]
    search = PostgresSearchIndex(store.db, "mixed", model=MODEL, dim=DIM,
                                 exact_max=0).vectors[CHUNK]
    plan = "\n".join(r[0] for r in store.db.all(
        "EXPLAIN SELECT 1 FROM embeddings WHERE dim = 16 AND source_id = 'mixed' "
        "AND kind = 'chunk' AND model = 'm' AND private = 0 "
        "ORDER BY vector::vector(16) <=> %s::vector(16) LIMIT 10", (queries(1)[0],)))
    assert "embeddings_hnsw_16" in plan
    recalls, plain = [], []
    for q in queries():
        found = search.indexed(q, K, include_private=False)
        assert len(found) == K
        truth = set(brute_force(public_ids, public_vectors, q, K))
        recalls.append(len(truth & {h.item_id for h in found}) / K)
        plain.append(len(search.indexed(q, K, include_private=False, iterative=False)))
    assert np.mean(recalls) >= 0.9
    assert max(plain) < K


def test_the_big_tenant_and_the_public_share_of_a_mostly_private_one(corpus) -> None:  # type: ignore[no-untyped-def]
    store, data = corpus
    ids, vectors, _ = data["big"]
    big = store.search_index("big", model=MODEL, dim=DIM)
    recalls = []
    for q in queries():
        hits = big.nearest(CHUNK, q, ALL_PAGES, K)
        assert len(hits) == K
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        recalls.append(len(set(brute_force(ids, vectors, q, K)) & {h.id for h in hits}) / K)
    assert np.mean(recalls) >= 0.9

    ids, vectors, private = data["mixed"]
    public_ids, public_vectors = ids[~private], vectors[~private]
    assert 10 <= len(public_ids) < 100
    # 25 public rows of 2,500: the bounded count sends them to the exact pre-filter.
    mixed = store.search_index("mixed", model=MODEL, dim=DIM)
    for q in queries():
        hits = mixed.nearest(CHUNK, q, PUBLIC, K)
        assert [h.id for h in hits] == brute_force(public_ids, public_vectors, q, K)
    # `only` restricts to the listed items, exactly.
    q = queries(1)[0]
    subset = [int(i) for i in data["big"][0][:50]]
    hits = big.nearest(CHUNK, q, ALL_PAGES, 5, only=subset)
    assert [h.id for h in hits] == brute_force(data["big"][0][:50], data["big"][1][:50], q, 5)
    assert big.vector_count(CHUNK) == 9_900 and big.vector_count(MEMORY) == 0


def test_nearest_inside_a_transaction_leaves_it_usable(corpus) -> None:  # type: ignore[no-untyped-def]
    store, data = corpus
    index = PostgresSearchIndex(store.db, "big", model=MODEL, dim=DIM, exact_max=0)
    with store.transaction():
        assert len(index.nearest(CHUNK, queries(1)[0], ALL_PAGES, K)) == K
        # The SET LOCAL settings were rolled back with their savepoint.
        assert store.db.scalar("SELECT current_setting('hnsw.iterative_scan')") == "off"
        store.set_meta("after-nearest", "ok")
    assert store.get_meta("after-nearest") == "ok"


class HashEmbedder:
    """A deterministic embedder (never called here: the brain must not use it)."""

    model_id, dimensions = "hash-test", 3

    def embed(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("a brain without pgvector must not embed")


def _url_without_pgvector() -> str:
    """A fresh database whose user may create tables but not extensions (no pgvector).

    A managed server that refuses ``CREATE EXTENSION`` is the real case;
    the migrator skips migration 0005 for it exactly as for a server
    without the extension installed.
    """
    url = fresh_database()
    role = f"bk_novector_{next(_roles)}_{abs(hash(url)) % 10**6}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT USAGE, CREATE ON SCHEMA public TO "{role}"')
    return psycopg.conninfo.make_conninfo(url, user=role)


def test_without_pgvector_keyword_search_works_and_search_reports_degraded(
    tmp_path: Path,
) -> None:
    store = PostgresStore(_url_without_pgvector(), pool_min=1, pool_max=2)
    try:
        assert not store.db.vector_available and not store.vectors_available
        assert 5 in store.db.migration_report.skipped
        page = put_page(store, "notes/tea", "# Tea\n\nGreen tea from Japan.\n")
        fact = insert_memory(store, MemoryDraft(text="Alice drinks green tea"), ts(1))
        (chunk_id, _), = store.page_chunk_texts(page.id)
        index = store.search_index("default", model="hash-test", dim=3)
        assert [h.id for h in index.keyword(CHUNK, query_terms("tea"), ALL_PAGES, 5)] == [
            chunk_id]
        facts = FactFilter(now=ts(5), scope=ReadScope(trusted=True))
        assert [h.id for h in index.keyword(MEMORY, query_terms("tea"), facts, 5)] == [fact.id]
        assert index.nearest(CHUNK, np.ones(3, dtype=np.float32), ALL_PAGES, 5) == []
        assert index.vector_count(CHUNK) == index.vector_count(MEMORY) == 0
        with store.transaction():
            assert store.put_embeddings([NewEmbedding(
                CHUNK, chunk_id, "default", page.id, False, "hash-test", 3, "h",
                np.ones(3, dtype="<f4").tobytes())]) == 0
        assert store.stored_vectors_by_hash("hash-test", 3, ["h"]) == {}
        assert store.missing_embeddings("default", CHUNK, "hash-test", 3, after_item=0,
                                        limit=5) == []
        assert [(m.id, v) for m, v in store.fact_candidates(
            "default", "", ts(5), scope=ReadScope(trusted=True), visibilities=("world",),
            model="hash-test", dim=3, limit=5)] == []

        # The brain runs as SQLite does with no embedding provider.
        brain = Brain(settings=load_settings(tmp_path), store=store, embedder=HashEmbedder())
        assert brain.embeddings is None
        outcome = brain.search.search("green tea", include_private=True, limit=5)
        assert outcome.degraded == DEGRADED_KEYWORD_ONLY
        assert [r.slug for r in outcome.results] == ["notes/tea"]
    finally:
        store.close()
