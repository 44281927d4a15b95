"""PostgreSQL side of the Mnemo (gRPC) services: a translation of ``store/sqlite/mnemo.py``.

The same methods, the same ordering. Visibility comes from ``visibility.py``
(``store/sql/scope.py`` in PostgreSQL dialect), never a copy. What differs
from SQLite is mechanics only: ``%(name)s`` placeholders, ``= ANY(array)``
instead of IN lists, no FTS rows to delete
(``memories.tsv`` is generated and goes NULL on delete and redact), and
hard-delete cascades declared by the migrations' foreign keys (tags,
relations, ACLs, topic membership: ``ON DELETE CASCADE``, as on SQLite).
"""

from __future__ import annotations

from typing import Any

from brainkeep.core.mnemo.models import Acl, Delegation, Grant, MemoryFilter
from brainkeep.core.models import Memory
from brainkeep.store.postgres import visibility
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.grep import grep_memories
from brainkeep.store.rows import memory_from_row


def memory_filter_sql(filt: MemoryFilter) -> tuple[str, dict[str, Any]]:
    """WHERE fragment (alias ``m``) for memories ``filt``'s reader may recall.

    The PostgreSQL twin of ``store/sqlite/mnemo.memory_filter_sql``, also for
    the keyword arm of the gRPC recall (the SearchIndex). SQLite's unary ``+``
    planner hint has no PostgreSQL equivalent on text (nor need: the planner
    picks the id lookups by cost).
    """
    params: dict[str, Any] = {"source": filt.source_id}
    bind = visibility.named(params)
    scope = filt.read_scope
    clauses = [
        "m.source_id = %(source)s",
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
        clauses.append(
            "EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = m.id "
            f"AND t.tag = ANY({bind(list(filt.tags))}))"
        )
    return " AND ".join(clauses), params


class MnemoMixin:
    """Mnemo persistence; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

    # -- recall ------------------------------------------------------------------

    def mnemo_exact(self, filt: MemoryFilter, needle: str, limit: int) -> list[Memory]:
        """Memories containing ``needle`` (case-insensitive), newest first."""
        where, params = memory_filter_sql(filt)
        rows = grep_memories(self.db, where, params, [needle], limit,
                             source_id=filt.source_id)
        return [memory_from_row(r) for r in rows]

    def mnemo_visible(self, filt: MemoryFilter, memory_ids: list[int]) -> list[Memory]:
        """The readable subset of ``memory_ids``."""
        if not memory_ids:
            return []
        where, params = memory_filter_sql(filt)
        params["ids"] = list(memory_ids)
        rows = self.db.all(
            f"SELECT m.* FROM memories m WHERE m.id = ANY(%(ids)s) AND {where}", params)
        return [memory_from_row(r) for r in rows]

    def mnemo_scan(self, filt: MemoryFilter, terms: list[str], limit: int) -> list[Memory]:
        """Readable memories containing any of ``terms`` (the trigram index: used for ``as_of``)."""
        if not terms:
            return []
        where, params = memory_filter_sql(filt)
        rows = grep_memories(self.db, where, params, [term.lower() for term in terms], limit,
                             source_id=filt.source_id, lower_needles=False)
        return [memory_from_row(r) for r in rows]

    def mnemo_relations(self, memory_ids: list[int]) -> list[tuple[int, int]]:
        """``related_to`` edges touching ``memory_ids``, as (from id, to id) pairs."""
        if not memory_ids:
            return []
        rows = self.db.all(
            "SELECT r.from_id AS a, t.id AS b FROM memory_relations r "
            "JOIN memories t ON t.uuid = r.to_uuid "
            "WHERE r.from_id = ANY(%(ids)s) OR t.id = ANY(%(ids)s)",
            {"ids": list(memory_ids)},
        )
        return [(int(r["a"]), int(r["b"])) for r in rows]

    def mnemo_add_access(self, counts: list[tuple[int, int]], now: str) -> None:
        """Add (memory id, accesses) to ``access_count`` (``updated_at`` stays: not an edit)."""
        self.db.executemany(
            "UPDATE memories SET access_count = access_count + %s, last_accessed_at = %s "
            "WHERE id = %s",
            [(n, now, mid) for mid, n in counts],
        )

    def mnemo_memories_by_uuid(self, uuids: list[str]) -> dict[str, Memory]:
        if not uuids:
            return {}
        rows = self.db.all("SELECT * FROM memories WHERE uuid = ANY(%s)", (list(uuids),))
        return {r["uuid"]: memory_from_row(r) for r in rows}

    # -- permissions -----------------------------------------------------------------

    def mnemo_grants(self, memory: Memory, agent_id: str, now: str) -> list[Grant]:
        """Unexpired ACL and delegation grants ``agent_id`` holds on ``memory``."""
        params = {"mid": memory.id, "reader": agent_id, "now": now}
        grants = [
            Grant(r["permission"], "acl", expires_at=r["expires_at"])
            for r in self.db.all(
                "SELECT permission, expires_at FROM mnemo_acls a "
                "WHERE a.memory_id = %(mid)s AND a.grantee = %(reader)s AND "
                + visibility.acl_live("a", "%(now)s"),
                params,
            )
        ]
        rows = self.db.all(
            "SELECT d.* FROM mnemo_delegations d JOIN memories m ON m.id = %(mid)s "
            "WHERE d.delegate = %(reader)s AND "
            + visibility.delegation_covers("d", "m", "%(now)s")
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
        return str(self.db.scalar(
            "INSERT INTO mnemo_acls (id, memory_id, grantee, permission, granted_by, created_at, "
            "expires_at) VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (memory_id, grantee) DO UPDATE "
            "SET permission = excluded.permission, granted_by = excluded.granted_by, "
            "created_at = excluded.created_at, expires_at = excluded.expires_at RETURNING id",
            (acl_id, memory_id, grantee, permission, granted_by, now, expires_at),
        ))

    def mnemo_set_scope(self, memory_id: int, scope: str, visibility: str, now: str, *,
                        by_grant: bool = False) -> None:
        """Change a memory's scope; ``by_grant``: Share did it (shared while an ACL lives)."""
        self.db.execute(
            "UPDATE memories SET scope = %s, visibility = %s, updated_at = %s, "
            "shared_by_grant = %s WHERE id = %s",
            (scope, visibility, now, int(by_grant), memory_id),
        )

    def mnemo_any_live_acl(self, memory_id: int, now: str) -> bool:
        """Whether any ACL on the memory is unexpired and unrevoked at ``now``."""
        return bool(self.db.scalar(
            "SELECT EXISTS (SELECT 1 FROM mnemo_acls a WHERE a.memory_id = %s AND "
            + visibility.acl_live("a", "%s") + ")",
            (memory_id, now),
        ))

    def mnemo_list_acls(self, *, acl_id: str | None = None, memory_uuid: str | None = None,
                        grantee: str | None = None) -> list[Acl]:
        """ACL rows (every status), newest first, optionally narrowed."""
        clauses, params = ["TRUE"], list[Any]()
        for column, value in (("a.id", acl_id), ("m.uuid", memory_uuid),
                              ("a.grantee", grantee)):
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        rows = self.db.all(
            "SELECT a.*, m.uuid AS memory_uuid, m.agent_id AS owner FROM mnemo_acls a "
            f"JOIN memories m ON m.id = a.memory_id WHERE {' AND '.join(clauses)} "
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

    def mnemo_list_delegations(self, *, delegation_id: str | None = None,
                               owner: str | None = None,
                               delegate: str | None = None) -> list[Delegation]:
        """Delegation rows (every status), newest first, optionally narrowed."""
        clauses, params = ["TRUE"], list[Any]()
        for column, value in (("d.id", delegation_id), ("d.owner", owner),
                              ("d.delegate", delegate)):
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        # array_agg arrives as a Python list (NULL when the delegation has no tags).
        rows = self.db.all(
            "SELECT d.*, (SELECT array_agg(i.tag) FROM mnemo_delegation_items i "
            "WHERE i.delegation_id = d.id AND i.tag IS NOT NULL) AS tag_list "
            f"FROM mnemo_delegations d WHERE {' AND '.join(clauses)} "
            "ORDER BY d.created_at DESC, d.id DESC",
            params,
        )
        return [
            Delegation(id=r["id"], owner=r["owner"], delegator=r["delegator"],
                       delegate=r["delegate"], permission=r["permission"],
                       selector=r["selector"], depth=r["depth"], max_depth=r["max_depth"],
                       parent_id=r["parent_id"], created_at=r["created_at"],
                       expires_at=r["expires_at"],
                       tags=tuple(sorted(r["tag_list"] or ())))
            for r in rows
        ]

    def mnemo_delete_acl(self, acl_id: str) -> bool:
        """Remove an ACL row (revocation); False when there was none."""
        return self.db.execute("DELETE FROM mnemo_acls WHERE id = %s", (acl_id,)).rowcount == 1

    def mnemo_delegation_tree(self, delegation_id: str) -> list[str]:
        """The delegation's id and every re-delegation below it, parents before children."""
        rows = self.db.all(
            "WITH RECURSIVE tree(id, level) AS (SELECT id, 0 FROM mnemo_delegations "
            "WHERE id = %s UNION ALL SELECT d.id, tree.level + 1 FROM mnemo_delegations d "
            "JOIN tree ON d.parent_id = tree.id) SELECT id FROM tree ORDER BY level, id",
            (delegation_id,),
        )
        return [str(r["id"]) for r in rows]

    def mnemo_delete_delegations(self, delegation_ids: list[str]) -> None:
        """Remove delegation rows and their items (children first, for ``parent_id``)."""
        self.db.executemany("DELETE FROM mnemo_delegations WHERE id = %s",
                            [(did,) for did in reversed(delegation_ids)])

    def mnemo_insert_delegation(
        self, delegation: Delegation, memory_ids: list[int], tags: list[str]
    ) -> None:
        d = delegation
        self.db.execute(
            "INSERT INTO mnemo_delegations (id, owner, delegator, delegate, permission, selector, "
            "depth, max_depth, parent_id, created_at, expires_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (d.id, d.owner, d.delegator, d.delegate, d.permission, d.selector, d.depth,
             d.max_depth, d.parent_id, d.created_at, d.expires_at),
        )
        items = [(d.id, mid, None) for mid in memory_ids] + [(d.id, None, t) for t in tags]
        if items:
            self.db.executemany(
                "INSERT INTO mnemo_delegation_items (delegation_id, memory_id, tag) "
                "VALUES (%s, %s, %s)",
                items,
            )

    # -- forgetting ------------------------------------------------------------------

    def mnemo_mark_deleted(self, memory_id: int, now: str, strategy: str) -> None:
        """Tombstone a memory (soft_delete | archive | consolidate); the row stays.

        Its ``tsv`` goes NULL (generated) and the retire trigger drops its vector.
        """
        state = {"archive": "archived", "consolidate": "consolidated"}.get(strategy)
        self.db.execute(
            "UPDATE memories SET deleted_at = %s, delete_strategy = %s, updated_at = %s, "
            "consolidation_state = COALESCE(%s, consolidation_state) WHERE id = %s",
            (now, strategy, now, state, memory_id),
        )

    def mnemo_hard_delete(self, memory_id: int) -> None:
        """Remove the row; tags, relations, ACLs and topic membership cascade (foreign keys)."""
        self.db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = %s",
                        (memory_id,))
        # Delegation items name memories without a foreign key (a tag item has none).
        self.db.execute("DELETE FROM mnemo_delegation_items WHERE memory_id = %s", (memory_id,))
        self.db.execute("DELETE FROM memories WHERE id = %s", (memory_id,))

    def mnemo_redact(self, memory_id: int, now: str, placeholder: str) -> None:
        """Replace text and metadata; keep the hashes (the chain still links through it)."""
        self.db.execute(
            "UPDATE memories SET text = %s, normalized_text = '', metadata = '{}', "
            "redacted_at = %s, deleted_at = COALESCE(deleted_at, %s), "
            "delete_strategy = 'redact', updated_at = %s WHERE id = %s",
            (placeholder, now, now, now, memory_id),
        )

    def mnemo_set_importance(self, memory_id: int, importance: float, now: str) -> None:
        self.db.execute(
            "UPDATE memories SET importance = %s, updated_at = %s WHERE id = %s",
            (importance, now, memory_id),
        )

    def mnemo_memories_with_tag(self, source_id: str, tag: str) -> list[Memory]:
        rows = self.db.all(
            "SELECT m.* FROM memories m JOIN memory_tags t ON t.memory_id = m.id "
            "WHERE m.source_id = %s AND t.tag = %s ORDER BY m.id",
            (source_id, tag),
        )
        return [memory_from_row(r) for r in rows]

    # -- topics ------------------------------------------------------------------------

    def mnemo_mark_topic(self, memory_id: int, version: int) -> None:
        self.db.execute(
            "UPDATE memories SET consolidation_state = 'topic', version = %s WHERE id = %s",
            (version, memory_id),
        )

    def mnemo_add_topic_members(self, topic_memory_id: int, member_uuids: list[str]) -> None:
        self.db.executemany(
            "INSERT INTO mnemo_topic_members (topic_memory_id, member_uuid, ord) "
            "VALUES (%s, %s, %s)",
            [(topic_memory_id, uuid, i) for i, uuid in enumerate(member_uuids)],
        )

    def mnemo_topic_members(self, topic_memory_id: int) -> list[str]:
        rows = self.db.all(
            "SELECT member_uuid FROM mnemo_topic_members WHERE topic_memory_id = %s "
            "ORDER BY ord",
            (topic_memory_id,),
        )
        return [r[0] for r in rows]
