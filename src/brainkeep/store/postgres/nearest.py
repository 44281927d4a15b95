"""The vector half of PostgreSQL's SearchIndex: pgvector cosine search.

Each dimension has its own partial HNSW index (migration 0005,
``brainkeep_ensure_hnsw``); a query uses it by repeating the index
expression: ``WHERE dim = N ... ORDER BY vector::vector(N) <=> q::vector(N)``.

Filtered search stays correct for a small tenant (a source, or the public
rows only, holding a small share of the index) in two ways:

- a filtered set of at most ``exact_max`` rows is searched exactly (a
  pre-filter on the ``embeddings_scan`` index, then a sort: a few
  milliseconds, and it cannot miss a neighbour), as is any ``only`` list;
- a larger one goes through the HNSW index with pgvector 0.8's iterative
  scan (``hnsw.iterative_scan = strict_order``): the scan keeps walking
  the graph until ``k`` rows pass the filter (up to ``hnsw.max_scan_tuples``),
  so rows of other tenants cannot crowd the answer out. When it still
  returns fewer than ``k`` (the filtered rows are that rare), the exact
  search answers instead.

Both settings are ``SET LOCAL`` in a read-only transaction of the query's
own (no write lock), or in a savepoint rolled back after the read when the
caller is inside a transaction, so they never leak to other statements.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg

from brainkeep.store.postgres.driver import Row, translate
from brainkeep.store.postgres.engine import PostgresEngine

# Filtered sets up to this size are searched exactly (measured: ~2 ms for
# 2,000 rows of 384 dims, about an HNSW probe's cost).
EXACT_MAX = 2000
# pgvector's HNSW indexes `vector` of at most 2,000 dimensions.
HNSW_MAX_DIM = 2000
# Rows the iterative scan may visit before giving up (pgvector's default).
MAX_SCAN_TUPLES = 20_000


@dataclass(frozen=True)
class VectorHit:
    """One row that scored for a query."""

    item_id: int
    page_id: int
    cosine: float


def read_with_settings(db: PostgresEngine, settings: dict[str, int | str], sql: str,
                       params: dict[str, Any]) -> list[Row]:
    """Rows of one read with ``settings`` SET LOCAL around it (never leaking past it).

    ``settings`` values are this module's constants, never user input.
    """
    setup = "; ".join(f"SET LOCAL {name} = {value}" for name, value in settings.items())
    inside = db.in_transaction()
    # The engine's connection of this thread (its open transaction, if any),
    # else one borrowed from the pool for this read only.
    # (A private engine method: the engine has no public read-transaction API yet.)
    with db._borrow() as conn:
        begin = "SAVEPOINT bk_nearest" if inside else "BEGIN READ ONLY"
        undo = ("ROLLBACK TO SAVEPOINT bk_nearest; RELEASE SAVEPOINT bk_nearest" if inside
                else "ROLLBACK")
        try:
            conn.execute(f"{begin}; {setup}")
            try:
                rows: list[Row] = conn.execute(sql, params).fetchall()
            finally:
                conn.execute(undo)  # a read: nothing to commit, and the settings go
        except psycopg.Error as exc:
            raise translate(exc, db.url) from exc
    return rows


class VectorSearch:
    """Nearest neighbours among one (source, kind, model space)'s vectors."""

    def __init__(self, db: PostgresEngine, *, source_id: str, kind: str, model: str, dim: int,
                 exact_max: int = EXACT_MAX) -> None:
        self.db = db
        self.source_id = source_id
        self.kind = kind
        self.model = model
        self.dim = int(dim)
        self.exact_max = exact_max

    def _where(self, include_private: bool, only: bool) -> str:
        # `dim` is a literal: the planner must see it to use the partial index.
        where = (f"dim = {self.dim} AND source_id = %(source)s AND kind = %(kind)s "
                 "AND model = %(model)s")
        if not include_private:
            where += " AND private = 0"
        if only:
            where += " AND item_id = ANY(%(only)s)"
        return where

    def _params(self, **extra: Any) -> dict[str, Any]:
        return {"source": self.source_id, "kind": self.kind, "model": self.model, **extra}

    def count(self) -> int:
        """Vectors of this space (every visibility)."""
        where = self._where(True, False)
        return int(self.db.scalar(f"SELECT COUNT(*) FROM embeddings WHERE {where}",
                                  self._params()))

    def search(self, query: np.ndarray, k: int, *, include_private: bool,
               only_items: Collection[int] | None = None) -> list[VectorHit]:
        """The ``k`` rows most similar to the unit vector ``query``, best first (cosine)."""
        if k <= 0 or (only_items is not None and not only_items):
            return []
        q = np.asarray(query, dtype=np.float32)
        if only_items is not None:
            return self.exact(q, k, include_private=include_private, only=only_items)
        if self.dim > HNSW_MAX_DIM or self._small(include_private):
            return self.exact(q, k, include_private=include_private)
        hits = self.indexed(q, k, include_private=include_private)
        if len(hits) < k:
            return self.exact(q, k, include_private=include_private)
        return hits

    def _small(self, include_private: bool) -> bool:
        """Whether the filtered set holds at most ``exact_max`` rows (bounded count)."""
        where = self._where(include_private, False)
        n = self.db.scalar(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM embeddings WHERE {where} LIMIT %(cap)s) s",
            self._params(cap=self.exact_max + 1),
        )
        return int(n) <= self.exact_max

    def exact(self, q: np.ndarray, k: int, *, include_private: bool,
              only: Collection[int] | None = None) -> list[VectorHit]:
        """Exact search of the filtered rows (the ORDER BY avoids the HNSW expression)."""
        rows = self.db.all(
            "SELECT item_id, COALESCE(page_id, 0), vector <=> %(q)s AS distance FROM embeddings "
            f"WHERE {self._where(include_private, only is not None)} "
            "ORDER BY distance, id LIMIT %(k)s",
            self._params(q=q, k=k, only=None if only is None else list(only)),
        )
        return _hits(rows)

    def indexed(self, q: np.ndarray, k: int, *, include_private: bool,
                iterative: bool = True) -> list[VectorHit]:
        """HNSW search with an iterative scan (``iterative`` False: plain, for tests)."""
        d = self.dim
        settings: dict[str, int | str] = {
            "hnsw.ef_search": max(40, min(2 * k, 1000)),
            "hnsw.iterative_scan": "strict_order" if iterative else "off",
            "hnsw.max_scan_tuples": MAX_SCAN_TUPLES,
        }
        rows = read_with_settings(
            self.db, settings,
            f"SELECT item_id, COALESCE(page_id, 0), vector::vector({d}) <=> %(q)s::vector({d}) "
            f"FROM embeddings WHERE {self._where(include_private, False)} "
            f"ORDER BY vector::vector({d}) <=> %(q)s::vector({d}) LIMIT %(k)s",
            self._params(q=q, k=k),
        )
        return _hits(rows)


def _hits(rows: list[Row]) -> list[VectorHit]:
    return [VectorHit(int(r[0]), int(r[1]), 1.0 - float(r[2])) for r in rows]
