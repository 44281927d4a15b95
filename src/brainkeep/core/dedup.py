"""Dedup and supersession by embedding similarity (``FactService.similarity``).

Candidates are the active facts of the same source and entity that the
caller could read, and that are at least as visible as the new fact: a
remote caller must never learn a private fact's id through ``duplicate``, and
a world fact must never be swallowed by (or expire into) a private one that
remote readers cannot see.

The model runs before the write transaction (``prepare``), never inside it,
so a slow model never holds SQLite's write lock; ``nearest`` re-reads the
candidates inside the transaction, so a fact expired meanwhile is not used.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from brainkeep.core.context import Caller
from brainkeep.core.embedding import Embeddings, text_hash, to_blob
from brainkeep.core.memory.facts import SimilarFact
from brainkeep.core.models import Memory, MemoryDraft
from brainkeep.core.retrieval import MEMORY, NewEmbedding
from brainkeep.errors import Unavailable

log = logging.getLogger("brainkeep.dedup")

# Newest facts of one entity considered; older ones are rarely restated.
CANDIDATE_CAP = 200
# Candidates written without a vector (gRPC, before embeddings were set up)
# embedded on the fly, in the same model call as the new fact.
EMBED_MISSING_CAP = 16


@dataclass(frozen=True)
class PreparedFact:
    """The new fact's vector, plus vectors for candidates that had none."""

    vector: np.ndarray
    extra: dict[int, np.ndarray]


def candidate_visibilities(draft: MemoryDraft, caller: Caller) -> tuple[str, ...]:
    """Which facts may absorb or be superseded by ``draft`` (see the module docstring)."""
    if caller.remote or draft.visibility == "world":
        return ("world",)
    return ("world", "private")


class EmbeddingSimilarity:
    """``facts.FactSimilarity`` backed by the brain's embedding provider."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def _candidates(
        self, draft: MemoryDraft, caller: Caller, now: str
    ) -> list[tuple[Memory, bytes | None]]:
        assert draft.entity_slug is not None
        e = self.embeddings
        return e.store.fact_candidates(
            draft.source_id, draft.entity_slug, now,
            scope=caller.read_scope, visibilities=candidate_visibilities(draft, caller),
            model=e.model, dim=e.dim, limit=CANDIDATE_CAP,
        )

    def prepare(self, draft: MemoryDraft, caller: Caller, now: str) -> PreparedFact | None:
        """Embed the fact (and vector-less candidates); None when the provider fails."""
        missing: list[Memory] = []
        if draft.entity_slug:
            missing = [m for m, blob in self._candidates(draft, caller, now) if blob is None]
            missing = missing[:EMBED_MISSING_CAP]
        try:
            vectors = self.embeddings.embed([draft.text, *(m.text for m in missing)])
        except Unavailable as exc:
            # The caller answers `degraded_dedup`; the operator needs the cause.
            log.warning("dedup without vectors: %s", exc.message)
            return None
        return PreparedFact(vectors[0], {m.id: v for m, v in zip(missing, vectors[1:],
                                                                  strict=True)})

    def nearest(
        self, draft: MemoryDraft, prepared: PreparedFact, caller: Caller, now: str
    ) -> SimilarFact | None:
        """The most similar candidate (call inside the write transaction)."""
        if not draft.entity_slug:
            return None
        best: SimilarFact | None = None
        fresh: list[NewEmbedding] = []
        e = self.embeddings
        for memory, blob in self._candidates(draft, caller, now):
            if blob is not None:
                vector = np.frombuffer(blob, dtype=np.float32)
            elif memory.id in prepared.extra:
                vector = prepared.extra[memory.id]
                fresh.append(NewEmbedding(
                    MEMORY, memory.id, memory.source_id, None, memory.visibility != "world",
                    e.model, e.dim, text_hash(memory.text), to_blob(vector),
                ))
            else:
                continue
            cosine = float(vector @ prepared.vector)
            if best is None or cosine > best.cosine:
                best = SimilarFact(memory, cosine)
        if fresh:
            e.store.put_embeddings(fresh)
        return best

    def index(self, memory: Memory, prepared: PreparedFact) -> None:
        """Store the new fact's vector (inside the write transaction)."""
        self.embeddings.write_memory(memory, prepared.vector)
