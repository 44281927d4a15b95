"""The vector half of PostgreSQL's SearchIndex: pgvector cosine search.

Each (dimension, kind) has its own partial HNSW index (migration 0005,
``brainkeep_ensure_hnsw``); a query uses it by repeating the index
expression and predicate: ``WHERE dim = N AND kind = 'chunk' ... ORDER BY
vector::vector(N) <=> q::vector(N)``.

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
caller is inside a transaction, so they never leak to other statements
(``db.read_only``).

Counting is what a search must not pay for: ``count()`` (asked by core
before every vector search) and the capped small-set count are cached per
instance against ``embedding_changes.generation`` (migration 0005: bumped
by every transaction that writes embeddings, in its own snapshot). A hit
costs one primary-key read; a vector written by any process changes the
marker, so the next search counts again; within one ``session()`` (a
request) the marker is read once. Reads inside an open transaction
are never cached (a rolled-back write would leave its marker value free
for another).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from brainkeep.store.postgres.driver import Row
from brainkeep.store.postgres.engine import PostgresEngine

# Filtered sets up to this size are searched exactly (measured: ~2 ms for
# 2,000 rows of 384 dims, about an HNSW probe's cost).
EXACT_MAX = 2000
# pgvector's HNSW indexes `vector` of at most 2,000 dimensions.
HNSW_MAX_DIM = 2000
# Rows the iterative scan may visit before giving up (pgvector's default).
MAX_SCAN_TUPLES = 20_000
# The HNSW candidate list per kind (at least the k asked for). Memories are
# short templated sentences that crowd together (many near-ties), so their
# graph needs a wider search than chunks to find the exact top 30: measured
# with the m 32 / ef_construction 128 indexes of migration 0018 by
# bench/pg_ann_recall.py (docs/postgres.md "Vector recall").
EF_SEARCH = {"chunk": 100, "memory": 200}
# The change marker of every cached count (migration 0005).
_MARKER = "SELECT generation FROM embedding_changes WHERE id = 1"


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
    with db.read_only(settings):
        return db.all(sql, params)


class VectorSearch:
    """Nearest neighbours among one (source, kind, model space)'s vectors."""

    def __init__(self, db: PostgresEngine, *, source_id: str, kind: str, model: str, dim: int,
                 exact_max: int = EXACT_MAX) -> None:
        self.db = db
        self.source_id = source_id
        if kind not in ("chunk", "memory"):
            raise ValueError(f"unknown vector kind {kind!r}")
        self.kind = kind
        self.model = model
        self.dim = int(dim)
        self.exact_max = exact_max
        self._counts: dict[str, tuple[int, int]] = {}  # key -> (generation, count)

    def _where(self, include_private: bool, only: bool) -> str:
        # `dim` and `kind` are literals: the planner must see them to use the
        # partial index of the (dimension, kind) (migration 0005).
        where = (f"dim = {self.dim} AND kind = '{self.kind}' AND source_id = %(source)s "
                 "AND model = %(model)s")
        if not include_private:
            where += " AND private = 0"
        if only:
            where += " AND item_id = ANY(%(only)s)"
        return where

    def _params(self, **extra: Any) -> dict[str, Any]:
        return {"source": self.source_id, "model": self.model, **extra}

    def count(self) -> int:
        """Vectors of this space (every visibility); cached until embeddings change."""
        where = self._where(True, False)
        return self._cached("all", f"SELECT COUNT(*) FROM embeddings WHERE {where}",
                            self._params())

    def _cached(self, key: str, sql: str, params: dict[str, Any]) -> int:
        """The count ``sql`` (one value), recomputed only when the change marker moved."""
        if self.db.in_transaction():
            return int(self.db.scalar(sql, params))
        with self.db.session():
            memo = self.db.session_memo()
            hit = self._counts.get(key)
            if hit is not None:
                marker = memo.get(_MARKER) if memo is not None else None
                if marker is None:
                    marker = int(self.db.scalar(_MARKER))
                    if memo is not None:
                        memo[_MARKER] = marker
                if hit[0] == marker:
                    return hit[1]
            row = self.db.one(f"SELECT ({_MARKER}), ({sql})", params)
            assert row is not None
            self._counts[key] = (int(row[0]), int(row[1]))
            if memo is not None:
                memo[_MARKER] = int(row[0])
            return int(row[1])

    def search(self, query: np.ndarray, k: int, *, include_private: bool,
               only_items: Collection[int] | None = None) -> list[VectorHit]:
        """The ``k`` rows most similar to the unit vector ``query``, best first (cosine)."""
        if k <= 0 or (only_items is not None and not only_items):
            return []
        q = np.asarray(query, dtype=np.float32)
        with self.db.session():  # the count check and the search: one checkout
            if only_items is not None:
                return self.exact(q, k, include_private=include_private, only=only_items)
            if self.dim > HNSW_MAX_DIM or self._small(include_private):
                return self.exact(q, k, include_private=include_private)
            hits = self.indexed(q, k, include_private=include_private)
            if len(hits) < k:
                return self.exact(q, k, include_private=include_private)
            return hits

    def _small(self, include_private: bool) -> bool:
        """Whether the filtered set holds at most ``exact_max`` rows (bounded count, cached)."""
        where = self._where(include_private, False)
        n = self._cached(
            f"capped:{include_private}",
            f"SELECT COUNT(*) FROM (SELECT 1 FROM embeddings WHERE {where} LIMIT %(cap)s) s",
            self._params(cap=self.exact_max + 1),
        )
        return n <= self.exact_max

    def exact(self, q: np.ndarray, k: int, *, include_private: bool,
              only: Collection[int] | None = None) -> list[VectorHit]:
        """Exact search of the filtered rows (the ORDER BY avoids the HNSW expression)."""
        rows = self.db.all(
            "SELECT item_id, COALESCE(page_id, 0), vector <=> %(q)b AS distance FROM embeddings "
            f"WHERE {self._where(include_private, only is not None)} "
            "ORDER BY distance, id LIMIT %(k)s",
            self._params(q=q, k=k, only=None if only is None else list(only)),
        )
        return _hits(rows)

    def indexed(self, q: np.ndarray, k: int, *, include_private: bool,
                iterative: bool = True, ef_search: int | None = None) -> list[VectorHit]:
        """HNSW search with an iterative scan (``iterative`` False: plain, for tests).

        ``ef_search`` overrides the kind's candidate list (the recall bench).
        """
        d = self.dim
        ef = EF_SEARCH[self.kind] if ef_search is None else int(ef_search)
        settings: dict[str, int | str] = {
            "hnsw.ef_search": min(max(ef, k), 1000),
            "hnsw.iterative_scan": "strict_order" if iterative else "off",
            "hnsw.max_scan_tuples": MAX_SCAN_TUPLES,
        }
        rows = read_with_settings(
            self.db, settings,
            f"SELECT item_id, COALESCE(page_id, 0), vector <=> %(q)b "
            f"FROM embeddings WHERE {self._where(include_private, False)} "
            f"ORDER BY vector::vector({d}) <=> %(q)b::vector({d}) LIMIT %(k)s",
            self._params(q=q, k=k),
        )
        return _hits(rows)


def _hits(rows: list[Row]) -> list[VectorHit]:
    return [VectorHit(int(r[0]), int(r[1]), 1.0 - float(r[2])) for r in rows]
