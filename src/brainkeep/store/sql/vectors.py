"""Embeddings and retrieval reads, for both engines: vector rows, backfill jobs, result reads.

The ``embeddings`` table is the same on both engines (migration 0005: rows
tagged with model id and dimension, kept in step with pages, chunks and
memories by triggers) except for its ``vector`` column, which the engine
reaches through the hooks of ``VectorColumn``: SQLite stores the API's
float32 little-endian blob as it is, with a tombstone table its in-process
indexes replay (``store/sqlite/vector_column.py``); PostgreSQL a pgvector
``vector``, with an HNSW index per dimension and, without pgvector, no table
at all (``store/postgres/vector_column.py``). The search itself is the
engine's ``SearchIndex``; the reads here re-check and fetch only the final
results.

Without vectors (``vectors_available`` False) every vector method answers
"nothing stored" and writes nothing, and the brain runs as if no embedding
provider were configured (brain.py), so searches report ``search_degraded``
as they do on a brain without one.

What else differs goes through the dialect: SQLite's ``+col`` planner hints
and ``CROSS JOIN`` ordering (PostgreSQL's planner has statistics and no such
spelling), and value lists (``Dialect.in_list``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from brainkeep.core.models import Memory
from brainkeep.core.retrieval import (
    CHUNK,
    MEMORY,
    ChunkView,
    EmbedTask,
    FactFilter,
    NewEmbedding,
    PageHead,
)
from brainkeep.core.scope import ReadScope
from brainkeep.store.sql.dialect import SQL, positional
from brainkeep.store.sql.filters import fact_filter_sql
from brainkeep.store.sql.rows import memory_from_row
from brainkeep.store.sql.scope import readable

_INSERT = (
    "INSERT INTO embeddings (kind, item_id, source_id, page_id, private, model, dim, "
    "text_hash, vector) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE "
)
# The item is still there when its vector arrives (a slow backfill must not
# resurrect a deleted chunk or memory).
_LIVE = {
    CHUNK: "EXISTS (SELECT 1 FROM chunks c JOIN pages p ON p.id = c.page_id "
           "WHERE c.id = ? AND p.deleted_at IS NULL)",
    MEMORY: "EXISTS (SELECT 1 FROM memories WHERE id = ? AND expired_at IS NULL "
            "AND deleted_at IS NULL)",
}
_MISSING = ("NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.kind = ? AND e.item_id = x.id "
            "AND e.model = ? AND e.dim = ?)")
# SQLite binds at most 32,766 parameters (999 before 3.32): hashes go in
# batches; PostgreSQL binds the whole list as one array.
_HASH_BATCH = 500


def backfill_batch(sql: SQL, kind: str, missing: str, missing_params: tuple[Any, ...],
                   source_id: str, *, after_item: int, limit: int) -> list[EmbedTask]:
    """Live chunks (or active memories) of ``source_id`` after ``after_item`` that
    ``missing`` (a clause over ``x``, binding ``missing_params``) says lack a row.

    Shared by the dense and the learned-sparse backfill: one id-ordered walk.
    """
    pick = sql.dialect.pick
    hint = pick(sqlite="+", postgres="")
    params = (source_id, after_item, *missing_params, limit)
    if kind == CHUNK:
        rows = sql.all(
            # SQLite: CROSS JOIN and +source_id pin the plan to walking ids
            # upward from after_item (else: every row of the source, then a
            # sort, per batch; measured 1,800 -> 100 rows/s at 400K chunks).
            "SELECT x.id, x.page_id, p.visibility, x.text, p.title, "
            # Only a string is a context (as for an inline write: search_context_of).
            f"{sql.dialect.json_string('p.frontmatter', 'search_context')} FROM chunks x "
            f"{pick(sqlite='CROSS JOIN', postgres='JOIN')} pages p ON p.id = x.page_id "
            f"WHERE {hint}p.source_id = ? AND p.deleted_at IS NULL AND x.id > ? "
            f"AND {missing} ORDER BY x.id LIMIT ?",
            params,
        )
    else:
        rows = sql.all(
            "SELECT x.id, NULL, x.visibility, x.text, '', NULL FROM memories x "
            f"WHERE {hint}x.source_id = ? AND x.expired_at IS NULL AND x.deleted_at IS NULL "
            f"AND x.id > ? AND {missing} ORDER BY x.id LIMIT ?",
            params,
        )
    return [EmbedTask(kind, int(r[0]), r[1], r[2] == "private", r[3], r[4], r[5]) for r in rows]


def _affected(cursor: Any) -> int:
    """Rows a write changed (psycopg says -1 when it cannot tell)."""
    return max(int(cursor.rowcount or 0), 0)


class VectorColumn:
    """The hooks through which ``VectorsMixin`` reaches the engine's ``embeddings.vector``.

    Annotations only: the engine's mixin defines them (a definition here
    would shadow it, this class coming first in the store's bases).
    """

    if TYPE_CHECKING:  # the engine's property (a runtime one here would shadow it)
        @property
        def vectors_available(self) -> bool:
            """Whether the engine stores and searches vectors (PostgreSQL without
            pgvector: no, and the ``embeddings`` table does not exist)."""
            raise NotImplementedError

    # The API's float32 little-endian blob as the engine binds it into the column.
    _vector_param: Callable[[bytes], Any]
    # A value read from the column as the API's blob.
    _vector_blob: Callable[[Any], bytes]
    # Vectors of these dimensions (ascending) are about to be written, inside
    # the write's transaction: prepare what their search needs.
    _vectors_arriving: Callable[[list[int]], None]


class VectorsMixin(VectorColumn):
    """Embedding persistence and retrieval reads over ``self.sql``."""

    sql: SQL
    db: Any  # the engine: ``writing()``

    # -- vector rows ---------------------------------------------------------

    def stored_vectors_by_hash(self, model: str, dim: int, hashes: list[str]) -> dict[str, bytes]:
        """Existing vectors of these texts in this model space (reuse, not re-embed)."""
        if not hashes or not self.vectors_available:
            return {}
        d = self.sql.dialect
        step = len(hashes) if d.array_params else _HASH_BATCH
        found: dict[str, bytes] = {}
        for lo in range(0, len(hashes), step):
            params: list[Any] = []
            among = d.in_list("text_hash", hashes[lo : lo + step], params)
            rows = self.sql.all(
                f"SELECT text_hash, vector FROM embeddings WHERE {among} AND model = ? AND dim = ?",
                [*params, model, dim],
            )
            found.update({r[0]: self._vector_blob(r[1]) for r in rows})
        return found

    def put_embeddings(self, rows: list[NewEmbedding]) -> int:
        """Store vectors, replacing any earlier one of the same item; returns rows written.

        A row whose chunk or memory is gone by now (deleted, expired, page
        soft-deleted) is skipped, so a slow backfill can never resurrect it.
        The old row is deleted explicitly (not an upsert), so SQLite's
        tombstone trigger fires. The engine prepares new dimensions first
        (``_vectors_arriving``: PostgreSQL creates their HNSW index), inside
        the caller's transaction.
        """
        if not rows or not self.vectors_available:
            return 0
        with self.db.writing():
            self._vectors_arriving(sorted({row.dim for row in rows}))
            written = 0
            for row in rows:
                self.sql.execute("DELETE FROM embeddings WHERE kind = ? AND item_id = ?",
                                 (row.kind, row.item_id))
                cursor = self.sql.execute(
                    _INSERT + _LIVE[row.kind],
                    (row.kind, row.item_id, row.source_id, row.page_id, int(row.private),
                     row.model, row.dim, row.text_hash, self._vector_param(row.vector),
                     row.item_id),
                )
                written += _affected(cursor)
            return written

    def delete_other_embeddings(self, source_id: str, model: str, dim: int) -> int:
        """Delete this source's vectors of every other model space; returns rows deleted."""
        if not self.vectors_available:
            return 0
        cursor = self.sql.execute(
            "DELETE FROM embeddings WHERE source_id = ? AND NOT (model = ? AND dim = ?)",
            (source_id, model, dim),
        )
        return _affected(cursor)

    # -- backfill jobs ---------------------------------------------------------

    def page_chunk_texts(self, page_id: int) -> list[tuple[int, str]]:
        """(chunk id, text) of a page's chunks, in order."""
        rows = self.sql.all("SELECT id, text FROM chunks WHERE page_id = ? ORDER BY ord",
                            (page_id,))
        return [(int(r[0]), r[1]) for r in rows]

    def missing_embeddings(
        self, source_id: str, kind: str, model: str, dim: int, *, after_item: int, limit: int
    ) -> list[EmbedTask]:
        """Live chunks (or active memories) with ``id > after_item`` lacking a vector here.

        Without vectors nothing can be embedded, so nothing is missing.
        """
        if not self.vectors_available:
            return []
        return backfill_batch(self.sql, kind, _MISSING, (kind, model, dim), source_id,
                              after_item=after_item, limit=limit)

    def count_missing_embeddings(self, source_id: str, model: str, dim: int) -> dict[str, int]:
        """How many live chunks and active memories lack a vector in this model space."""
        if not self.vectors_available:
            return {CHUNK: 0, MEMORY: 0}
        row = self.sql.one(
            "SELECT (SELECT COUNT(*) FROM chunks x JOIN pages p ON p.id = x.page_id "
            f"WHERE p.source_id = ? AND p.deleted_at IS NULL AND {_MISSING}), "
            "(SELECT COUNT(*) FROM memories x WHERE x.source_id = ? AND x.expired_at IS NULL "
            f"AND x.deleted_at IS NULL AND {_MISSING})",
            (source_id, CHUNK, model, dim, source_id, MEMORY, model, dim),
        )
        assert row is not None
        return {CHUNK: int(row[0]), MEMORY: int(row[1])}

    def max_memory_id(self) -> int:
        return int(self.sql.scalar("SELECT COALESCE(MAX(id), 0) FROM memories"))

    # -- result reads ----------------------------------------------------------
    # Queries by a list of ids write SQLite's `+source_id`: without statistics
    # SQLite otherwise picks a (source_id, ...) index and walks every row of the
    # source instead of looking the ids up (measured: 10 ms instead of 0.2 ms
    # at 40K rows).

    def exact_name_pages(
        self, source_id: str, norm: str, *, include_private: bool
    ) -> dict[int, str]:
        """page id -> ``alias`` or ``title`` for pages named exactly ``norm``."""
        if not norm:
            return {}
        privacy = "" if include_private else "AND p.visibility = 'world'"
        found: dict[int, str] = {}
        for row in self.sql.all(
            "SELECT p.id FROM pages p WHERE p.source_id = ? AND p.title_norm = ? "
            f"AND p.deleted_at IS NULL {privacy}",
            (source_id, norm),
        ):
            found[int(row[0])] = "title"
        join = self.sql.dialect.pick(sqlite="CROSS JOIN", postgres="JOIN")
        for row in self.sql.all(
            # SQLite: CROSS JOIN pins the order, alias index first (else it
            # walks every page of the source and probes its aliases).
            f"SELECT p.id FROM page_aliases a {join} pages p ON p.id = a.page_id "
            f"WHERE a.alias_norm = ? AND p.source_id = ? AND p.deleted_at IS NULL {privacy}",
            (norm, source_id),
        ):
            found[int(row[0])] = "alias"  # an alias wins over the title
        return found

    def page_heads(
        self, source_id: str, page_ids: list[int], *, include_private: bool
    ) -> dict[int, PageHead]:
        """Live, visible pages by id (others are absent: the privacy re-check)."""
        if not page_ids:
            return {}
        privacy = "" if include_private else "AND visibility = 'world'"
        params: list[Any] = []
        among = self.sql.dialect.in_list("id", page_ids, params)
        params.append(source_id)
        rows = self.sql.all(
            f"SELECT id, slug, title, updated_at FROM pages WHERE {among} "
            f"AND {self._by_ids()}source_id = ? AND deleted_at IS NULL {privacy}",
            params,
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
        params: list[Any] = []
        among = self.sql.dialect.in_list(key, ids, params)
        params.append(source_id)
        rows = self.sql.all(
            "SELECT c.id, c.page_id, p.slug, p.title, c.text, c.kind, p.updated_at "
            f"FROM chunks c JOIN pages p ON p.id = c.page_id WHERE {among} "
            f"{extra} AND {self._by_ids()}p.source_id = ? AND p.deleted_at IS NULL {privacy}",
            params,
        )
        return [ChunkView(int(r[0]), int(r[1]), *r[2:]) for r in rows]

    def _by_ids(self) -> str:
        return self.sql.dialect.pick(sqlite="+", postgres="")

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
        if self.vectors_available:
            vector = "e.vector AS _vector"
            join = ("LEFT JOIN embeddings e ON e.kind = 'memory' AND e.item_id = m.id "
                    "AND e.model = ? AND e.dim = ?")
            params += [model, dim]
        else:  # no embeddings table: no fact has a vector
            vector, join = "NULL AS _vector", ""
        params += [source_id, entity_slug, now]
        dialect = self.sql.dialect
        visible = readable(scope, now, positional(params))
        among = dialect.in_list("m.visibility", visibilities, params)
        params.append(limit)
        rows = self.sql.all(
            f"SELECT m.*, {vector} FROM memories m {join} "
            "WHERE m.source_id = ? AND m.entity_slug = ? AND m.expired_at IS NULL "
            "AND m.deleted_at IS NULL AND (m.valid_until IS NULL OR m.valid_until > ?) "
            f"AND {visible} AND {among} ORDER BY m.id DESC LIMIT ?",
            params,
        )
        blob = self._vector_blob
        return [(memory_from_row(r), None if r["_vector"] is None else blob(r["_vector"]))
                for r in rows]

    def fact_ids_passing(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> set[int]:
        """The given fact ids that pass every filter (privacy re-check included)."""
        if not memory_ids:
            return set()
        where, params = self._by_id_filter(source_id, memory_ids, filt)
        rows = self.sql.all(f"SELECT id FROM memories WHERE {where}", params)
        return {int(r[0]) for r in rows}

    def memories_matching(
        self, source_id: str, memory_ids: list[int], filt: FactFilter
    ) -> dict[int, Memory]:
        """The given memories that pass every filter (privacy re-check included)."""
        if not memory_ids:
            return {}
        where, params = self._by_id_filter(source_id, memory_ids, filt)
        rows = self.sql.all(f"SELECT * FROM memories WHERE {where}", params)
        return {int(r["id"]): memory_from_row(r) for r in rows}

    def _by_id_filter(
        self, source_id: str, memory_ids: Sequence[int], filt: FactFilter
    ) -> tuple[str, list[Any]]:
        params: list[Any] = []
        among = self.sql.dialect.in_list("id", memory_ids, params)
        where, more = fact_filter_sql(source_id, filt, dialect=self.sql.dialect, by_ids=True)
        return f"{among} AND {where}", params + more

    def fact_ids_matching(self, source_id: str, filt: FactFilter, *, limit: int) -> list[int]:
        """Ids of the newest facts passing every filter (restricts the vector arm)."""
        where, params = fact_filter_sql(source_id, filt, dialect=self.sql.dialect)
        rows = self.sql.all(f"SELECT id FROM memories WHERE {where} ORDER BY id DESC LIMIT ?",
                            (*params, limit))
        return [int(r[0]) for r in rows]
