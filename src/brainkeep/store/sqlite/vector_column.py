"""SQLite's ``embeddings.vector``: a float32 BLOB, and the tombstones of deleted vectors.

The ``VectorColumn`` hooks of ``store/sql/vectors.py``. The column holds the
API's float32 little-endian blob as it is, so both conversion hooks return
their argument, and no extension is needed: the vectors are searched in
process with numpy (``vector_index.py``, the mmapped HNSW base of
``ann_index.py``). Those in-process indexes learn of deleted vectors from
``embedding_tombstones`` (written by the triggers of migration 0005), which
this engine prunes.
"""

from __future__ import annotations

from brainkeep.store.sqlite.engine import SQLiteEngine


class VectorColumnMixin:
    """``VectorColumn`` for SQLite, plus tombstone pruning; expects ``self.db``."""

    db: SQLiteEngine

    @property
    def vectors_available(self) -> bool:
        """Always: vectors are BLOBs searched with numpy (no extension needed)."""
        return True

    def _vector_param(self, blob: bytes) -> bytes:
        return blob

    def _vector_blob(self, value: bytes) -> bytes:
        return value

    def _vectors_arriving(self, dims: list[int]) -> None:
        return None  # the in-process indexes follow the rows (watermarks)

    def prune_embedding_tombstones(self, keep: int) -> int:
        """Drop all but the newest ``keep`` tombstones (readers that fall behind reload)."""
        cursor = self.db.execute(
            "DELETE FROM embedding_tombstones WHERE seq <= "
            "(SELECT COALESCE(MAX(seq), 0) FROM embedding_tombstones) - ?",
            (keep,),
        )
        return int(cursor.rowcount or 0)
