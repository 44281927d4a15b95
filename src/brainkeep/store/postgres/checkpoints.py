"""Checkpoints, branches and thread snapshots of the Mnemo API (PostgreSQL side).

A translation of ``store/sqlite/checkpoints.py``. ``mnemo_checkpoints.seq``
is an identity column (SQLite's AUTOINCREMENT: never reused), read back with
``RETURNING`` since PostgreSQL has no ``lastrowid``.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.mnemo.models import Checkpoint
from brainkeep.core.models import Memory
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.visibility import named, readable
from brainkeep.store.rows import checkpoint_from_row, memory_from_row


class CheckpointsMixin:
    """Checkpoint persistence; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    # -- checkpoints ---------------------------------------------------------------------

    def mnemo_insert_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        c = checkpoint
        row = self.db.one(
            "INSERT INTO mnemo_checkpoints (id, agent_id, thread_id, branch_name, parent_id, "
            "merge_parent_id, kind, label, state_snapshot, metadata, memory_refs, event_cursor, "
            "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING *",
            (c.id, c.agent_id, c.thread_id, c.branch_name, c.parent_id, c.merge_parent_id,
             c.kind, c.label, json.dumps(c.state_snapshot, ensure_ascii=False),
             json.dumps(c.metadata, ensure_ascii=False), json.dumps(list(c.memory_refs)),
             c.event_cursor, c.created_at),
        )
        assert row is not None  # INSERT ... RETURNING always returns its row
        return checkpoint_from_row(row)

    def mnemo_get_checkpoint(self, checkpoint_id: str) -> Checkpoint | None:
        row = self.db.one("SELECT * FROM mnemo_checkpoints WHERE id = %s", (checkpoint_id,))
        return None if row is None else checkpoint_from_row(row)

    def mnemo_branch_head(
        self, agent_id: str, thread_id: str, branch_name: str
    ) -> Checkpoint | None:
        row = self.db.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = %s AND thread_id = %s "
            "AND branch_name = %s ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name),
        )
        return None if row is None else checkpoint_from_row(row)

    def mnemo_branch_checkpoints(
        self, agent_id: str, thread_id: str, branch_name: str, *, after_seq: int = 0
    ) -> list[Checkpoint]:
        rows = self.db.all(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = %s AND thread_id = %s "
            "AND branch_name = %s AND seq > %s ORDER BY seq",
            (agent_id, thread_id, branch_name, after_seq),
        )
        return [checkpoint_from_row(r) for r in rows]

    def mnemo_latest_checkpoint_before(
        self, agent_id: str, thread_id: str, branch_name: str, ts: str
    ) -> Checkpoint | None:
        row = self.db.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = %s AND thread_id = %s "
            "AND branch_name = %s AND created_at <= %s ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name, ts),
        )
        return None if row is None else checkpoint_from_row(row)

    def mnemo_thread_memories(
        self, source_id: str, agent_id: str, thread_id: str, *, at: str, as_of: bool,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[Memory]:
        """The agent's memories in a thread, live at ``at`` (``as_of``: deleted since too).

        ``scope`` keeps only those its reader may see, grants live at ``now``
        (default ``at``).
        """
        if as_of:
            alive = (
                "m.created_at <= %(at)s AND (m.deleted_at IS NULL OR m.deleted_at > %(at)s) "
                "AND (m.expired_at IS NULL OR m.expired_at > %(at)s)"
            )
        else:
            alive = "m.deleted_at IS NULL AND m.expired_at IS NULL"
        params: dict[str, Any] = {"source": source_id, "agent": agent_id, "thread": thread_id,
                                  "at": at}
        seen = "" if scope is None else " AND " + readable(scope, now or at, named(params))
        rows = self.db.all(
            "SELECT m.* FROM memories m WHERE m.source_id = %(source)s "
            f"AND m.agent_id = %(agent)s AND m.thread_id = %(thread)s AND {alive} "
            f"AND (m.valid_until IS NULL OR m.valid_until > %(at)s){seen} ORDER BY m.id",
            params,
        )
        return [memory_from_row(r) for r in rows]

    def mnemo_max_event_seq(self) -> int:
        return int(self.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM events"))

    def mnemo_count_memory_events(
        self, uuids: list[str], *, max_seq: int | None, max_ts: str | None
    ) -> int:
        if not uuids:
            return 0
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM events WHERE subject_type = 'memory' "
                "AND subject_id = ANY(%(uuids)s) "
                "AND (%(seq)s::bigint IS NULL OR seq <= %(seq)s) "
                "AND (%(ts)s::text IS NULL OR ts <= %(ts)s)",
                {"uuids": list(uuids), "seq": max_seq, "ts": max_ts},
            )
        )
