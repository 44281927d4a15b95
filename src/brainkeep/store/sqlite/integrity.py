"""The scans the verifier streams: each row beside the hashes its events recorded.

Every scan is one query read through a cursor (never a list of the whole
table), with the newest recorded hash looked up per row through the
``events_subject (subject_type, subject_id, seq)`` index, so a verify stays
linear and its memory flat on a 200K-page brain.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

from brainkeep.core.integrity_rows import (
    AclState,
    DelegationState,
    MemoryState,
    PageState,
    Vanished,
)
from brainkeep.store.sql.rows import memory_from_row
from brainkeep.store.sqlite.engine import SQLiteEngine


def _newest(subject_type: str, alias: str, key: str, subject: str) -> str:
    """Correlated subquery: the newest ``payload.<key>`` recorded for one subject."""
    return (
        f"(SELECT json_extract(e.payload, '$.{key}') FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.subject_id = {subject} "
        f"AND json_type(e.payload, '$.{key}') IS NOT NULL ORDER BY e.seq DESC LIMIT 1) "
        f"AS {alias}"
    )


def _last_seq(subject_type: str, subject: str) -> str:
    return (f"(SELECT MAX(e.seq) FROM events e WHERE e.subject_type = '{subject_type}' "
            f"AND e.subject_id = {subject}) AS bk_last_seq")


def _vanished_sql(subject_type: str, key: str, table: str, label: str) -> str:
    """Subjects of ``subject_type`` with no row in ``table``, judged by their newest event."""
    return (
        f"SELECT e.subject_id, json_extract(e.payload, '$.{label}'), e.kind, "
        f"json_type(e.payload, '$.{key}') FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.seq = (SELECT MAX(x.seq) FROM events x "
        f"WHERE x.subject_type = '{subject_type}' AND x.subject_id = e.subject_id) "
        f"AND NOT EXISTS (SELECT 1 FROM {table} r WHERE r.id = e.subject_id)"
    )


def _only(column: str, ids: list[str] | list[int] | None) -> tuple[str, dict[str, str]]:
    """`` WHERE column IN ids`` (one JSON parameter: no variable limit), or nothing."""
    if ids is None:
        return "", {}
    return f" WHERE {column} IN (SELECT value FROM json_each(:bk_ids))", {"bk_ids": json.dumps(ids)}


def _revoked(row: sqlite3.Row) -> str | None:
    """``revoked_at`` of a grant row (None where revocation deletes the row instead)."""
    return row["revoked_at"] if "revoked_at" in row.keys() else None


class IntegrityMixin:
    """Verifier scans; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    def state_marker_seq(self) -> int | None:
        """The first event recording an access state hash (None: none yet, an old brain)."""
        # In seq order with LIMIT 1: stops at the first hit (at once on a new brain).
        # NOT INDEXED: with planner statistics SQLite may sort a whole index
        # scan instead (2.3 s on the 200K corpus instead of a few microseconds).
        value = self.db.scalar(
            "SELECT seq FROM events NOT INDEXED "
            "WHERE json_type(payload, '$.state_hash') IS NOT NULL "
            "OR json_type(payload, '$.acl_hash') IS NOT NULL "
            "OR json_type(payload, '$.delegation_hash') IS NOT NULL ORDER BY seq LIMIT 1"
        )
        return None if value is None else int(value)

    def iter_memory_states(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        uuids: list[str] | None = None,
    ) -> Iterator[MemoryState]:
        """Every stored memory in scope (``uuids``: only those) in chain order, with its record."""
        cursor = self.db.execute(
            "SELECT m.*, " + _newest("memory", "bk_content", "content_hash", "m.uuid") + ", "
            + _newest("memory", "bk_state", "state_hash", "m.uuid") + ", "
            + _last_seq("memory", "m.uuid") + ", "
            "(SELECT json_group_array(t.tag) FROM memory_tags t WHERE t.memory_id = m.id) "
            "AS bk_tags FROM memories m WHERE (:agent IS NULL OR m.agent_id = :agent) "
            "AND (:thread IS NULL OR m.thread_id = :thread) "
            "AND (:before IS NULL OR m.created_at <= :before) "
            "AND (:uuids IS NULL OR m.uuid IN (SELECT value FROM json_each(:uuids))) "
            "ORDER BY m.agent_id, m.thread_id, m.id",
            {"agent": agent_id, "thread": thread_id, "before": created_before,
             "uuids": None if uuids is None else json.dumps(uuids)},
        )
        for row in cursor:
            yield MemoryState(memory_from_row(row), row["bk_content"], row["bk_state"],
                              row["bk_last_seq"], tuple(json.loads(row["bk_tags"] or "[]")))

    def iter_chain_states_near(
        self, anchors: list[tuple[str, str | None, int]]
    ) -> Iterator[tuple[MemoryState, str | None]]:
        """Rows at and just after each (agent, thread, row id), in chain order.

        Each comes with the ``content_hash`` of the row before it in its chain
        (None: it is the first), so an incremental verify checks a touched row
        and its successor's link without walking the chain.
        """
        near = json.dumps([[a, t, i] for a, t, i in anchors])
        cursor = self.db.execute(
            "WITH a AS (SELECT json_extract(value, '$[0]') AS agent, "
            "json_extract(value, '$[1]') AS thread, json_extract(value, '$[2]') AS id "
            "FROM json_each(:near)), ids AS (SELECT id FROM a UNION "
            "SELECT (SELECT MIN(n.id) FROM memories n WHERE n.agent_id = a.agent "
            "AND n.thread_id IS a.thread AND n.id > a.id) FROM a) "
            "SELECT m.*, " + _newest("memory", "bk_content", "content_hash", "m.uuid") + ", "
            + _newest("memory", "bk_state", "state_hash", "m.uuid") + ", "
            + _last_seq("memory", "m.uuid") + ", "
            "(SELECT json_group_array(t.tag) FROM memory_tags t WHERE t.memory_id = m.id) "
            "AS bk_tags, (SELECT p.content_hash FROM memories p WHERE p.agent_id = m.agent_id "
            "AND p.thread_id IS m.thread_id AND p.id < m.id ORDER BY p.id DESC LIMIT 1) "
            "AS bk_previous FROM memories m WHERE m.id IN (SELECT id FROM ids) "
            "ORDER BY m.agent_id, m.thread_id, m.id",
            {"near": near},
        )
        for row in cursor:
            yield (MemoryState(memory_from_row(row), row["bk_content"], row["bk_state"],
                               row["bk_last_seq"], tuple(json.loads(row["bk_tags"] or "[]"))),
                   row["bk_previous"])

    def iter_vanished_memories(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[str]:
        """Uuids of logged inserts in scope (by owner) whose row is gone without a hard delete."""
        # `owner` is the row's agent; `agent_id` is who acted (older MCP
        # inserts carry only `agent_id`, and then it was the owner).
        cursor = self.db.execute(
            "SELECT e.subject_id FROM events e WHERE e.kind = 'memory.insert' "
            "AND e.subject_type = 'memory' AND (:agent IS NULL OR COALESCE("
            "json_extract(e.payload, '$.owner'), json_extract(e.payload, '$.agent_id')) = :agent) "
            "AND (:thread IS NULL OR json_extract(e.payload, '$.thread_id') = :thread) "
            "AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.uuid = e.subject_id) "
            "AND NOT EXISTS (SELECT 1 FROM events d WHERE d.subject_type = 'memory' "
            "AND d.subject_id = e.subject_id AND d.kind = 'memory.delete' "
            "AND json_extract(d.payload, '$.strategy') = 'hard_delete') ORDER BY e.seq",
            {"agent": agent_id, "thread": thread_id},
        )
        for row in cursor:
            yield str(row[0])

    def iter_page_states(self, ids: list[str] | None = None) -> Iterator[PageState]:
        """Every page row (deleted ones too; ``ids``: only those) with its record."""
        subject = "CAST(p.id AS TEXT)"
        where, params = _only("p.id", None if ids is None else [int(i) for i in ids
                                                                  if i.isdigit()])
        cursor = self.db.execute(
            "SELECT p.id, p.source_id, p.slug, p.content, p.content_hash, p.visibility, "
            "p.deleted_at, " + _newest("page", "bk_content", "content_hash", subject) + ", "
            + _newest("page", "bk_state", "state_hash", subject) + ", "
            + _last_seq("page", subject) + f" FROM pages p{where} ORDER BY p.id", params
        )
        for r in cursor:
            yield PageState(str(r["id"]), r["source_id"], r["slug"], r["content"],
                            r["content_hash"], r["visibility"], r["deleted_at"],
                            r["bk_content"], r["bk_state"], r["bk_last_seq"])

    def iter_vanished_pages(self) -> Iterator[Vanished]:
        """Logged pages whose row is gone (pages are never hard-deleted)."""
        cursor = self.db.execute(
            "SELECT e.subject_id, json_extract(e.payload, '$.slug') FROM events e "
            "WHERE e.subject_type = 'page' AND e.seq = (SELECT MAX(x.seq) FROM events x "
            "WHERE x.subject_type = 'page' AND x.subject_id = e.subject_id) "
            # Cast the event side: the page's primary key index stays usable.
            "AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = CAST(e.subject_id AS INTEGER)) "
            "ORDER BY e.seq"
        )
        for row in cursor:
            yield Vanished("page", str(row[0]), row[1], False)

    def iter_acl_states(self, ids: list[str] | None = None) -> Iterator[AclState]:
        """Every ACL row (``ids``: only those) with the memory uuid it names and its record."""
        where, params = _only("a.id", ids)
        cursor = self.db.execute(
            "SELECT a.*, m.uuid AS bk_memory, "
            + _newest("acl", "bk_state", "acl_hash", "a.id") + ", "
            + _last_seq("acl", "a.id")
            + f" FROM mnemo_acls a LEFT JOIN memories m ON m.id = a.memory_id{where} ORDER BY a.id",
            params,
        )
        for r in cursor:
            yield AclState(r["id"], r["bk_memory"], r["grantee"], r["permission"],
                           r["granted_by"], r["created_at"], r["expires_at"],
                           _revoked(r), r["bk_state"], r["bk_last_seq"])

    def iter_delegation_states(self, ids: list[str] | None = None) -> Iterator[DelegationState]:
        """Every delegation row (``ids``: only those) with its items and its record."""
        where, params = _only("d.id", ids)
        cursor = self.db.execute(
            "SELECT d.*, "
            "(SELECT json_group_array(i.tag) FROM mnemo_delegation_items i "
            "WHERE i.delegation_id = d.id AND i.tag IS NOT NULL) AS bk_tags, "
            "(SELECT json_group_array(m.uuid) FROM mnemo_delegation_items i "
            "LEFT JOIN memories m ON m.id = i.memory_id "
            "WHERE i.delegation_id = d.id AND i.memory_id IS NOT NULL) AS bk_items, "
            "(SELECT json_extract(e.payload, '$.memory_ids') FROM events e "
            "WHERE e.subject_type = 'delegation' AND e.subject_id = d.id "
            "AND e.kind = 'delegation.create' ORDER BY e.seq LIMIT 1) AS bk_logged, "
            + _newest("delegation", "bk_state", "delegation_hash", "d.id") + ", "
            + _last_seq("delegation", "d.id") + f" FROM mnemo_delegations d{where} ORDER BY d.id",
            params,
        )
        for r in cursor:
            logged = r["bk_logged"]
            yield DelegationState(
                r["id"], r["owner"], r["delegator"], r["delegate"], r["permission"],
                r["selector"], r["depth"], r["max_depth"], r["parent_id"], r["created_at"],
                r["expires_at"], _revoked(r), tuple(json.loads(r["bk_tags"] or "[]")),
                tuple(json.loads(r["bk_items"] or "[]")),
                None if logged is None else tuple(json.loads(logged)),
                r["bk_state"], r["bk_last_seq"],
            )

    def iter_vanished_grants(self) -> Iterator[Vanished]:
        """Logged ACLs and delegations whose row is gone."""
        for subject_type, key, table, label in (
            ("acl", "acl_hash", "mnemo_acls", "memory_id"),
            ("delegation", "delegation_hash", "mnemo_delegations", "owner"),
        ):
            for row in self.db.execute(_vanished_sql(subject_type, key, table, label)):
                removed = str(row[2]).endswith(".revoke") or row[3] == "null"
                yield Vanished(subject_type, str(row[0]), row[1], removed)
