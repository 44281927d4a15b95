"""Erasure: what still holds a memory's text, and topic documents that copied it.

For both engines. ``memory_copies`` counts every place a memory's text (or
something derived from it) can still be read from: the row's own text, the
keyword index (an engine hook: an FTS5 row on SQLite, a non-NULL ``tsv`` on
PostgreSQL), the substring index (kept in step with the text column by
triggers on SQLite and by the trigram index on PostgreSQL, so it holds the
text exactly while the row does), stored vectors and learned-sparse vectors. A forget that purges
counts them before and after (the difference goes on its receipt), and
``brainkeep verify --receipt`` counts them again later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from brainkeep.core.models import Memory
from brainkeep.core.ports.erasure import MemoryCopies
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.rows import memory_from_row


class ErasureMixin:
    """``ErasureRepository`` over ``self.sql``; the engine adds ``_keyword_copies``."""

    sql: SQL
    # Declared, not defined: the engine's erasure mixin and VectorsMixin provide them.
    _keyword_copies: Callable[[Sequence[int]], int]
    if TYPE_CHECKING:
        @property
        def vectors_available(self) -> bool: ...

    def memory_copies(self, memory_ids: Sequence[int]) -> MemoryCopies:
        """What still holds the text of ``memory_ids`` (rows gone count nothing)."""
        ids = sorted({int(i) for i in memory_ids})
        if not ids:
            return MemoryCopies()
        params: list[Any] = []
        listed = self.sql.dialect.in_list("id", ids, params)
        text = int(self.sql.scalar(
            f"SELECT COUNT(*) FROM memories WHERE {listed} AND redacted_at IS NULL", params))
        vectors: tuple[int, ...] = ()
        if self.vectors_available:
            params = []
            listed = self.sql.dialect.in_list("item_id", ids, params)
            rows = self.sql.all(
                f"SELECT id FROM embeddings WHERE kind = 'memory' AND {listed} ORDER BY id",
                params)
            vectors = tuple(int(r[0]) for r in rows)
        params = []
        listed = self.sql.dialect.in_list("item_id", ids, params)
        sparse = int(self.sql.scalar(
            f"SELECT COUNT(*) FROM sparse_vectors WHERE kind = 'memory' AND {listed}", params))
        return MemoryCopies(text=text, keyword_index=self._keyword_copies(ids),
                            grep_index=text, vectors=vectors, sparse=sparse)

    def topics_containing(self, source_id: str, member_uuids: Sequence[str]) -> list[Memory]:
        """Topic documents (Consolidate) whose members include any of ``member_uuids``."""
        if not member_uuids:
            return []
        params: list[Any] = [source_id]
        listed = self.sql.dialect.in_list("t.member_uuid", list(member_uuids), params)
        rows = self.sql.all(
            "SELECT DISTINCT m.* FROM memories m "
            "JOIN mnemo_topic_members t ON t.topic_memory_id = m.id "
            f"WHERE m.source_id = ? AND {listed} ORDER BY m.id", params)
        return [memory_from_row(r) for r in rows]
