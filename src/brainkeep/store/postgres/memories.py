"""Memories (MCP facts and gRPC memories in one table), PostgreSQL side.

A translation of ``store/sqlite/memories.py``: the same methods, the same
read-scope fragments (``visibility``, PostgreSQL dialect), ``%s``
placeholders. The keyword index needs no upkeep here: ``memories.tsv`` is a
generated column that goes NULL when a memory expires, is deleted or redacted.
"""

from __future__ import annotations

import json
from typing import Any

from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres import visibility
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.grep import grep_memories
from brainkeep.store.rows import memory_from_row

ACTIVE = ("expired_at IS NULL AND deleted_at IS NULL "
          "AND (valid_until IS NULL OR valid_until > %s)")
_INSERT_COLUMNS = (
    "uuid", "source_id", "text", "normalized_text", "kind", "entity_slug", "visibility",
    "provenance", "session_id", "confidence", "valid_from", "valid_until", "created_at",
    "updated_at", "origin", "agent_id", "org_id", "thread_id", "memory_type", "scope",
    "importance", "tags", "metadata", "source_type", "source_ref", "created_by", "decay_rate",
    "content_hash", "prev_hash",
)


class MemoriesMixin:
    """Memory persistence; expects ``self.db`` to be a ``PostgresEngine``."""

    db: PostgresEngine

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
        the same chain) under the brain's write lock (engine.py), so two
        writers on any hosts can never link to the same predecessor.
        """
        with self.db.writing():
            # Two spellings so both use the memories_chain index (IS NOT
            # DISTINCT FROM cannot).
            thread = "thread_id IS NULL" if draft.thread_id is None else "thread_id = %s"
            prev_hash = self.db.scalar(
                f"SELECT content_hash FROM memories WHERE agent_id = %s AND {thread} "
                "ORDER BY id DESC LIMIT 1",
                (draft.agent_id,) if draft.thread_id is None else (draft.agent_id,
                                                                   draft.thread_id),
            )
            row = self.db.one(
                f"INSERT INTO memories ({', '.join(_INSERT_COLUMNS)}) "
                f"VALUES ({', '.join(['%s'] * len(_INSERT_COLUMNS))}) RETURNING *",
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
                ),
            )
            assert row is not None  # INSERT ... RETURNING always returns its row
            memory = memory_from_row(row)
            if draft.tags:
                self.db.executemany(
                    "INSERT INTO memory_tags (memory_id, tag) VALUES (%s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(memory.id, tag) for tag in draft.tags],
                )
            if draft.related_to:
                self.db.executemany(
                    "INSERT INTO memory_relations (from_id, to_uuid) VALUES (%s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(memory.id, target) for target in draft.related_to],
                )
        return memory

    def get_memory(self, memory_id: int) -> Memory | None:
        row = self.db.one("SELECT * FROM memories WHERE id = %s", (memory_id,))
        return None if row is None else memory_from_row(row)

    def get_memories(self, memory_ids: list[int]) -> dict[int, Memory]:
        """The rows of ``memory_ids`` that exist, unfiltered (callers already applied a scope)."""
        if not memory_ids:
            return {}
        rows = self.db.all("SELECT * FROM memories WHERE id = ANY(%s)", (list(memory_ids),))
        return {int(r["id"]): memory_from_row(r) for r in rows}

    def get_memory_by_uuid(self, uuid: str) -> Memory | None:
        row = self.db.one("SELECT * FROM memories WHERE uuid = %s", (uuid,))
        return None if row is None else memory_from_row(row)

    def find_active_duplicate(
        self, source_id: str, entity_slug: str | None, normalized_text: str, now: str,
        scope: ReadScope,
    ) -> Memory | None:
        """An active memory ``scope`` can read with the same entity and normalized text."""
        params: list[object] = [source_id, entity_slug, normalized_text]
        readable = visibility.readable(scope, now, visibility.positional(params), "memories")
        params.append(now)
        row = self.db.one(
            "SELECT * FROM memories WHERE source_id = %s "
            "AND entity_slug IS NOT DISTINCT FROM %s "
            f"AND normalized_text = %s AND {readable} AND {ACTIVE} ORDER BY id LIMIT 1",
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

        ``text_contains`` reads the trigram index (``store/postgres/grep.py``),
        never every row.
        """
        params: dict[str, Any] = {"source": source_id}
        bind = visibility.named(params)
        clauses = ["m.source_id = %(source)s"]
        if entity_slug is not None:
            clauses.append(f"m.entity_slug = {bind(entity_slug)}")
        if since is not None:
            clauses.append(f"m.created_at >= {bind(since)}")
        if session_id is not None:
            clauses.append(f"m.session_id = {bind(session_id)}")
        clauses.append(visibility.readable(scope, now, bind))
        clauses.append(visibility.live(now, bind, as_of=scope.as_of,
                                       include_expired=include_expired))
        if kinds:
            clauses.append(f"m.kind = ANY({bind(list(kinds))})")
        where = " AND ".join(clauses)
        if text_contains:
            rows = grep_memories(self.db, where, params, [text_contains], limit,
                                 source_id=source_id)
        else:
            params["limit"] = limit
            rows = self.db.all(
                f"SELECT m.* FROM memories m WHERE {where} "
                "ORDER BY m.created_at DESC, m.id DESC LIMIT %(limit)s",
                params,
            )
        return [memory_from_row(r) for r in rows]

    def count_active_memories(
        self, source_id: str, entity_slug: str, now: str, *, scope: ReadScope
    ) -> int:
        params: list[object] = [source_id, entity_slug, now]
        readable = visibility.readable(scope, now, visibility.positional(params), "memories")
        return int(
            self.db.scalar(
                f"SELECT COUNT(*) FROM memories WHERE source_id = %s AND entity_slug = %s "
                f"AND {ACTIVE} AND {readable}",
                params,
            )
        )

    def expire_memory(
        self, memory_id: int, now: str, reason: str | None, *, superseded_by: int | None = None
    ) -> None:
        """Mark a memory expired; the row (and its history) stays, its ``tsv`` goes NULL."""
        self.db.execute(
            "UPDATE memories SET expired_at = %s, expired_reason = %s, superseded_by = %s, "
            "updated_at = %s WHERE id = %s",
            (now, reason, superseded_by, now, memory_id),
        )

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
        readable = visibility.readable(scope, now, visibility.positional(params), "memories")
        params += [after_ts, after_ts, after_id, limit]
        rows = self.db.all(
            f"SELECT * FROM memories WHERE source_id = %s AND {ACTIVE} AND {readable} "
            "AND (created_at > %s OR (created_at = %s AND id > %s)) "
            "ORDER BY created_at, id LIMIT %s",
            params,
        )
        return [memory_from_row(r) for r in rows]
