"""SQLite's ``SparseIndex``: an impact-ordered postings table read with early termination.

Storage (migration 0017): ``sparse_vectors`` holds each row's vector (its
forward form: uint16 term ids, then uint16 impacts = weight x 100, rounded,
at least 1), and ``sparse_postings`` one ``(kind, term, impact, item_id)``
key per non-zero term, so a term's postings are read best impact first.

Search is exact top k in two steps. First the best ``FIRST_BLOCK``
postings of every query term are read and their rows scored exactly from
their stored vectors: if the k-th score already beats the threshold
``sum(query weight x next unread impact)`` (Fagin's threshold algorithm),
no unseen row can enter and the search ends having read at most 32
postings per term. Otherwise every posting of the query's terms is summed
in one SQL aggregate (exact scores, best first) and the best rows checked
against the stored vectors until k pass. Measured (docs/benchmarks.md):
rounds of the threshold algorithm with random access, and MaxScore
completing rows from their stored vectors, both cost 3-4x the CPU of that
one aggregate at 20K rows; pruning deeper than the first block did not pay
in Python. ``bench/sparse_speed.py`` counts postings read against what the
query's terms hold.
``scan`` scores every row (the reference the property test checks against).

A row re-encoded through ``put`` has its old postings deleted by key;
postings of a row that is gone (its vector dropped by a trigger) are
skipped (their random access finds nothing) and deleted by ``prune``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.retrieval import ScoredId
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.sql.dialect import SQL, SQLITE
from brainkeep.store.sql.search_scope import vector_sees_private
from brainkeep.store.sql.sparse import SparseRows
from brainkeep.store.sqlite.engine import SQLiteEngine

IMPACT_SCALE = 100.0
VOCAB_SIZE = 30522
FIRST_BLOCK = 32
# Up to this many rows one vectorised pass over every stored vector is
# cheaper than the rounds of the threshold algorithm (bench/sparse_speed.py).
SCAN_MAX = 4000
_FORWARD_BATCH = 500  # ids per random-access read (SQLite's bound-parameter budget)


def pack(vector: SparseTerms) -> bytes:
    """The stored form: uint16 term ids, then uint16 impacts."""
    impacts = np.clip(np.rint(vector.weights * IMPACT_SCALE), 1, 65535)
    return (np.asarray(vector.terms, dtype="<u2").tobytes()
            + impacts.astype("<u2").tobytes())


def unpack(blob: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(term ids, impacts) of a stored vector."""
    values = np.frombuffer(blob, dtype="<u2")
    half = len(values) // 2
    return values[:half].astype(np.int64), values[half:].astype(np.float64)


