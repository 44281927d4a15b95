"""The scans the verifier streams: each row beside the hashes its events recorded (PostgreSQL).

A translation of ``store/sqlite/integrity.py``. Every scan is one query read
through a server-side cursor (``db.stream``), with the newest recorded hash
looked up per row through ``events_subject (subject_type, subject_id, seq)``.
JSON: SQLite's ``json_extract(p, '$.k')`` is ``p::jsonb ->> 'k'`` and its
``json_type(p, '$.k')`` is ``jsonb_typeof(p::jsonb -> 'k')`` (both 'null'
for a JSON null, SQL NULL for a missing key). ``json_group_array`` is
``json_agg(...)::text``. Text built by a cast carries the default collation,
so it is compared ``COLLATE "C"`` with the "C" columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from brainkeep.core.integrity_rows import (
    AclState,
    DelegationState,
    MemoryState,
    PageState,
    Vanished,
)
from brainkeep.store.postgres.engine import PostgresEngine, Row
from brainkeep.store.sql.rows import memory_from_row


def _newest(subject_type: str, alias: str, key: str, subject: str) -> str:
    """Correlated subquery: the newest ``payload.<key>`` recorded for one subject."""
    return (
        f"(SELECT e.payload::jsonb ->> '{key}' FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.subject_id = {subject} "
        f"AND jsonb_typeof(e.payload::jsonb -> '{key}') IS NOT NULL "
        f"ORDER BY e.seq DESC LIMIT 1) AS {alias}"
    )


def _last_seq(subject_type: str, subject: str) -> str:
    return (f"(SELECT MAX(e.seq) FROM events e WHERE e.subject_type = '{subject_type}' "
            f"AND e.subject_id = {subject}) AS bk_last_seq")


def _vanished_sql(subject_type: str, key: str, table: str, label: str) -> str:
    """Subjects of ``subject_type`` with no row in ``table``, judged by their newest event."""
    return (
        f"SELECT e.subject_id, e.payload::jsonb ->> '{label}', e.kind, "
        f"jsonb_typeof(e.payload::jsonb -> '{key}') FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.seq = (SELECT MAX(x.seq) FROM events x "
        f"WHERE x.subject_type = '{subject_type}' AND x.subject_id = e.subject_id) "
        f"AND NOT EXISTS (SELECT 1 FROM {table} r WHERE r.id = e.subject_id) ORDER BY e.seq"
    )


def _revoked(row: Row) -> str | None:
    """``revoked_at`` of a grant row (None where revocation deletes the row instead)."""
    return row["revoked_at"] if "revoked_at" in row.keys() else None


def _only(column: str, ids: list[str] | list[int] | None, cast: str = "text"
          ) -> tuple[str, dict[str, Any]]:
    """`` WHERE column = ANY(ids)``, or nothing."""
    if ids is None:
        return "", {}
    return f" WHERE {column} = ANY(%(bk_ids)s::{cast}[])", {"bk_ids": ids}


def _chain_neighbour(alias: str, agent: str, thread: str, compare: str, pick: str) -> str:
    """The row before/after one in its (agent, thread) chain; each arm keeps its index."""
    base = f"FROM memories {alias} WHERE {alias}.agent_id = {agent} AND {alias}.id {compare}"
    return (f"CASE WHEN {thread} IS NULL THEN (SELECT {pick} {base} "
            f"AND {alias}.thread_id IS NULL ORDER BY {alias}.id {_DIR[compare]} LIMIT 1) "
            f"ELSE (SELECT {pick} {base} AND {alias}.thread_id = {thread} "
            f"ORDER BY {alias}.id {_DIR[compare]} LIMIT 1) END")


_DIR = {"> a.id": "ASC", "< m.id": "DESC"}


def _json_list(text: str | None) -> tuple[str, ...]:
    return tuple(json.loads(text or "[]"))


class IntegrityMixin:
    """Verifier scans; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    def state_marker_seq(self) -> int | None:
        """The first event recording an access state hash (None: none yet, an old brain)."""
        # In seq order with LIMIT 1 (the primary key): stops at the first hit,
        # at once on a new brain, so an incremental verify does not scan the log.
        value = self.db.scalar(
            "SELECT seq FROM events WHERE "
            "jsonb_typeof(payload::jsonb -> 'state_hash') IS NOT NULL "
            "OR jsonb_typeof(payload::jsonb -> 'acl_hash') IS NOT NULL "
            "OR jsonb_typeof(payload::jsonb -> 'delegation_hash') IS NOT NULL "
            "ORDER BY seq LIMIT 1"
        )
        return None if value is None else int(value)

    def iter_memory_states(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        uuids: list[str] | None = None,
    ) -> Iterator[MemoryState]:
        """Every stored memory in scope (``uuids``: only those) in chain order, with its record."""
        rows = self.db.stream(
            "SELECT m.*, " + _newest("memory", "bk_content", "content_hash", "m.uuid") + ", "
            + _newest("memory", "bk_state", "state_hash", "m.uuid") + ", "
            + _last_seq("memory", "m.uuid") + ", "
            "(SELECT json_agg(t.tag)::text FROM memory_tags t WHERE t.memory_id = m.id) "
            "AS bk_tags FROM memories m WHERE (%(agent)s::text IS NULL OR m.agent_id = %(agent)s) "
            "AND (%(thread)s::text IS NULL OR m.thread_id = %(thread)s) "
            "AND (%(before)s::text IS NULL OR m.created_at <= %(before)s) "
            "AND (%(uuids)s::text[] IS NULL OR m.uuid = ANY(%(uuids)s::text[])) "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            {"agent": agent_id, "thread": thread_id, "before": created_before, "uuids": uuids},
        )
        for row in rows:
            yield MemoryState(memory_from_row(row), row["bk_content"], row["bk_state"],
                              row["bk_last_seq"], _json_list(row["bk_tags"]))

    def iter_chain_states_near(
        self, anchors: list[tuple[str, str | None, int]]
    ) -> Iterator[tuple[MemoryState, str | None]]:
        """Rows at and just after each (agent, thread, row id), in chain order.

        Each comes with the ``content_hash`` of the row before it in its chain
        (None: it is the first), so an incremental verify checks a touched row
        and its successor's link without walking the chain.
        """
        rows = self.db.stream(
            "WITH a AS (SELECT * FROM unnest(%(agents)s::text[], %(threads)s::text[], "
            "%(ids)s::bigint[]) AS a(agent, thread, id)), ids AS (SELECT id FROM a UNION "
            "SELECT " + _chain_neighbour("n", "a.agent", "a.thread", "> a.id", "n.id")
            + " FROM a) SELECT m.*, "
            + _newest("memory", "bk_content", "content_hash", "m.uuid") + ", "
            + _newest("memory", "bk_state", "state_hash", "m.uuid") + ", "
            + _last_seq("memory", "m.uuid") + ", "
            "(SELECT json_agg(t.tag)::text FROM memory_tags t WHERE t.memory_id = m.id) "
            "AS bk_tags, " + _chain_neighbour("p", "m.agent_id", "m.thread_id", "< m.id",
                                              "p.content_hash")
            + " AS bk_previous FROM memories m WHERE m.id IN (SELECT id FROM ids) "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            {"agents": [a for a, _, _ in anchors], "threads": [t for _, t, _ in anchors],
             "ids": [i for _, _, i in anchors]},
        )
        for row in rows:
            yield (MemoryState(memory_from_row(row), row["bk_content"], row["bk_state"],
                               row["bk_last_seq"], _json_list(row["bk_tags"])),
                   row["bk_previous"])

    def iter_vanished_memories(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[str]:
        """Uuids of logged inserts in scope (by owner) whose row is gone without a hard delete."""
        rows = self.db.stream(
            "SELECT e.subject_id FROM events e WHERE e.kind = 'memory.insert' "
            "AND e.subject_type = 'memory' AND (%(agent)s::text IS NULL OR COALESCE("
            "e.payload::jsonb ->> 'owner', e.payload::jsonb ->> 'agent_id') = %(agent)s) "
            "AND (%(thread)s::text IS NULL OR e.payload::jsonb ->> 'thread_id' = %(thread)s) "
            "AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.uuid = e.subject_id) "
            "AND NOT EXISTS (SELECT 1 FROM events d WHERE d.subject_type = 'memory' "
            "AND d.subject_id = e.subject_id AND d.kind = 'memory.delete' "
            "AND d.payload::jsonb ->> 'strategy' = 'hard_delete') ORDER BY e.seq",
            {"agent": agent_id, "thread": thread_id},
        )
        for row in rows:
            yield str(row[0])

    def iter_page_states(self, ids: list[str] | None = None) -> Iterator[PageState]:
        """Every page row (deleted ones too; ``ids``: only those) with its record."""
        subject = 'CAST(p.id AS TEXT) COLLATE "C"'
        where, params = _only("p.id", None if ids is None else [int(i) for i in ids
                                                                  if i.isdigit()], "bigint")
        rows = self.db.stream(
            "SELECT p.id, p.source_id, p.slug, p.content, p.content_hash, p.visibility, "
            "p.deleted_at, " + _newest("page", "bk_content", "content_hash", subject) + ", "
            + _newest("page", "bk_state", "state_hash", subject) + ", "
            + _last_seq("page", subject) + f" FROM pages p{where} ORDER BY p.id", params
        )
        for r in rows:
            yield PageState(str(r["id"]), r["source_id"], r["slug"], r["content"],
                            r["content_hash"], r["visibility"], r["deleted_at"],
                            r["bk_content"], r["bk_state"], r["bk_last_seq"])

    def iter_vanished_pages(self) -> Iterator[Vanished]:
        """Logged pages whose row is gone (pages are never hard-deleted)."""
        rows = self.db.stream(
            "SELECT e.subject_id, e.payload::jsonb ->> 'slug' FROM events e "
            "WHERE e.subject_type = 'page' AND e.seq = (SELECT MAX(x.seq) FROM events x "
            "WHERE x.subject_type = 'page' AND x.subject_id = e.subject_id) "
            # SQLite's CAST of a non-number is 0; PostgreSQL's raises, so only
            # digit strings are cast (the page's primary key index stays usable).
            "AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = CASE WHEN e.subject_id "
            "~ '^[0-9]{1,18}$' THEN CAST(e.subject_id AS BIGINT) END) ORDER BY e.seq"
        )
        for row in rows:
            yield Vanished("page", str(row[0]), row[1], False)

    def iter_acl_states(self, ids: list[str] | None = None) -> Iterator[AclState]:
        """Every ACL row (``ids``: only those) with the memory uuid it names and its record."""
        where, params = _only("a.id", ids)
        rows = self.db.stream(
            "SELECT a.*, m.uuid AS bk_memory, "
            + _newest("acl", "bk_state", "acl_hash", "a.id") + ", "
            + _last_seq("acl", "a.id")
            + f" FROM mnemo_acls a LEFT JOIN memories m ON m.id = a.memory_id{where} ORDER BY a.id",
            params,
        )
        for r in rows:
            yield AclState(r["id"], r["bk_memory"], r["grantee"], r["permission"],
                           r["granted_by"], r["created_at"], r["expires_at"],
                           _revoked(r), r["bk_state"], r["bk_last_seq"])

    def iter_delegation_states(self, ids: list[str] | None = None) -> Iterator[DelegationState]:
        """Every delegation row (``ids``: only those) with its items and its record."""
        where, params = _only("d.id", ids)
        rows = self.db.stream(
            "SELECT d.*, "
            "(SELECT json_agg(i.tag)::text FROM mnemo_delegation_items i "
            "WHERE i.delegation_id = d.id AND i.tag IS NOT NULL) AS bk_tags, "
            "(SELECT json_agg(m.uuid)::text FROM mnemo_delegation_items i "
            "LEFT JOIN memories m ON m.id = i.memory_id "
            "WHERE i.delegation_id = d.id AND i.memory_id IS NOT NULL) AS bk_items, "
            "(SELECT e.payload::jsonb ->> 'memory_ids' FROM events e "
            "WHERE e.subject_type = 'delegation' AND e.subject_id = d.id "
            "AND e.kind = 'delegation.create' ORDER BY e.seq LIMIT 1) AS bk_logged, "
            + _newest("delegation", "bk_state", "delegation_hash", "d.id") + ", "
            + _last_seq("delegation", "d.id") + f" FROM mnemo_delegations d{where} ORDER BY d.id",
            params,
        )
        for r in rows:
            logged = r["bk_logged"]
            yield DelegationState(
                r["id"], r["owner"], r["delegator"], r["delegate"], r["permission"],
                r["selector"], r["depth"], r["max_depth"], r["parent_id"], r["created_at"],
                r["expires_at"], _revoked(r), _json_list(r["bk_tags"]),
                _json_list(r["bk_items"]),
                None if logged is None else tuple(json.loads(logged)),
                r["bk_state"], r["bk_last_seq"],
            )

    def iter_vanished_grants(self) -> Iterator[Vanished]:
        """Logged ACLs and delegations whose row is gone."""
        for subject_type, key, table, label in (
            ("acl", "acl_hash", "mnemo_acls", "memory_id"),
            ("delegation", "delegation_hash", "mnemo_delegations", "owner"),
        ):
            for row in self.db.stream(_vanished_sql(subject_type, key, table, label)):
                removed = str(row[2]).endswith(".revoke") or row[3] == "null"
                yield Vanished(subject_type, str(row[0]), row[1], removed)
