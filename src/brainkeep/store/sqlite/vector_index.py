"""SQLite's vector index: exact search over an in-memory numpy matrix kept in sync.

Why exact search: at brainkeep's scale (tens of thousands of chunks and
memories per brain) one float32 matrix-vector product over 384-dim unit rows
takes a few milliseconds on two cores, needs no index build, cannot miss a
neighbour, and brings no dependency beyond numpy; docs/search.md has the
numbers.

Sync protocol: the ``embeddings`` table hands out a watermark — the last
embedding id ever issued (``sqlite_sequence``; ids never repeat) and the
last tombstone sequence number (``embedding_tombstones``, written by the
triggers of migration 0005 whenever a vector row goes). A search
first compares watermarks (one tiny query); when they moved it applies the
new tombstones and appends rows with ids above the last one loaded, so writes
by this process and by other processes on the same brain show up without a
reload. A gap in the tombstones (they were pruned) forces a full reload.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from brainkeep.core.retrieval import StoredEmbeddings
from brainkeep.store.sqlite.engine import SQLiteEngine

LOAD_BATCH = 20_000
# Compact once this share of rows is dead (deleted vectors are masked, not moved).
COMPACT_DEAD_SHARE = 0.25


class VectorSource(Protocol):
    """What an index reads (``SQLiteVectorRows``; tests script their own)."""

    def in_transaction(self) -> bool: ...
    def embedding_watermark(self) -> tuple[int, int]: ...
    def load_embeddings(
        self, source_id: str, kind: str, model: str, dim: int, *, after_id: int, limit: int
    ) -> StoredEmbeddings: ...
    def embedding_tombstones(
        self, after_seq: int
    ) -> tuple[int | None, list[tuple[int, int]]]: ...
    def live_embedding_ids(
        self, source_id: str, kind: str, model: str, dim: int, *, upto: int
    ) -> np.ndarray: ...
    def embeddings_of_items(
        self, source_id: str, kind: str, model: str, dim: int, item_ids: list[int]
    ) -> StoredEmbeddings: ...


class SQLiteVectorRows:
    """``VectorSource`` over the ``embeddings`` and ``embedding_tombstones`` tables."""

    def __init__(self, db: SQLiteEngine) -> None:
        self.db = db

    def in_transaction(self) -> bool:
        """Whether this thread's connection is inside a transaction."""
        return bool(self.db.conn.in_transaction)

    def embedding_watermark(self) -> tuple[int, int]:
        """(last embedding id ever issued, last tombstone seq): cheap change detection."""
        row = self.db.one(
            "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'embeddings'), "
            "(SELECT seq FROM sqlite_sequence WHERE name = 'embedding_tombstones')"
        )
        assert row is not None
        return int(row[0] or 0), int(row[1] or 0)

    def load_embeddings(
        self, source_id: str, kind: str, model: str, dim: int, *, after_id: int, limit: int
    ) -> StoredEmbeddings:
        """Vectors of one kind and model space with ``id > after_id``, in id order."""
        rows = self.db.execute(
            "SELECT id, item_id, COALESCE(page_id, 0), private, vector FROM embeddings "
            "WHERE source_id = ? AND kind = ? AND model = ? AND id > ? AND dim = ? "
            "ORDER BY id LIMIT ?",
            (source_id, kind, model, after_id, dim, limit),
        ).fetchall()
        if not rows:
            return StoredEmbeddings((), (), (), (), b"")
        ids, items, pages, private, blobs = zip(*rows, strict=True)
        return StoredEmbeddings(ids, items, pages, tuple(map(bool, private)), b"".join(blobs))

    def embedding_tombstones(self, after_seq: int) -> tuple[int | None, list[tuple[int, int]]]:
        """(oldest tombstone seq still kept or None, [(seq, embedding id)] after ``after_seq``)."""
        first = self.db.scalar("SELECT MIN(seq) FROM embedding_tombstones")
        rows = self.db.all(
            "SELECT seq, embedding_id FROM embedding_tombstones WHERE seq > ? ORDER BY seq",
            (after_seq,),
        )
        return (None if first is None else int(first)), [(int(r[0]), int(r[1])) for r in rows]

    def live_embedding_ids(
        self, source_id: str, kind: str, model: str, dim: int, *, upto: int
    ) -> np.ndarray:
        """Ids (ascending) of this space's rows with ``id <= upto`` still present."""
        rows = self.db.execute(
            "SELECT id FROM embeddings WHERE source_id = ? AND kind = ? AND model = ? "
            "AND id <= ? AND dim = ? ORDER BY id",
            (source_id, kind, model, upto, dim),
        ).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def embeddings_of_items(
        self, source_id: str, kind: str, model: str, dim: int, item_ids: list[int]
    ) -> StoredEmbeddings:
        """This space's vectors of the given chunks or memories (any order)."""
        found: list[tuple[int, int, int, int, bytes]] = []
        for lo in range(0, len(item_ids), 500):
            part = item_ids[lo : lo + 500]
            found += self.db.execute(
                "SELECT id, item_id, COALESCE(page_id, 0), private, vector FROM embeddings "
                f"WHERE kind = ? AND item_id IN ({','.join('?' * len(part))}) "
                "AND +source_id = ? AND model = ? AND dim = ?",
                (kind, *part, source_id, model, dim),
            ).fetchall()
        if not found:
            return StoredEmbeddings((), (), (), (), b"")
        ids, items, pages, private, blobs = zip(*found, strict=True)
        return StoredEmbeddings(ids, items, pages, tuple(map(bool, private)), b"".join(blobs))


