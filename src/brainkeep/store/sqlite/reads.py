"""The read log (``memory_reads``, migration 0014): recalls kept beside the hash chain (SQLite)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from brainkeep.core.mnemo.reads import MemoryRead
from brainkeep.store.sqlite.engine import SQLiteEngine

_COLUMNS = "ts, source_id, org_id, agent_id, thread_id, surface, strategy, memory_ids"


class ReadsMixin:
    """Recall reads; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def append_reads(self, reads: list[MemoryRead]) -> None:
        """Store a batch of reads (inside ``transaction()``; they are never hashed)."""
        self.db.executemany(
            f"INSERT INTO memory_reads ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(r.ts, r.source_id, r.org_id, r.agent_id, r.thread_id, r.surface, r.strategy,
              json.dumps(list(r.memory_ids))) for r in reads],
        )

    def iter_reads(
        self, org_id: str | None, agent_id: str | None, thread_id: str | None
    ) -> Iterator[MemoryRead]:
        """Reads of one tenant (and reader, thread), oldest first, in batches."""
        after = 0
        while True:
            rows = self.db.all(
                f"SELECT id, {_COLUMNS} FROM memory_reads WHERE org_id IS :org "
                "AND (:agent IS NULL OR agent_id = :agent) "
                "AND (:thread IS NULL OR thread_id = :thread) AND id > :after "
                "ORDER BY id LIMIT 5000",
                {"org": org_id, "agent": agent_id, "thread": thread_id, "after": after},
            )
            if not rows:
                return
            for r in rows:
                yield MemoryRead(r["ts"], r["source_id"], r["org_id"], r["agent_id"],
                                 r["thread_id"], r["surface"], r["strategy"],
                                 tuple(json.loads(r["memory_ids"])), id=r["id"])
            after = rows[-1]["id"]
