"""SQLite's ``SparseIndex``: compacted postings blocks plus a delta, verified exactly.

Storage: ``sparse_vectors`` (migration 0017) holds each row's vector (its
forward form: uint16 term ids, then uint16 impacts = weight x 100, rounded,
at least 1). Its postings live in two places (store/sqlite/sparse_blocks.py):
the *blocks* (one row per term, every posting packed; rebuilt from the
vectors now and then) and the *delta* ``sparse_postings`` (one row per
posting written since the last build).

Search reads the query terms' blocks and delta postings (one statement each)
and sums ``query weight x impact`` per row in numpy. Weights are never
negative and block entries of rows gone or re-encoded since the build only
add, so each sum bounds its row's true score from above and no row with a
positive score is missing. The best sums are then scored exactly from their
stored vectors (which also drops rows gone, private or of another source or
model), a widening batch at a time, until the next bound cannot beat the
k-th exact score: exact top k. Measured against the earlier first block
plus per-posting SQL aggregate (docs/benchmarks.md "Learned-sparse arm"):
p50 1.9 vs 31 ms at 20K rows, 8.9 vs 271 ms at 200K. When the delta outgrows its share a background thread rebuilds the
blocks; ``prune`` (``brainkeep embed``) rebuilds every kind now.
``scan`` scores every row (the reference the property test checks against).
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Sequence

import numpy as np

from brainkeep.core.ports.search_index import SearchScope
from brainkeep.core.retrieval import CHUNK, MEMORY, ScoredId
from brainkeep.core.sparse_terms import NewSparse, SparseTerms
from brainkeep.store.sql.dialect import SQL, SQLITE
from brainkeep.store.sql.search_scope import vector_sees_private
from brainkeep.store.sql.sparse import SparseRows
from brainkeep.store.sqlite import sparse_blocks
from brainkeep.store.sqlite.engine import SQLiteEngine
from brainkeep.store.sqlite.sparse_blocks import flatten

log = logging.getLogger("brainkeep.store.sparse")

IMPACT_SCALE = 100.0
VOCAB_SIZE = 30522
# Up to this many rows one vectorised pass over every stored vector is
# cheaper than reading postings (bench/sparse_speed.py).
SCAN_MAX = 4000
_FORWARD_BATCH = 500  # ids per random-access read (SQLite's bound-parameter budget)
# A background build that failed (or found the lock held) is retried no sooner.
RETRY_SECONDS = 30.0


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
    terms, impacts, rows = flatten(blobs)
    return np.bincount(rows, weights=weights[terms] * impacts,
                       minlength=len(blobs)) / IMPACT_SCALE


def summed(items: np.ndarray, contributions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct item ids, the sum of their contributions)."""
    if not len(items):
        return items, contributions
    top = int(items.max())
    if top <= 4 * len(items) + 1_000_000:  # dense ids: one pass, no sort
        sums = np.bincount(items, weights=contributions, minlength=top + 1)
        ids = np.flatnonzero(sums)
        return ids, sums[ids]
    ids, inverse = np.unique(items, return_inverse=True)
    return ids, np.bincount(inverse, weights=contributions)


