"""Backfill: give every live chunk and active memory a vector in the current model space.

Resumable by construction: work is "rows without a vector in this space",
committed a batch at a time, so an interrupted run loses at most the batches
in flight (two) and the next run continues where it stopped. Switching models
(a different model id or dimension than the one recorded in ``meta``) makes
every row "missing" again, so everything is re-embedded; vectors of the old
space are never searched meanwhile (indexes load one space only) and are
deleted once the new space is complete.

Throughput (docs/search.md, ``bench/embed_cli.py``): tasks are read a window
at a time and sorted by length, so each model call holds texts of about one
length and the model pads little; a text whose hash already has a vector in
this space (another row, or an earlier run) is copied, not embedded, and
equal texts in a window are embedded once; the model embeds batch k+1 on a
worker thread while this thread commits batch k, each batch in one short
write transaction, so a server on the same brain keeps writing meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from brainkeep.core.embedding import (
    SPACE_DIM_KEY,
    SPACE_MODEL_KEY,
    Embeddings,
    task_text,
    text_hash,
    to_blob,
)
from brainkeep.core.retrieval import CHUNK, MEMORY, EmbedTask, NewEmbedding

# Texts per model call and per commit: large enough to keep every core busy
# for a while, small enough that a commit is short and an interruption cheap.
BATCH_TEXTS = 512
# Tasks read (and length-sorted) at once, in batches: more cuts padding further.
WINDOW_BATCHES = 8
# Tombstones kept after a backfill: enough for other processes to catch up
# incrementally; one that fell further behind simply reloads its matrix.
KEEP_TOMBSTONES = 50_000

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BackfillPlan:
    """What a backfill would do, before it runs."""

    model: str
    dim: int
    previous: tuple[str, int] | None  # the space recorded in meta, if any
    missing_chunks: int
    missing_memories: int

    @property
    def switching(self) -> bool:
        """The configured model differs from the recorded one: re-embed everything."""
        return self.previous is not None and self.previous != (self.model, self.dim)

    @property
    def total(self) -> int:
        return self.missing_chunks + self.missing_memories


@dataclass(frozen=True)
class BackfillReport:
    """What a backfill did."""

    plan: BackfillPlan
    embedded: int  # texts run through the model
    reused: int  # rows filled from an identical text's stored (or just embedded) vector
    seconds: float
    dropped_old: int  # vectors of other model spaces deleted at the end
    model_calls: int = 0  # ``Embeddings.embed`` calls
    cpu_seconds: float = 0.0  # this process, all threads (the model's included)

    @property
    def texts_per_s(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0


def plan_backfill(embeddings: Embeddings) -> BackfillPlan:
    """Count the work (one query per kind)."""
    missing = embeddings.store.count_missing_embeddings(
        embeddings.source_id, embeddings.model, embeddings.dim
    )
    return BackfillPlan(
        model=embeddings.model,
        dim=embeddings.dim,
        previous=embeddings.recorded_space(),
        missing_chunks=missing[CHUNK],
        missing_memories=missing[MEMORY],
    )


def backfill(
    embeddings: Embeddings, *, batch: int = BATCH_TEXTS, progress: Progress | None = None
) -> BackfillReport:
    """Embed everything that lacks a vector in the current space; record the space.

    Args:
        embeddings: The brain's embedding side (provider + store).
        batch: Texts per model call and per commit.
        progress: Called with (rows done, rows planned) after each commit.

    Raises:
        Unavailable: the provider failed; batches already committed are kept.
    """
    plan = plan_backfill(embeddings)
    store = embeddings.store
    counts = {"embedded": 0, "reused": 0, "done": 0, "calls": 0}
    started, cpu_started = time.perf_counter(), time.process_time()
    if progress is not None:
        progress(0, plan.total)

    def commit(rows: list[NewEmbedding]) -> None:
        with store.transaction():
            store.put_embeddings(rows)
        counts["done"] += len(rows)
        if progress is not None:
            progress(counts["done"], max(plan.total, counts["done"]))

    # One worker thread: the model (which fans out over its own threads)
    # runs while this thread talks to the store; the store stays on this thread.
    with ThreadPoolExecutor(1, thread_name_prefix="backfill") as pool:
        pending: tuple[list[_Work], Future[np.ndarray]] | None = None
        for work in _batches(embeddings, batch, counts, commit):
            counts["calls"] += 1
            future = pool.submit(embeddings.embed, [w.text for w in work])
            if pending is not None:
                commit(_rows(embeddings, *pending))
            pending = (work, future)
        if pending is not None:
            commit(_rows(embeddings, *pending))
    seconds = time.perf_counter() - started
    with store.transaction():
        # Usually few: each re-embedded row replaced its old-space vector as it
        # was committed; what is left belongs to rows no longer live.
        dropped = store.delete_other_embeddings(embeddings.source_id, embeddings.model,
                                                embeddings.dim)
        store.set_meta(SPACE_MODEL_KEY, embeddings.model)
        store.set_meta(SPACE_DIM_KEY, str(embeddings.dim))
        store.prune_embedding_tombstones(KEEP_TOMBSTONES)
    return BackfillReport(plan, counts["embedded"], counts["reused"], seconds, dropped,
                          counts["calls"], time.process_time() - cpu_started)


@dataclass(frozen=True)
class _Work:
    """One distinct text to embed and the tasks (rows) that get its vector."""

    text: str
    digest: str
    tasks: tuple[EmbedTask, ...]


def _batches(
    embeddings: Embeddings, batch: int, counts: dict[str, int],
    commit: Callable[[list[NewEmbedding]], None],
) -> Iterator[list[_Work]]:
    """Model-call batches of distinct, length-sorted texts; reusable vectors are committed here.

    Reads a window of tasks per kind in id order (so the next window starts
    after the last id read, whatever was committed), groups them by text hash,
    commits rows whose text already has a vector in this space, and yields
    the rest sorted by length (characters: a proxy that needs no second
    tokenization; the provider sorts each call by tokens).
    """
    store = embeddings.store
    for kind in (CHUNK, MEMORY):
        after = 0
        while True:
            tasks = store.missing_embeddings(
                embeddings.source_id, kind, embeddings.model, embeddings.dim,
                after_item=after, limit=batch * WINDOW_BATCHES,
            )
            if not tasks:
                break
            after = tasks[-1].item_id
            grouped: dict[str, tuple[str, list[EmbedTask]]] = {}
            for task in tasks:
                text = task_text(task)
                grouped.setdefault(text_hash(text), (text, []))[1].append(task)
            known = store.stored_vectors_by_hash(embeddings.model, embeddings.dim,
                                                 list(grouped))
            if known:
                copied = [_row(embeddings, task, digest, blob)
                          for digest, blob in known.items() for task in grouped.pop(digest)[1]]
                counts["reused"] += len(copied)
                commit(copied)
            todo = sorted((_Work(text, digest, tuple(group))
                           for digest, (text, group) in grouped.items()),
                          key=lambda w: len(w.text))
            for lo in range(0, len(todo), batch):
                work = todo[lo : lo + batch]
                counts["embedded"] += len(work)
                counts["reused"] += sum(len(w.tasks) - 1 for w in work)
                yield work


def _rows(
    embeddings: Embeddings, work: list[_Work], future: Future[np.ndarray]
) -> list[NewEmbedding]:
    vectors = future.result()  # re-raises the provider's Unavailable here
    return [_row(embeddings, task, w.digest, to_blob(vector))
            for w, vector in zip(work, vectors, strict=True) for task in w.tasks]


def _row(embeddings: Embeddings, task: EmbedTask, digest: str, blob: bytes) -> NewEmbedding:
    return NewEmbedding(task.kind, task.item_id, embeddings.source_id, task.page_id,
                        task.private, embeddings.model, embeddings.dim, digest, blob)


def bulk_backfill(
    embeddings: Embeddings, *, batch: int = BATCH_TEXTS, progress: Progress | None = None
) -> BackfillReport:
    """``backfill`` on the provider's throughput-tuned twin when it has one (same vectors).

    The serving provider is tuned for one query's latency; a backfill embeds
    thousands of texts, and the local model's ``for_backfill()`` runs one
    model run per core instead (providers/local_embeddings.py).
    """
    tuned = getattr(embeddings.provider, "for_backfill", None)
    bulk = tuned() if tuned is not None else None
    try:
        side = embeddings if bulk is None else embeddings.using(bulk)
        return backfill(side, batch=batch, progress=progress)
    finally:
        if bulk is not None:
            bulk.close()
