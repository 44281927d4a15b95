"""SQLite side of the Mnemo (gRPC) services: every query they need lives here.

Visibility is decided in SQL (``_readable``, built on ``visibility.py``, the
one compiled form of the read scope that the MCP facts arm uses too) so every
recall strategy applies the same tenant, lifecycle and access rules: the Mnemo
reference filtered ``org_id`` in some strategies only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from brainkeep.core.mnemo.models import (
    AuditEvent,
    ChainRow,
    Checkpoint,
    Delegation,
    FactWrite,
    Grant,
    MemoryFilter,
)
from brainkeep.core.models import Memory
from brainkeep.store.sqlite import visibility
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.rows import memory_from_row

# The events TrajectoryAudit reads: memory lifecycle, scope changes, shares, recall batches.
AUDIT_KINDS = (
    "memory.insert", "memory.delete", "memory.decay", "memory.redact", "memory.expire",
    "memory.scope", "memory.recall", "acl.grant",
)


def _readable(filt: MemoryFilter) -> tuple[str, dict[str, Any]]:
    """WHERE fragment (alias ``m``) for memories ``filt``'s reader may recall."""
    params: dict[str, Any] = {"source": filt.source_id}
    bind = visibility.named(params)
    scope = filt.read_scope
    # Unary + keeps the planner off the (source_id, ...) indexes: with them it
    # scans every row of the source instead of looking up the ids it was given.
    clauses = [
        "+m.source_id = :source",
        visibility.readable(scope, filt.now, bind),
        visibility.live(filt.now, bind, as_of=scope.as_of),
    ]
    if filt.memory_type:
        clauses.append(f"m.memory_type = {bind(filt.memory_type)}")
    if filt.scope:
        clauses.append(f"m.scope = {bind(filt.scope)}")
    if filt.min_importance is not None:
        clauses.append(f"m.importance >= {bind(filt.min_importance)}")
    if filt.tags:
        names = ", ".join(bind(tag) for tag in filt.tags)
        clauses.append(
            f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = m.id AND t.tag IN ({names}))"
        )
    return " AND ".join(clauses), params


def _in(prefix: str, values: list[Any], params: dict[str, Any]) -> str:
    """Named placeholders for an IN list (added to ``params``)."""
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return ", ".join(names) or "NULL"


def _checkpoint(row: sqlite3.Row) -> Checkpoint:
    return Checkpoint(
        seq=row["seq"],
        id=row["id"],
        agent_id=row["agent_id"],
        thread_id=row["thread_id"],
        branch_name=row["branch_name"],
        parent_id=row["parent_id"],
        merge_parent_id=row["merge_parent_id"],
        kind=row["kind"],
        label=row["label"],
        state_snapshot=json.loads(row["state_snapshot"]),
        metadata=json.loads(row["metadata"]),
        memory_refs=tuple(json.loads(row["memory_refs"])),
        event_cursor=row["event_cursor"],
        created_at=row["created_at"],
    )


