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
    return {
        "engine": "postgres",
        "target": db.target,  # host:port, database: never the password
        "server_version": f"PostgreSQL {row['server']}",
        "vector": vector,
        "pool": {name: int(stats.get(key, 0)) for key, name in _POOL_KEYS.items()},
        "migrations": {
            "schema_version": max(applied, default=0),
            "pending": [v for v in shipped if v not in applied],
            "skipped": json.loads(row["skipped"]) if row["skipped"] else [],
            "applied_at_start": list(db.migration_report.applied),
        },
    }