class SQLiteSparseIndex(SparseRows):
    """``SparseIndex`` over one SQLite brain's source and model."""

    column = "terms"

    def __init__(self, db: SQLiteEngine, source_id: str, model: str, *,
                 scan_max: int = SCAN_MAX, background: bool = True) -> None:
        """``scan_max``: a kind holding at most this many rows is scored whole (``scan``);
        ``background``: rebuild blocks that are due on a thread of their own."""
        super().__init__(SQL(db, SQLITE), db, source_id, model)
        self.scan_max = scan_max
        self.background = background
        self.last_postings_read = 0  # of the last search (bench/sparse_speed.py)
        self._lock = threading.Lock()
        self._builder: threading.Thread | None = None
        self._last_attempt = -RETRY_SECONDS

    def _vector_param(self, vector: SparseTerms) -> bytes:
        return pack(vector)

    def _replacing(self, rows: Sequence[NewSparse]) -> None:
        # A re-encoded row's old delta postings would only loosen its bound:
        # drop them by key (its old block entries go at the next build).
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
        for kind in {row.kind for row in rows}:
            postings: list[tuple[str, int, int, int]] = []
            for row in rows:
                if row.kind == kind:
                    terms, impacts = unpack(pack(row.vector))
                    postings.extend((kind, int(t), int(i), row.item_id)
                                    for t, i in zip(terms, impacts, strict=True))
            self.db.executemany("INSERT OR IGNORE INTO sparse_postings (kind, term, impact, "
                                "item_id) VALUES (?, ?, ?, ?)", postings)
            sparse_blocks.note_written(self.db, kind, len(postings))

    def prune(self) -> int:
        """Rebuild every kind's blocks now (dropping entries of rows gone); entries dropped."""
        return sum(sparse_blocks.build(self.db, kind) for kind in (CHUNK, MEMORY))

    def _build_if_due(self, kind: str) -> None:
        if not self.background or not sparse_blocks.block_state(self.db, kind).due:
            return
        with self._lock:
            now = time.monotonic()
            busy = self._builder is not None and self._builder.is_alive()
            if busy or now - self._last_attempt < RETRY_SECONDS:
                return
            self._last_attempt = now
            self._builder = threading.Thread(target=self._build_in_background, args=(kind,),
                                             daemon=True, name=f"brainkeep-sparse-{kind}")
            self._builder.start()

    def _build_in_background(self, kind: str) -> None:
        try:
            sparse_blocks.build(self.db, kind)
        except Exception:  # a thread's top level: log; search stays exact on the delta
            log.exception("rebuilding the sparse blocks of %s failed", kind)

    def wait_for_build(self, timeout: float | None = None) -> None:
        """Wait for a background build of this index to finish (tests, benchmarks)."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)

    # -- search ----------------------------------------------------------------

    def search(
        self, kind: str, query: SparseTerms, scope: SearchScope | None, k: int
    ) -> list[ScoredId]:
        self.last_postings_read = 0
        if k <= 0 or not len(query):
            return []
        if self._few_rows(kind):
            return self.scan(kind, query, scope, k)
        self._build_if_due(kind)
        weights = np.zeros(VOCAB_SIZE, dtype=np.float64)
        weights[query.terms] = query.weights
        items, bounds = self._bounds(kind, query, weights)
        private = vector_sees_private(scope)
        best: list[tuple[float, int, int]] = []  # a min-heap of (score, -item, page)
        unscored = bounds.copy()  # a row scored exactly is marked -1
        batch = max(2 * k, 64)
        while True:
            # The best bounds not scored yet (a partition, not a sort of them all).
            n = min(batch, len(items))
            pick = np.argpartition(-unscored, n - 1)[:n] if n < len(items) else np.arange(n)
            pick = pick[unscored[pick] > 0]
            # Stop when no row left can reach the k-th exact score (a tie
            # could still win on its id; the margin absorbs summation order).
            if not len(pick) or (len(best) >= k
                                 and unscored[pick].max() * (1 + 1e-9) < best[0][0]):
                break
            for item, page, score in self._score(kind, set(items[pick].tolist()),
                                                 weights, private):
                entry = (score, -item, page)
                if len(best) < k:
                    heapq.heappush(best, entry)
                elif entry > best[0]:
                    heapq.heapreplace(best, entry)
            unscored[pick] = -1.0
            batch *= 4
        return [ScoredId(-neg, page, score) for score, neg, page in sorted(best, reverse=True)]

    def _bounds(self, kind: str, query: SparseTerms, weights: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """Every row holding a query term and an upper bound of its score (unordered)."""
        terms = [int(t) for t in query.terms]
        items: list[np.ndarray] = []
        parts: list[np.ndarray] = []
        for term, held, impacts in sparse_blocks.read_blocks(self.db, kind, terms):
            items.append(held)
            parts.append(impacts * weights[term])
        listed = ",".join(str(t) for t in terms)
        delta = np.array(self.db.all(
            f"SELECT term, impact, item_id FROM sparse_postings WHERE kind = ? "
            f"AND term IN ({listed})", (kind,)), dtype=np.int64).reshape(-1, 3)
        items.append(delta[:, 2])
        parts.append(delta[:, 1] * weights[delta[:, 0]])
        flat = np.concatenate(items).astype(np.int64)
        self.last_postings_read = len(flat)
        ids, sums = summed(flat, np.concatenate(parts))
        return ids, sums / IMPACT_SCALE

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
