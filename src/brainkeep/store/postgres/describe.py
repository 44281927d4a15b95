"""What `doctor` shows about a PostgreSQL brain (``Store.describe``), without secrets."""

from __future__ import annotations

import json
from typing import Any

from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.migrator import (
    SKIPPED_META_KEY,
    VECTOR_INSTALL_HINT,
    available_migrations,
)

# psycopg_pool counter -> the name doctor shows.
_POOL_KEYS = {"pool_min": "min", "pool_max": "max", "pool_size": "size",
              "pool_available": "idle", "requests_waiting": "waiting",
              "connections_lost": "connections_lost"}
# What a search reads: these tables with their indexes (HNSW and GIN included).
SEARCH_TABLES = ("embeddings", "chunks", "memories", "pages")


def describe(db: PostgresEngine) -> dict[str, Any]:
    """Engine, server and pgvector versions, pool counters and migration state.

    Raises:
        Unavailable: The server cannot be reached.
    """
    row = db.one(
        "SELECT current_setting('server_version') AS server, "
        "(SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector, "
        "(SELECT value FROM meta WHERE key = %s) AS skipped",
        (SKIPPED_META_KEY,),
    )
    assert row is not None
    applied = {int(r[0]) for r in db.all("SELECT version FROM schema_migrations")}
    shipped = [version for version, _name, _sql in available_migrations()]
    vector: dict[str, Any] = {"available": row["vector"] is not None,
                              "version": f"pgvector {row['vector']}" if row["vector"] else None}
    if row["vector"] is None:
        vector["install_hint"] = VECTOR_INSTALL_HINT
    stats = db.pool_stats()
    cache = db.one(
        "SELECT (SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings "
        "WHERE name = 'shared_buffers') AS size, (SELECT COALESCE(SUM(pg_total_relation_size("
        "c.oid)), 0) FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relname = ANY(%s)) AS search",
        (list(SEARCH_TABLES),),
    )
    assert cache is not None
    return {
        "engine": "postgres",
        "target": db.target,  # host:port, database: never the password
        "server_version": f"PostgreSQL {row['server']}",
        "vector": vector,
        "pool": {name: int(stats.get(key, 0)) for key, name in _POOL_KEYS.items()},
        # Searches that do not fit shared_buffers copy pages in from the OS on
        # every query: about 1.6x the database CPU per recall on
        # bench/recall_query.py (docs/postgres.md, "Memory sizing").
        "cache": {"size_bytes": int(cache["size"]), "search_bytes": int(cache["search"]),
                  "fits": int(cache["size"]) >= int(cache["search"])},
        "migrations": {
            "schema_version": max(applied, default=0),
            "pending": [v for v in shipped if v not in applied],
            "skipped": json.loads(row["skipped"]) if row["skipped"] else [],
            "applied_at_start": list(db.migration_report.applied),
        },
    }