@dataclass(frozen=True)
class VectorHit:
    """One row of the index that scored for a query."""

    item_id: int  # chunks.id or memories.id
    page_id: int  # chunk rows: its page; memory rows: 0
    cosine: float


@dataclass(frozen=True)
class _Snapshot:
    matrix: np.ndarray
    items: np.ndarray
    pages: np.ndarray
    blocked_all: np.ndarray
    blocked_public: np.ndarray


class VectorIndex:
    """Vectors of one (source, kind, model space), searched exactly.

    Thread-safe: syncing is serialized by a lock; searches run on a snapshot
    of the arrays, so concurrent searches use both cores (numpy releases the
    GIL inside the matrix product).
    """

    def __init__(self, store: VectorSource, *, source_id: str, kind: str, model: str,
                 dim: int, floor: int = 0, floor_tomb_seq: int = 0) -> None:
        """An index of rows with ``id > floor``.

        ``floor`` > 0 makes it the delta of an ANN base holding every row up
        to ``floor`` as of tombstone ``floor_tomb_seq``: tombstones of those
        rows land in ``dead_below``, and ``below_lost`` says they could not be
        followed (pruned), so the owner must recompute them.
        """
        self.store = store
        self.source_id = source_id
        self.kind = kind
        self.model = model
        self.dim = dim
        self.floor = floor
        self.floor_tomb_seq = floor_tomb_seq
        self.dead_below: set[int] = set()  # base rows deleted since (floor > 0 only)
        self.below_lost = False
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._matrix = np.empty((0, self.dim), dtype=np.float32)
        self._ids = np.empty(0, dtype=np.int64)
        self._items = np.empty(0, dtype=np.int64)
        self._pages = np.empty(0, dtype=np.int64)
        self._private = np.empty(0, dtype=bool)
        self._alive = np.empty(0, dtype=bool)
        self._n = 0
        self._dead = 0
        self._pos: dict[int, int] = {}
        self._max_id = self.floor
        self._tomb_seq = self.floor_tomb_seq
        self.dead_below = set()
        self._mark: tuple[int, int] | None = None
        self._snapshot: _Snapshot | None = None

    def __len__(self) -> int:
        """Live rows currently loaded."""
        return self._n - self._dead

    # -- sync --------------------------------------------------------------

    def sync(self) -> None:
        """Catch up with the store (cheap when nothing changed)."""
        # Inside a write transaction this thread would read its own uncommitted
        # rows; if they rolled back, their ids would be issued again and missed.
        if self.store.in_transaction():
            return
        with self._lock:
            mark = self.store.embedding_watermark()
            if mark == self._mark:
                return
            # A delta's first look replays the tombstones since its base was built.
            first_delta = self._mark is None and self.floor > 0
            if (self._mark is None and not first_delta) or not self._apply_tombstones(mark[1]):
                self._reset()
                # A full load reflects every deletion up to now.
                self._tomb_seq = mark[1]
                self.below_lost = self.floor > 0
            self._append_new()
            if self._dead > COMPACT_DEAD_SHARE * max(self._n, 1) and self._dead > 256:
                self._compact()
            self._mark = mark
            self._snapshot = None

    def _apply_tombstones(self, last_seq: int) -> bool:
        """Mask rows deleted since the last sync; False when tombstones were pruned.

        Tombstone numbers are issued without gaps, so a missing number between
        the last one applied and the oldest one kept means pruning passed us.
        """
        if last_seq <= self._tomb_seq:
            return True
        first, deleted = self.store.embedding_tombstones(self._tomb_seq)
        if first is None or first > self._tomb_seq + 1:
            return False
        for seq, embedding_id in deleted:
            pos = self._pos.pop(embedding_id, None)
            if pos is not None and self._alive[pos]:
                self._alive[pos] = False
                self._dead += 1
            elif pos is None and embedding_id <= self.floor:
                self.dead_below.add(embedding_id)
            self._tomb_seq = seq
        return True

    def _append_new(self) -> None:
        while True:
            batch = self.store.load_embeddings(
                self.source_id, self.kind, self.model, self.dim,
                after_id=self._max_id, limit=LOAD_BATCH,
            )
            if not len(batch):
                return
            rows = np.frombuffer(batch.vectors, dtype=np.float32).reshape(len(batch), self.dim)
            self._grow(len(batch))
            lo, hi = self._n, self._n + len(batch)
            self._matrix[lo:hi] = rows
            self._ids[lo:hi] = batch.ids
            self._items[lo:hi] = batch.item_ids
            self._pages[lo:hi] = batch.page_ids
            self._private[lo:hi] = batch.private
            self._alive[lo:hi] = True
            self._pos.update(zip(batch.ids, range(lo, hi), strict=True))
            self._n = hi
            self._max_id = int(batch.ids[-1])
            if len(batch) < LOAD_BATCH:
                return

    def _grow(self, extra: int) -> None:
        need = self._n + extra
        if need <= len(self._ids):
            return
        capacity = max(need, int(len(self._ids) * 1.5) + 1024)

        def grown(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            out = np.empty(shape, dtype=array.dtype)
            out[: self._n] = array[: self._n]
            return out

        self._matrix = grown(self._matrix, (capacity, self.dim))
        self._ids = grown(self._ids, (capacity,))
        self._items = grown(self._items, (capacity,))
        self._pages = grown(self._pages, (capacity,))
        self._private = grown(self._private, (capacity,))
        self._alive = grown(self._alive, (capacity,))

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._n])
        self._matrix = self._matrix[keep].copy()
        self._ids = self._ids[keep].copy()
        self._items = self._items[keep].copy()
        self._pages = self._pages[keep].copy()
        self._private = self._private[keep].copy()
        self._alive = np.ones(len(keep), dtype=bool)
        self._n = len(keep)
        self._dead = 0
        self._pos = {int(i): p for p, i in enumerate(self._ids)}

    def _current(self) -> _Snapshot:
        with self._lock:
            if self._snapshot is None:
                n = self._n
                dead = ~self._alive[:n]
                self._snapshot = _Snapshot(
                    matrix=self._matrix[:n],
                    items=self._items[:n],
                    pages=self._pages[:n],
                    blocked_all=dead,
                    blocked_public=dead | self._private[:n],
                )
            return self._snapshot

    # -- search ------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, *, include_private: bool,
               only_items: set[int] | None = None) -> list[VectorHit]:
        """The ``k`` rows most similar to the unit vector ``query``, best first.

        Args:
            query: float32 unit vector of this index's dimension.
            k: how many rows to return at most.
            include_private: False hides rows embedded as private (a
                pre-filter; callers re-check visibility when they read rows).
            only_items: restrict to these item ids.
        """
        self.sync()
        snap = self._current()
        if not len(snap.items) or k <= 0:
            return []
        scores = snap.matrix @ query.astype(np.float32, copy=False)
        blocked = snap.blocked_all if include_private else snap.blocked_public
        scores = np.where(blocked, -np.inf, scores)
        if only_items is not None:
            allowed = np.isin(snap.items, np.fromiter(only_items, dtype=np.int64))
            scores = np.where(allowed, scores, -np.inf)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [
            VectorHit(int(snap.items[i]), int(snap.pages[i]), float(scores[i]))
            for i in top
            if np.isfinite(scores[i])
        ]
