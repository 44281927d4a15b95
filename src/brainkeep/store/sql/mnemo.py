"""The Mnemo (gRPC) services' queries, for both engines.

Visibility is decided in SQL (``filters.memory_filter_sql``, built on
``scope.py``, the one compiled form of the read scope that the MCP facts arm
uses too), so every recall strategy applies the same tenant, lifecycle and
access rules. Substring recall and keyword-index upkeep are the engine's,
through the hooks of ``memories.MemoryTextUpkeep``. A hard delete's tags,
relations, ACLs and topic membership go by the migrations' ``ON DELETE
CASCADE`` foreign keys on both engines. The sharing side (grants, ACLs,
delegations) is ``mnemo_sharing.py``.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.memory.models import Acl, Delegation, Grant, MemoryFilter
from brainkeep.core.models import Memory
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.filters import memory_filter_sql
from brainkeep.store.sql.memories import MemoryTextUpkeep
from brainkeep.store.sql.rows import memory_from_row
from brainkeep.store.sql.scope import acl_live, delegation_covers


def _narrowed(*equal: tuple[str, str | None]) -> tuple[str, list[Any]]:
    """WHERE clauses (``?`` marks): each column equals its value, where one is given."""
    clauses, params = ["1 = 1"], list[Any]()
    for column, value in equal:
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    return " AND ".join(clauses), params


class MnemoMixin(MemoryTextUpkeep):
    """Mnemo persistence over ``self.sql``."""

    sql: SQL

    # -- recall ------------------------------------------------------------------

    def memories_containing(self, filt: MemoryFilter, needle: str, limit: int) -> list[Memory]:
        """Memories containing ``needle`` (case-insensitive), newest first."""
        where, params = memory_filter_sql(filt, self.sql.dialect)
        rows = self._grep_memories(where, params, [needle], limit, source_id=filt.source_id)
        return [memory_from_row(r) for r in rows]

    def visible_memories(self, filt: MemoryFilter, memory_ids: list[int]) -> list[Memory]:
        """The readable subset of ``memory_ids``."""
        if not memory_ids:
            return []
        where, params = memory_filter_sql(filt, self.sql.dialect)
        among = self.sql.dialect.in_named("m.id", memory_ids, params, "id")
        rows = self.sql.all(f"SELECT m.* FROM memories m WHERE {among} AND {where}", params)
        return [memory_from_row(r) for r in rows]

    def memories_matching_terms(
        self, filt: MemoryFilter, terms: list[str], limit: int
    ) -> list[Memory]:
        """Readable memories containing any of ``terms`` (the trigram index: used for ``as_of``)."""
        if not terms:
            return []
        where, params = memory_filter_sql(filt, self.sql.dialect)
        rows = self._grep_memories(where, params, [term.lower() for term in terms], limit,
                                   source_id=filt.source_id, lower_needles=False)
        return [memory_from_row(r) for r in rows]

    def memory_relations(self, memory_ids: list[int]) -> list[tuple[int, int]]:
        """``related_to`` edges touching ``memory_ids``, as (from id, to id) pairs."""
        if not memory_ids:
            return []
        params: dict[str, Any] = {}
        # Both lists bind the same names (``:id…`` / ``:id``): one set of values.
        sources = self.sql.dialect.in_named("r.from_id", memory_ids, params, "id")
        targets = self.sql.dialect.in_named("t.id", memory_ids, params, "id")
        rows = self.sql.all(
            "SELECT r.from_id AS a, t.id AS b FROM memory_relations r "
            f"JOIN memories t ON t.uuid = r.to_uuid WHERE {sources} OR {targets}",
            params,
        )
        return [(int(r["a"]), int(r["b"])) for r in rows]

    def add_memory_access(self, counts: list[tuple[int, int]], now: str) -> None:
        """Add (memory id, accesses) to ``access_count`` (``updated_at`` stays: not an edit)."""
        self.sql.executemany(
            "UPDATE memories SET access_count = access_count + ?, last_accessed_at = ? "
            "WHERE id = ?",
            [(n, now, mid) for mid, n in counts],
        )

    def memories_by_uuid(self, uuids: list[str]) -> dict[str, Memory]:
        if not uuids:
            return {}
        params: dict[str, Any] = {}
        among = self.sql.dialect.in_named("uuid", uuids, params, "u")
        rows = self.sql.all(f"SELECT * FROM memories WHERE {among}", params)
        return {r["uuid"]: memory_from_row(r) for r in rows}

    # -- permissions -----------------------------------------------------------------

    def grants_for(self, memory: Memory, agent_id: str, now: str) -> list[Grant]:
        """Unexpired ACL and delegation grants ``agent_id`` holds on ``memory``."""
        params = {"mid": memory.id, "reader": agent_id, "now": now}
        grants = [
            Grant(r["permission"], "acl", expires_at=r["expires_at"])
            for r in self.sql.all(
                "SELECT permission, expires_at FROM mnemo_acls a "
                "WHERE a.memory_id = :mid AND a.grantee = :reader AND " + acl_live("a", ":now"),
                params,
            )
        ]
        rows = self.sql.all(
            "SELECT d.* FROM mnemo_delegations d JOIN memories m ON m.id = :mid "
            "WHERE d.delegate = :reader AND " + delegation_covers("d", "m", ":now")
            + " ORDER BY d.depth, d.created_at",
            params,
        )
        for r in rows:
            grants.append(
                Grant(r["permission"], "delegation", delegation_id=r["id"], depth=r["depth"],
                      max_depth=r["max_depth"], expires_at=r["expires_at"])
            )
        return grants

    def upsert_acl(
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
        return str(self.sql.scalar(
            "INSERT INTO mnemo_acls (id, memory_id, grantee, permission, granted_by, created_at, "
            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id, grantee) DO UPDATE "
            "SET permission = excluded.permission, granted_by = excluded.granted_by, "
            "created_at = excluded.created_at, expires_at = excluded.expires_at RETURNING id",
            (acl_id, memory_id, grantee, permission, granted_by, now, expires_at),
        ))

    def set_memory_scope(self, memory_id: int, scope: str, visibility: str, now: str, *,
                        by_grant: bool = False) -> None:
        """Change a memory's scope; ``by_grant``: Share did it (shared while an ACL lives)."""
        self.sql.execute(
            "UPDATE memories SET scope = ?, visibility = ?, updated_at = ?, shared_by_grant = ? "
            "WHERE id = ?",
            (scope, visibility, now, int(by_grant), memory_id),
        )

    def has_live_acl(self, memory_id: int, now: str) -> bool:
        """Whether any ACL on the memory is unexpired and unrevoked at ``now``."""
        return bool(self.sql.scalar(
            "SELECT EXISTS (SELECT 1 FROM mnemo_acls a WHERE a.memory_id = ? AND "
            + acl_live("a", "?") + ")",
            (memory_id, now),
        ))

    def list_acls(self, *, acl_id: str | None = None, memory_uuid: str | None = None,
                        grantee: str | None = None) -> list[Acl]:
        """ACL rows (every status), newest first, optionally narrowed."""
        where, params = _narrowed(("a.id", acl_id), ("m.uuid", memory_uuid),
                                  ("a.grantee", grantee))
        rows = self.sql.all(
            "SELECT a.*, m.uuid AS memory_uuid, m.agent_id AS owner FROM mnemo_acls a "
            f"JOIN memories m ON m.id = a.memory_id WHERE {where} "
            "ORDER BY a.created_at DESC, a.id DESC",
            params,
        )
        return [
            Acl(id=r["id"], memory_id=r["memory_id"], memory_uuid=r["memory_uuid"],
                owner=r["owner"], grantee=r["grantee"], permission=r["permission"],
                granted_by=r["granted_by"], created_at=r["created_at"],
                expires_at=r["expires_at"])
            for r in rows
        ]

    def list_delegations(self, *, delegation_id: str | None = None,
                               owner: str | None = None,
                               delegate: str | None = None) -> list[Delegation]:
        """Delegation rows (every status), newest first, optionally narrowed."""
        where, params = _narrowed(("d.id", delegation_id), ("d.owner", owner),
                                  ("d.delegate", delegate))
        # The tags as JSON text on both (PostgreSQL's json_agg is NULL for none).
        tags = self.sql.dialect.pick(sqlite="json_group_array(i.tag)",
                                     postgres="json_agg(i.tag)::text")
        rows = self.sql.all(
            f"SELECT d.*, (SELECT {tags} FROM mnemo_delegation_items i "
            "WHERE i.delegation_id = d.id AND i.tag IS NOT NULL) AS tag_list "
            f"FROM mnemo_delegations d WHERE {where} "
            "ORDER BY d.created_at DESC, d.id DESC",
            params,
        )
        return [
            Delegation(id=r["id"], owner=r["owner"], delegator=r["delegator"],
                       delegate=r["delegate"], permission=r["permission"],
                       selector=r["selector"], depth=r["depth"], max_depth=r["max_depth"],
                       parent_id=r["parent_id"], created_at=r["created_at"],
                       expires_at=r["expires_at"],
                       tags=tuple(sorted(json.loads(r["tag_list"] or "[]"))))
            for r in rows
        ]

    def delete_acl(self, acl_id: str) -> bool:
        """Remove an ACL row (revocation); False when there was none."""
        return self.sql.execute("DELETE FROM mnemo_acls WHERE id = ?", (acl_id,)).rowcount == 1

    def delegation_tree(self, delegation_id: str) -> list[str]:
        """The delegation's id and every re-delegation below it, parents before children."""
        rows = self.sql.all(
            "WITH RECURSIVE tree(id, level) AS (SELECT id, 0 FROM mnemo_delegations "
            "WHERE id = ? UNION ALL SELECT d.id, tree.level + 1 FROM mnemo_delegations d "
            "JOIN tree ON d.parent_id = tree.id) SELECT id FROM tree ORDER BY level, id",
            (delegation_id,),
        )
        return [str(r["id"]) for r in rows]

    def delete_delegations(self, delegation_ids: list[str]) -> None:
        """Remove delegation rows and their items (children first, for ``parent_id``)."""
        self.sql.executemany("DELETE FROM mnemo_delegations WHERE id = ?",
                             [(did,) for did in reversed(delegation_ids)])

    def insert_delegation(
        self, delegation: Delegation, memory_ids: list[int], tags: list[str]
    ) -> None:
        d = delegation
        self.sql.execute(
            "INSERT INTO mnemo_delegations (id, owner, delegator, delegate, permission, selector, "
            "depth, max_depth, parent_id, created_at, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (d.id, d.owner, d.delegator, d.delegate, d.permission, d.selector, d.depth,
             d.max_depth, d.parent_id, d.created_at, d.expires_at),
        )
        items = [(d.id, mid, None) for mid in memory_ids] + [(d.id, None, t) for t in tags]
        if items:
            self.sql.executemany(
                "INSERT INTO mnemo_delegation_items (delegation_id, memory_id, tag) "
                "VALUES (?, ?, ?)",
                items,
            )

    # -- forgetting ------------------------------------------------------------------

    def mark_memory_deleted(self, memory_id: int, now: str, strategy: str) -> None:
        """Tombstone a memory (soft_delete | archive | consolidate); the row stays.

        Its text leaves the keyword index; a trigger retires its vector (migration 0005).
        """
        state = {"archive": "archived", "consolidate": "consolidated"}.get(strategy)
        self.sql.execute(
            "UPDATE memories SET deleted_at = ?, delete_strategy = ?, updated_at = ?, "
            "consolidation_state = COALESCE(?, consolidation_state) WHERE id = ?",
            (now, strategy, now, state, memory_id),
        )
        self._fts_memory_removed(memory_id)

    def hard_delete_memory(self, memory_id: int) -> None:
        """Remove the row; tags, relations, ACLs and topic membership cascade (foreign keys)."""
        self.sql.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?",
                         (memory_id,))
        self._fts_memory_removed(memory_id)
        # Delegation items name memories without a foreign key (a tag item has none).
        self.sql.execute("DELETE FROM mnemo_delegation_items WHERE memory_id = ?", (memory_id,))
        self.sql.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def redact_memory(self, memory_id: int, now: str, placeholder: str) -> None:
        """Replace text and metadata; keep the hashes (the chain still links through it)."""
        self.sql.execute(
            "UPDATE memories SET text = ?, normalized_text = '', metadata = '{}', "
            "redacted_at = ?, deleted_at = COALESCE(deleted_at, ?), "
            "delete_strategy = 'redact', updated_at = ? WHERE id = ?",
            (placeholder, now, now, now, memory_id),
        )
        self._fts_memory_removed(memory_id)
        # The orientation cache's entries quote the text (migration 0016).
        self.sql.execute("DELETE FROM orientation_entries WHERE memory_id = ?", (memory_id,))

    def set_memory_importance(self, memory_id: int, importance: float, now: str) -> None:
        self.sql.execute(
            "UPDATE memories SET importance = ?, updated_at = ? WHERE id = ?",
            (importance, now, memory_id),
        )

    def memories_with_tag(self, source_id: str, tag: str) -> list[Memory]:
        rows = self.sql.all(
            "SELECT m.* FROM memories m JOIN memory_tags t ON t.memory_id = m.id "
            "WHERE m.source_id = ? AND t.tag = ? ORDER BY m.id",
            (source_id, tag),
        )
        return [memory_from_row(r) for r in rows]

    # -- topics ------------------------------------------------------------------------

    def mark_topic_document(self, memory_id: int, version: int) -> None:
        self.sql.execute(
            "UPDATE memories SET consolidation_state = 'topic', version = ? WHERE id = ?",
            (version, memory_id),
        )

    def add_topic_members(self, topic_memory_id: int, member_uuids: list[str]) -> None:
        self.sql.executemany(
            "INSERT INTO mnemo_topic_members (topic_memory_id, member_uuid, ord) VALUES (?, ?, ?)",
            [(topic_memory_id, uuid, i) for i, uuid in enumerate(member_uuids)],
        )

    def topic_members(self, topic_memory_id: int) -> list[str]:
        rows = self.sql.all(
            "SELECT member_uuid FROM mnemo_topic_members WHERE topic_memory_id = ? ORDER BY ord",
            (topic_memory_id,),
        )
        return [r[0] for r in rows]
