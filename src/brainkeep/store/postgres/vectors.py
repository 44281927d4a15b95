"""Embeddings and retrieval reads (PostgreSQL): vector rows, result reads, fact candidates.

A translation of ``store/sqlite/vectors.py``. Vectors live in the pgvector
column ``embeddings.vector`` (migration 0005); the API still speaks float32
little-endian blobs, converted at this boundary. The migration's triggers
drop a vector whose chunk, page or memory goes, and the HNSW index lives in
the database, so there is no tombstone table and no in-process matrix.

Without pgvector (``db.vector_available`` False: migration 0005 was skipped
and the ``embeddings`` table does not exist) every vector method answers
"nothing stored" and writes nothing, ``vectors_available`` is False, and the
brain runs as if no embedding provider were configured (brain.py), so
searches report ``search_degraded`` exactly as SQLite does without one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brainkeep.core.models import Memory
from brainkeep.core.retrieval import (
    CHUNK,
    ChunkView,
    EmbedTask,
    FactFilter,
    NewEmbedding,
    PageHead,
)
from brainkeep.core.scope import ReadScope
from brainkeep.store.postgres import visibility
from brainkeep.store.postgres.engine import PostgresEngine
from brainkeep.store.postgres.filters import fact_filter_sql
from brainkeep.store.postgres.nearest import HNSW_MAX_DIM
from brainkeep.store.postgres.search_index import PostgresSearchIndex
from brainkeep.store.sql.rows import memory_from_row

_LIVE = {
    CHUNK: "EXISTS (SELECT 1 FROM chunks c JOIN pages p ON p.id = c.page_id "
           "WHERE c.id = %s AND p.deleted_at IS NULL)",
    "memory": "EXISTS (SELECT 1 FROM memories WHERE id = %s AND expired_at IS NULL "
              "AND deleted_at IS NULL)",
}
_MISSING = ("NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.kind = %s AND e.item_id = x.id "
            "AND e.model = %s AND e.dim = %s)")


def to_vector(blob: bytes) -> np.ndarray:
    """A stored float32 blob as the array pgvector's adapter sends."""
    return np.frombuffer(blob, dtype="<f4")


def to_blob(vector: Any) -> bytes:
    """A pgvector value (``pgvector.Vector``) as the float32 blob the API speaks."""
    return np.asarray(vector.to_numpy(), dtype="<f4").tobytes()


