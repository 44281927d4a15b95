"""The orientation cache's tables (migration 0016), for both engines.

A namespace row per (tenant, label) holds the hit count; an entry row per
(namespace, kind, key, value, source memory) holds how often that memory
brought the entry back. Every increment is an ``INSERT … ON CONFLICT DO
UPDATE SET n = n + 1`` inside the caller's write transaction, so two server
processes on one PostgreSQL brain add up instead of overwriting each other
(and PostgreSQL's write lock serializes them besides). A read sums the
entries over the source rows the reader's read scope admits (``scope.py``'s
``readable`` and ``live``, the one compiled read scope every recall uses):
visibility is decided where the rows are, never by what was true when an
entry was written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brainkeep.core.memory.orientation_map import KINDS, Observation, StoredEntry, StoredMap
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.dialect import SQL, named
from brainkeep.store.sql.scope import live, readable


def _tenant(org_id: str | None) -> str:
    # The namespace key is NOT NULL (a UNIQUE key treats NULLs as distinct);
    # '' is no valid org id, so it names the tenant without an org.
    return org_id or ""


class OrientationMixin:
    """Context maps over ``self.sql``."""

    sql: SQL

    def orientation_record(
        self, org_id: str | None, namespace: str,
        observations: Sequence[tuple[int, Observation]], now: str,
    ) -> None:
        """One hit on the namespace and one occurrence of each observation (in a transaction)."""
        namespace_id = self.sql.scalar(
            "INSERT INTO orientation_namespaces (tenant, name, hit_count, created_at, updated_at) "
            "VALUES (?, ?, 1, ?, ?) ON CONFLICT (tenant, name) DO UPDATE SET "
            "hit_count = orientation_namespaces.hit_count + 1, updated_at = excluded.updated_at "
            "RETURNING id",
            (_tenant(org_id), namespace, now, now),
        )
        if not observations:
            return
        self.sql.executemany(
            "INSERT INTO orientation_entries (namespace_id, kind, entry_key, entry_value, "
            "memory_id, hits) VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (namespace_id, kind, "
            "entry_key, entry_value, memory_id) DO UPDATE SET "
            "hits = orientation_entries.hits + 1",
            [(namespace_id, o.kind, o.key, o.value, memory_id) for memory_id, o in observations],
        )

    def orientation_read(
        self, namespace: str, *, source_id: str, scope: ReadScope, now: str, per_kind: int,
    ) -> StoredMap:
        """Hit count and each kind's ``per_kind`` most frequent entries over readable rows."""
        row = self.sql.one(
            "SELECT id, hit_count FROM orientation_namespaces WHERE tenant = ? AND name = ?",
            (_tenant(scope.org_id), namespace),
        )
        if row is None:
            return StoredMap(hit_count=0)
        if per_kind <= 0:
            return StoredMap(hit_count=int(row["hit_count"]))
        params: dict[str, Any] = {"source": source_id}
        bind = named(params)
        where = (f"m.source_id = :source AND {readable(scope, now, bind)}"
                 f" AND {live(now, bind)}")
        # Driven from the namespace's rows, one source-row lookup each: the cost
        # follows the namespace, not the brain. As a join, PostgreSQL's planner
        # (which cannot estimate the scope's ORs) scanned every memory of the
        # tenant first; OFFSET 0 keeps the EXISTS a per-row subplan there.
        fence = self.sql.dialect.pick(sqlite="", postgres=" OFFSET 0")
        entries: list[StoredEntry] = []
        for kind in KINDS:
            bound: dict[str, Any] = {**params, "ns": row["id"], "kind": kind, "n": per_kind}
            entries += [
                StoredEntry(kind, r["entry_key"], r["entry_value"], int(r["freq"]))
                for r in self.sql.all(
                    "SELECT e.entry_key, e.entry_value, SUM(e.hits) AS freq "
                    "FROM orientation_entries e WHERE e.namespace_id = :ns AND e.kind = :kind "
                    "AND EXISTS (SELECT 1 FROM memories m WHERE m.id = e.memory_id AND "
                    f"{where}{fence}) GROUP BY e.entry_key, e.entry_value "
                    "ORDER BY freq DESC, e.entry_key, e.entry_value LIMIT :n",
                    bound,
                )
            ]
        return StoredMap(hit_count=int(row["hit_count"]), entries=tuple(entries))

    def orientation_purge(self, memory_ids: Sequence[int]) -> int:
        """Delete every entry these memories contributed; returns how many rows went."""
        if not memory_ids:
            return 0
        params: list[Any] = []
        among = self.sql.dialect.in_list("memory_id", list(memory_ids), params)
        return len(self.sql.all(
            f"DELETE FROM orientation_entries WHERE {among} RETURNING memory_id", params))