class MnemoMixin:
    """Mnemo persistence; expects ``self.db`` to be a ``SQLiteEngine``."""

    db: SQLiteEngine

    # -- recall ------------------------------------------------------------------

    def mnemo_exact(self, filt: MemoryFilter, needle: str, limit: int) -> list[Memory]:
        """Memories containing ``needle`` (case-insensitive), newest first."""
        where, params = _readable(filt)
        params.update({"needle": needle, "limit": limit})
        rows = self.db.all(
            f"SELECT m.* FROM memories m WHERE {where} "
            "AND instr(lower(m.text), lower(:needle)) > 0 "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT :limit",
            params,
        )
        return [memory_from_row(r) for r in rows]

    def mnemo_visible(self, filt: MemoryFilter, memory_ids: list[int]) -> list[Memory]:
        """The readable subset of ``memory_ids``."""
        if not memory_ids:
            return []
        where, params = _readable(filt)
        ids = _in("id", memory_ids, params)
        rows = self.db.all(f"SELECT m.* FROM memories m WHERE m.id IN ({ids}) AND {where}", params)
        return [memory_from_row(r) for r in rows]

    def mnemo_scan(self, filt: MemoryFilter, terms: list[str], limit: int) -> list[Memory]:
        """Readable memories containing any of ``terms`` (no FTS: used for ``as_of``)."""
        if not terms:
            return []
        where, params = _readable(filt)
        any_term = " OR ".join(
            f"instr(lower(m.text), :term{i}) > 0" for i in range(len(terms))
        )
        params.update({f"term{i}": term.lower() for i, term in enumerate(terms)})
        params["limit"] = limit
        rows = self.db.all(
            f"SELECT m.* FROM memories m WHERE {where} AND ({any_term}) "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT :limit",
            params,
        )
        return [memory_from_row(r) for r in rows]

    def mnemo_relations(self, memory_ids: list[int]) -> list[tuple[int, int]]:
        """``related_to`` edges touching ``memory_ids``, as (from id, to id) pairs."""
        if not memory_ids:
            return []
        params: dict[str, Any] = {}
        ids = _in("id", memory_ids, params)
        rows = self.db.all(
            "SELECT r.from_id AS a, t.id AS b FROM memory_relations r "
            "JOIN memories t ON t.uuid = r.to_uuid "
            f"WHERE r.from_id IN ({ids}) OR t.id IN ({ids})",
            params,
        )
        return [(int(r["a"]), int(r["b"])) for r in rows]

    def mnemo_add_access(self, counts: list[tuple[int, int]], now: str) -> None:
        """Add (memory id, accesses) to ``access_count`` (``updated_at`` stays: not an edit)."""
        self.db.executemany(
            "UPDATE memories SET access_count = access_count + ?, last_accessed_at = ? "
            "WHERE id = ?",
            [(n, now, mid) for mid, n in counts],
        )

    def mnemo_memories_by_uuid(self, uuids: list[str]) -> dict[str, Memory]:
        if not uuids:
            return {}
        params: dict[str, Any] = {}
        names = _in("u", uuids, params)
        rows = self.db.all(f"SELECT * FROM memories WHERE uuid IN ({names})", params)
        return {r["uuid"]: memory_from_row(r) for r in rows}

    # -- permissions -----------------------------------------------------------------

    def mnemo_grants(self, memory: Memory, agent_id: str, now: str) -> list[Grant]:
        """Unexpired ACL and delegation grants ``agent_id`` holds on ``memory``."""
        params = {"mid": memory.id, "reader": agent_id, "now": now}
        grants = [
            Grant(r["permission"], "acl", expires_at=r["expires_at"])
            for r in self.db.all(
                "SELECT permission, expires_at FROM mnemo_acls a "
                "WHERE a.memory_id = :mid AND a.grantee = :reader AND "
                + visibility.acl_live("a", ":now"),
                params,
            )
        ]
        rows = self.db.all(
            "SELECT d.* FROM mnemo_delegations d JOIN memories m ON m.id = :mid "
            "WHERE d.delegate = :reader AND " + visibility.delegation_covers("d", "m", ":now")
            + " ORDER BY d.depth, d.created_at",
            params,
        )
        for r in rows:
            grants.append(
                Grant(r["permission"], "delegation", delegation_id=r["id"], depth=r["depth"],
                      max_depth=r["max_depth"], expires_at=r["expires_at"])
            )
        return grants

    def mnemo_upsert_acl(
        self,
        *,
        acl_id: str,
        memory_id: int,
        grantee: str,
        permission: str,
        granted_by: str,
        now: str,
        expires_at: str | None,
    ) -> str:
        """Grant (or re-grant) ``grantee`` access; one ACL row per (memory, grantee)."""
        self.db.execute(
            "INSERT INTO mnemo_acls (id, memory_id, grantee, permission, granted_by, created_at, "
            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id, grantee) DO UPDATE "
            "SET permission = excluded.permission, granted_by = excluded.granted_by, "
            "created_at = excluded.created_at, expires_at = excluded.expires_at",
            (acl_id, memory_id, grantee, permission, granted_by, now, expires_at),
        )
        return str(
            self.db.scalar(
                "SELECT id FROM mnemo_acls WHERE memory_id = ? AND grantee = ?",
                (memory_id, grantee),
            )
        )

    def mnemo_set_scope(self, memory_id: int, scope: str, visibility: str, now: str) -> None:
        self.db.execute(
            "UPDATE memories SET scope = ?, visibility = ?, updated_at = ? WHERE id = ?",
            (scope, visibility, now, memory_id),
        )

    def mnemo_insert_delegation(
        self, delegation: Delegation, memory_ids: list[int], tags: list[str]
    ) -> None:
        d = delegation
        self.db.execute(
            "INSERT INTO mnemo_delegations (id, owner, delegator, delegate, permission, selector, "
            "depth, max_depth, parent_id, created_at, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (d.id, d.owner, d.delegator, d.delegate, d.permission, d.selector, d.depth,
             d.max_depth, d.parent_id, d.created_at, d.expires_at),
        )
        items = [(d.id, mid, None) for mid in memory_ids] + [(d.id, None, t) for t in tags]
        if items:
            self.db.executemany(
                "INSERT INTO mnemo_delegation_items (delegation_id, memory_id, tag) "
                "VALUES (?, ?, ?)",
                items,
            )

    # -- forgetting ------------------------------------------------------------------

    def mnemo_mark_deleted(self, memory_id: int, now: str, strategy: str) -> None:
        """Tombstone a memory (soft_delete | archive | consolidate); the row stays."""
        state = {"archive": "archived", "consolidate": "consolidated"}.get(strategy)
        self.db.execute(
            "UPDATE memories SET deleted_at = ?, delete_strategy = ?, updated_at = ?, "
            "consolidation_state = COALESCE(?, consolidation_state) WHERE id = ?",
            (now, strategy, now, state, memory_id),
        )
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))

    def mnemo_hard_delete(self, memory_id: int) -> None:
        """Remove the row; tags, relations, ACLs and topic membership cascade."""
        self.db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?",
                        (memory_id,))
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))
        self.db.execute("DELETE FROM mnemo_delegation_items WHERE memory_id = ?", (memory_id,))
        self.db.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def mnemo_redact(self, memory_id: int, now: str, placeholder: str) -> None:
        """Replace text and metadata; keep the hashes (the chain still links through it)."""
        self.db.execute(
            "UPDATE memories SET text = ?, normalized_text = '', metadata = '{}', "
            "redacted_at = ?, deleted_at = COALESCE(deleted_at, ?), "
            "delete_strategy = 'redact', updated_at = ? WHERE id = ?",
            (placeholder, now, now, now, memory_id),
        )
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))

    def mnemo_set_importance(self, memory_id: int, importance: float, now: str) -> None:
        self.db.execute(
            "UPDATE memories SET importance = ?, updated_at = ? WHERE id = ?",
            (importance, now, memory_id),
        )

    def mnemo_memories_with_tag(self, source_id: str, tag: str) -> list[Memory]:
        rows = self.db.all(
            "SELECT m.* FROM memories m JOIN memory_tags t ON t.memory_id = m.id "
            "WHERE m.source_id = ? AND t.tag = ? ORDER BY m.id",
            (source_id, tag),
        )
        return [memory_from_row(r) for r in rows]

    # -- topics ------------------------------------------------------------------------

    def mnemo_mark_topic(self, memory_id: int, version: int) -> None:
        self.db.execute(
            "UPDATE memories SET consolidation_state = 'topic', version = ? WHERE id = ?",
            (version, memory_id),
        )

    def mnemo_add_topic_members(self, topic_memory_id: int, member_uuids: list[str]) -> None:
        self.db.executemany(
            "INSERT INTO mnemo_topic_members (topic_memory_id, member_uuid, ord) VALUES (?, ?, ?)",
            [(topic_memory_id, uuid, i) for i, uuid in enumerate(member_uuids)],
        )

    def mnemo_topic_members(self, topic_memory_id: int) -> list[str]:
        rows = self.db.all(
            "SELECT member_uuid FROM mnemo_topic_members WHERE topic_memory_id = ? ORDER BY ord",
            (topic_memory_id,),
        )
        return [r[0] for r in rows]

    # -- checkpoints ---------------------------------------------------------------------

    def mnemo_insert_checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        c = checkpoint
        cursor = self.db.execute(
            "INSERT INTO mnemo_checkpoints (id, agent_id, thread_id, branch_name, parent_id, "
            "merge_parent_id, kind, label, state_snapshot, metadata, memory_refs, event_cursor, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (c.id, c.agent_id, c.thread_id, c.branch_name, c.parent_id, c.merge_parent_id,
             c.kind, c.label, json.dumps(c.state_snapshot, ensure_ascii=False),
             json.dumps(c.metadata, ensure_ascii=False), json.dumps(list(c.memory_refs)),
             c.event_cursor, c.created_at),
        )
        stored = self.mnemo_get_checkpoint(c.id)
        assert stored is not None and stored.seq == cursor.lastrowid
        return stored

    def mnemo_get_checkpoint(self, checkpoint_id: str) -> Checkpoint | None:
        row = self.db.one("SELECT * FROM mnemo_checkpoints WHERE id = ?", (checkpoint_id,))
        return None if row is None else _checkpoint(row)

    def mnemo_branch_head(
        self, agent_id: str, thread_id: str, branch_name: str
    ) -> Checkpoint | None:
        row = self.db.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name),
        )
        return None if row is None else _checkpoint(row)

    def mnemo_branch_checkpoints(
        self, agent_id: str, thread_id: str, branch_name: str, *, after_seq: int = 0
    ) -> list[Checkpoint]:
        rows = self.db.all(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? AND seq > ? ORDER BY seq",
            (agent_id, thread_id, branch_name, after_seq),
        )
        return [_checkpoint(r) for r in rows]

    def mnemo_latest_checkpoint_before(
        self, agent_id: str, thread_id: str, branch_name: str, ts: str
    ) -> Checkpoint | None:
        row = self.db.one(
            "SELECT * FROM mnemo_checkpoints WHERE agent_id = ? AND thread_id = ? "
            "AND branch_name = ? AND created_at <= ? ORDER BY seq DESC LIMIT 1",
            (agent_id, thread_id, branch_name, ts),
        )
        return None if row is None else _checkpoint(row)

    def mnemo_thread_memories(
        self, source_id: str, agent_id: str, thread_id: str, *, at: str, as_of: bool
    ) -> list[Memory]:
        """The agent's memories in a thread, live at ``at`` (``as_of``: deleted since too)."""
        if as_of:
            alive = (
                "created_at <= :at AND (deleted_at IS NULL OR deleted_at > :at) "
                "AND (expired_at IS NULL OR expired_at > :at)"
            )
        else:
            alive = "deleted_at IS NULL AND expired_at IS NULL"
        rows = self.db.all(
            "SELECT * FROM memories WHERE source_id = :source AND agent_id = :agent "
            f"AND thread_id = :thread AND {alive} AND (valid_until IS NULL OR valid_until > :at) "
            "ORDER BY id",
            {"source": source_id, "agent": agent_id, "thread": thread_id, "at": at},
        )
        return [memory_from_row(r) for r in rows]

    def mnemo_max_event_seq(self) -> int:
        return int(self.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM events"))

    def mnemo_count_memory_events(
        self, uuids: list[str], *, max_seq: int | None, max_ts: str | None
    ) -> int:
        if not uuids:
            return 0
        params: dict[str, Any] = {"seq": max_seq, "ts": max_ts}
        names = _in("u", uuids, params)
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM events WHERE subject_type = 'memory' "
                f"AND subject_id IN ({names}) AND (:seq IS NULL OR seq <= :seq) "
                "AND (:ts IS NULL OR ts <= :ts)",
                params,
            )
        )

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
        kinds = _in("k", list(AUDIT_KINDS), params)
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
