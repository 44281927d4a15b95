"""SQLite's ``SparseIndex``: an impact-ordered postings table read with early termination.

Storage (migration 0020): ``sparse_vectors`` holds each row's vector (its
forward form: uint16 term ids, then uint16 impacts = weight x 100, rounded,
at least 1), and ``sparse_postings`` one ``(kind, term, impact, item_id)``
key per non-zero term, so a term's postings are read best impact first.

Search is Fagin's threshold algorithm over those lists. Each round reads
the next block of every query term's postings (blocks doubling from
``FIRST_BLOCK``), scores the rows it has not seen exactly from their stored
vectors (random access by key), and stops as soon as the k-th best exact
score beats the threshold ``sum(query weight x next unread impact)``: a
row not yet seen in any list scores at most that. So the result is the
exact top k, yet a common term's list is read only as deep as it matters
(``bench/sparse_search.py`` counts postings read against a full scan).
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
MAX_BLOCK = 8192
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
        # Per term: the last (impact, item) read and the impact bound of what is unread.
        cursors: dict[int, tuple[int, int] | None] = {int(t): None for t in query.terms}
        frontier = {int(t): float("inf") for t in query.terms}
        seen: set[int] = set()
        best: list[tuple[float, int, int]] = []  # a min-heap of (score, -item, page)
        block, read = FIRST_BLOCK, 0
        while True:
            fresh: set[int] = set()
            for term in list(cursors):
                rows = self._postings(kind, term, cursors[term], block)
                read += len(rows)
                if len(rows) < block:
                    del cursors[term]
                    frontier[term] = 0.0
                else:
                    cursors[term] = (int(rows[-1][0]), int(rows[-1][1]))
                    frontier[term] = float(rows[-1][0])
                fresh.update(int(r[1]) for r in rows if int(r[1]) not in seen)
            seen |= fresh
            for item, page, score in self._score(kind, fresh, weights, private):
                entry = (score, -item, page)
                if len(best) < k:
                    heapq.heappush(best, entry)
                elif entry > best[0]:
                    heapq.heapreplace(best, entry)
            threshold = sum(float(weights[t]) * f for t, f in frontier.items())
            threshold /= IMPACT_SCALE
            if not cursors or (len(best) >= k and best[0][0] > threshold):
                break
            block = min(block * 2, MAX_BLOCK)
        self.last_postings_read = read
        ranked = sorted(best, reverse=True)
        return [ScoredId(-neg, page, score) for score, neg, page in ranked]

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

    def _postings(self, kind: str, term: int, after: tuple[int, int] | None,
                  limit: int) -> list[Any]:
        if after is None:
            return self.db.all(
                "SELECT impact, item_id FROM sparse_postings WHERE kind = ? AND term = ? "
                "ORDER BY impact DESC, item_id DESC LIMIT ?", (kind, term, limit))
        return self.db.all(
            "SELECT impact, item_id FROM sparse_postings WHERE kind = ? AND term = ? "
            "AND (impact, item_id) < (?, ?) ORDER BY impact DESC, item_id DESC LIMIT ?",
            (kind, term, after[0], after[1], limit))

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
