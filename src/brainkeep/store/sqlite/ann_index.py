"""SQLite's approximate vector index: a shared mmapped HNSW base plus an exact delta.

Layout (docs/search.md "ANN index"): the *base* (``ann_files``) holds every
row of one (source, kind, model space) up to an embedding-id watermark, in
files beside the brain that every process maps read-only. Rows written since
(ids above the watermark) form the *delta*, searched exactly by a
``VectorIndex`` with that floor, which follows the same watermark/tombstone
protocol as before; tombstones of base rows become a set of dead ids that are
filtered out of base hits. So a write is visible to every process at its next
search, deletes are never returned, and no reader waits for a build.

When the delta passes ``max(rebuild_min, REBUILD_SHARE × base)`` rows (or
dead base rows pass ``DEAD_SHARE``), a background thread of whichever process
notices builds the next base (incrementally from the current one) under a
file lock; readers keep using the old base until its metadata is replaced.
Below ``min_rows`` no base is built: the exact scan is faster there.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from brainkeep.store.sqlite.ann_files import (
    LOAD_BATCH,
    BaseFiles,
    BaseMeta,
    new_graph,
    open_graph,
)
from brainkeep.store.sqlite.vector_index import VectorHit, VectorIndex, VectorSource

log = logging.getLogger("brainkeep.store.ann")

# Measured crossover (bench/ann_recall.py): below ~20K rows one exact numpy
# product is as fast as an HNSW search and needs no build.
ANN_MIN_ROWS = 20_000
REBUILD_MIN = 5_000
REBUILD_SHARE = 0.10
DEAD_SHARE = 0.20
# A rebuild that could not run (lock held elsewhere, error) is retried no sooner.
RETRY_SECONDS = 30.0
# ``only`` sets up to this size are scored exactly from their stored vectors.
EXACT_ITEMS_MAX = 2_048
BUILD_THREADS = 2


@dataclass(frozen=True)
class _Base:
    meta: BaseMeta
    graph: Any  # usearch.index.Index, a read-only view of the mapped file
    ids: np.ndarray  # embedding ids, ascending (keys of the graph)
    rows: np.ndarray  # (n, 4) int64 mapped: id, item id, page id, private


def _open(files: BaseFiles, meta: BaseMeta) -> _Base:
    rows = np.load(files.directory / meta.rows_file, mmap_mode="r")
    graph = open_graph(files.directory / meta.index_file, view=True)
    if len(graph) != len(rows) or graph.ndim != meta.dim:
        raise ValueError(f"{meta.index_file} does not match its metadata")
    return _Base(meta, graph, np.ascontiguousarray(rows[:, 0]), rows)


def build_base(store: VectorSource, files: BaseFiles, *, threads: int = BUILD_THREADS,
               full: bool = False) -> BaseMeta | None:
    """Build and publish the next base; None when another process holds the lock.

    Incremental unless ``full`` or there is no usable base: the current graph
    is copied into memory, rows deleted since are removed and rows above its
    watermark added (cost grows with the change, plus one copy of the file).
    """
    with files.build_lock() as held:
        if not held:
            return None
        current = files.read_meta()
        watermark, tomb_seq = store.embedding_watermark()
        graph, rows, after = None, np.empty((0, 4), dtype=np.int64), 0
        if current is not None and not full:
            # usearch reuses the slots of removed keys, so the graph does not grow with churn.
            graph = open_graph(files.directory / current.index_file, view=False)
        if graph is not None and current is not None:
            old = np.load(files.directory / current.rows_file)
            live = store.live_embedding_ids(files.source_id, files.kind, files.model, files.dim,
                                            upto=current.watermark)
            alive = np.isin(old[:, 0], live, assume_unique=True)
            if not alive.all():
                graph.remove(old[~alive, 0])
            rows, after = old[alive], current.watermark
        else:
            graph = new_graph(files.dim)
        parts = [rows]
        while after < watermark:
            batch = store.load_embeddings(files.source_id, files.kind, files.model, files.dim,
                                          after_id=after, limit=LOAD_BATCH)
            if not len(batch):
                break
            ids = np.asarray(batch.ids, dtype=np.int64)
            keep = ids <= watermark
            vectors = np.frombuffer(batch.vectors, dtype=np.float32).reshape(len(ids), files.dim)
            if keep.any():
                graph.add(ids[keep], vectors[keep], threads=threads)
                parts.append(np.column_stack([
                    ids, np.asarray(batch.item_ids), np.asarray(batch.page_ids),
                    np.asarray(batch.private, dtype=np.int64),
                ])[keep])
            after = int(ids[-1])
        rows = np.concatenate(parts).astype(np.int64, copy=False)
        generation = (current.generation + 1) if current is not None else 1
        return files.publish(graph, rows, watermark=watermark, tomb_seq=tomb_seq,
                             generation=generation)


class AnnVectorIndex:
    """Vectors of one (source, kind, model space): ANN base + exact delta.

    Same surface as ``VectorIndex`` (``sync``, ``search``, ``len``). Thread-safe.
    """

    def __init__(self, store: VectorSource, files: BaseFiles, *, min_rows: int = ANN_MIN_ROWS,
                 rebuild_min: int = REBUILD_MIN, background: bool = True,
                 retry_s: float = RETRY_SECONDS) -> None:
        self.store = store
        self.files = files
        self.min_rows = min_rows
        self.rebuild_min = rebuild_min
        self.background = background
        self.retry_s = retry_s
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._base: _Base | None = None
        self._delta = self._new_delta(None)
        self._builder: threading.Thread | None = None
        self._last_attempt = -retry_s

    def _new_delta(self, meta: BaseMeta | None) -> VectorIndex:
        f = self.files
        return VectorIndex(self.store, source_id=f.source_id, kind=f.kind, model=f.model,
                           dim=f.dim, floor=meta.watermark if meta else 0,
                           floor_tomb_seq=meta.tomb_seq if meta else 0)

    @property
    def base_meta(self) -> BaseMeta | None:
        """The base in use, if any."""
        base = self._base
        return None if base is None else base.meta

    def __len__(self) -> int:
        base, delta = self._base, self._delta
        below = 0 if base is None else len(base.ids) - len(delta.dead_below)
        return below + len(delta)

    # -- sync --------------------------------------------------------------

    def sync(self) -> None:
        """Catch up with the store and with bases published by any process."""
        if self.store.in_transaction():
            return
        with self._lock:
            stamp = self.files.stamp()
            if stamp != self._stamp:
                self._stamp = stamp
                self._switch_base()
            delta = self._delta
            delta.sync()
            if delta.below_lost and self._base is not None:
                self._recount_dead(self._base, delta)
        self._maybe_rebuild()

    def _switch_base(self) -> None:
        meta = self.files.read_meta()
        if meta is None:
            if self._base is not None:  # base withdrawn (files removed): back to exact
                self._base, self._delta = None, self._new_delta(None)
            return
        if self._base is not None and self._base.meta == meta:
            return
        try:
            base = _open(self.files, meta)
        except (OSError, ValueError, RuntimeError) as exc:
            log.warning("ANN base %s unusable, searching exactly: %s", meta.index_file, exc)
            return
        self._base, self._delta = base, self._new_delta(meta)

    def _recount_dead(self, base: _Base, delta: VectorIndex) -> None:
        # Tombstones were pruned past the base: compare its rows with the table.
        f = self.files
        live = self.store.live_embedding_ids(f.source_id, f.kind, f.model, f.dim,
                                             upto=base.meta.watermark)
        gone = base.ids[~np.isin(base.ids, live, assume_unique=True)]
        delta.dead_below = set(gone.tolist())
        delta.below_lost = False

    def _needs_build(self) -> bool:
        base, delta = self._base, self._delta
        if base is None:
            return len(delta) >= self.min_rows
        grown = len(delta) >= max(self.rebuild_min, REBUILD_SHARE * len(base.ids))
        return grown or len(delta.dead_below) > DEAD_SHARE * len(base.ids)

    def _maybe_rebuild(self) -> None:
        if not self.background or not self._needs_build():
            return
        now = time.monotonic()
        with self._lock:
            if self._builder is not None and self._builder.is_alive():
                return
            if now - self._last_attempt < self.retry_s:
                return
            self._last_attempt = now
            self._builder = threading.Thread(target=self._build_in_background, daemon=True,
                                             name=f"brainkeep-ann-{self.files.kind}")
            self._builder.start()

    def _build_in_background(self) -> None:
        try:
            build_base(self.store, self.files, threads=1)
        except Exception:  # a thread's top level: log, keep serving from exact + old base
            log.exception("building the ANN base %s failed", self.files.meta_path)

    def build_if_needed(self) -> BaseMeta | None:
        """Build the next base now when a search would start one (``brainkeep embed``)."""
        self.sync()
        if not self._needs_build():
            return None
        self.wait_for_build()  # a background build of this process finishes first
        return self.build() if self._needs_build() else None

    def build(self, *, full: bool = False) -> BaseMeta | None:
        """Build the next base now, in this thread (``brainkeep embed``, tests)."""
        meta = build_base(self.store, self.files, full=full)
        self.sync()
        return meta

    def wait_for_build(self, timeout: float | None = None) -> None:
        """Wait for a background build of this process to finish (tests, shutdown)."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)

    # -- search ------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, *, include_private: bool,
               only_items: set[int] | None = None) -> list[VectorHit]:
        """The ``k`` rows most similar to ``query``, best first (see ``VectorIndex.search``)."""
        self.sync()
        base, delta = self._base, self._delta
        if base is None or k <= 0:
            return delta.search(query, k, include_private=include_private,
                                only_items=only_items)
        if only_items is not None and len(only_items) <= EXACT_ITEMS_MAX:
            return self.exact_items(query, k, include_private=include_private, items=only_items)
        hits = delta.search(query, k, include_private=include_private, only_items=only_items)
        hits += self._search_base(base, delta.dead_below, query, k, include_private, only_items)
        hits.sort(key=lambda h: -h.cosine)
        return hits[:k]

    def _search_base(self, base: _Base, dead: set[int], query: np.ndarray, k: int,
                     include_private: bool, only_items: set[int] | None) -> list[VectorHit]:
        total = len(base.ids)
        fetch = min(total, max(2 * k, k + 16))
        allowed = None if only_items is None else np.fromiter(only_items, dtype=np.int64)
        q = query.astype(np.float32, copy=False)
        while True:
            found = base.graph.search(q, fetch)
            keys = np.asarray(found.keys, dtype=np.int64)
            pos = np.searchsorted(base.ids, keys)
            rows = base.rows[pos]
            keep = np.fromiter((int(key) not in dead for key in keys), dtype=bool,
                               count=len(keys))
            if not include_private:
                keep &= rows[:, 3] == 0
            if allowed is not None:
                keep &= np.isin(rows[:, 1], allowed)
            if keep.sum() >= k or fetch >= total:
                break
            fetch = min(total, fetch * 4)
        cosines = 1.0 - np.asarray(found.distances, dtype=np.float64)
        return [VectorHit(int(r[1]), int(r[2]), float(c))
                for r, c, ok in zip(rows, cosines, keep, strict=True) if ok][:k]

    def exact_items(self, query: np.ndarray, k: int, *, include_private: bool,
                    items: set[int]) -> list[VectorHit]:
        """The ``k`` of ``items`` most similar to ``query``, scored exactly from the table."""
        f = self.files
        stored = self.store.embeddings_of_items(f.source_id, f.kind, f.model, f.dim,
                                                sorted(items))
        if not len(stored):
            return []
        matrix = np.frombuffer(stored.vectors, dtype=np.float32).reshape(len(stored), f.dim)
        scores = matrix @ query.astype(np.float32, copy=False)
        if not include_private:
            scores = np.where(np.asarray(stored.private, dtype=bool), -np.inf, scores)
        order = np.argsort(-scores, kind="stable")[:k]
        return [VectorHit(stored.item_ids[i], stored.page_ids[i], float(scores[i]))
                for i in order if np.isfinite(scores[i])]
