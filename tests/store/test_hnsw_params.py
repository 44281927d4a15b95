"""Migration 0018: the dense HNSW indexes are built with m 32 / ef_construction 128.

pgvector's defaults (m 16, ef_construction 64) found only half of the exact
top 30 memories at 200K rows (bench/pg_ann_recall.py); a brain migrated
before 0018 gets its indexes rebuilt, every dimension that has one.
"""

from __future__ import annotations

import psycopg

from brainkeep.store.migrate_sides import hnsw_build_memory
from brainkeep.store.postgres import PostgresStore
from brainkeep.store.postgres.migrator import run_migrations
from tests.pg_server import fresh_database

DENSE = ("m='32'", "ef_construction='128'")


def hnsw_indexes(conn: psycopg.Connection) -> dict[str, str]:
    rows = conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = "
                        "'embeddings' AND indexname LIKE 'embeddings\\_hnsw\\_%'").fetchall()
    return {str(name): str(definition) for name, definition in rows}


def test_a_fresh_brain_has_the_denser_graphs() -> None:
    url = fresh_database()
    PostgresStore(url, pool_min=1, pool_max=1).close()
    with psycopg.connect(url) as conn:
        found = hnsw_indexes(conn)
    assert set(found) == {"embeddings_hnsw_384_chunk", "embeddings_hnsw_384_memory"}
    for definition in found.values():
        assert all(p in definition for p in DENSE), definition


def test_an_older_brain_gets_every_dimension_rebuilt() -> None:
    url = fresh_database()
    PostgresStore(url, pool_min=1, pool_max=1).close()
    with psycopg.connect(url, autocommit=True) as conn:
        # The state 0005-0017 left: default-parameter graphs, one dimension more
        # made by a second model, and 0018 not in the ledger.
        for d in (384, 16):
            for kind in ("chunk", "memory"):
                conn.execute(f"DROP INDEX IF EXISTS embeddings_hnsw_{d}_{kind}")
                conn.execute(
                    f"CREATE INDEX embeddings_hnsw_{d}_{kind} ON embeddings USING hnsw "
                    f"((vector::vector({d})) vector_cosine_ops) "
                    f"WHERE dim = {d} AND kind = '{kind}'")
        conn.execute("DELETE FROM schema_migrations WHERE version = 18")
        assert not any("m='32'" in d for d in hnsw_indexes(conn).values())
        report = run_migrations(conn)
        found = hnsw_indexes(conn)
    assert report.applied == (18,)
    assert len(found) == 4
    for definition in found.values():
        assert all(p in definition for p in DENSE), definition


def test_migrate_builds_a_graph_with_the_memory_to_hold_it() -> None:
    # At the server default of 64 MB one graph of 40K vectors took 173 s,
    # 75 s with room for it: migrate sizes the build to the graph.
    vectors_and_links = 40_000 * (384 * 4 + 2 * 32 * 8) // 1024
    assert hnsw_build_memory(384, 40_000) >= vectors_and_links
    assert hnsw_build_memory(384, 0) == 64 * 1024  # never below PostgreSQL's default
    assert hnsw_build_memory(1536, 10_000_000) == 2 * 1024 * 1024  # one session's cap
