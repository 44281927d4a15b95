"""Backfill: give every live chunk and active memory a vector in the current model space.

Resumable by construction: work is "rows without a vector in this space",
committed a batch at a time, so an interrupted run loses at most one batch
and the next run continues where it stopped. Switching models (a different
model id or dimension than the one recorded in ``meta``) makes every row
"missing" again, so everything is re-embedded; vectors of the old space are
never searched meanwhile (indexes load one space only) and are deleted once
the new space is complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from brainkeep.core.embedding import (
    SPACE_DIM_KEY,
    SPACE_MODEL_KEY,
    Embeddings,
    embedding_text,
    text_hash,
    to_blob,
)
from brainkeep.core.retrieval import CHUNK, MEMORY, NewEmbedding

BATCH_TEXTS = 256
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
    reused: int  # rows filled from an identical text's stored vector
    seconds: float
    dropped_old: int  # vectors of other model spaces deleted at the end

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

    Raises:
        Unavailable: the provider failed; batches already committed are kept.
    """
    plan = plan_backfill(embeddings)
    store, source = embeddings.store, embeddings.source_id
    embedded = reused = done = 0
    started = time.perf_counter()
    if progress is not None:
        progress(0, plan.total)
    for kind in (CHUNK, MEMORY):
        after = 0
        while True:
            tasks = store.missing_embeddings(
                source, kind, embeddings.model, embeddings.dim, after_item=after, limit=batch
            )
            if not tasks:
                break
            # Chunks are embedded as readable text (links and markup removed).
            texts_of = [
                embedding_text(t.text, t.title) if t.kind == CHUNK else t.text for t in tasks
            ]
            hashes = [text_hash(t) for t in texts_of]
            known = store.stored_vectors_by_hash(embeddings.model, embeddings.dim,
                                                 list(set(hashes)))
            todo = list(dict.fromkeys(h for h in hashes if h not in known))
            if todo:
                texts = dict(zip(hashes, texts_of, strict=True))
                vectors = embeddings.embed([texts[h] for h in todo])
                known.update({h: to_blob(v) for h, v in zip(todo, vectors, strict=True)})
            embedded += len(todo)
            reused += len(tasks) - len(todo)
            rows = [
                NewEmbedding(t.kind, t.item_id, source, t.page_id, t.private, embeddings.model,
                             embeddings.dim, h, known[h])
                for t, h in zip(tasks, hashes, strict=True)
            ]
            with store.transaction():
                store.put_embeddings(rows)
            done += len(tasks)
            after = tasks[-1].item_id
            if progress is not None:
                progress(done, max(plan.total, done))
    seconds = time.perf_counter() - started
    with store.transaction():
        dropped = store.delete_other_embeddings(source, embeddings.model, embeddings.dim)
        store.set_meta(SPACE_MODEL_KEY, embeddings.model)
        store.set_meta(SPACE_DIM_KEY, str(embeddings.dim))
        store.prune_embedding_tombstones(KEEP_TOMBSTONES)
    return BackfillReport(plan, embedded, reused, seconds, dropped)