class VectorsMixin:
    """Embedding persistence and retrieval reads; expects ``self.db``."""

    db: PostgresEngine

    @property
    def vectors_available(self) -> bool:
        """Whether this brain can store and search vectors (pgvector is installed)."""
        return self.db.vector_available

    def search_index(
        self, source_id: str, *, model: str | None = None, dim: int = 0
    ) -> PostgresSearchIndex:
        """The keyword and vector index of ``source_id`` (vectors of ``model``/``dim`` only)."""
        return PostgresSearchIndex(self.db, source_id, model=model, dim=dim)

    # -- vector rows ---------------------------------------------------------

    def prune_embedding_tombstones(self, keep: int) -> int:
        """Nothing to prune: PostgreSQL keeps no tombstones (always returns 0).

        SQLite needs them so each process can catch its in-memory matrix up
        with deletions; here the vectors are searched in the database, whose
        index is always current.
        """
        return 0

    def stored_vectors_by_hash(self, model: str, dim: int, hashes: list[str]) -> dict[str, bytes]:
        """Existing vectors of these texts in this model space (reuse, not re-embed)."""
        if not hashes or not self.db.vector_available:
            return {}
        rows = self.db.all(
            "SELECT text_hash, vector FROM embeddings WHERE text_hash = ANY(%s) "
            "AND model = %s AND dim = %s",
            (list(hashes), model, dim),
        )
        return {r[0]: to_blob(r[1]) for r in rows}

    def put_embeddings(self, rows: list[NewEmbedding]) -> int:
        """Store vectors, replacing any earlier one of the same item; returns rows written.

        A row whose chunk or memory is gone by now (deleted, expired, page
        soft-deleted) is skipped, so a slow backfill can never resurrect it.
        The first vectors of a new dimension create its HNSW index
        (``brainkeep_ensure_hnsw``), inside the caller's transaction.
        """
        if not rows or not self.db.vector_available:
            return 0
        with self.db.writing():
            for dim in sorted({row.dim for row in rows}):
                self._ensure_hnsw(dim)
            written = 0
            for row in rows:
                self.db.execute("DELETE FROM embeddings WHERE kind = %s AND item_id = %s",
                                (row.kind, row.item_id))
                result = self.db.execute(
                    "INSERT INTO embeddings (kind, item_id, source_id, page_id, private, model, "
                    "dim, text_hash, vector) SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s WHERE "
                    + _LIVE[row.kind],
                    (row.kind, row.item_id, row.source_id, row.page_id, int(row.private),
                     row.model, row.dim, row.text_hash, to_vector(row.vector), row.item_id),
                )
                written += max(result.rowcount, 0)
            return written

    def _ensure_hnsw(self, dim: int) -> None:
        # Remembered per store instance: the call is idempotent but takes a
        # table lock. A rolled-back first write loses the index until this
        # process restarts; searches stay correct meanwhile (an exact scan).
        done: set[int] = self.__dict__.setdefault("_hnsw_dims", set())
        if dim in done or not 1 <= dim <= HNSW_MAX_DIM:
            return
        self.db.execute("SELECT brainkeep_ensure_hnsw(%s)", (dim,))
        done.add(dim)

    def delete_other_embeddings(self, source_id: str, model: str, dim: int) -> int:
        """Delete this source's vectors of every other model space; returns rows deleted."""
        if not self.db.vector_available:
            return 0
        result = self.db.execute(
            "DELETE FROM embeddings WHERE source_id = %s AND NOT (model = %s AND dim = %s)",
            (source_id, model, dim),
        )
        return max(result.rowcount, 0)

    def page_chunk_texts(self, page_id: int) -> list[tuple[int, str]]:
        """(chunk id, text) of a page's chunks, in order."""
        rows = self.db.all("SELECT id, text FROM chunks WHERE page_id = %s ORDER BY ord",
                           (page_id,))
        return [(int(r[0]), r[1]) for r in rows]

    def missing_embeddings(
        self, source_id: str, kind: str, model: str, dim: int, *, after_item: int, limit: int
    ) -> list[EmbedTask]:
        """Live chunks (or active memories) with ``id > after_item`` lacking a vector here.

        Without pgvector nothing can be embedded, so nothing is missing.
        """
        if not self.db.vector_available:
            return []
        if kind == CHUNK:
            rows = self.db.all(
                "SELECT x.id, x.page_id, p.visibility, x.text, p.title FROM chunks x "
                "JOIN pages p ON p.id = x.page_id WHERE p.source_id = %s "
                f"AND p.deleted_at IS NULL AND x.id > %s AND {_MISSING} ORDER BY x.id LIMIT %s",
                (source_id, after_item, kind, model, dim, limit),
            )
        else:
            rows = self.db.all(
                "SELECT x.id, NULL, x.visibility, x.text, '' FROM memories x "
                "WHERE x.source_id = %s AND x.expired_at IS NULL AND x.deleted_at IS NULL "
                f"AND x.id > %s AND {_MISSING} ORDER BY x.id LIMIT %s",
                (source_id, after_item, kind, model, dim, limit),
            )
        return [EmbedTask(kind, int(r[0]), r[1], r[2] == "private", r[3], r[4]) for r in rows]

    def count_missing_embeddings(self, source_id: str, model: str, dim: int) -> dict[str, int]:
        """How many live chunks and active memories lack a vector in this model space."""
        if not self.db.vector_available:
            return {"chunk": 0, "memory": 0}
        row = self.db.one(
            "SELECT (SELECT COUNT(*) FROM chunks x JOIN pages p ON p.id = x.page_id "
            f"WHERE p.source_id = %s AND p.deleted_at IS NULL AND {_MISSING}), "
            "(SELECT COUNT(*) FROM memories x WHERE x.source_id = %s AND x.expired_at IS NULL "
            f"AND x.deleted_at IS NULL AND {_MISSING})",
            (source_id, CHUNK, model, dim, source_id, "memory", model, dim),
        )
        assert row is not None
        return {"chunk": int(row[0]), "memory": int(row[1])}

    def max_memory_id(self) -> int:
        return int(self.db.scalar("SELECT COALESCE(MAX(id), 0) FROM memories"))

    # -- result reads ----------------------------------------------------------

    def exact_name_pages(
        self, source_id: str, norm: str, *, include_private: bool
    ) -> dict[int, str]:
        """page id -> ``alias`` or ``title`` for pages named exactly ``norm``."""
        if not norm:
            return {}
        privacy = "" if include_private else "AND p.visibility = 'world'"
        found: dict[int, str] = {}
        for row in self.db.all(
            "SELECT p.id FROM pages p WHERE p.source_id = %s AND p.title_norm = %s "
            f"AND p.deleted_at IS NULL {privacy}",
            (source_id, norm),
        ):
            found[int(row[0])] = "title"
        for row in self.db.all(
            "SELECT p.id FROM page_aliases a JOIN pages p ON p.id = a.page_id "
            f"WHERE a.alias_norm = %s AND p.source_id = %s AND p.deleted_at IS NULL {privacy}",
            (norm, source_id),
        ):
            found[int(row[0])] = "alias"  # an alias wins over the title, as on SQLite
        return found

    def page_heads(
        self, source_id: str, page_ids: list[int], *, include_private: bool
    ) -> dict[int, PageHead]:
        """Live, visible pages by id (others are absent: the privacy re-check)."""
        if not page_ids:
            return {}
        privacy = "" if include_private else "AND visibility = 'world'"
        rows = self.db.all(
            "SELECT id, slug, title, updated_at FROM pages WHERE id = ANY(%s) "
            f"AND source_id = %s AND deleted_at IS NULL {privacy}",
            (list(page_ids), source_id),
        )
        return {int(r[0]): PageHead(int(r[0]), r[1], r[2], r[3]) for r in rows}

    def chunk_views(
        self, source_id: str, chunk_ids: list[int], *, include_private: bool
    ) -> dict[int, ChunkView]:
        """Chunks of live, visible pages by chunk id."""
        views = self._chunk_views(source_id, "c.id", chunk_ids, include_private)
        return {view.chunk_id: view for view in views}

    def lead_chunks(
        self, source_id: str, page_ids: list[int], *, include_private: bool
    ) -> dict[int, ChunkView]:
        """The first chunk of each page (for pages found by title alone), by page id."""
        views = self._chunk_views(source_id, "c.page_id", page_ids, include_private,
                                  extra="AND c.ord = 0")
        return {view.page_id: view for view in views}

    def _chunk_views(
        self, source_id: str, key: str, ids: list[int], include_private: bool, extra: str = ""
    ) -> list[ChunkView]:
        if not ids:
            return []
        privacy = "" if include_private else "AND p.visibility = 'world'"
        rows = self.db.all(
            "SELECT c.id, c.page_id, p.slug, p.title, c.text, c.kind, p.updated_at "
            f"FROM chunks c JOIN pages p ON p.id = c.page_id WHERE {key} = ANY(%s) "
            f"{extra} AND p.source_id = %s AND p.deleted_at IS NULL {privacy}",
            (list(ids), source_id),
        )
        return [ChunkView(int(r[0]), int(r[1]), *r[2:]) for r in rows]

    # -- facts -------------------------------------------------------------

    def fact_candidates(
        self,
        source_id: str,
        entity_slug: str,
        now: str,
        *,
        scope: ReadScope,
        visibilities: tuple[str, ...],
        model: str,
        dim: int,
        limit: int,
    ) -> list[tuple[Memory, bytes | None]]:
        """Active facts of one entity ``scope`` can read, newest first, with their vector."""
        params: list[Any] = []
        if self.db.vector_available:
            vector = "e.vector AS _vector"
            join = ("LEFT JOIN embeddings e ON e.kind = 'memory' AND e.item_id = m.id "
                    "AND e.model = %s AND e.dim = %s")
            params += [model, dim]
        else:  # no embeddings table: no fact has a vector
            vector, join = "NULL AS _vector", ""
        params += [source_id, entity_slug, now]
        readable = visibility.readable(scope, now, visibility.positional(params))
        params += [list(visibilities), limit]
        rows = self.db.all(
            f"SELECT m.*, {vector} FROM memories m {join} "
            "WHERE m.source_id = %s AND m.entity_slug = %s AND m.expired_at IS NULL "
            "AND m.deleted_at IS NULL AND (m.valid_until IS NULL OR m.valid_until > %s) "
            f"AND {readable} AND m.visibility = ANY(%s) ORDER BY m.id DESC LIMIT %s",
            params,
        )
        return [(memory_from_row(r), None if r["_vector"] is None else to_blob(r["_vector"]))
                for r in rows]

    def fact_ids_passing(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> set[int]:
        """The given fact ids that pass every filter (privacy re-check included)."""
        if not memory_ids:
            return set()
        where, params = fact_filter_sql(source_id, filt)
        rows = self.db.all(f"SELECT id FROM memories WHERE id = ANY(%s) AND {where}",
                           (list(memory_ids), *params))
        return {int(r[0]) for r in rows}

    def memories_matching(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> dict[int, Memory]:
        """The given memories that pass every filter (privacy re-check included)."""
        if not memory_ids:
            return {}
        where, params = fact_filter_sql(source_id, filt)
        rows = self.db.all(f"SELECT * FROM memories WHERE id = ANY(%s) AND {where}",
                           (list(memory_ids), *params))
        return {int(r["id"]): memory_from_row(r) for r in rows}

    def fact_ids_matching(self, source_id: str, filt: FactFilter, *, limit: int) -> list[int]:
        """Ids of the newest facts passing every filter (restricts the vector arm)."""
        where, params = fact_filter_sql(source_id, filt)
        rows = self.db.all(f"SELECT id FROM memories WHERE {where} ORDER BY id DESC LIMIT %s",
                           (*params, limit))
        return [int(r[0]) for r in rows]
