"""Memories (MCP facts and gRPC memories in one table), for both engines.

Text search over memories is the engine's, through the hooks of
``MemoryTextUpkeep``: SQLite keeps its FTS5 side table ``memories_fts`` by
hand and greps through its trigram table (``store/sqlite/memory_text.py``);
PostgreSQL's keyword index is the generated ``memories.tsv`` column (NULL
once a memory expires, is deleted or redacted), so its upkeep hooks do
nothing, and it greps through its trigram GIN index
(``store/postgres/memory_text.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.dialect import SQL, equals, named, positional
from brainkeep.store.sql.rows import memory_from_row
from brainkeep.store.sql.scope import live, readable

ACTIVE = "expired_at IS NULL AND deleted_at IS NULL AND (valid_until IS NULL OR valid_until > ?)"
_INSERT_COLUMNS = (
    "uuid", "source_id", "text", "normalized_text", "kind", "entity_slug", "visibility",
    "provenance", "session_id", "confidence", "valid_from", "valid_until", "created_at",
    "updated_at", "origin", "agent_id", "org_id", "thread_id", "memory_type", "scope",
    "importance", "tags", "metadata", "source_type", "source_ref", "created_by", "decay_rate",
    "content_hash", "prev_hash", "quarantined",
)
_INSERT = (f"INSERT INTO memories ({', '.join(_INSERT_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(_INSERT_COLUMNS))}) RETURNING *")


class GrepMemories(Protocol):
    def __call__(self, where: str, params: dict[str, Any], needles: Sequence[str], limit: int,
                 *, source_id: str, lower_needles: bool = True) -> list[Any]: ...


class MemoryTextUpkeep:
    """The hooks through which the memory repositories reach the engine's text search.

    Annotations only: the engine's mixin defines them (a definition here
    would shadow it, this class coming first in the store's bases).
    """

    # A memory row was inserted: index its text.
    _fts_memory_added: Callable[[int, str], None]
    # A memory expired, was deleted or redacted (its row may be about to go):
    # drop it from the keyword index.
    _fts_memory_removed: Callable[[int], None]
    # Rows of ``memories m`` passing ``where`` (portable ``:name`` marks, its
    # ``params`` left unmodified) whose text holds any needle, newest first
    # (``store/sql/substring.py`` states the rule).
    _grep_memories: GrepMemories


class MemoriesMixin(MemoryTextUpkeep):
    """Memory persistence over ``self.sql``."""

    sql: SQL
    db: Any  # the engine: ``writing()``

    def insert_memory(
        self,
        draft: MemoryDraft,
        *,
        uuid: str,
        now: str,
        normalized_text: str,
        content_hash: str,
    ) -> Memory:
        """Insert a memory linked to its (agent, thread) chain. Run inside ``transaction()``.

        The engine, not the caller, picks ``prev_hash`` (the newest hash of
        the same chain) under the brain's write lock (``writing()``: SQLite's
        IMMEDIATE transaction, PostgreSQL's advisory lock), so two writers
        can never link to the same predecessor.
        """
        with self.db.writing():
            # ``equals``, so both engines use the memories_chain index.
            key: list[object] = [draft.agent_id]
            chain = equals("thread_id", draft.thread_id, positional(key))
            prev_hash = self.sql.scalar(
                f"SELECT content_hash FROM memories WHERE agent_id = ? AND {chain} "
                "ORDER BY id DESC LIMIT 1",
                key,
            )
            row = self.sql.one(
                _INSERT,
                (
                    uuid,
                    draft.source_id,
                    draft.text,
                    normalized_text,
                    draft.kind,
                    draft.entity_slug,
                    draft.visibility,
                    draft.provenance,
                    draft.session_id,
                    draft.confidence,
                    draft.valid_from or now,
                    draft.valid_until,
                    now,
                    now,
                    draft.origin,
                    draft.agent_id,
                    draft.org_id,
                    draft.thread_id,
                    draft.memory_type,
                    draft.scope,
                    draft.importance,
                    json.dumps(list(draft.tags), ensure_ascii=False),
                    json.dumps(draft.metadata, ensure_ascii=False),
                    draft.source_type,
                    draft.source_ref,
                    draft.created_by,
                    draft.decay_rate,
                    content_hash,
                    prev_hash,
                    int(draft.quarantined),
                ),
            )
            assert row is not None  # INSERT ... RETURNING always returns its row
            memory = memory_from_row(row)
            if draft.tags:
                self.sql.executemany(
                    "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING",
                    [(memory.id, tag) for tag in draft.tags],
                )
            if draft.related_to:
                self.sql.executemany(
                    "INSERT INTO memory_relations (from_id, to_uuid) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING",
                    [(memory.id, target) for target in draft.related_to],
                )
            self._fts_memory_added(memory.id, draft.text)
        return memory

    def get_memory(self, memory_id: int) -> Memory | None:
        row = self.sql.one("SELECT * FROM memories WHERE id = ?", (memory_id,))
        return None if row is None else memory_from_row(row)

    def get_memories(self, memory_ids: list[int]) -> dict[int, Memory]:
        """The rows of ``memory_ids`` that exist, unfiltered (callers already applied a scope)."""
        if not memory_ids:
            return {}
        params: list[Any] = []
        among = self.sql.dialect.in_list("id", memory_ids, params)
        rows = self.sql.all(f"SELECT * FROM memories WHERE {among}", params)
        return {int(r["id"]): memory_from_row(r) for r in rows}

    def get_memory_by_uuid(self, uuid: str) -> Memory | None:
        row = self.sql.one("SELECT * FROM memories WHERE uuid = ?", (uuid,))
        return None if row is None else memory_from_row(row)

    def find_active_duplicate(
        self, source_id: str, entity_slug: str | None, normalized_text: str, now: str,
        scope: ReadScope,
    ) -> Memory | None:
        """An active memory ``scope`` can read with the same entity and normalized text."""
        params: list[object] = [source_id]
        bind = positional(params)
        # ``equals``, not a null-safe comparison: PostgreSQL walks the
        # memories_dedup index only with ``=`` (a scan of the source's rows,
        # 37 ms a remember at 400K memories, before).
        entity = equals("entity_slug", entity_slug, bind)
        params.append(normalized_text)
        seen = readable(scope, now, bind, "memories")
        params.append(now)
        row = self.sql.one(
            f"SELECT * FROM memories WHERE source_id = ? AND {entity} "
            f"AND normalized_text = ? AND {seen} AND {ACTIVE} ORDER BY id LIMIT 1",
            params,
        )
        return None if row is None else memory_from_row(row)

    def list_memories(
        self,
        source_id: str,
        *,
        now: str,
        entity_slug: str | None = None,
        since: str | None = None,
        session_id: str | None = None,
        scope: ReadScope,
        include_expired: bool = False,
        kinds: tuple[str, ...] | None = None,
        text_contains: str | None = None,
        limit: int = 50,
    ) -> list[Memory]:
        """Memories matching every given filter (they compose), newest first.

        ``text_contains`` reads the engine's trigram index (``_grep_memories``),
        never every row.
        """
        params: dict[str, Any] = {"source": source_id}
        bind = named(params)
        clauses = ["m.source_id = :source"]
        if entity_slug is not None:
            clauses.append(f"m.entity_slug = {bind(entity_slug)}")
        if since is not None:
            clauses.append(f"m.created_at >= {bind(since)}")
        if session_id is not None:
            clauses.append(f"m.session_id = {bind(session_id)}")
        clauses.append(readable(scope, now, bind))
        clauses.append(live(now, bind, as_of=scope.as_of, include_expired=include_expired))
        if kinds:
            clauses.append(self.sql.dialect.in_named("m.kind", kinds, params, "kind"))
        where = " AND ".join(clauses)
        if text_contains:
            rows = self._grep_memories(where, params, [text_contains], limit,
                                       source_id=source_id)
        else:
            params["limit"] = limit
            rows = self.sql.all(
                f"SELECT m.* FROM memories m WHERE {where} "
                "ORDER BY m.created_at DESC, m.id DESC LIMIT :limit",
                params,
            )
        return [memory_from_row(r) for r in rows]

    def count_active_memories(
        self, source_id: str, entity_slug: str, now: str, *, scope: ReadScope
    ) -> int:
        params: list[object] = [source_id, entity_slug, now]
        seen = readable(scope, now, positional(params), "memories")
        return int(
            self.sql.scalar(
                f"SELECT COUNT(*) FROM memories WHERE source_id = ? AND entity_slug = ? "
                f"AND {ACTIVE} AND {seen}",
                params,
            )
        )

    def expire_memory(
        self, memory_id: int, now: str, reason: str | None, *, superseded_by: int | None = None
    ) -> Memory | None:
        """Mark a memory expired and return it so (None: no such row).

        The row (and its history) stays; its text leaves the keyword index.
        """
        row = self.sql.one(
            "UPDATE memories SET expired_at = ?, expired_reason = ?, superseded_by = ?, "
            "updated_at = ? WHERE id = ? RETURNING *",
            (now, reason, superseded_by, now, memory_id),
        )
        self._fts_memory_removed(memory_id)
        return None if row is None else memory_from_row(row)

    def facts_created_after(
        self,
        source_id: str,
        after_ts: str,
        after_id: int,
        *,
        now: str,
        scope: ReadScope,
        limit: int,
    ) -> list[Memory]:
        """Active memories ``scope`` reads after the keyset ``(created_at, id)``, oldest first."""
        params: list[object] = [source_id, now]
        seen = readable(scope, now, positional(params), "memories")
        params += [after_ts, after_ts, after_id, limit]
        rows = self.sql.all(
            f"SELECT * FROM memories WHERE source_id = ? AND {ACTIVE} AND {seen} "
            "AND (created_at > ? OR (created_at = ? AND id > ?)) "
            "ORDER BY created_at, id LIMIT ?",
            params,
        )
        return [memory_from_row(r) for r in rows]
