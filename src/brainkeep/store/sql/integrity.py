"""The scans the verifier streams: each row beside the hashes its events recorded.

Written once for both engines over ``self.sql`` (store/sql/dialect.py).
Every scan is one query read through a cursor (a server-side one on
PostgreSQL: never a list of the whole table), with the newest recorded hash
looked up per row through the ``events_subject (subject_type, subject_id,
seq)`` index, so a verify stays linear and its memory flat on a 200K-page
brain. The one scan whose SQL really differs (``iter_chain_states_near``:
how a list of anchors becomes rows, and how a chain neighbour keeps its
index) is each engine's, built from the fragments here.

A parameter compared only with ``IS NULL`` is written ``CAST(:p AS TEXT)``:
PostgreSQL must be told its type, SQLite ignores it.
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
from brainkeep.store.sql.dialect import SQL, Dialect
from brainkeep.store.sql.rows import RowLike, memory_from_row


def newest(d: Dialect, subject_type: str, alias: str, key: str, subject: str) -> str:
    """Correlated subquery: the newest ``payload.<key>`` recorded for one subject."""
    return (
        f"(SELECT {d.json_text('e.payload', key)} FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.subject_id = {subject} "
        f"AND {d.json_type('e.payload', key)} IS NOT NULL ORDER BY e.seq DESC LIMIT 1) "
        f"AS {alias}"
    )


def last_seq(subject_type: str, subject: str) -> str:
    return (f"(SELECT MAX(e.seq) FROM events e WHERE e.subject_type = '{subject_type}' "
            f"AND e.subject_id = {subject}) AS bk_last_seq")


def memory_record(d: Dialect) -> str:
    """The columns a ``MemoryState`` adds to ``memories m``: its record and its tag rows."""
    return (newest(d, "memory", "bk_content", "content_hash", "m.uuid") + ", "
            + newest(d, "memory", "bk_state", "state_hash", "m.uuid") + ", "
            + last_seq("memory", "m.uuid") + ", "
            f"(SELECT {d.json_array_agg('t.tag')} FROM memory_tags t "
            "WHERE t.memory_id = m.id) AS bk_tags")


def memory_state(row: RowLike) -> MemoryState:
    return MemoryState(memory_from_row(row), row["bk_content"], row["bk_state"],
                       row["bk_last_seq"], json_list(row["bk_tags"]))


def json_list(text: str | None) -> tuple[Any, ...]:
    return tuple(json.loads(text or "[]"))


def _vanished_sql(d: Dialect, subject_type: str, key: str, table: str, label: str) -> str:
    """Subjects of ``subject_type`` with no row in ``table``, judged by their newest event."""
    return (
        f"SELECT e.subject_id, {d.json_text('e.payload', label)}, e.kind, "
        f"{d.json_type('e.payload', key)} FROM events e "
        f"WHERE e.subject_type = '{subject_type}' AND e.seq = (SELECT MAX(x.seq) FROM events x "
        f"WHERE x.subject_type = '{subject_type}' AND x.subject_id = e.subject_id) "
        f"AND NOT EXISTS (SELECT 1 FROM {table} r WHERE r.id = e.subject_id) ORDER BY e.seq"
    )


def _only(d: Dialect, column: str, ids: list[str] | list[int] | None, cast: str = "TEXT"
          ) -> tuple[str, dict[str, Any]]:
    """`` WHERE column`` is one of ``ids`` (one parameter: no variable limit), or nothing."""
    if ids is None:
        return "", {}
    if d.array_params:
        return f" WHERE {column} = ANY(CAST(:bk_ids AS {cast}[]))", {"bk_ids": ids}
    return f" WHERE {column} IN (SELECT value FROM json_each(:bk_ids))", {"bk_ids": json.dumps(ids)}


def _revoked(row: RowLike) -> str | None:
    """``revoked_at`` of a grant row (None where revocation deletes the row instead)."""
    return row["revoked_at"] if "revoked_at" in row.keys() else None


class IntegrityMixin:
    """Verifier scans over ``self.sql``."""

    sql: SQL

    def state_marker_seq(self) -> int | None:
        """The first event recording an access state hash (None: none yet, an old brain)."""
        d = self.sql.dialect
        # In seq order with LIMIT 1: stops at the first hit (at once on a new
        # brain). NOT INDEXED: with planner statistics SQLite may sort a whole
        # index scan instead (2.3 s on the 200K corpus instead of microseconds).
        hint = d.pick(sqlite=" NOT INDEXED", postgres="")
        value = self.sql.scalar(
            f"SELECT seq FROM events{hint} WHERE "
            + " OR ".join(f"{d.json_type('payload', key)} IS NOT NULL"
                          for key in ("state_hash", "acl_hash", "delegation_hash"))
            + " ORDER BY seq LIMIT 1"
        )
        return None if value is None else int(value)

    def iter_memory_states(
        self, agent_id: str | None, thread_id: str | None, *, created_before: str | None = None,
        uuids: list[str] | None = None,
    ) -> Iterator[MemoryState]:
        """Every stored memory in scope (``uuids``: only those) in chain order, with its record."""
        where, params = _only(self.sql.dialect, "m.uuid", uuids)
        where = where.replace(" WHERE ", " AND ") if where else ""
        rows = self.sql.stream(
            f"SELECT m.*, {memory_record(self.sql.dialect)} FROM memories m "
            "WHERE (CAST(:agent AS TEXT) IS NULL OR m.agent_id = :agent) "
            "AND (CAST(:thread AS TEXT) IS NULL OR m.thread_id = :thread) "
            f"AND (CAST(:before AS TEXT) IS NULL OR m.created_at <= :before){where} "
            "ORDER BY m.agent_id, m.thread_id NULLS FIRST, m.id",
            {"agent": agent_id, "thread": thread_id, "before": created_before, **params},
        )
        return map(memory_state, rows)

    def iter_vanished_memories(
        self, agent_id: str | None, thread_id: str | None
    ) -> Iterator[str]:
        """Uuids of logged inserts in scope (by owner) whose row is gone without a hard delete."""
        d = self.sql.dialect
        # `owner` is the row's agent; `agent_id` is who acted (older MCP
        # inserts carry only `agent_id`, and then it was the owner).
        rows = self.sql.stream(
            "SELECT e.subject_id FROM events e WHERE e.kind = 'memory.insert' "
            "AND e.subject_type = 'memory' AND (CAST(:agent AS TEXT) IS NULL OR COALESCE("
            f"{d.json_text('e.payload', 'owner')}, {d.json_text('e.payload', 'agent_id')}) "
            "= :agent) AND (CAST(:thread AS TEXT) IS NULL OR "
            f"{d.json_text('e.payload', 'thread_id')} = :thread) "
            "AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.uuid = e.subject_id) "
            "AND NOT EXISTS (SELECT 1 FROM events x WHERE x.subject_type = 'memory' "
            "AND x.subject_id = e.subject_id AND x.kind = 'memory.delete' "
            f"AND {d.json_text('x.payload', 'strategy')} = 'hard_delete') ORDER BY e.seq",
            {"agent": agent_id, "thread": thread_id},
        )
        for row in rows:
            yield str(row[0])

    def iter_page_states(self, ids: list[str] | None = None) -> Iterator[PageState]:
        """Every page row (deleted ones too; ``ids``: only those) with its record."""
        d = self.sql.dialect
        # A cast is text of the default collation: compared with the "C" columns as "C".
        subject = d.pick(sqlite="CAST(p.id AS TEXT)", postgres='CAST(p.id AS TEXT) COLLATE "C"')
        where, params = _only(d, "p.id", None if ids is None else [
            int(i) for i in ids if i.isdigit()], "BIGINT")
        rows = self.sql.stream(
            "SELECT p.id, p.source_id, p.slug, p.content, p.content_hash, p.visibility, "
            "p.deleted_at, " + newest(d, "page", "bk_content", "content_hash", subject) + ", "
            + newest(d, "page", "bk_state", "state_hash", subject) + ", "
            + last_seq("page", subject) + f" FROM pages p{where} ORDER BY p.id", params
        )
        for r in rows:
            yield PageState(str(r["id"]), r["source_id"], r["slug"], r["content"],
                            r["content_hash"], r["visibility"], r["deleted_at"],
                            r["bk_content"], r["bk_state"], r["bk_last_seq"])

    def iter_vanished_pages(self) -> Iterator[Vanished]:
        """Logged pages whose row is gone (pages are never hard-deleted)."""
        d = self.sql.dialect
        # Cast the event side, so the page's primary key index stays usable;
        # SQLite's CAST of a non-number is 0, PostgreSQL's raises (digits only).
        page_id = d.pick(sqlite="CAST(e.subject_id AS INTEGER)",
                         postgres="CASE WHEN e.subject_id ~ '^[0-9]{1,18}$' "
                                  "THEN CAST(e.subject_id AS BIGINT) END")
        rows = self.sql.stream(
            f"SELECT e.subject_id, {d.json_text('e.payload', 'slug')} FROM events e "
            "WHERE e.subject_type = 'page' AND e.seq = (SELECT MAX(x.seq) FROM events x "
            "WHERE x.subject_type = 'page' AND x.subject_id = e.subject_id) "
            f"AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = {page_id}) ORDER BY e.seq"
        )
        for row in rows:
            yield Vanished("page", str(row[0]), row[1], False)

    def iter_acl_states(self, ids: list[str] | None = None) -> Iterator[AclState]:
        """Every ACL row (``ids``: only those) with the memory uuid it names and its record."""
        d = self.sql.dialect
        where, params = _only(d, "a.id", ids)
        rows = self.sql.stream(
            "SELECT a.*, m.uuid AS bk_memory, "
            + newest(d, "acl", "bk_state", "acl_hash", "a.id") + ", " + last_seq("acl", "a.id")
            + f" FROM mnemo_acls a LEFT JOIN memories m ON m.id = a.memory_id{where} ORDER BY a.id",
            params,
        )
        for r in rows:
            yield AclState(r["id"], r["bk_memory"], r["grantee"], r["permission"],
                           r["granted_by"], r["created_at"], r["expires_at"],
                           _revoked(r), r["bk_state"], r["bk_last_seq"])

    def iter_delegation_states(self, ids: list[str] | None = None) -> Iterator[DelegationState]:
        """Every delegation row (``ids``: only those) with its items and its record."""
        d = self.sql.dialect
        where, params = _only(d, "d.id", ids)
        rows = self.sql.stream(
            f"SELECT d.*, (SELECT {d.json_array_agg('i.tag')} FROM mnemo_delegation_items i "
            "WHERE i.delegation_id = d.id AND i.tag IS NOT NULL) AS bk_tags, "
            f"(SELECT {d.json_array_agg('m.uuid')} FROM mnemo_delegation_items i "
            "LEFT JOIN memories m ON m.id = i.memory_id "
            "WHERE i.delegation_id = d.id AND i.memory_id IS NOT NULL) AS bk_items, "
            f"(SELECT {d.json_text('e.payload', 'memory_ids')} FROM events e "
            "WHERE e.subject_type = 'delegation' AND e.subject_id = d.id "
            "AND e.kind = 'delegation.create' ORDER BY e.seq LIMIT 1) AS bk_logged, "
            + newest(d, "delegation", "bk_state", "delegation_hash", "d.id") + ", "
            + last_seq("delegation", "d.id") + f" FROM mnemo_delegations d{where} ORDER BY d.id",
            params,
        )
        for r in rows:
            logged = r["bk_logged"]
            yield DelegationState(
                r["id"], r["owner"], r["delegator"], r["delegate"], r["permission"],
                r["selector"], r["depth"], r["max_depth"], r["parent_id"], r["created_at"],
                r["expires_at"], _revoked(r), json_list(r["bk_tags"]), json_list(r["bk_items"]),
                None if logged is None else tuple(json.loads(logged)),
                r["bk_state"], r["bk_last_seq"],
            )

    def iter_vanished_grants(self) -> Iterator[Vanished]:
        """Logged ACLs and delegations whose row is gone."""
        for subject_type, key, table, label in (
            ("acl", "acl_hash", "mnemo_acls", "memory_id"),
            ("delegation", "delegation_hash", "mnemo_delegations", "owner"),
        ):
            sql = _vanished_sql(self.sql.dialect, subject_type, key, table, label)
            for row in self.sql.stream(sql):
                removed = str(row[2]).endswith(".revoke") or row[3] == "null"
                yield Vanished(subject_type, str(row[0]), row[1], removed)
