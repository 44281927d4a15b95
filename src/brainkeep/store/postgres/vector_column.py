"""PostgreSQL's ``embeddings.vector``: pgvector, an HNSW index per dimension.

The ``VectorColumn`` hooks of ``store/sql/vectors.py``. The column is
pgvector's ``vector`` (migration 0005); the API still speaks float32
little-endian blobs, converted here. The migration's triggers drop a vector
whose chunk, page or memory goes, and the HNSW indexes live in the database,
so there is no tombstone table and no in-process matrix.

Without pgvector (``db.vector_available`` False: migration 0005 was skipped
and the ``embeddings`` table does not exist) ``vectors_available`` is False,
and the shared repository answers "nothing stored" and writes nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.nearest import HNSW_MAX_DIM


def to_vector(blob: bytes) -> np.ndarray:
    """A stored float32 blob as the array pgvector's adapter sends."""
    return np.frombuffer(blob, dtype="<f4")


def to_blob(vector: Any) -> bytes:
    """A pgvector value (``pgvector.Vector``) as the float32 blob the API speaks."""
    return np.asarray(vector.to_numpy(), dtype="<f4").tobytes()


class VectorColumnMixin:
    """``VectorColumn`` for PostgreSQL; expects ``self.db``."""

    db: PostgresEngine

    @property
    def vectors_available(self) -> bool:
        """Whether this brain can store and search vectors (pgvector is installed)."""
        return self.db.vector_available

    def _vector_param(self, blob: bytes) -> np.ndarray:
        return to_vector(blob)

    def _vector_blob(self, value: Any) -> bytes:
        return to_blob(value)

    def _vectors_arriving(self, dims: list[int]) -> None:
        # The first vectors of a new dimension create its HNSW index
        # (``brainkeep_ensure_hnsw``), in the writer's transaction. Remembered
        # per store instance: the call is idempotent but takes a table lock. A
        # rolled-back first write loses the index until this process
        # restarts; searches stay correct meanwhile (an exact scan).
        done: set[int] = self.__dict__.setdefault("_hnsw_dims", set())
        for dim in dims:
            if dim in done or not 1 <= dim <= HNSW_MAX_DIM:
                continue
            self.db.execute("SELECT brainkeep_ensure_hnsw(%s)", (dim,))
            done.add(dim)

    def prune_embedding_tombstones(self, keep: int) -> int:
        """Nothing to prune: PostgreSQL keeps no tombstones (always returns 0).

        SQLite needs them so each process can catch its in-memory matrix up
        with deletions; here the vectors are searched in the database, whose
        index is always current.
        """
        return 0
