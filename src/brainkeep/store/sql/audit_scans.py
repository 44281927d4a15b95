"""The scans Verify and TrajectoryAudit run over memories and events, for both engines.

Written once over ``self.sql`` (store/sql/dialect.py): the verifier's chain
scans (``memory_chain_rows``, ``hard_deleted_memories``, ``logged_memory_inserts``) and
TrajectoryAudit's (``memory_audit_events``, ``fact_key_writes``). SQLite
sorts NULLs first in ascending order, PostgreSQL last, so ``ORDER BY`` on a
nullable column says ``NULLS FIRST``; a parameter compared only with ``IS
NULL`` is ``CAST(:p AS TEXT)`` (PostgreSQL must know its type).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from brainkeep.core.memory.models import AUDIT_EVENT_KINDS, AuditEvent, ChainRow, FactWrite
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql import scope as sql_scope
from brainkeep.store.sql.dialect import SQL, Dialect, named

_SLICE = ("(CAST(:agent AS TEXT) IS NULL OR m.agent_id = :agent) "
          "AND (CAST(:thread AS TEXT) IS NULL OR m.thread_id = :thread)")


def _seen(d: Dialect, scope: ReadScope, now: str | None, params: dict[str, Any]) -> str:
    """The read rule over ``memories m`` (grants need the instant they must be live at)."""
    if now is None:
        raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
    return sql_scope.readable(scope, now, named(params))


def _event_seen(d: Dialect, scope: ReadScope, now: str, params: dict[str, Any]) -> str:
    """Events of ``events`` about a memory the scope's reader may see.

    Recall batches name agents, not memories, and pass. A memory event whose
    row is gone (hard delete) is judged by what its payload recorded: the
    tenant, and the owner unless the view is tenant-wide.
    """
    bind = named(params)
    ref = ("CASE WHEN events.subject_type = 'memory' THEN events.subject_id "
           f"ELSE {d.json_text('events.payload', 'memory_id')} END")
    if scope.trusted:
        owner = ""
    elif scope.reader:
        owner = f" AND {d.json_text('events.payload', 'owner')} = {bind(scope.reader)}"
    else:
        owner = " AND 1 = 0"
    gone = (
        "events.subject_type = 'memory' AND NOT EXISTS (SELECT 1 FROM memories g "
        f"WHERE g.uuid = events.subject_id) AND {d.json_text('events.payload', 'org_id')} "
        f"{d.null_safe_eq} {bind(scope.org_id)}{owner}"
    )
    readable = sql_scope.readable(scope, now, bind)
    return (f"(events.kind = 'memory.recall' OR EXISTS (SELECT 1 FROM memories m "
            f"WHERE m.uuid = {ref} AND {readable}) OR ({gone}))")


def _read_by(d: Dialect, agent_id: str | None, params: dict[str, Any]) -> str:
    """The event's ``readers`` has a key for the agent (any value, JSON null included)."""
    if d.name == "sqlite":
        # Agent ids are [A-Za-z0-9._-]: quoted, the id is one JSON path key.
        params["reader"] = None if agent_id is None else "$.readers." + json.dumps(agent_id)
        return "json_type(payload, :reader) IS NOT NULL"
    return "(payload::jsonb -> 'readers' -> CAST(:agent AS TEXT)) IS NOT NULL"


def _fact(d: Dialect, fact_key: str, params: dict[str, Any]) -> tuple[str, str]:
    """(the fact key's value as text, the condition that the metadata has the key)."""
    if d.name == "sqlite":
        params["path"] = "$." + json.dumps(fact_key)
        return ("CAST(json_extract(m.metadata, :path) AS TEXT)",
                "json_extract(m.metadata, :path) IS NOT NULL")
    params["key"] = fact_key
    # SQLite's json_extract yields 1/0 for JSON booleans, so a fact key's text
    # is '1'/'0' there; the same here keeps fact ids equal across engines.
    value = ("CASE jsonb_typeof(m.metadata::jsonb -> :key) WHEN 'boolean' THEN CASE WHEN "
             "(m.metadata::jsonb -> :key)::boolean THEN '1' ELSE '0' END "
             "ELSE m.metadata::jsonb ->> :key END")
    return value, "m.metadata::jsonb ->> :key IS NOT NULL"


