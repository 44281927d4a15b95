"""The chain scans Verify reads over memories and events (PostgreSQL side).

A translation of ``store/sqlite/audit_scans.py``: the verifier's chain scans
(``mnemo_chain_rows``, ``mnemo_tombstones``, ``mnemo_inserted``) and
TrajectoryAudit's (``mnemo_audit_events``, ``mnemo_fact_writes``).

Dialect notes that apply to every port: SQLite sorts NULLs first in
ascending order, PostgreSQL last, so ``ORDER BY`` on a nullable column says
``NULLS FIRST``; ``json_extract(payload, '$.k')`` is ``payload::jsonb ->> 'k'``
(text; cast for numbers); a parameter compared only with ``IS NULL`` needs a
type (``%(agent)s::text``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from brainkeep.core.mnemo.models import AUDIT_EVENT_KINDS, AuditEvent, ChainRow, FactWrite
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.visibility import named, readable


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
           "ELSE events.payload::jsonb ->> 'memory_id' END")
    if scope.trusted:
        owner = ""
    elif scope.reader:
        owner = f" AND events.payload::jsonb ->> 'owner' = {bind(scope.reader)}"
    else:
        owner = " AND FALSE"
    gone = (
        "events.subject_type = 'memory' AND NOT EXISTS (SELECT 1 FROM memories g "
        "WHERE g.uuid = events.subject_id) "
        f"AND events.payload::jsonb ->> 'org_id' IS NOT DISTINCT FROM {bind(scope.org_id)}"
        f"{owner}"
    )
    return (
        f"(events.kind = 'memory.recall' OR EXISTS (SELECT 1 FROM memories m "
        f"WHERE m.uuid = {ref} AND {readable(scope, now, bind)}) OR ({gone}))"
    )


# SQLite's json_extract yields 1/0 for JSON booleans, so a fact key's text is
# '1'/'0' there; the same here keeps fact ids equal across engines.
_FACT = (
    "CASE jsonb_typeof(m.metadata::jsonb -> %(key)s) "
    "WHEN 'boolean' THEN CASE WHEN (m.metadata::jsonb -> %(key)s)::boolean THEN '1' ELSE '0' END "
    "ELSE m.metadata::jsonb ->> %(key)s END"
)


class AuditScansMixin:
    """Chain and audit scans; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

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
            "WHERE (%(agent)s::text IS NULL OR m.agent_id = %(agent)s) "
            "AND (%(thread)s::text IS NULL OR m.thread_id = %(thread)s) "
            f"AND (%(before)s::text IS NULL OR m.created_at <= %(before)s){seen} "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            params,
        )
        return [ChainRow(*tuple(r)) for r in rows]

    def mnemo_tombstones(self) -> list[tuple[str, str, str | None]]:
        """(uuid, content_hash, prev_hash) of every memory removed by a logged hard delete."""
        rows = self.db.all(
            "SELECT subject_id, payload::jsonb ->> 'content_hash', "
            "payload::jsonb ->> 'prev_hash' FROM events WHERE subject_type = 'memory' "
            "AND kind = 'memory.delete' AND payload::jsonb ->> 'strategy' = 'hard_delete'"
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def mnemo_inserted(
        self, agent_id: str | None, thread_id: str | None
    ) -> list[tuple[str, str]]:
        """(uuid, content_hash) of every logged memory insert in scope (by owner)."""
        # `owner` is the row's agent; `agent_id` is who acted (older MCP
        # inserts carry only `agent_id`, and then it was the owner).
        rows = self.db.all(
            "SELECT subject_id, payload::jsonb ->> 'content_hash' FROM events "
            "WHERE subject_type = 'memory' AND kind = 'memory.insert' "
            "AND (%(agent)s::text IS NULL OR COALESCE(payload::jsonb ->> 'owner', "
            "payload::jsonb ->> 'agent_id') = %(agent)s) "
            "AND (%(thread)s::text IS NULL OR payload::jsonb ->> 'thread_id' = %(thread)s)",
            {"agent": agent_id, "thread": thread_id},
        )
        return [(r[0], r[1]) for r in rows]

    def mnemo_audit_events(
        self, agent_id: str | None, thread_id: str | None, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> Iterator[AuditEvent]:
        """Memory-shaped events acted by, on memories of, or read by the agent; chain order.

        ``scope`` (with ``now``) keeps only events about memories its reader may see.
        Read in pages of 5,000 (keyset on ``seq``), as on SQLite.
        """
        params: dict[str, Any] = {"agent": agent_id, "thread": thread_id, "after": 0,
                                  "kinds": list(AUDIT_EVENT_KINDS)}
        if scope is not None and now is None:
            raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
        seen = "" if scope is None or now is None else " AND " + _event_seen(scope, now, params)
        while True:
            # `-> key IS NOT NULL` is SQLite's json_type(payload, '$.readers."agent"'):
            # true for any value under the key, JSON null included.
            rows = self.db.all(
                "SELECT seq, ts, kind, subject_id, "
                "COALESCE(payload::jsonb ->> 'agent_id', '') AS agent, "
                "payload::jsonb ->> 'thread_id' AS thread, "
                "payload::jsonb ->> 'strategy' AS strategy, "
                "payload::jsonb ->> 'readers' AS readers FROM events "
                "WHERE seq > %(after)s AND kind = ANY(%(kinds)s) "
                "AND (%(agent)s::text IS NULL OR payload::jsonb ->> 'agent_id' = %(agent)s "
                "OR payload::jsonb ->> 'owner' = %(agent)s "
                "OR (payload::jsonb -> 'readers' -> %(agent)s::text) IS NOT NULL) "
                "AND (%(thread)s::text IS NULL OR payload::jsonb ->> 'thread_id' = %(thread)s)"
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
        params: dict[str, Any] = {"key": fact_key, "agent": agent_id, "thread": thread_id}
        seen = "" if scope is None else " AND " + _seen(scope, now, params)
        rows = self.db.all(
            f"SELECT m.uuid, {_FACT} AS fact, m.created_at, "
            "(m.deleted_at IS NOT NULL OR m.expired_at IS NOT NULL OR m.redacted_at IS NOT NULL) "
            "AS retired FROM memories m WHERE m.metadata::jsonb ->> %(key)s IS NOT NULL "
            "AND (%(agent)s::text IS NULL OR m.agent_id = %(agent)s) "
            f"AND (%(thread)s::text IS NULL OR m.thread_id = %(thread)s){seen} ORDER BY m.id",
            params,
        )
        return [FactWrite(r["uuid"], r["fact"], r["created_at"], bool(r["retired"])) for r in rows]