def dot_products(blobs: Sequence[bytes], weights: np.ndarray) -> np.ndarray:
    """Each stored vector's dot product with the dense query ``weights`` (float64), at once."""
    if not blobs:
        return np.zeros(0)
    lengths = np.array([len(b) // 4 for b in blobs], dtype=np.int64)
    flat = np.frombuffer(b"".join(blobs), dtype="<u2")
    ends = np.cumsum(lengths)
    within = np.arange(int(ends[-1])) - np.repeat(ends - lengths, lengths)
    terms_at = np.repeat(2 * (ends - lengths), lengths) + within
    contributions = weights[flat[terms_at]] * flat[terms_at + np.repeat(lengths, lengths)]
    rows = np.repeat(np.arange(len(blobs)), lengths)
    return np.bincount(rows, weights=contributions, minlength=len(blobs)) / IMPACT_SCALE


class SQLiteSparseIndex(SparseRows):
    """``SparseIndex`` over one SQLite brain's source and model."""

    column = "terms"

    def __init__(self, db: SQLiteEngine, source_id: str, model: str, *,
                 scan_max: int = SCAN_MAX) -> None:
        """``scan_max``: a kind holding at most this many rows is scored whole (``scan``)."""
        super().__init__(SQL(db, SQLITE), db, source_id, model)
        self.scan_max = scan_max
        self.last_postings_read = 0  # of the last search (bench/sparse_speed.py)

    def _vector_param(self, vector: SparseTerms) -> bytes:
        return pack(vector)

    def _replacing(self, rows: Sequence[NewSparse]) -> None:
        # A re-encoded row's old postings would lengthen its terms' lists and
        # loosen their bounds (still exact, but slower): drop them by key.
        for kind in {row.kind for row in rows}:
            ids = [row.item_id for row in rows if row.kind == kind]
            for lo in range(0, len(ids), _FORWARD_BATCH):
                listed = ",".join(str(int(i)) for i in ids[lo : lo + _FORWARD_BATCH])
                old = self.db.all("SELECT item_id, terms FROM sparse_vectors WHERE kind = ? "
                                  f"AND item_id IN ({listed})", (kind,))
                keys = [(kind, int(t), int(i), int(r[0])) for r in old
                        for t, i in zip(*unpack(r[1]), strict=True)]
                if keys:
                    self.db.executemany("DELETE FROM sparse_postings WHERE kind = ? AND term = ? "
                                        "AND impact = ? AND item_id = ?", keys)

    def _written(self, rows: Sequence[NewSparse]) -> None:
        postings: list[tuple[str, int, int, int]] = []
        for row in rows:
            terms, impacts = unpack(pack(row.vector))
            postings.extend((row.kind, int(t), int(i), row.item_id)
                            for t, i in zip(terms, impacts, strict=True))
        if postings:
            self.db.executemany("INSERT OR IGNORE INTO sparse_postings (kind, term, impact, "
                                "item_id) VALUES (?, ?, ?, ?)", postings)

    def prune(self) -> int:
        with self.db.writing():
            cursor = self.db.execute(
                "DELETE FROM sparse_postings WHERE NOT EXISTS (SELECT 1 FROM sparse_vectors v "
                "WHERE v.kind = sparse_postings.kind AND v.item_id = sparse_postings.item_id)")
            return max(int(cursor.rowcount or 0), 0)

    # -- search ----------------------------------------------------------------

    def search(
        self, kind: str, query: SparseTerms, scope: SearchScope | None, k: int
    ) -> list[ScoredId]:
        if k <= 0 or not len(query):
            self.last_postings_read = 0
            return []
        if self._few_rows(kind):
            self.last_postings_read = 0
            return self.scan(kind, query, scope, k)
        private = vector_sees_private(scope)
        weights = np.zeros(VOCAB_SIZE, dtype=np.float64)
        weights[query.terms] = query.weights
        best: list[tuple[float, int, int]] = []  # a min-heap of (score, -item, page)

        def offer(scored: list[tuple[int, int, float]]) -> None:
            for item, page, score in scored:
                entry = (score, -item, page)
                if len(best) < k:
                    heapq.heappush(best, entry)
                elif entry > best[0]:
                    heapq.heapreplace(best, entry)

        def kth() -> float:
            return best[0][0] if len(best) >= k else 0.0

        # 1. The best FIRST_BLOCK postings of every term, their rows scored
        #    exactly: a lower bound on the k-th score, and the threshold
        #    algorithm's bound on every row not seen yet.
        seen: set[int] = set()
        frontier: dict[int, float] = {}
        top: dict[int, float] = {}
        read = 0
        for term in (int(t) for t in query.terms):
            rows = self._postings(kind, term, FIRST_BLOCK)
            read += len(rows)
            if rows:
                top[term] = float(rows[0][0])
                frontier[term] = float(rows[-1][0]) if len(rows) == FIRST_BLOCK else 0.0
                seen.update(int(r[1]) for r in rows)
        offer(self._score(kind, seen, weights, private))
        unseen_bound = sum(float(weights[t]) * f for t, f in frontier.items()) / IMPACT_SCALE
        if len(best) < k or kth() <= unseen_bound:
            # 2. Not settled by the first blocks: the dot products of every row
            #    holding a query term, summed in one SQL aggregate (the
            #    postings are the stored vectors' terms, so the sums are the
            #    exact scores), best first; rows are checked against the
            #    forward table (gone, private, another source) a batch at a
            #    time until k pass.
            limit = max(2 * k, 64)
            while True:
                rows, counted = self._summed(kind, query, limit)
                offer(self._score(kind, {item for item, _ in rows} - seen, weights, private))
                if len(rows) < limit or (len(best) >= k and rows[-1][1] <= kth()):
                    break
                limit *= 4
            read += counted
        self.last_postings_read = read
        ranked_best = sorted(best, reverse=True)
        return [ScoredId(-neg, page, score) for score, neg, page in ranked_best]

    def _summed(self, kind: str, query: SparseTerms, limit: int
                ) -> tuple[list[tuple[int, float]], int]:
        """The ``limit`` best (row, dot product) by the query terms' postings, and postings read."""
        cases = " ".join(f"WHEN {int(t)} THEN {float(w)!r}"
                         for t, w in zip(query.terms, query.weights, strict=True))
        listed = ",".join(str(int(t)) for t in query.terms)  # numbers of ours, not caller text
        rows = self.db.all(
            f"SELECT item_id, SUM(impact * CASE term {cases} END) AS s, SUM(COUNT(*)) OVER () "
            f"FROM sparse_postings WHERE kind = ? AND term IN ({listed}) GROUP BY item_id "
            "ORDER BY s DESC, item_id LIMIT ?", (kind, limit))
        return ([(int(r[0]), float(r[1]) / IMPACT_SCALE) for r in rows],
                int(rows[0][2]) if rows else 0)

    def scan(
        self, kind: str, query: SparseTerms, scope: SearchScope | None, k: int
    ) -> list[ScoredId]:
        """``search`` by scoring every stored row (no index): the exact reference."""
        weights = np.zeros(VOCAB_SIZE, dtype=np.float64)
        weights[query.terms] = query.weights
        private = vector_sees_private(scope)
        rows = self.db.all(
            "SELECT item_id, page_id, private, terms FROM sparse_vectors "
            "WHERE kind = ? AND source_id = ? AND model = ?", (kind, self.source_id, self.model))
        rows = [r for r in rows if private or not r[2]]
        scores = dot_products([r[3] for r in rows], weights)
        order = sorted((i for i in range(len(rows)) if scores[i] > 0),
                       key=lambda i: (-scores[i], int(rows[i][0])))[:k]
        return [ScoredId(int(rows[i][0]), int(rows[i][1] or 0), float(scores[i])) for i in order]

    def _few_rows(self, kind: str) -> bool:
        if self.scan_max <= 0:
            return False
        held = self.db.scalar(
            "SELECT COUNT(*) FROM (SELECT 1 FROM sparse_vectors WHERE kind = ? "
            "AND source_id = ? AND model = ? LIMIT ?)",
            (kind, self.source_id, self.model, self.scan_max + 1))
        return int(held) <= self.scan_max

    def _postings(self, kind: str, term: int, limit: int) -> list[Any]:
        return self.db.all(
            "SELECT impact, item_id FROM sparse_postings WHERE kind = ? AND term = ? "
            "ORDER BY impact DESC, item_id DESC LIMIT ?", (kind, term, limit))

    def _score(self, kind: str, items: set[int], weights: np.ndarray,
               private: bool) -> list[tuple[int, int, float]]:
        """(item, page, exact score) of the rows among ``items`` this search may return."""
        out: list[tuple[int, int, float]] = []
        ordered = sorted(items)
        for lo in range(0, len(ordered), _FORWARD_BATCH):
            listed = ",".join(str(i) for i in ordered[lo : lo + _FORWARD_BATCH])
            rows = self.db.all(
                "SELECT item_id, page_id, private, terms FROM sparse_vectors "
                f"WHERE kind = ? AND item_id IN ({listed}) AND source_id = ? AND model = ?",
                (kind, self.source_id, self.model))
            rows = [r for r in rows if private or not r[2]]
            scores = dot_products([r[3] for r in rows], weights)
            out.extend((int(r[0]), int(r[1] or 0), float(score))
                       for r, score in zip(rows, scores, strict=True) if score > 0)
        return out
