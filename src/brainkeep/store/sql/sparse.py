"""The learned-sparse rows, for both engines: writes, backfill work and counts.

The ``sparse_vectors`` table (migration 0017) is the same on both engines
except for its vector column, which each engine's ``SparseIndex`` reaches
through hooks: ``_vector_param`` (the value bound into the column:
SQLite's packed term/impact blob, PostgreSQL's ``sparsevec`` text),
``_replacing`` and ``_written`` (SQLite drops a replaced row's postings and
adds the new ones). Search is the engine's own
(store/sqlite/sparse_index.py, store/postgres/sparse_index.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.sql.dialect import SQL
from brainkeep.store.sql.vectors import backfill_batch

_INSERT = (
    "INSERT INTO sparse_vectors (kind, item_id, source_id, page_id, private, model, "
    "text_hash, {column}) SELECT ?, ?, ?, ?, ?, ?, ?, {value} WHERE "
)
# The item is still there when its vector arrives (a slow backfill must not
# resurrect a deleted chunk or memory): the same rule as embeddings.
_LIVE = {
    CHUNK: "EXISTS (SELECT 1 FROM chunks c JOIN pages p ON p.id = c.page_id "
           "WHERE c.id = ? AND p.deleted_at IS NULL)",
    MEMORY: "EXISTS (SELECT 1 FROM memories WHERE id = ? AND expired_at IS NULL "
            "AND deleted_at IS NULL)",
}
_MISSING = ("NOT EXISTS (SELECT 1 FROM sparse_vectors s WHERE s.kind = ? "
            "AND s.item_id = x.id AND s.model = ?)")


class SparseRows:
    """The engine-neutral half of a ``SparseIndex``; the engine adds search and the hooks."""

    # The column's name and the SQL that turns the bound parameter into its value.
    column = "vector"
    value_sql = "?"

    def __init__(self, sql: SQL, db: Any, source_id: str, model: str) -> None:
        self.sql = sql
        self.db = db  # the engine: ``writing()``
        self.source_id = source_id
        self.model = model

    def _vector_param(self, vector: SparseTerms) -> Any:
        raise NotImplementedError

    def _written(self, rows: Sequence[NewSparse]) -> None:
        """Called after ``rows`` are stored (inside the same transaction)."""

    def _replacing(self, rows: Sequence[NewSparse]) -> None:
        """Called before the stored vectors of ``rows``' items are deleted (same transaction)."""

    def put(self, rows: Sequence[NewSparse]) -> int:
        if not rows:
            return 0
        insert = _INSERT.format(column=self.column, value=self.value_sql)
        written: list[NewSparse] = []
        with self.db.writing():
            self._replacing(rows)
            for row in rows:
                self.sql.execute("DELETE FROM sparse_vectors WHERE kind = ? AND item_id = ?",
                                 (row.kind, row.item_id))
                cursor = self.sql.execute(
                    insert + _LIVE[row.kind],
                    (row.kind, row.item_id, row.source_id, row.page_id, int(row.private),
                     row.model, row.text_hash, self._vector_param(row.vector), row.item_id),
                )
                if (cursor.rowcount or 0) > 0:
                    written.append(row)
            self._written(written)
        return len(written)

    def missing(self, kind: str, *, after_item: int, limit: int) -> list[EmbedTask]:
        return backfill_batch(self.sql, kind, _MISSING, (kind, self.model), self.source_id,
                              after_item=after_item, limit=limit)

    def count_missing(self) -> dict[str, int]:
        row = self.sql.one(
            "SELECT (SELECT COUNT(*) FROM chunks x JOIN pages p ON p.id = x.page_id "
            f"WHERE p.source_id = ? AND p.deleted_at IS NULL AND {_MISSING}), "
            "(SELECT COUNT(*) FROM memories x WHERE x.source_id = ? AND x.expired_at IS NULL "
            f"AND x.deleted_at IS NULL AND {_MISSING})",
            (self.source_id, CHUNK, self.model, self.source_id, MEMORY, self.model),
        )
        assert row is not None
        return {CHUNK: int(row[0]), MEMORY: int(row[1])}

    def count(self) -> dict[str, int]:
        rows = self.sql.all(
            "SELECT kind, COUNT(*) FROM sparse_vectors WHERE source_id = ? AND model = ? "
            "GROUP BY kind", (self.source_id, self.model))
        found = {str(r[0]): int(r[1]) for r in rows}
        return {CHUNK: found.get(CHUNK, 0), MEMORY: found.get(MEMORY, 0)}
