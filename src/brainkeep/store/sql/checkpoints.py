"""Checkpoints, branches and thread snapshots of the Mnemo API, for both engines.

``mnemo_checkpoints.seq`` is never reused (SQLite AUTOINCREMENT, a
PostgreSQL identity column) and comes back with ``RETURNING``.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.memory.models import Checkpoint
from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.dialect import SQL, named
from brainkeep.store.sql.rows import checkpoint_from_row, memory_from_row
from brainkeep.store.sql.scope import readable


class CheckpointsMixin:
    """Checkpoint persistence over ``self.sql``."""

    sql: SQL

    def insert_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        c = checkpoint
        row = self.sql.one(
            "INSERT INTO mnemo_checkpoints (id, agent_id, thread_id, branch_name, parent_id, "
            "merge_parent_id, kind, label, state_snapshot, metadata, memory_refs, event_cursor, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
            (c.id, c.agent_id, c.thread_id, c.branch_name, c.parent_id, c.merge_parent_id,
             c.kind, c.label, json.dumps(c.state_snapshot, ensure_ascii=False),
             json.dumps(c.metadata, ensure_ascii=False), json.dumps(list(c.memory_refs)),
             c.event_cursor, c.created_at),
        )
        assert row is not None  # INSERT ... RETURNING always returns its row
        return checkpoint_from_row(row)

    def get_checkpoint(self, checkpoint_id: str) -> Checkpoint | None:
        row = self.sql.one("SELECT * FROM mnemo_checkpoints WHERE id = ?", (checkpoint_id,))
        return None if row is None else checkpoint_from_row(row)

    def branch_head(
        self, agent_id: str, thread_id: str, branch_name: str
    ) -> Checkpoint | None:
        row = self.sql.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name),
        )
        return None if row is None else checkpoint_from_row(row)

    def branch_checkpoints(
        self, agent_id: str, thread_id: str, branch_name: str, *, after_seq: int = 0
    ) -> list[Checkpoint]:
        rows = self.sql.all(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? AND seq > ? ORDER BY seq",
            (agent_id, thread_id, branch_name, after_seq),
        )
        return [checkpoint_from_row(r) for r in rows]

    def latest_checkpoint_before(
        self, agent_id: str, thread_id: str, branch_name: str, ts: str
    ) -> Checkpoint | None:
        row = self.sql.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? AND created_at <= ? ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name, ts),
        )
        return None if row is None else checkpoint_from_row(row)

    def thread_memories(
        self, source_id: str, agent_id: str, thread_id: str, *, at: str, as_of: bool,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[Memory]:
        """The agent's memories in a thread, live at ``at`` (``as_of``: deleted since too).

        ``scope`` keeps only those its reader may see, grants live at ``now``
        (default ``at``).
        """
        if as_of:
            alive = (
                "m.created_at <= :at AND (m.deleted_at IS NULL OR m.deleted_at > :at) "
                "AND (m.expired_at IS NULL OR m.expired_at > :at)"
            )
        else:
            alive = "m.deleted_at IS NULL AND m.expired_at IS NULL"
        params: dict[str, Any] = {"source": source_id, "agent": agent_id, "thread": thread_id,
                                  "at": at}
        seen = "" if scope is None else " AND " + readable(
            scope, now or at, named(params))
        rows = self.sql.all(
            "SELECT m.* FROM memories m WHERE m.source_id = :source AND m.agent_id = :agent "
            f"AND m.thread_id = :thread AND {alive} "
            f"AND (m.valid_until IS NULL OR m.valid_until > :at){seen} ORDER BY m.id",
            params,
        )
        return [memory_from_row(r) for r in rows]

    def max_event_seq(self) -> int:
        return int(self.sql.scalar("SELECT COALESCE(MAX(seq), 0) FROM events"))

    def count_memory_events(
        self, uuids: list[str], *, max_seq: int | None, max_ts: str | None
    ) -> int:
        if not uuids:
            return 0
        params: dict[str, Any] = {"seq": max_seq, "ts": max_ts}
        among = self.sql.dialect.in_named("subject_id", uuids, params, "u")
        # The casts type a NULL parameter for PostgreSQL; SQLite ignores them.
        return int(
            self.sql.scalar(
                f"SELECT COUNT(*) FROM events WHERE subject_type = 'memory' AND {among} "
                "AND (CAST(:seq AS BIGINT) IS NULL OR seq <= :seq) "
                "AND (CAST(:ts AS TEXT) IS NULL OR ts <= :ts)",
                params,
            )
        )
