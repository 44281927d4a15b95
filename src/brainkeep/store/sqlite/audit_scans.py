"""The scans Verify and TrajectoryAudit run over memories and events (SQLite side)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from brainkeep.core.mnemo.models import AUDIT_EVENT_KINDS, AuditEvent, ChainRow, FactWrite
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.rows import in_list
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.visibility import named, readable


def _seen(scope: ReadScope, now: str | None, params: dict[str, Any]) -> str:
    """The read rule over ``memories m`` (grants need the instant they must be live at)."""
    if now is None:
        raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
    return readable(scope, now, named(params))


def _event_seen(scope: ReadScope, now: str, params: dict[str, Any]) -> str:
    """Events of ``events`` about a memory the scope's reader may see.

    Recall batches name agents, not memories, and pass. A memory event whose
    row is gone (hard delete) is judged by what its payload recorded: the
    tenant, and the owner unless the view is tenant-wide.
    """
    bind = named(params)
    ref = ("CASE WHEN events.subject_type = 'memory' THEN events.subject_id "
           "ELSE json_extract(events.payload, '$.memory_id') END")
    if scope.trusted:
        owner = ""
    elif scope.reader:
        owner = f" AND json_extract(events.payload, '$.owner') = {bind(scope.reader)}"
    else:
        owner = " AND 0"
    gone = (
        "events.subject_type = 'memory' AND NOT EXISTS (SELECT 1 FROM memories g "
        "WHERE g.uuid = events.subject_id) "
        f"AND json_extract(events.payload, '$.org_id') IS {bind(scope.org_id)}{owner}"
    )
    return (
        f"(events.kind = 'memory.recall' OR EXISTS (SELECT 1 FROM memories m "
        f"WHERE m.uuid = {ref} AND {readable(scope, now, bind)}) OR ({gone}))"
    )


class AuditScansMixin:
    """Chain and audit scans; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    # -- verification and audit -------------------------------------------------------------

    def mnemo_chain_rows(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[ChainRow]:
        """Hashed fields of every stored memory in the slice, chain order (agent, thread, id).

        ``scope`` (with ``now`` for grant expiry) keeps only rows its reader
        may see, lifecycle aside; the verifier itself always reads every row.
        """
        params: dict[str, Any] = {"agent": agent_id, "thread": thread_id,
                                  "before": created_before}
        seen = "" if scope is None else " AND " + _seen(scope, now, params)
        rows = self.db.all(
            "SELECT m.id, m.uuid, m.agent_id, m.thread_id, m.text, m.created_at, "
            "m.content_hash, m.prev_hash, m.redacted_at FROM memories m "
            "WHERE (:agent IS NULL OR m.agent_id = :agent) "
            "AND (:thread IS NULL OR m.thread_id = :thread) "
            f"AND (:before IS NULL OR m.created_at <= :before){seen} "
            "ORDER BY m.agent_id, m.thread_id, m.id",
            params,
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
        self, agent_id: str | None, thread_id: str | None, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> Iterator[AuditEvent]:
        """Memory-shaped events acted by, on memories of, or read by the agent; chain order.

        ``scope`` (with ``now``) keeps only events about memories its reader may see.
        """
        params: dict[str, Any] = {
            "agent": agent_id, "thread": thread_id, "after": 0,
            # Agent ids are [A-Za-z0-9._-]: quoted, the id is one JSON path key.
            "reader": None if agent_id is None else "$.readers." + json.dumps(agent_id),
        }
        kinds = in_list("k", list(AUDIT_EVENT_KINDS), params)
        if scope is not None and now is None:
            raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
        seen = "" if scope is None or now is None else " AND " + _event_seen(scope, now, params)
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
                "AND (:thread IS NULL OR json_extract(payload, '$.thread_id') = :thread)"
                f"{seen} ORDER BY seq LIMIT 5000",
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
        self, agent_id: str | None, thread_id: str | None, fact_key: str, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[FactWrite]:
        """Memories whose metadata carries ``fact_key``, oldest first (``scope``: visible ones)."""
        params: dict[str, Any] = {"path": "$." + json.dumps(fact_key), "agent": agent_id,
                                  "thread": thread_id}
        seen = "" if scope is None else " AND " + _seen(scope, now, params)
        rows = self.db.all(
            "SELECT m.uuid, CAST(json_extract(m.metadata, :path) AS TEXT) AS fact, m.created_at, "
            "(m.deleted_at IS NOT NULL OR m.expired_at IS NOT NULL OR m.redacted_at IS NOT NULL) "
            "AS retired FROM memories m WHERE json_extract(m.metadata, :path) IS NOT NULL "
            "AND (:agent IS NULL OR m.agent_id = :agent) "
            f"AND (:thread IS NULL OR m.thread_id = :thread){seen} ORDER BY m.id",
            params,
        )
        return [FactWrite(r["uuid"], r["fact"], r["created_at"], bool(r["retired"])) for r in rows]