class AuditScansMixin:
    """Chain and audit scans over ``self.sql``."""

    sql: SQL

    def memory_chain_rows(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[ChainRow]:
        """Hashed fields of every stored memory in the slice, chain order (agent, thread, id).

        ``scope`` (with ``now`` for grant expiry) keeps only rows its reader
        may see, lifecycle aside; the verifier itself always reads every row.
        """
        params: dict[str, Any] = {"agent": agent_id, "thread": thread_id,
                                  "before": created_before}
        seen = "" if scope is None else " AND " + _seen(self.sql.dialect, scope, now, params)
        rows = self.sql.all(
            "SELECT m.id, m.uuid, m.agent_id, m.thread_id, m.text, m.created_at, "
            f"m.content_hash, m.prev_hash, m.redacted_at FROM memories m WHERE {_SLICE} "
            f"AND (CAST(:before AS TEXT) IS NULL OR m.created_at <= :before){seen} "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            params,
        )
        return [ChainRow(*tuple(r)) for r in rows]

    def hard_deleted_memories(self) -> list[tuple[str, str, str | None]]:
        """(uuid, content_hash, prev_hash) of every memory removed by a logged hard delete."""
        d = self.sql.dialect
        rows = self.sql.all(
            f"SELECT subject_id, {d.json_text('payload', 'content_hash')}, "
            f"{d.json_text('payload', 'prev_hash')} FROM events WHERE subject_type = 'memory' "
            f"AND kind = 'memory.delete' AND {d.json_text('payload', 'strategy')} = 'hard_delete'"
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def logged_memory_inserts(
        self, agent_id: str | None, thread_id: str | None
    ) -> list[tuple[str, str]]:
        """(uuid, content_hash) of every logged memory insert in scope (by owner)."""
        d = self.sql.dialect
        # `owner` is the row's agent; `agent_id` is who acted (older MCP
        # inserts carry only `agent_id`, and then it was the owner).
        rows = self.sql.all(
            f"SELECT subject_id, {d.json_text('payload', 'content_hash')} FROM events "
            "WHERE subject_type = 'memory' AND kind = 'memory.insert' "
            "AND (CAST(:agent AS TEXT) IS NULL OR COALESCE("
            f"{d.json_text('payload', 'owner')}, {d.json_text('payload', 'agent_id')}) = :agent) "
            f"AND (CAST(:thread AS TEXT) IS NULL OR {d.json_text('payload', 'thread_id')} "
            "= :thread)",
            {"agent": agent_id, "thread": thread_id},
        )
        return [(r[0], r[1]) for r in rows]

    def memory_audit_events(
        self, agent_id: str | None, thread_id: str | None, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> Iterator[AuditEvent]:
        """Memory-shaped events acted by, on memories of, or read by the agent; chain order.

        ``scope`` (with ``now``) keeps only events about memories its reader
        may see. Read in pages of 5,000 (keyset on ``seq``).
        """
        d = self.sql.dialect
        params: dict[str, Any] = {"agent": agent_id, "thread": thread_id, "after": 0}
        kinds = d.in_named("kind", list(AUDIT_EVENT_KINDS), params, "k")
        read_by = _read_by(d, agent_id, params)
        if scope is not None and now is None:
            raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
        seen = "" if scope is None or now is None else " AND " + _event_seen(d, scope, now, params)
        agent, owner = d.json_text("payload", "agent_id"), d.json_text("payload", "owner")
        thread = d.json_text("payload", "thread_id")
        while True:
            rows = self.sql.all(
                f"SELECT seq, ts, kind, subject_id, COALESCE({agent}, '') AS agent, "
                f"{thread} AS thread, {d.json_text('payload', 'strategy')} AS strategy, "
                f"{d.json_text('payload', 'readers')} AS readers FROM events "
                f"WHERE seq > :after AND {kinds} "
                f"AND (CAST(:agent AS TEXT) IS NULL OR {agent} = :agent OR {owner} = :agent "
                f"OR {read_by}) AND (CAST(:thread AS TEXT) IS NULL OR {thread} = :thread)"
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

    def fact_key_writes(
        self, agent_id: str | None, thread_id: str | None, fact_key: str, *,
        scope: ReadScope | None = None, now: str | None = None,
    ) -> list[FactWrite]:
        """Memories whose metadata carries ``fact_key``, oldest first (``scope``: visible ones)."""
        d = self.sql.dialect
        params: dict[str, Any] = {"agent": agent_id, "thread": thread_id}
        value, has_key = _fact(d, fact_key, params)
        seen = "" if scope is None else " AND " + _seen(d, scope, now, params)
        rows = self.sql.all(
            f"SELECT m.uuid, {value} AS fact, m.created_at, "
            "(m.deleted_at IS NOT NULL OR m.expired_at IS NOT NULL OR m.redacted_at IS NOT NULL) "
            f"AS retired FROM memories m WHERE {has_key} AND {_SLICE}{seen} ORDER BY m.id",
            params,
        )
        return [FactWrite(r["uuid"], r["fact"], r["created_at"], bool(r["retired"])) for r in rows]
