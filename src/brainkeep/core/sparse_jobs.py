"""Backfill of the learned-sparse arm: every live chunk and active memory gets a sparse vector.

The same contract as the dense backfill (core/embedding_jobs.py): work is
"rows without a vector in this model", read a window at a time in id order
and committed a batch at a time, so an interrupted run loses at most the
batches in flight and the next run continues where it stopped. A window is
sorted by text length before it is cut into batches (the encoder pads a
batch to its longest text), equal texts are encoded once, and batches are
encoded on ``workers`` threads at once (numpy's matrix products release the
GIL: on 2 cores two workers run ~1.8x one) while this thread commits.
At the end SQLite's postings blocks are rebuilt, dropping entries of rows that are gone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from brainkeep.core.embedding import task_text
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask
from brainkeep.core.sparse import Sparse
from brainkeep.core.sparse_terms import SparseTerms

BATCH_TEXTS = 64
WINDOW_BATCHES = 16

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SparseReport:
    """What a sparse backfill did."""

    model: str
    missing_chunks: int
    missing_memories: int
    encoded: int  # distinct texts run through the model
    stored: int  # rows written
    pruned: int  # index entries of gone rows dropped
    seconds: float
    cpu_seconds: float  # this process, all threads

    @property
    def total(self) -> int:
        return self.missing_chunks + self.missing_memories

    @property
    def texts_per_s(self) -> float:
        return self.encoded / self.seconds if self.seconds > 0 else 0.0


def backfill_sparse(sparse: Sparse, *, batch: int = BATCH_TEXTS, workers: int | None = None,
                    progress: Progress | None = None) -> SparseReport:
    """Encode and store every row lacking a sparse vector in ``sparse.model``.

    Raises:
        Unavailable: the model cannot be loaded; batches already committed are kept.
    """
    missing = sparse.index.count_missing()
    total = missing[CHUNK] + missing[MEMORY]
    started, cpu_started = time.perf_counter(), time.process_time()
    counts = {"encoded": 0, "stored": 0, "done": 0}
    if progress is not None:
        progress(0, total)
    threads = max(1, workers or os.cpu_count() or 1)
    with ThreadPoolExecutor(threads, thread_name_prefix="sparse-backfill") as pool:
        pending: list[tuple[list[tuple[str, list[EmbedTask]]], Future[list[SparseTerms]]]] = []
        for work in _batches(sparse, batch):
            counts["encoded"] += len(work)
            pending.append((work, pool.submit(sparse.encode, [text for text, _ in work])))
            while len(pending) > threads:
                _commit(sparse, *pending.pop(0), counts, progress, total)
        for item in pending:
            _commit(sparse, *item, counts, progress, total)
    pruned = sparse.index.prune()  # takes the write lock itself, for as short as it can
    return SparseReport(sparse.model, missing[CHUNK], missing[MEMORY], counts["encoded"],
                        counts["stored"], pruned, time.perf_counter() - started,
                        time.process_time() - cpu_started)


def _commit(sparse: Sparse, work: list[tuple[str, list[EmbedTask]]],
            future: Future[list[SparseTerms]], counts: dict[str, int],
            progress: Progress | None, total: int) -> None:
    vectors = future.result()  # re-raises the encoder's Unavailable here
    tasks = [task for _, group in work for task in group]
    expanded = [vector for (_, group), vector in zip(work, vectors, strict=True)
                for _ in group]
    with sparse.store.transaction():
        counts["stored"] += sparse.index.put(sparse.rows_for(tasks, expanded))
    counts["done"] += len(tasks)
    if progress is not None:
        progress(counts["done"], max(total, counts["done"]))


def _batches(sparse: Sparse, batch: int) -> Iterator[list[tuple[str, list[EmbedTask]]]]:
    """Batches of distinct texts (each with the rows that get its vector), length-sorted."""
    for kind in (CHUNK, MEMORY):
        after = 0
        while True:
            tasks = sparse.index.missing(kind, after_item=after, limit=batch * WINDOW_BATCHES)
            if not tasks:
                break
            after = tasks[-1].item_id
            grouped: dict[str, list[EmbedTask]] = {}
            for task in tasks:
                grouped.setdefault(task_text(task, context=False), []).append(task)
            todo = sorted(grouped.items(), key=lambda item: len(item[0]))
            for lo in range(0, len(todo), batch):
                yield todo[lo : lo + batch]
