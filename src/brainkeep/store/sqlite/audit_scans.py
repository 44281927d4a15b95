"""The scans Verify and TrajectoryAudit run over memories and events (SQLite side)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from brainkeep.core.mnemo.models import AuditEvent, ChainRow, FactWrite
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.rows import in_list

# The events TrajectoryAudit reads: memory lifecycle, scope changes, shares, recall batches.
AUDIT_KINDS = (
    "memory.insert", "memory.delete", "memory.decay", "memory.redact", "memory.expire",
    "memory.scope", "memory.recall", "acl.grant",
)


class AuditScansMixin:
    """Chain and audit scans; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    # -- verification and audit -------------------------------------------------------------

    def mnemo_chain_rows(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None
    ) -> list[ChainRow]:
        """Hashed fields of every stored memory in scope, chain order (agent, thread, id)."""
        rows = self.db.all(
            "SELECT id, uuid, agent_id, thread_id, text, created_at, content_hash, prev_hash, "
            "redacted_at FROM memories WHERE (:agent IS NULL OR agent_id = :agent) "
            "AND (:thread IS NULL OR thread_id = :thread) "
            "AND (:before IS NULL OR created_at <= :before) "
            "ORDER BY agent_id, thread_id, id",
            {"agent": agent_id, "thread": thread_id, "before": created_before},
        )
        return [ChainRow(*tuple(r)) for r in rows]

    def mnemo_tombstones(self) -> list[tuple[str, str, str | None]]:
        """(uuid, content_hash, prev_hash) of every memory removed by a logged hard delete."""
        rows = self.db.all(
            "SELECT subject_id, json_extract(payload, '$.content_hash'), "
            "json_extract(payload, '$.prev_hash') FROM events WHERE subject_type = 'memory' "
            "AND kind = 'memory.delete' AND json_extract(payload, '$.strategy') = 'hard_delete'"
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def mnemo_inserted(
        self, agent_id: str | None, thread_id: str | None
    ) -> list[tuple[str, str]]:
        """(uuid, content_hash) of every logged memory insert in scope (by owner)."""
        # `owner` is the row's agent; `agent_id` is who acted (older MCP
        # inserts carry only `agent_id`, and then it was the owner).
        rows = self.db.all(
            "SELECT subject_id, json_extract(payload, '$.content_hash') FROM events "
            "WHERE subject_type = 'memory' AND kind = 'memory.insert' AND (:agent IS NULL "
            "OR COALESCE(json_extract(payload, '$.owner'), json_extract(payload, '$.agent_id')) "
            "= :agent) "
            "AND (:thread IS NULL OR json_extract(payload, '$.thread_id') = :thread)",
            {"agent": agent_id, "thread": thread_id},
        )
        return [(r[0], r[1]) for r in rows]

    def mnemo_audit_events(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[AuditEvent]:
        """Memory-shaped events acted by, on memories of, or read by the agent; chain order."""
        params: dict[str, Any] = {
            "agent": agent_id, "thread": thread_id, "after": 0,
            # Agent ids are [A-Za-z0-9._-]: quoted, the id is one JSON path key.
            "reader": None if agent_id is None else "$.readers." + json.dumps(agent_id),
        }
        kinds = in_list("k", list(AUDIT_KINDS), params)
        while True:
            rows = self.db.all(
                "SELECT seq, ts, kind, subject_id, "
                "COALESCE(json_extract(payload, '$.agent_id'), '') AS agent, "
                "json_extract(payload, '$.thread_id') AS thread, "
                "json_extract(payload, '$.strategy') AS strategy, "
                "json_extract(payload, '$.readers') AS readers FROM events "
                f"WHERE seq > :after AND kind IN ({kinds}) "
                "AND (:agent IS NULL OR json_extract(payload, '$.agent_id') = :agent "
                "OR json_extract(payload, '$.owner') = :agent "
                "OR json_type(payload, :reader) IS NOT NULL) "
                "AND (:thread IS NULL OR json_extract(payload, '$.thread_id') = :thread) "
                "ORDER BY seq LIMIT 5000",
                params,
            )
            if not rows:
                return
            for r in rows:
                strategy, readers = r["strategy"], r["readers"]
                yield AuditEvent(
                    seq=r["seq"], ts=r["ts"], kind=r["kind"], subject_id=r["subject_id"],
                    agent_id=r["agent"], thread_id=r["thread"],
                    strategy=None if strategy is None else str(strategy),
                    readers=tuple(sorted(json.loads(readers))) if readers else (),
                )
            params["after"] = rows[-1]["seq"]

    def mnemo_fact_writes(
        self, agent_id: str | None, thread_id: str | None, fact_key: str
    ) -> list[FactWrite]:
        """Memories whose metadata carries ``fact_key``, oldest first."""
        rows = self.db.all(
            "SELECT uuid, CAST(json_extract(metadata, :path) AS TEXT) AS fact, created_at, "
            "(deleted_at IS NOT NULL OR expired_at IS NOT NULL OR redacted_at IS NOT NULL) "
            "AS retired FROM memories WHERE json_extract(metadata, :path) IS NOT NULL "
            "AND (:agent IS NULL OR agent_id = :agent) "
            "AND (:thread IS NULL OR thread_id = :thread) ORDER BY id",
            {"path": "$." + json.dumps(fact_key), "agent": agent_id, "thread": thread_id},
        )
        return [FactWrite(r["uuid"], r["fact"], r["created_at"], bool(r["retired"])) for r in rows]
