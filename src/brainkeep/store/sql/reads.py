"""The read log (``memory_reads``, migration 0014): recalls kept beside the hash chain.

For both engines. Reads are read back in keyset batches: no cursor (nor, on
SQLite, read snapshot) stays open while the caller works through them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from brainkeep.core.memory.reads import MemoryRead
from brainkeep.store.sql.dialect import SQL

_COLUMNS = "ts, source_id, org_id, agent_id, thread_id, surface, strategy, memory_ids"
_BATCH = 5000


class ReadsMixin:
    """Recall reads over ``self.sql``."""

    sql: SQL

    def append_reads(self, reads: list[MemoryRead]) -> None:
        """Store a batch of reads (inside ``transaction()``; they are never hashed)."""
        self.sql.executemany(
            f"INSERT INTO memory_reads ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(r.ts, r.source_id, r.org_id, r.agent_id, r.thread_id, r.surface, r.strategy,
              json.dumps(list(r.memory_ids))) for r in reads],
        )

    def iter_reads(
        self, org_id: str | None, agent_id: str | None, thread_id: str | None
    ) -> Iterator[MemoryRead]:
        """Reads of one tenant (and reader, thread), oldest first, in batches."""
        after = 0
        # The casts type a NULL parameter for PostgreSQL; SQLite ignores them.
        statement = (
            f"SELECT id, {_COLUMNS} FROM memory_reads "
            f"WHERE org_id {self.sql.dialect.null_safe_eq} CAST(:org AS TEXT) "
            "AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent) "
            "AND (CAST(:thread AS TEXT) IS NULL OR thread_id = :thread) AND id > :after "
            f"ORDER BY id LIMIT {_BATCH}"
        )
        while True:
            rows = self.sql.all(
                statement,
                {"org": org_id, "agent": agent_id, "thread": thread_id, "after": after},
            )
            if not rows:
                return
            for r in rows:
                yield MemoryRead(r["ts"], r["source_id"], r["org_id"], r["agent_id"],
                                 r["thread_id"], r["surface"], r["strategy"],
                                 tuple(json.loads(r["memory_ids"])), id=int(r["id"]))
            after = rows[-1]["id"]
