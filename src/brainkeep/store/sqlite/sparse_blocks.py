"""The compacted postings of SQLite's learned-sparse arm (migration 0019): build, read, erase.

A kind's *blocks* hold, per vocabulary term, every posting of its stored
vectors as two packed arrays (int32 item ids, uint16 impacts): a query reads
one row per term. Postings written since the last build are the *delta*
(``sparse_postings``), read as rows. ``build`` replaces a kind's blocks with
the postings of its stored vectors (rows gone or re-encoded since leave no
entry) and empties its delta; it is due when the delta outgrows
``max(DELTA_MIN, DELTA_SHARE x blocked)`` postings, which keeps the delta a
small share of what a query reads while a build (whose cost is every
posting: 8 s of CPU at 200K rows in bench/sparse_speed.py, whose delta
held all 23M postings) runs rarely.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from brainkeep.store.sqlite.engine import SQLiteEngine

DELTA_MIN = 30_000
DELTA_SHARE = 0.02
_READ_ROWS = 20_000  # stored vectors per read while building (bounds the build's memory)


@dataclass(frozen=True)
class BlockState:
    """A kind's postings in blocks and in the delta, and its write generation."""

    blocked: int
    delta: int
    generation: int

    @property
    def due(self) -> bool:
        return self.delta >= max(DELTA_MIN, DELTA_SHARE * self.blocked)


def block_state(db: SQLiteEngine, kind: str) -> BlockState:
    row = db.one("SELECT blocked, delta, generation FROM sparse_block_state WHERE kind = ?",
                 (kind,))
    return BlockState(0, 0, 0) if row is None else BlockState(int(row[0]), int(row[1]),
                                                             int(row[2]))


def note_written(db: SQLiteEngine, kind: str, postings: int) -> None:
    """Count postings added to ``kind``'s delta (inside the writing transaction)."""
    db.execute("UPDATE sparse_block_state SET delta = delta + ?, generation = generation + 1 "
               "WHERE kind = ?", (postings, kind))


def flatten(blobs: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(term ids, impacts, owning row index) of every posting of packed vectors, in order."""
    lengths = np.array([len(b) // 4 for b in blobs], dtype=np.int64)
    if not len(lengths) or not lengths.sum():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    flat = np.frombuffer(b"".join(blobs), dtype="<u2")
    ends = np.cumsum(lengths)
    starts = ends - lengths
    # Vector i is 2 x length_i values from 2 x start_i: its terms, then its impacts.
    terms_at = np.repeat(starts, lengths) + np.arange(int(ends[-1]))
    rows = np.repeat(np.arange(len(blobs)), lengths)
    return (flat[terms_at].astype(np.int64), flat[terms_at + np.repeat(lengths, lengths)],
            rows)


def _sorted_runs(db: SQLiteEngine, kind: str) -> Iterator[tuple[np.ndarray, ...]]:
    """The kind's stored postings, a read at a time, each sorted by term."""
    after = -1
    while True:
        rows = db.all("SELECT item_id, terms FROM sparse_vectors WHERE kind = ? AND item_id > ? "
                      "ORDER BY item_id LIMIT ?", (kind, after, _READ_ROWS))
        if not rows:
            return
        after = int(rows[-1][0])
        terms, impacts, owner = flatten([r[1] for r in rows])
        items = np.array([int(r[0]) for r in rows], dtype=np.int64)[owner]
        order = np.argsort(terms, kind="stable")
        yield terms[order], items[order].astype("<i4"), impacts[order].astype("<u2")


def _blocks_from_vectors(db: SQLiteEngine, kind: str) -> list[tuple[str, int, bytes, bytes]]:
    pieces: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
    for terms, items, impacts in _sorted_runs(db, kind):
        cuts = np.flatnonzero(np.diff(terms)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(terms)], strict=True):
            pieces.setdefault(int(terms[lo]), []).append((items[lo:hi], impacts[lo:hi]))
    return [(kind, term, b"".join(i.tobytes() for i, _ in parts),
             b"".join(p.tobytes() for _, p in parts))
            for term, parts in sorted(pieces.items())]


def build(db: SQLiteEngine, kind: str) -> int:
    """Rebuild ``kind``'s blocks from its stored vectors and empty its delta.

    The vectors are read and the blocks assembled before the write lock is
    taken; if a write landed meanwhile (the generation moved) they are read
    again under the lock. Returns the postings dropped (of rows gone or
    re-encoded since they were written).
    """
    seen = block_state(db, kind)
    blocks = _blocks_from_vectors(db, kind)
    with db.writing():
        now = block_state(db, kind)
        if now.generation != seen.generation:
            blocks = _blocks_from_vectors(db, kind)
        before = now.blocked + int(db.scalar(
            "SELECT COUNT(*) FROM sparse_postings WHERE kind = ?", (kind,)))
        db.execute("DELETE FROM sparse_blocks WHERE kind = ?", (kind,))
        db.executemany("INSERT INTO sparse_blocks (kind, term, items, impacts) "
                       "VALUES (?, ?, ?, ?)", blocks)
        db.execute("DELETE FROM sparse_postings WHERE kind = ?", (kind,))
        blocked = sum(len(b[3]) // 2 for b in blocks)
        db.execute("UPDATE sparse_block_state SET blocked = ?, delta = 0, "
                   "generation = generation + 1 WHERE kind = ?", (blocked, kind))
    return max(before - blocked, 0)


def read_blocks(db: SQLiteEngine, kind: str, terms: Sequence[int] | None = None
                ) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(term, item ids, impacts) of ``kind``'s blocks, of ``terms`` only when given."""
    where = ""
    if terms is not None:  # numbers of ours, not caller text
        where = f" AND term IN ({','.join(str(int(t)) for t in terms)})"
    rows = db.all(f"SELECT term, items, impacts FROM sparse_blocks WHERE kind = ?{where}",
                  (kind,))
    return [(int(r[0]), np.frombuffer(r[1], dtype="<i4"), np.frombuffer(r[2], dtype="<u2"))
            for r in rows]


def erase_items(db: SQLiteEngine, kind: str, item_ids: Sequence[int]) -> int:
    """Remove ``item_ids``' entries from ``kind``'s blocks (erasure: term ids spell words).

    Every block of the kind is read (their vectors may be gone already, so
    their terms are unknown); returns the entries removed.
    """
    wanted = np.asarray(sorted({int(i) for i in item_ids}), dtype="<i4")
    removed = 0
    rewritten: list[tuple[bytes, bytes, str, int]] = []
    for term, items, impacts in read_blocks(db, kind):
        hit = np.isin(items, wanted)
        if hit.any():
            removed += int(hit.sum())
            keep = ~hit
            rewritten.append((items[keep].tobytes(), impacts[keep].tobytes(), kind, term))
    if rewritten:
        db.executemany("UPDATE sparse_blocks SET items = ?, impacts = ? "
                       "WHERE kind = ? AND term = ?", rewritten)
        db.execute("DELETE FROM sparse_blocks WHERE kind = ? AND length(items) = 0", (kind,))
    # The generation moves even when no entry was removed: a build that read
    # the vectors before this erasure must read them again.
    db.execute("UPDATE sparse_block_state SET blocked = blocked - ?, "
               "generation = generation + 1 WHERE kind = ?", (removed, kind))
    return removed
