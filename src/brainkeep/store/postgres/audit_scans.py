"""The chain scans Verify reads over memories and events (PostgreSQL side).

Ported so far: ``mnemo_chain_rows``, ``mnemo_tombstones``, ``mnemo_inserted``
(what the contract's chain checks need). Still to port from
``store/sqlite/audit_scans.py``: ``mnemo_audit_events``, ``mnemo_fact_writes``.

Dialect notes that apply to every port: SQLite sorts NULLs first in
ascending order, PostgreSQL last, so ``ORDER BY`` on a nullable column says
``NULLS FIRST``; ``json_extract(payload, '$.k')`` is ``payload::jsonb ->> 'k'``
(text; cast for numbers); a parameter compared only with ``IS NULL`` needs a
type (``%(agent)s::text``).
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.mnemo.models import ChainRow
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.visibility import named, readable


def _seen(scope: ReadScope, now: str | None, params: dict[str, Any]) -> str:
    """The read rule over ``memories m`` (grants need the instant they must be live at)."""
    if now is None:
        raise ValueError("a scoped scan needs `now` (ACL and delegation expiry)")
    return readable(scope, now, named(params))


class AuditScansMixin:
    """Chain scans; expects ``self.db`` to be a ``PostgresEngine``."""

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
